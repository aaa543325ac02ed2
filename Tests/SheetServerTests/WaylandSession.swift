import Foundation
import Glibc
import SheetCore
import SheetRenderKit
import SheetTestSupport

// What the Wayland, screen reader and portal tests run beside the code under test: a headless
// compositor (sway, with Xwayland when asked; labwc; phoc), its screenshots, a window of its
// own, and a message bus.

/// A PNG from grim, decoded.
struct Screenshot {
    let width: Int
    let height: Int
    let rgb: [UInt8]

    func pixel(_ x: Int, _ y: Int) -> RGB {
        let at = (y * width + x) * 3
        return RGB(rgb[at], rgb[at + 1], rgb[at + 2])
    }

    var pixels: [RGB] { (0..<(width * height)).map { RGB(rgb[$0 * 3], rgb[$0 * 3 + 1], rgb[$0 * 3 + 2]) } }
}

/// The compositors kiosks and shells run, from Debian: sway; labwc, Raspberry Pi OS's (in
/// Debian from 13); phoc, Phosh's (the mobile shells').
enum Compositor: String, CaseIterable, Sendable {
    case sway, labwc, phoc

    var program: String { "/usr/bin/\(rawValue)" }

    /// Why this machine does not run it: on Debian 12, labwc is not in the archive, and phoc
    /// 0.24 (on wlroots 0.15) draws no window on a headless output (grim reads a black screen
    /// with a fullscreen window or any other shown). `make debian-13` runs both
    /// (packaging/debian-packages-13). Elsewhere a missing compositor is an error.
    var absence: String? {
        guard systemRelease == "debian-12", self != .sway else { return nil }
        return self == .labwc ? "labwc is in Debian 13 and later, not in Debian 12 (make debian-13 runs it)"
            : "Debian 12's phoc 0.24 draws no window on a headless output (make debian-13 runs it, with phoc 0.46)"
    }
}

/// A wlroots compositor (`Compositor`), headless (no GPU: pixman; no input devices), in a
/// runtime folder of its own, as the user `nobody` when the tests run as root. It is given the
/// output's size (sway's configuration, labwc's wlr-randr, phoc's phoc.ini) and, once it is up,
/// writes the socket's name into a FIFO the test waits on.
final class HeadlessCompositor {
    let kind: Compositor
    let folder: URL
    let process = Process()
    let background = RGB(hex: 0x336699)
    /// WAYLAND_DISPLAY for clients: the socket's full path.
    let display: String
    /// DISPLAY of its Xwayland (`xwayland: true`): for X11 clients such as Orca 43, which reads
    /// the keyboard through X.
    let x11Display: String?
    let logPath: String
    private var mouse: Process?
    /// The write end of the FIFO phoc's session command reads until it closes: phoc ends with
    /// its session.
    private var session: Int32 = -1

    static let unprivileged: (uid: uid_t, gid: gid_t) = (65534, 65534)

    /// `transform`: the output's, `90` turns it a quarter (a portrait panel mounted sideways).
    /// `outputs`: how many (HEADLESS-1, HEADLESS-2, …), each of that size, side by side.
    /// `xwayland`, more outputs than one and a transform: sway's only.
    init(_ kind: Compositor = .sway, width: Int, height: Int, scale: Int = 1, transform: Int = 0, xwayland: Bool = false, outputs: Int = 1) throws {
        self.kind = kind
        precondition(kind == .sway || (!xwayland && outputs == 1 && transform == 0), "xwayland, outputs and transform are the sway sessions'")
        let tools = [kind.program, "/usr/bin/grim"] + (kind == .labwc ? ["/usr/bin/wlr-randr"] : [])
        for tool in tools where !FileManager.default.isExecutableFile(atPath: tool) {
            throw DaemonTestError("\(tool) is missing: `make deps` installs \(kind.rawValue) and grim for the Wayland test")
        }
        let root = getuid() == 0
        if xwayland, let problem = Self.x11SocketFolderProblem(for: root ? Self.unprivileged.uid : getuid()) {
            throw DaemonTestError(problem)
        }
        folder = try temporaryFolder()
        let ready = folder.appendingPathComponent("ready").path
        logPath = folder.appendingPathComponent("\(kind.rawValue).log").path
        guard mkfifo(ready, 0o600) == 0 else { throw DaemonTestError("mkfifo \(ready)") }
        // What the compositor runs once it is up: the output's mode set (labwc has no output
        // configuration of its own), then the socket's name said; "!" and why if not.
        let started = folder.appendingPathComponent("started").path
        var files = [ready, started]
        let arguments: [String]
        switch kind {
        case .sway:
            let config = folder.appendingPathComponent("config").path
            try """
                \(xwayland ? "" : "xwayland disable")
                output * resolution \(width)x\(height) scale \(scale) transform \(transform == 0 ? "normal" : "\(transform)") bg \(background) solid_color
                exec \(started)
                """.write(toFile: config, atomically: true, encoding: .utf8)
            files.append(config)
            arguments = ["--config", config]
            try "#!/bin/sh\necho \"$WAYLAND_DISPLAY $DISPLAY\" > \(ready)\n".write(toFile: started, atomically: true, encoding: .utf8)
        case .labwc:
            let config = folder.appendingPathComponent("labwc")
            try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
            try "<labwc_config></labwc_config>\n".write(to: config.appendingPathComponent("rc.xml"), atomically: true, encoding: .utf8)
            files += [config.path, config.appendingPathComponent("rc.xml").path]
            arguments = ["--config-dir", config.path, "--startup", started]
            try """
                #!/bin/sh
                wlr-randr --output HEADLESS-1 --custom-mode \(width)x\(height) --scale \(scale) 2>&1 | tr '\\n' ' ' > \(folder.path)/randr
                if [ -s \(folder.path)/randr ]; then echo "! wlr-randr: $(cat \(folder.path)/randr)" > \(ready); else echo "$WAYLAND_DISPLAY" > \(ready); fi

                """.write(toFile: started, atomically: true, encoding: .utf8)
        case .phoc:
            let config = folder.appendingPathComponent("phoc.ini").path
            let kept = folder.appendingPathComponent("session").path
            guard mkfifo(kept, 0o600) == 0 else { throw DaemonTestError("mkfifo \(kept)") }
            // Read and write: open at once, with no reader yet.
            session = open(kept, O_RDWR | O_CLOEXEC)
            guard session >= 0 else { throw DaemonTestError("cannot open \(kept)") }
            try "[core]\nxwayland=false\n[output:HEADLESS-1]\nmode = \(width)x\(height)\nscale = \(scale)\n"
                .write(toFile: config, atomically: true, encoding: .utf8)
            files += [config, kept]
            arguments = ["--config", config, "--exec", started]
            try "#!/bin/sh\necho \"$WAYLAND_DISPLAY\" > \(ready)\nexec cat \(kept) > /dev/null\n".write(toFile: started, atomically: true, encoding: .utf8)
        }
        chmod(started, 0o755)
        if root {
            for path in [folder.path] + files { chown(path, Self.unprivileged.uid, Self.unprivileged.gid) }
        }
        chmod(folder.path, 0o700)

        process.executableURL = URL(fileURLWithPath: root ? "/usr/bin/setpriv" : kind.program)
        process.arguments = (root ? ["--reuid=\(Self.unprivileged.uid)", "--regid=\(Self.unprivileged.gid)", "--clear-groups", kind.program] : [])
            + arguments
        process.environment = [
            "PATH": "/usr/bin:/bin", "HOME": folder.path, "XDG_RUNTIME_DIR": folder.path, "XDG_CONFIG_HOME": folder.path,
            "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1",
            "WLR_HEADLESS_OUTPUTS": String(outputs),
        ]
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = FileHandle.nullDevice
        let reader = open(ready, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard reader >= 0 else { throw DaemonTestError("cannot open \(ready)") }
        defer { close(reader) }
        try process.run()
        let logFile = logPath
        let log = { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }
        let line: [UInt8]?
        do { line = try DescriptorLines(reader, what: "word from \(kind.rawValue)").next() } catch {
            throw DaemonTestError("\(error); log:\n\(log())")
        }
        guard let name = line.map({ String(decoding: $0, as: UTF8.self) }) else { throw DaemonTestError("\(kind.rawValue) exited: \(log())") }
        guard !name.hasPrefix("!") else { throw DaemonTestError("\(kind.rawValue)'s output was not set up: \(name.dropFirst(2)); log:\n\(log())") }
        let names = name.split(separator: " ").map(String.init)
        display = folder.appendingPathComponent(names.first ?? "").path
        x11Display = xwayland ? names.dropFirst().first : nil
        if xwayland, x11Display == nil {
            throw DaemonTestError("sway started no Xwayland (no DISPLAY), which this test needs; its log:\n\(log())")
        }
        // Xwayland lets in its own user only: root's X clients are let in too.
        if xwayland, root, let x11Display {
            for tool in ["/usr/bin/Xwayland", "/usr/bin/xhost"] where !FileManager.default.isExecutableFile(atPath: tool) {
                throw DaemonTestError("\(tool) is missing: `make deps` installs xwayland and x11-xserver-utils for the Orca test")
            }
            let xhost = Process()
            xhost.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            xhost.arguments = ["--reuid=\(Self.unprivileged.uid)", "--regid=\(Self.unprivileged.gid)", "--clear-groups",
                               "/usr/bin/xhost", "+SI:localuser:root"]
            xhost.environment = ["PATH": "/usr/bin:/bin", "DISPLAY": x11Display, "HOME": folder.path]
            xhost.standardOutput = FileHandle.nullDevice
            xhost.standardError = FileHandle.nullDevice
            try xhost.run()
            xhost.waitUntilExit()
            guard xhost.terminationStatus == 0 else { throw DaemonTestError("xhost on \(x11Display) failed") }
        }
    }

    /// Xwayland makes its socket in /tmp/.X11-unix: a folder there that `uid` (whom sway runs
    /// as) cannot write to, as one another user's X server left without the world-writable
    /// mode X servers give it, would leave the session without X, and a test waiting for what
    /// an X client does would wait its whole patience. Said at once instead.
    static func x11SocketFolderProblem(for uid: uid_t) -> String? {
        var status = stat()
        guard stat("/tmp/.X11-unix", &status) == 0 else { return nil }
        let mode = status.st_mode
        let writable = uid == 0 || (status.st_uid == uid && mode & S_IWUSR != 0) || mode & S_IWOTH != 0
        guard !writable else { return nil }
        return "this test needs Xwayland, which makes its socket in /tmp/.X11-unix: that folder belongs to uid \(status.st_uid) "
            + "with mode \(String(mode & 0o7777, radix: 8)), and uid \(uid), whom sway runs as, cannot write to it "
            + "(remove it, or give it mode 1777 as X servers do)"
    }

    deinit {
        // SIGKILL: the test runner's children may inherit SIGTERM ignored.
        if let mouse, mouse.isRunning {
            kill(mouse.processIdentifier, SIGKILL)
            mouse.waitUntilExit()
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        if session >= 0 { close(session) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// The output (`output`: the one of that name) as grim reads it back.
    func screenshot(output: String? = nil) throws -> Screenshot {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/grim")
        process.arguments = (output.map { ["-o", $0] } ?? []) + ["-t", "png", "-"]
        process.environment = ["WAYLAND_DISPLAY": display]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let bytes = out.fileHandleForReading.readDataToEndOfFile()
        let problems = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw DaemonTestError("grim: \(String(decoding: problems, as: UTF8.self))") }
        let picture = try PNG.decode(Array(bytes))
        return Screenshot(width: picture.width, height: picture.height, rgb: picture.rgb)
    }

    /// sheetd with `daemon`'s flags, then `sheet-render --backend wayland` on this compositor
    /// following it (with a mouse plugged first, `plugPointer`, and `environment`'s variables
    /// set for it), and the renderer's frame log.
    func session(daemon flags: [String], environment: [String: String?] = [:], renderer extra: [String] = []) throws
        -> (RunningDaemon, Renderer, FrameLogReader) {
        let folder = try temporaryFolder()
        let socket = folder.appendingPathComponent("io.sheetd.Sheet").path
        let frameLog = folder.appendingPathComponent("frames").path
        guard mkfifo(frameLog, 0o600) == 0 else { throw DaemonTestError("mkfifo \(frameLog)") }
        try plugPointer()
        let daemon = try RunningDaemon(flags, socketPath: socket)
        let renderer = try Renderer(["--backend", "wayland", "--socket", socket, "--frame-log", frameLog] + extra, folder: folder,
                                    environment: environment.merging(["WAYLAND_DISPLAY": display]) { $1 })
        return (daemon, renderer, try FrameLogReader(frameLog))
    }

    /// A window of its own (`sheet-wayland-probe --key-window`), focused as the compositor
    /// shows it, that says which keys it gets.
    func window() throws -> ProbeWindow { try ProbeWindow(display: display) }

    /// A virtual keyboard that stays until the process returned is killed (`wtype` sleeping an
    /// hour).
    func plugKeyboard() throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wtype")
        process.arguments = ["-s", "3600000"]
        process.environment = ["WAYLAND_DISPLAY": display]
        try process.run()
        return process
    }

    /// A mouse that stays plugged (`sheet-wayland-probe --pointer`) until sway goes, there once
    /// this returns: a client that connects afterwards binds its pointer as it starts, so a
    /// click or a drag later reaches it for certain (with only the probe's own pointer, plugged
    /// for the click, a renderer that read of the new device late never saw the click). sway
    /// draws its cursor where the last click or drag left it.
    func plugPointer() throws {
        guard mouse == nil else { return }
        let process = Process()
        let said = Pipe()
        process.executableURL = builtExecutable("sheet-wayland-probe")
        process.arguments = ["--pointer"]
        process.environment = ["WAYLAND_DISPLAY": display]
        process.standardOutput = said
        try process.run()
        mouse = process
        let line = try DescriptorLines(said.fileHandleForReading.fileDescriptor, what: "word from the pointer").next()
        guard line.map({ String(decoding: $0, as: UTF8.self) }) == "plugged" else { throw DaemonTestError("the pointer was not plugged") }
    }

    /// `wtype ARGUMENTS`: a virtual keyboard types into the surface that has the keyboard; the
    /// compositor has handled the keys once it returns.
    func type(_ arguments: String...) throws {
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/wtype"), arguments, environment: ["WAYLAND_DISPLAY": display])
        guard result.status == 0 else { throw DaemonTestError("wtype \(arguments.joined(separator: " ")): \(result.stderr)") }
    }

    /// A finger of the virtual pointer dragged from `from` to `to` over `milliseconds`, held
    /// still `hold` ms and lifted, on a layout `extents` big (the output's logical size).
    func drag(extents: (Int, Int), from: (Int, Int), to: (Int, Int), milliseconds: Int, hold: Int) throws {
        let arguments = ["--drag", extents.0, extents.1, from.0, from.1, to.0, to.1, milliseconds, hold].map { "\($0)" }
        let result = try runProcess(builtExecutable("sheet-wayland-probe"), arguments, environment: ["WAYLAND_DISPLAY": display])
        guard result.status == 0 else { throw DaemonTestError("sheet-wayland-probe: \(result.stderr)") }
    }

    /// `reached` or `missed`: whether a window below got a click at (x, y) (`sheet-wayland-probe`).
    func click(x: Int, y: Int) throws -> String {
        let result = try runProcess(builtExecutable("sheet-wayland-probe"), ["\(x)", "\(y)"], environment: ["WAYLAND_DISPLAY": display])
        guard result.status == 0 else { throw DaemonTestError("sheet-wayland-probe: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// `sheet-wayland-probe --touch-window` on a compositor: a window that writes each key it gets
/// into a FIFO this reads.
final class ProbeWindow {
    let process = Process()
    private let descriptor: Int32
    private let lines: DescriptorLines

    init(display: String) throws {
        let folder = try temporaryFolder()
        let log = folder.appendingPathComponent("window").path
        guard mkfifo(log, 0o600) == 0 else { throw DaemonTestError("mkfifo \(log)") }
        descriptor = open(log, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw DaemonTestError("cannot open \(log)") }
        lines = DescriptorLines(descriptor, what: "key in the window")
        let shown = Pipe()
        process.executableURL = builtExecutable("sheet-wayland-probe")
        process.arguments = ["--key-window", log]
        process.environment = ProcessInfo.processInfo.environment.merging(["WAYLAND_DISPLAY": display]) { $1 }
        process.standardOutput = shown
        try process.run()
        let said = try DescriptorLines(shown.fileHandleForReading.fileDescriptor, what: "word from the window").next()
        guard said.map({ String(decoding: $0, as: UTF8.self) }) == "shown" else { throw DaemonTestError("the window was not shown") }
    }

    deinit {
        // SIGKILL: the test runner's children may inherit SIGTERM blocked.
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        close(descriptor)
    }

    /// The name of the next key the window got (`Tab`, `x`), skipping its touches.
    func nextKey() throws -> String {
        while true {
            guard let line = try lines.next() else { throw DaemonTestError("the window went away") }
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("key ") { return String(text.dropFirst(4)) }
        }
    }
}

/// A message bus of a test's own: a session bus (`--session`'s configuration), or the one
/// `config` names.
final class MessageBus {
    let process = Process()
    let address: String
    private let runtime: String?

    /// `runtime`: the XDG_RUNTIME_DIR of what the bus starts (at-spi-bus-launcher puts its bus there).
    init(session: Bool = false, config: String? = nil, runtime: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        self.runtime = runtime
        if let runtime { process.environment = ["PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": runtime, "HOME": runtime] }
        process.arguments = (session ? ["--session"] : ["--config-file=\(config ?? "")"]) + ["--nofork", "--print-address=1"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard let line = try DescriptorLines(out.fileHandleForReading.fileDescriptor, what: "the bus's address").next() else {
            throw DaemonTestError("dbus-daemon exited without an address")
        }
        address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        // What the bus started outlives it (at-spi-bus-launcher's accessibility bus and its
        // registry): each was given the runtime folder.
        if let runtime { killProcesses(mentioning: runtime) }
    }
}

/// A kiosk's app: a window that asks to be fullscreen (`sheet-wayland-probe
/// --fullscreen-window`), all of it `colour`, shown once the compositor says it is fullscreen,
/// open until this goes.
final class FullscreenWindow {
    static let colour = RGB(hex: 0x20C040)
    let process = Process()

    init(display: String) throws {
        let shown = Pipe(), problems = Pipe()
        process.executableURL = builtExecutable("sheet-wayland-probe")
        process.arguments = ["--fullscreen-window"]
        process.environment = ProcessInfo.processInfo.environment.merging(["WAYLAND_DISPLAY": display]) { $1 }
        process.standardOutput = shown
        process.standardError = problems
        try process.run()
        let said = try DescriptorLines(shown.fileHandleForReading.fileDescriptor, what: "word from the fullscreen window").next()
        guard said.map({ String(decoding: $0, as: UTF8.self) }) == "shown" else {
            process.waitUntilExit()
            let why = String(decoding: problems.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw DaemonTestError("the fullscreen window was not shown (exit \(process.terminationStatus)): \(why)")
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    }
}
