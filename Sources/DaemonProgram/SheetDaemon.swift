#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Logging
import NIOCore
import NIOPosix
import SheetConfig
import SheetCore
import SheetInput
import SheetProtocol
import SheetServer
import SheetService

/// The daemon: touch input through libinput (or a recording), the gesture and sheet engine,
/// and the `io.sheetd.Sheet` varlink socket.
struct SheetDaemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sheetd",
        abstract: "Recognise touch gestures and drive a bottom sheet; publish it on a varlink socket.",
        discussion: """
            Settings come from the configuration file (\(Settings.defaultPath) unless --config names \
            another; a missing default file is fine) and flags override them. See docs/configuration.md.

            Exit status: 0 after SIGTERM or SIGINT, 64 for bad flags, 78 for a bad configuration file, \
            69 when the input or the socket cannot be opened.
            """,
        version: "0.1.0")

    @Option(help: "The seat whose devices the daemon reads (udev ID_SEAT; default seat0), with sockets of its own: /run/sheetd/SEAT/ (seat0: /run/sheetd/).")
    var seat: String?

    @Option(help: "The display connector the sheet lives on (HDMI-A-1, DSI-1): only the touchscreens on it are read (udev WL_OUTPUT; those without are on the first connected display). Default: every touchscreen of the seat.")
    var output: String?

    @Option(help: "The input: udev[:SEAT] (default udev:seat0), path:DEV[,DEV...], replay:FILE[@SPEED|@max] or none (only programs feeding io.sheetd.Input).")
    var input: String?

    @Option(help: "The socket to listen on, unless systemd passes one (default /run/sheetd/io.sheetd.Sheet, or the seat's).")
    var socket: String?

    @OptionGroup var engine: EngineFlags

    @Option(name: .customLong("input-socket"), help: "The io.sheetd.Input socket, where programs feed touches, or none (default io.sheetd.Input beside --socket).")
    var inputSocket: String?

    @Option(name: .customLong("input-group"), help: "Group of an input socket the daemon creates; its members may feed touches.")
    var inputGroup: String?

    @Option(name: .customLong("socket-mode"), help: "Octal mode of a socket the daemon creates (default 0660).")
    var socketMode: String?

    @Option(name: .customLong("socket-group"), help: "Group of a socket the daemon creates; its members may control the sheet.")
    var socketGroup: String?

    @Option(name: .customLong("render-group"), help: "The renderers' group (a name or a number): its members read every program's sheet (default sheetd-render, where there is one).")
    var renderGroup: String?

    @Option(name: .customLong("client-stall-timeout"), help: "Seconds a subscriber may take no bytes before it is dropped (default 10).")
    var clientStallTimeout: String?

    @Option(name: .customLong("max-connections"), help: "Most clients at once (default 256).")
    var maxConnections: String?

    @Option(name: .customLong("max-connections-per-user"), help: "Most clients one user may have at once (default half of --max-connections).")
    var maxConnectionsPerUser: String?

    @Option(name: .customLong("client-idle-timeout"), help: "Seconds a client may make no call before it is disconnected; subscribers are never idle (default 10).")
    var clientIdleTimeout: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String?

    @Option(name: .customLong("state-directory"), help: "Where the content, its order and the resting detent are kept across restarts (default $STATE_DIRECTORY from systemd; none without it).")
    var stateDirectory: String?

    @Flag(name: .customLong("check-config"), help: "Check the configuration file and flags, print the result, and exit.")
    var checkConfig = false

    /// The file, then the flags over it.
    func settings() throws -> Settings { try engine.settings(extra: extraFlags) }

    /// The daemon's own flags, as `(key, value)` over the file's keys.
    var extraFlags: [(String, String?)] {
        [
            ("seat", seat), ("output", output), ("input", input), ("socket", socket), ("socket-mode", socketMode), ("socket-group", socketGroup), ("render-group", renderGroup),
            ("input-socket", inputSocket), ("input-group", inputGroup),
            ("client-stall-timeout", clientStallTimeout), ("max-connections", maxConnections),
            ("max-connections-per-user", maxConnectionsPerUser), ("client-idle-timeout", clientIdleTimeout), ("log-level", logLevel),
            ("state-directory", stateDirectory),
        ]
    }

    /// The settings, with systemd's `StateDirectory=sheetd` as the state directory unless the
    /// configuration names one.
    static func withStateDirectory(_ settings: Settings) -> Settings {
        var settings = settings
        if settings.stateDirectory == nil, let folders = Systemd.environment()["STATE_DIRECTORY"],
           let first = folders.split(separator: ":").first {
            settings.stateDirectory = String(first)
        }
        return settings
    }

    func run() async throws {
        let settings = Self.withStateDirectory(try settings())
        if checkConfig {
            print("configuration ok: input \(settings.input), socket \(settings.socketPath), screen \(settings.engine.screen), policy \(settings.engine.sheet.ruleSet.rawValue), initial \(settings.engine.initialDetent), detents \(settings.engine.sheet.detents.map(\.name.description).joined(separator: ","))")
            return
        }
        let systemd = Systemd()
        let journal = Systemd.environment()["JOURNAL_STREAM"] != nil
        DaemonLogHandler.setLevel(Logger.Level(rawValue: settings.logLevel) ?? .info)
        LoggingSystem.bootstrap { label in DaemonLogHandler(label: label, journal: journal) }
        let logger = Logger(label: "sheetd")
        if !GlobalJobs.installed {
            logger.notice("Swift concurrency's global executor was already taken over: the daemon's tasks run where it sends them")
        }

        let loop: EngineLoop
        do {
            loop = try EngineLoop(settings: settings, systemd: systemd, logger: logger)
        } catch {
            logger.critical("cannot open the input: \(error)")
            throw ExitCode(69)  // EX_UNAVAILABLE
        }
        var serverConfiguration = ServerConfiguration(socketPath: settings.socketPath)
        let inherited = Systemd.takeListeningSockets()
        serverConfiguration.inheritedDescriptor = inherited["varlink"]
        serverConfiguration.inputInheritedDescriptor = inherited["input"]
        serverConfiguration.inputSocketPath = inherited["input"] == nil ? settings.inputSocketPath : nil
        serverConfiguration.socketMode = mode_t(settings.socketMode)
        serverConfiguration.apply(settings)
        if let name = settings.socketGroup {
            guard let group = getgrnam(name) else {
                logger.critical("\(DaemonError.unknownGroup(name))")
                throw ExitCode(78)
            }
            serverConfiguration.socketGroup = group.pointee.gr_gid
        }
        if let name = settings.renderGroup {
            if let number = gid_t(name) {
                serverConfiguration.renderGroup = number
            } else if let group = getgrnam(name) {
                serverConfiguration.renderGroup = group.pointee.gr_gid
            } else {
                logger.critical("\(DaemonError.unknownGroup(name))")
                throw ExitCode(78)
            }
        }
        if let name = settings.inputGroup {
            guard let group = getgrnam(name) else {
                logger.critical("\(DaemonError.unknownGroup(name))")
                throw ExitCode(78)
            }
            serverConfiguration.inputSocketGroup = group.pointee.gr_gid
            serverConfiguration.inputGroup = group.pointee.gr_gid
        }
        let delegate = ControlBridge(loop: loop)
        let server = VarlinkServer(configuration: serverConfiguration, delegate: delegate, logger: logger)
        loop.server = server
        loop.begin()
        do {
            try await server.start()
        } catch {
            logger.critical("\(error)")
            throw ExitCode(69)
        }
        logger.notice("listening on \(serverConfiguration.inheritedDescriptor.map { "the socket systemd passed (fd \($0))" } ?? settings.socketPath); input \(settings.input)\(serverConfiguration.inputInheritedDescriptor.map { "; io.sheetd.Input on the socket systemd passed (fd \($0))" } ?? settings.inputSocketPath.map { "; io.sheetd.Input on \($0)" } ?? "")")

        // SIGTERM and SIGINT stop the input loop and with it the group; SIGHUP reloads. Caught
        // before READY=1, so that neither a stop nor a reload ever finds them fatal.
        let (hangups, hangup) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        loop.onHangup = { hangup.yield() }
        loop.catchSignals()
        let resolve = engine.resolver(extra: extraFlags)
        let reloader = Reloader(resolve: { try Self.withStateDirectory(resolve()) }, loop: loop, server: server,
                                limits: serverConfiguration, systemd: systemd, logger: logger)
        // READY=1 once the socket listens: a stop may come at any moment from here on (a
        // SIGTERM a moment after READY=1 once killed the daemon without a clean stop).
        systemd.notify("READY=1")
        // SIGHUP → a reload, one at a time, while the loop runs. A reload the loop never took
        // (one that came as it stopped) is left behind: the process is about to end.
        Task { for await _ in hangups { await reloader.reload() } }
        // The input loop on a thread of its own (it blocks in poll, so not on the concurrency
        // pool) until SIGTERM or SIGINT stops it; then every connection is closed and the
        // socket the daemon made removed.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            LoopThread(loop: loop, done: continuation).start()
        }
        hangup.finish()
        await server.shutdown()
        systemd.notify("STOPPING=1")
        logger.notice("stopped")
    }
}

/// Hands the server's control calls to the engine loop.
final class ControlBridge: SheetServiceDelegate {
    let loop: EngineLoop
    init(loop: EngineLoop) { self.loop = loop }

    func devices() -> [InputDevice] { loop.devices }

    func content(shown: Bool) -> SharedContent { loop.content(shown: shown) }

    func control(_ call: SheetCall, completion: @escaping @Sendable (ControlResult) -> Void) {
        loop.inbox.submit(call, completion: completion)
    }

    func programGone(_ program: UInt64) { loop.inbox.programGone(program) }

    func input(_ request: InputRequest, connection: UInt64, from peer: PeerCredentials, caller: any InputCaller) {
        loop.inbox.submit(LoopInbox.InputCall(request: request, connection: connection, peer: peer, caller: caller))
    }

    func inputConnectionClosed(_ connection: UInt64) { loop.inbox.inputConnectionClosed(connection) }

    func stats(completion: @escaping @Sendable (DaemonStats) -> Void) { loop.inbox.submitStats(completion) }
    func refreshState(completion: @escaping @Sendable () -> Void) { loop.inbox.submitRefresh(completion) }
}

/// Reads the configuration again and applies what may change at run time, telling systemd
/// (`RELOADING=1` with `MONOTONIC_USEC`, then `READY=1`). A file that cannot be used is
/// logged with its FILE:LINE and the old settings stay.
struct Reloader: Sendable {
    let resolve: @Sendable () throws -> Settings
    let loop: EngineLoop
    let server: VarlinkServer
    let limits: ServerConfiguration
    let systemd: Systemd
    let logger: Logger

    func reload() async {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        systemd.notify("RELOADING=1\nMONOTONIC_USEC=\(Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000)")
        logger.notice("reloading the configuration")
        do {
            let settings = try resolve()
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                loop.inbox.reload(settings) { done.resume() }
            }
            var limits = limits
            limits.apply(settings)
            server.update(limits: limits)
            DaemonLogHandler.setLevel(Logger.Level(rawValue: settings.logLevel) ?? .info)
            systemd.notify("READY=1")
        } catch {
            logger.error("reload refused, the settings stay as they were: \(error)")
            systemd.notify("READY=1\nSTATUS=reload refused: \(error)")
        }
    }
}

/// A plain thread for the input loop (it blocks in poll, so it must not sit on the
/// concurrency pool).
final class LoopThread: @unchecked Sendable {
    let loop: EngineLoop
    let done: CheckedContinuation<Void, Never>

    init(loop: EngineLoop, done: CheckedContinuation<Void, Never>) {
        self.loop = loop
        self.done = done
    }

    /// Names the calling thread (at most 15 bytes), as `pthread_setname_np` would; Glibc's
    /// module does not declare that, so through the file the kernel keeps the name in.
    static func name(_ name: StaticString) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = write(descriptor, name.utf8Start, name.utf8CodeUnitCount)
        close(descriptor)
    }

    func start() {
        let box = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            // Named for `top -H` and `ps -L`: a thread takes its creator's name (here one of
            // NIO's, which runs the daemon's tasks), which would hide the thread that reads input.
            LoopThread.name("sheetd-input")
            let me = Unmanaged<LoopThread>.fromOpaque(raw!).takeRetainedValue()
            me.loop.run()
            me.done.resume()
            return nil
        }, box)
        if result != 0 {
            Unmanaged<LoopThread>.fromOpaque(box).release()
            done.resume()
        } else {
            pthread_detach(thread)
        }
    }
}

func printError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}

extension ServerConfiguration {
    /// The limits the settings give: at start, and again at each reload.
    mutating func apply(_ settings: Settings) {
        maximumConnections = settings.maximumConnections
        maximumConnectionsPerUser = settings.maximumConnectionsPerUser
        stallTimeout = .microseconds(Int64(settings.clientStallSeconds * 1_000_000))
        idleTimeout = .microseconds(Int64(settings.clientIdleSeconds * 1_000_000))
    }
}

enum DaemonError: Error, CustomStringConvertible {
    case system(call: String, errno: Int32)
    case unknownGroup(String)

    var description: String {
        switch self {
        case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
        case .unknownGroup(let name): "no group named `\(name)` (sysusers.d/sheetd.conf creates `sheetd`)"
        }
    }
}
