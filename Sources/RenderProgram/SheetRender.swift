#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CDisplay
import CLazyLibraries
import SheetClient
import SheetConfig
import SheetProtocol
import SheetRenderKit
import SheetService

struct SheetRender: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sheet-render",
        abstract: "Draw the sheet that sheetd publishes: on a display (DRM or a framebuffer), over a Wayland session, in a terminal, or into PNG files.",
        discussion: """
            Follows io.sheetd.Sheet with Monitor and draws each state it gets, the newest when it \
            falls behind. When the daemon restarts, it waits for the socket and follows again. \
            The drm, fbdev and wayland backends tell the daemon their size (SetScreen), which needs \
            root or the socket's group; refused, the sheet is scaled to the display instead. \
            The wayland backend draws on a layer surface over the session's windows (or in a \
            fullscreen window on a compositor without the wlr layer shell); it takes touches only \
            in the region the sheet takes (State.region), passes the rest to the windows below, \
            and forwards the ones it takes to the daemon over io.sheetd.Input (run sheetd with \
            --input none under a compositor, which owns the touchscreen); it takes the keyboard \
            while a modal sheet is open (a non-modal one once touched) and forwards its keys too. \
            The web backend serves the module /sheetd.js, which defines <sheet-view>, to pages of \
            the --allow-origin origins in a browser of the --allow-user users (a browser kiosk under \
            cage): the page draws the sheet and forwards its touches and keys the same way.
            """)

    @Option(help: "auto (wayland when WAYLAND_DISPLAY is set, else drm, then fbdev), drm, fbdev, wayland, web, term or png.")
    var backend: String = "auto"

    @Option(help: ArgumentHelp("The daemon's socket (default: $SHEETD_SOCKET, else \(SheetClient.defaultSocketPath)).",
                               valueName: "path"))
    var socket: String?

    @Option(help: ArgumentHelp("The seat whose daemon to draw: its socket in /run/sheetd/SEAT/ (seat0's: \(SheetClient.defaultSocketPath)); --socket wins.",
                               valueName: "name"))
    var seat: Seat?

    @Option(help: "drm: the card (default: the first with a connected display); fbdev: the framebuffer (default /dev/fb0).")
    var device: String?

    @Option(help: "drm: the connector to draw on, as the kernel names it (HDMI-A-1, DSI-1; `sheetctl doctor` lists them); default: the first connected one.")
    var connector: String?

    @Option(name: .customLong("pixel-format"), help: "drm: xrgb8888 or rgb565.")
    var pixelFormat: String = "xrgb8888"

    @Option(name: .customLong("wayland-output"),
            help: ArgumentHelp("wayland: the output to show the sheet on, by the compositor's name for it (HDMI-A-2; swaymsg -t get_outputs lists them); default: the first.",
                               valueName: "name"))
    var waylandOutput: String?

    @Option(name: .customLong("wayland-shell"), help: "wayland: auto (the wlr layer shell when the compositor offers it, else a fullscreen window), layer or xdg.")
    var waylandShell: WaylandBackend.Shell = .auto

    @Option(name: .customLong("wayland-layer"), help: "wayland: the layer shell's layer for a non-modal sheet and the closed bar: overlay (default: over every window, a fullscreen one too, as a kiosk's is) or top (beneath a fullscreen window, as a panel is). A modal sheet is on the overlay layer always: it must be seen to be answered.")
    var waylandLayer: WaylandBackend.Layer = .overlay

    @Option(help: ArgumentHelp("web: where to serve /sheetd.js and its WebSocket: HOST:PORT, or unix:PATH for a reverse proxy (default 127.0.0.1:7300). Only loopback or a Unix socket unless --listen-anywhere.", valueName: "address"))
    var listen: String = "127.0.0.1:7300"

    @Option(name: .customLong("allow-origin"), help: ArgumentHelp("web: the origin of a page that may show the sheet, as its browser sends it (http://localhost:8080); repeat for more. A page of any other origin is refused.", valueName: "origin"))
    var allowOrigin: [String] = []

    @Option(name: .customLong("allow-user"), help: ArgumentHelp("web: a local user (a name or a uid) whose processes are served: the kiosk's browser's user; repeat for more. Default: the user sheet-render runs as. A connection of any other user is refused, whatever it sends: the kernel says whose it is.", valueName: "user"))
    var allowUser: [String] = []

    @Flag(name: .customLong("listen-anywhere"), help: "web: let --listen name an address other machines reach, and serve their pages (by origin alone: no user is told of another machine).")
    var listenAnywhere = false

    @Option(help: "png: the folder for the pictures.")
    var output: String?

    @Option(help: "png: write every Nth frame (and always the last).")
    var every: Int = 1

    @Option(help: "A PNG to show under the dim instead of mid gray, scaled to cover the display (not for wayland, where the windows show through).")
    var background: String?

    @Flag(help: "fbdev: what is on screen when the sheet opens becomes its background, and is put back when it closes.")
    var snapshot = false

    @Flag(name: .customLong("no-set-screen"), help: "drm, fbdev, wayland: do not tell the daemon the display's size.")
    var noSetScreen = false

    @Flag(name: .customLong("no-forward-touch"), help: "wayland: do not forward the compositor's touches (and the pointer, as one finger) or keys to the daemon.")
    var noForwardTouch = false

    @Option(help: ArgumentHelp("Speak the sheet through speech-dispatcher as it opens, as the focus moves, as an item flips and as it closes (a kiosk without a screen reader). auto (default): drm and fbdev speak while the daemon says the sheet is spoken (its `speech` setting: on, or headset while headphones are plugged), so that a kiosk's display speaks and nothing else does; wayland leaves it to the session's screen reader. follow: while the daemon says so, on any backend. on: always; off: never.", valueName: "auto|follow|on|off"))
    var speech: String = "auto"

    @Option(help: ArgumentHelp("wayland: on (default) puts the sheet on the session's accessibility bus (AT-SPI 2), where a screen reader such as Orca reads it and its actions reach sheetd; off.", valueName: "on|off"))
    var accessibility: String = "on"

    @Option(name: .customLong("input-socket"), help: ArgumentHelp("wayland: the daemon's io.sheetd.Input socket, where touches are forwarded (default: $SHEETD_INPUT_SOCKET, else io.sheetd.Input beside the daemon's socket).", valueName: "path"))
    var inputSocket: String?

    @Option(name: .customLong("frame-log"), help: "Write one JSON line per frame shown to this file: the update, and when it reached the output.")
    var frameLog: String?

    @Option(help: ArgumentHelp("The text's font when the daemon names none (its `font` setting): a fontconfig pattern such as `Noto Sans` (default: the system's sans-serif). Characters it lacks come from any installed font that has them.", valueName: "pattern"))
    var font: String = ""

    @Option(help: "What `theme: auto` draws here: light or dark, this display's preference (a panel at night); auto (default): under a desktop session (wayland) the session's colour scheme and contrast from the settings portal, followed as they change, else light.")
    var prefer: String = "auto"

    @Flag(name: .customLong("until-rest"), help: "Exit once a frame shows nothing moving: the sheet at rest, no finger down, no replayed input to come (the first frame, when that is so already).")
    var untilRest = false

    func validate() throws {
        guard ["auto", "drm", "fbdev", "wayland", "web", "term", "png"].contains(backend) else {
            throw ValidationError("--backend wants auto, drm, fbdev, wayland, web, term or png; got `\(backend)`")
        }
        if backend == "web" {
            guard !allowOrigin.isEmpty else { throw ValidationError("--backend web needs --allow-origin ORIGIN: the origin of the kiosk's page") }
            do {
                for origin in allowOrigin { _ = try WebOrigin(origin) }
                _ = try WebUsers(allowUser)
                let address = try WebListen(listen)
                if !address.isLoopback && !listenAnywhere {
                    throw ValidationError("--listen \(listen) is reachable from other machines: add --listen-anywhere to mean it")
                }
            } catch let error as RenderError {
                throw ValidationError(error.description)
            }
            if background != nil { throw ValidationError("--background is not for --backend web: the page shows through the dim") }
        } else if !allowOrigin.isEmpty || !allowUser.isEmpty || listenAnywhere {
            throw ValidationError("--allow-origin, --allow-user and --listen-anywhere are for --backend web")
        }
        guard [PixelFormat.xrgb8888, .rgb565].contains(PixelFormat(rawValue: pixelFormat)) else {
            throw ValidationError("--pixel-format wants xrgb8888 or rgb565")
        }
        if backend == "wayland" && background != nil { throw ValidationError("--background is not for --backend wayland: the windows below show through the dim") }
        if backend == "png" && output == nil { throw ValidationError("--backend png needs --output DIR") }
        if backend != "png" && output != nil { throw ValidationError("--output is for --backend png") }
        guard every >= 1 else { throw ValidationError("--every wants 1 or more") }
        guard ["auto", "light", "dark"].contains(prefer) else { throw ValidationError("--prefer wants auto, light or dark; got `\(prefer)`") }
        guard ["auto", "follow", "on", "off"].contains(speech) else { throw ValidationError("--speech wants auto, follow, on or off; got `\(speech)`") }
        guard ["on", "off"].contains(accessibility) else { throw ValidationError("--accessibility wants on or off; got `\(accessibility)`") }
        if snapshot && !["fbdev", "auto"].contains(backend) { throw ValidationError("--snapshot is for --backend fbdev") }
    }

    func run() throws {
        // Signals arrive as reads on a descriptor, beside the socket and the display's events.
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGWINCH] { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let signalDescriptor = signalfd(-1, &signals, Int32(SFD_CLOEXEC))
        guard signalDescriptor >= 0 else {
            // Without it the blocked signals would never be seen and nothing could stop us.
            try? writeAll(2, Array("sheet-render: signalfd: \(String(cString: strerror(errno)))\n".utf8), naming: "standard error")
            throw ExitCode(71)
        }

        let log = Log(quiet: backend == "term" && isatty(2) == 1)
        let status: Int32
        do {
            // The libraries every renderer draws with, opened now (they open at their first
            // call otherwise): one that is missing is said before a display or terminal is
            // touched, rather than ending the process in the middle of a frame.
            try openLibraries(["libcairo.so.2", "libpango-1.0.so.0", "libpangocairo-1.0.so.0", "libfribidi.so.0",
                               "libglib-2.0.so.0", "libgobject-2.0.so.0", "libz.so.1"])
            let looks = try Looks(backgroundPath: background, prefersDark: prefer == "dark")
            let frames = try frameLog.map { path throws(RenderError) in try FrameLog(path: path) }
            let (painter, fallback) = Painter.standard(font: font)
            if let fallback { log.say("sheet-render: \(fallback)") }
            let socketPath = SheetClient.socketPath(socket, seat: seat)
            let forwarder = noForwardTouch ? nil
                : InputForwarder(path: InputClient.socketPath(inputSocket, otherwise: InputInterface.socketPath(besideSocket: socketPath)), log: log)
            if backend == "web" {
                forwarder?.source = "web"
                // A page on another machine is touched on that machine's screen, not through
                // this seat's touchscreens: the daemon goes on reading them.
                if listenAnywhere { forwarder?.forwards = nil }
            }
            let output = try makeBackend(looks: looks, painter: painter, forwarder: forwarder, log: log)
            if let drm = output as? DRMBackend {
                log.say("sheet-render: drm on \(drm.place), for \(socketPath)")
                if let unheard = drm.hotplugUnheard { log.say("sheet-render: \(unheard)") }
            }
            // One renderer speaks a sheet: the kiosk's display (drm, fbdev), never a picture or a
            // terminal, and under a session only when asked.
            let speaks: SpeechChoice = speech == "on" ? .on
                : speech == "follow" || (speech == "auto" && ["drm", "fbdev"].contains(output.name)) ? .following : .off
            // And what this backend will call later, while it holds the display: keymaps and
            // D-Bus under a compositor, speech-dispatcher's client when it may speak.
            try openLibraries((output.name == "wayland" ? ["libxkbcommon.so.0", "libgio-2.0.so.0"] : [])
                + (speaks == .off ? [] : ["libspeechd.so.2"]))
            // In a desktop or phone session (the wayland backend), as GTK 4 does.
            let reader = accessibility == "on" && output.name == "wayland" ? Accessibility.start(socketPath: socketPath, log: log) : nil
            let session = prefer == "auto" && output.name == "wayland" ? SessionPreferences.start(log: log) : nil
            if let session {
                let preference = session.preference
                looks.prefer(dark: preference.dark, highContrast: preference.highContrast, textScale: preference.textScale)
            }
            let loop = RenderLoop(backend: output, subscription: SheetSubscription(path: socketPath, maxRate: output.refreshRate),
                                  signals: signalDescriptor,
                                  setScreen: !noSetScreen, untilRest: untilRest, frames: frames, icons: painter.icons,
                                  // Only a compositor's client forwards touches (the DRM and fbdev renderers
                                  // own their display; the daemon reads the touchscreens beside them).
                                  forwarder: ["wayland", "web"].contains(output.name) ? forwarder : nil,
                                  speech: speaks, accessibility: reader,
                                  preferences: session.map { ($0, looks) }, log: log)
            status = loop.run()
        } catch {
            log.say("sheet-render: \(error)")
            status = error.status
        }
        log.flush()
        if status != 0 { throw ExitCode(status) }
    }

    /// Opens `sonames` (libraries of CLazyLibraries) now; the first that cannot be is the error.
    private func openLibraries(_ sonames: [String]) throws(RenderError) {
        var message = [CChar](repeating: 0, count: 512)
        for soname in sonames where sheet_lazy_library_open(soname, &message, message.count) != 0 {
            throw .unavailable(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    private func makeBackend(looks: Looks, painter: Painter, forwarder: InputForwarder?, log: Log) throws(RenderError) -> any Backend {
        let format = PixelFormat(rawValue: pixelFormat)!
        switch backend {
        case "png": return try PictureBackend(folder: output!, every: every, looks: looks, painter: painter)
        case "term": return try TerminalBackend(looks: looks)
        case "drm": return try DRMBackend.open(path: device, connector: connector, format: format, looks: looks, painter: painter)
        case "fbdev": return try FramebufferBackend(path: device ?? "/dev/fb0", looks: looks, painter: painter, snapshot: snapshot)
        case "wayland":
            return try WaylandBackend(shell: waylandShell, layer: waylandLayer, output: waylandOutput, looks: looks, painter: painter, forwarder: forwarder, log: log)
        case "web":
            return try WebBackend(listen: WebListen(listen), origins: allowOrigin.map { origin throws(RenderError) in try WebOrigin(origin) },
                                  users: WebUsers(allowUser), anywhere: listenAnywhere, icons: painter.icons, forwarder: forwarder, log: log)
        default:
            if getenv("WAYLAND_DISPLAY") != nil && background == nil {
                return try WaylandBackend(shell: waylandShell, layer: waylandLayer, output: waylandOutput, looks: looks, painter: painter, forwarder: forwarder, log: log)
            }
            do {
                return try DRMBackend.open(path: nil, connector: connector, format: format, looks: looks, painter: painter)
            } catch let drm {
                log.say("sheet-render: no DRM display (\(drm)); trying the framebuffer")
                do {
                    return try FramebufferBackend(path: device ?? "/dev/fb0", looks: looks, painter: painter, snapshot: snapshot)
                } catch let fbdev {
                    throw .unavailable("no display: drm: \(drm); fbdev: \(fbdev)")
                }
            }
        }
    }
}

/// Messages for people, on standard error; held back while the terminal backend owns the
/// terminal, and printed when it gives it back.
final class Log {
    private let quiet: Bool
    private var held: [String] = []

    init(quiet: Bool) { self.quiet = quiet }

    func say(_ line: String) {
        if quiet { held.append(line) } else { try? writeAll(2, Array((line + "\n").utf8), naming: "standard error") }
    }

    func flush() {
        for line in held { try? writeAll(2, Array((line + "\n").utf8), naming: "standard error") }
        held = []
    }
}

/// `--frame-log`: one JSON object per frame that reached the output,
/// `{"frame":1,"seq":7,"timestampUSec":…,"shownUSec":…,"rows":[0,800],"state":{…}}`. `shownUSec`
/// is CLOCK_MONOTONIC like the daemon's `timestampUSec`: for drm the page flip's vertical
/// blank, otherwise the moment the frame was written.
final class FrameLog {
    private let descriptor: Int32
    private let path: String
    private var count = 0

    init(path: String) throws(RenderError) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .system(path, status: 73) }
    }

    deinit { close(descriptor) }

    func record(_ update: MonitorUpdate, backend: String, shown: Int64, rows: Range<Int>?) throws(RenderError) {
        count += 1
        var w = JSONWriter(capacity: 768)
        w.append("{\"frame\":")
        w.appendInteger(Int64(count))
        w.append(",\"backend\":")
        w.appendString(backend)
        w.append(",\"seq\":")
        w.appendInteger(update.sequence)
        w.append(",\"timestampUSec\":")
        w.appendInteger(update.timestampInMicroseconds)
        w.append(",\"shownUSec\":")
        w.appendInteger(shown)
        w.append(",\"rows\":")
        if let rows {
            w.append(UInt8(ascii: "["))
            w.appendInteger(Int64(rows.lowerBound))
            w.append(UInt8(ascii: ","))
            w.appendInteger(Int64(rows.upperBound))
            w.append(UInt8(ascii: "]"))
        } else {
            w.append("null")
        }
        w.append(",\"state\":")
        update.state.write(to: &w)
        w.append("}\n")
        try writeAll(descriptor, w.bytes, naming: path)
    }
}
