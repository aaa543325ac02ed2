#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Logging
import ServiceLifecycle
import SheetConfig
import SheetCore
import SheetInput
import SheetProtocol
import SheetServer
import SheetService

/// The daemon: touch input through libinput (or a recording), the gesture and sheet engine,
/// and the `io.sheetd.Sheet` varlink socket.
@main
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

    @Option(help: "The input: udev[:SEAT] (default udev:seat0), path:DEV[,DEV...] or replay:FILE[@SPEED|@max].")
    var input: String?

    @Option(help: "The socket to listen on, unless systemd passes one (default /run/sheetd/io.sheetd.Sheet).")
    var socket: String?

    @OptionGroup var engine: EngineFlags

    @Option(name: .customLong("socket-mode"), help: "Octal mode of a socket the daemon creates (default 0660).")
    var socketMode: String?

    @Option(name: .customLong("socket-group"), help: "Group of a socket the daemon creates; its members may control the sheet.")
    var socketGroup: String?

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
    func settings() throws -> Settings {
        try engine.settings(extra: [
            ("input", input), ("socket", socket), ("socket-mode", socketMode), ("socket-group", socketGroup),
            ("client-stall-timeout", clientStallTimeout), ("max-connections", maxConnections),
            ("max-connections-per-user", maxConnectionsPerUser), ("client-idle-timeout", clientIdleTimeout), ("log-level", logLevel),
            ("state-directory", stateDirectory),
        ])
    }

    func run() async throws {
        var settings = try settings()
        // systemd's StateDirectory=sheetd says where, unless the configuration did.
        if settings.stateDirectory == nil, let folders = Systemd.environment()["STATE_DIRECTORY"],
           let first = folders.split(separator: ":").first {
            settings.stateDirectory = String(first)
        }
        if checkConfig {
            print("configuration ok: input \(settings.input), socket \(settings.socketPath), screen \(settings.engine.screen), policy \(settings.engine.sheet.ruleSet.rawValue), initial \(settings.engine.initialDetent), detents \(settings.engine.sheet.detents.map(\.name).joined(separator: ","))")
            return
        }
        let systemd = Systemd()
        let journal = Systemd.environment()["JOURNAL_STREAM"] != nil
        let level = Logger.Level(rawValue: settings.logLevel) ?? .info
        LoggingSystem.bootstrap { label in DaemonLogHandler(label: label, level: level, journal: journal) }
        let logger = Logger(label: "sheetd")

        let loop: EngineLoop
        do {
            loop = try EngineLoop(settings: settings, systemd: systemd, logger: logger)
        } catch {
            logger.critical("cannot open the input: \(error)")
            throw ExitCode(69)  // EX_UNAVAILABLE
        }
        var serverConfiguration = ServerConfiguration(socketPath: settings.socketPath)
        serverConfiguration.inheritedDescriptor = Systemd.takeListeningSocket()
        serverConfiguration.socketMode = mode_t(settings.socketMode)
        serverConfiguration.apply(settings)
        if let name = settings.socketGroup {
            guard let group = getgrnam(name) else {
                logger.critical("\(DaemonError.unknownGroup(name))")
                throw ExitCode(78)
            }
            serverConfiguration.socketGroup = group.pointee.gr_gid
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
        logger.notice("listening on \(serverConfiguration.inheritedDescriptor.map { "the socket systemd passed (fd \($0))" } ?? settings.socketPath); input \(settings.input)")

        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(service: ServerService(server: server, systemd: systemd), successTerminationBehavior: .gracefullyShutdownGroup),
                    .init(service: InputService(loop: loop), successTerminationBehavior: .gracefullyShutdownGroup),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await group.run()
        systemd.notify("STOPPING=1")
        logger.notice("stopped")
    }
}

/// Hands the server's control calls to the engine loop.
final class ControlBridge: SheetServiceDelegate {
    let loop: EngineLoop
    init(loop: EngineLoop) { self.loop = loop }

    func devices() -> [DeviceReport] {
        loop.devices.map { DeviceReport(name: $0.name, node: $0.node, type: $0.kind.rawValue, used: $0.used, reason: $0.reason) }
    }

    func content() -> SharedContent { loop.content }

    func control(_ request: ControlRequest, from peer: PeerCredentials,
                 completion: @escaping @Sendable (ControlResult) -> Void) {
        loop.submit(request, completion: completion)
    }
}

/// The input loop as a service: its own thread, stopped on graceful shutdown.
struct InputService: Service {
    let loop: EngineLoop

    func run() async throws {
        await withGracefulShutdownHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let thread = LoopThread(loop: loop, done: continuation)
                thread.start()
            }
        } onGracefulShutdown: {
            loop.stop()
        }
    }
}

/// The varlink server as a service: serves until graceful shutdown, then closes every
/// connection and removes the socket it made.
struct ServerService: Service {
    let server: VarlinkServer
    let systemd: Systemd

    func run() async throws {
        // The group traps SIGTERM before it runs its services: only now may a stop come at any
        // moment, so only now is the daemon ready (a SIGTERM a moment after READY=1 used to kill
        // it without a clean stop).
        systemd.notify("READY=1")
        try? await gracefulShutdown()
        await server.shutdown()
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

    func start() {
        let box = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
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
