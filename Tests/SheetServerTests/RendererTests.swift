import Foundation
import Glibc
import SheetClient
import SheetConfig
import SheetCore
import SheetProtocol
import SheetRecordings
import SheetRenderKit
import SheetTestSupport
import Testing

/// The renderer against the real daemon: the subscription across a restart, the png backend on
/// a recording (its pictures checked pixel by pixel against the states it logged), and the term
/// backend in a real terminal (tmux).
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: builtExecutable("sheet-render").path)))
struct RendererTests {
    /// The safety net of every wait below; the waits themselves are on events.
    static let patienceMilliseconds: Int32 = 60_000

    /// The subscription's next event; a wait past the patience says which `step` it was and
    /// what the daemons logged (a rare hang here under the full suite's load is not explained
    /// yet).
    func next(_ subscription: SheetSubscription, _ step: String = "", logs: [RunningDaemon] = []) throws -> SheetSubscription.Event {
        let event = try subscription.next(timeoutMilliseconds: Self.patienceMilliseconds)
        if event == .timedOut {
            throw DaemonTestError("nothing from the subscription within \(Self.patienceMilliseconds) ms\(step.isEmpty ? "" : " (\(step))")"
                                  + logs.enumerated().map { "\ndaemon \($0.offset + 1)'s log:\n\($0.element.log)" }.joined())
        }
        return event
    }

    @Test func aSubscriptionFollowsTheDaemonAcrossARestart() throws {
        let idle = try Generated.idle()
        let first = try RunningDaemon(["--input", "replay:\(idle)@max"])
        let subscription = SheetSubscription(path: first.socketPath, retryMilliseconds: 50)
        #expect(try next(subscription, "connecting to the first daemon", logs: [first]) == .connected)
        guard case .update(let before) = try next(subscription, "the first daemon's first state", logs: [first]) else {
            Issue.record("no first state"); return
        }
        #expect(before.sequence >= 1 && before.state.detent == "half")
        #expect(first.stop() == 0)
        // (Updates the daemon sent before it stopped come first.)
        var event = try next(subscription, "the first daemon going away", logs: [first])
        while case .update = event { event = try next(subscription, "the first daemon going away", logs: [first]) }
        guard case .disconnected(let why) = event else { Issue.record("\(event) instead of a disconnection"); return }
        #expect(why == .closed(path: first.socketPath))
        #expect(!subscription.isFollowing)

        // Nothing is listening now: the subscription waits (inotify on the folder) and comes back
        // by itself when a new daemon makes the socket again.
        let second = try RunningDaemon(["--input", "replay:\(idle)@max"], socketPath: first.socketPath)
        #expect(try next(subscription, "connecting to the second daemon", logs: [first, second]) == .connected)
        guard case .update(let after) = try next(subscription, "the second daemon's first state", logs: [first, second]) else {
            Issue.record("no state after the restart"); return
        }
        #expect(after.state.detent == "half" && subscription.isFollowing)
        // The replay's tap lands first: on a card moving to expanded it would catch the card,
        // and the tap's release would settle it at half (what a loaded machine once did).
        try second.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        try second.client().setDetent("expanded")
        var moved = false
        while !moved {
            guard case .update(let update) = try next(subscription, "the move to expanded", logs: [first, second]) else { continue }
            moved = update.state.state == .resting && update.state.detent == "expanded"
        }
        #expect(second.stop() == 0)
    }

    @Test func aSubscriptionWaitsForADaemonThatIsNotThereYet() throws {
        let folder = try temporaryFolder()
        let path = folder.appendingPathComponent("io.sheetd.Sheet").path
        let subscription = SheetSubscription(path: path, retryMilliseconds: 10_000)
        guard case .disconnected(let why) = try next(subscription) else { Issue.record("connected to nothing"); return }
        #expect(why.description.contains("No such file"))
        #expect(try subscription.next(timeoutMilliseconds: 0) == .timedOut)
        // The retry timer is ten seconds: only the socket appearing makes this prompt.
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max"], socketPath: path)
        #expect(try next(subscription) == .connected)
        #expect(daemon.stop() == 0)
    }

    /// `--backend png` follows the daemon replaying a recording. Every picture shows its logged
    /// state: the dim's colour over the mid-gray background, and the card's top row within a
    /// pixel of the published top; the last one is where `sheetctl replay` rests.
    /// A background past 8192 px a side is refused at start; one with more than 4× the
    /// output's pixels once the output's size is known (a 1080x1920 screen here).
    @Test func oversizedBackgroundsAreRefused() throws {
        let folder = try temporaryFolder()
        let wide = folder.appendingPathComponent("wide.png").path
        try Data(PNG.encode(width: 8193, height: 1, rgb: [UInt8](repeating: 0, count: 8193 * 3))).write(to: URL(fileURLWithPath: wide))
        let refused = try runTool("sheet-render", ["--backend", "png", "--output", folder.path, "--background", wide,
                                                   "--socket", folder.appendingPathComponent("none").path])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("wide.png: a 8193x1 picture; at most 8192 pixels a side is read"), "\(refused.stderr)")

        let big = folder.appendingPathComponent("big.png").path
        try Data(PNG.encode(width: 8192, height: 1100, rgb: [UInt8](repeating: 0, count: 8192 * 1100 * 3))).write(to: URL(fileURLWithPath: big))
        let socket = folder.appendingPathComponent("io.sheetd.Sheet").path
        let daemon = try RunningDaemon(["--input", "replay:\(trace("ts-atmel-maxtouch.1-finger-fast-taps.evemu"))@max"],
                                       socketPath: socket)
        let tooMany = try runTool("sheet-render", ["--backend", "png", "--output", folder.appendingPathComponent("p").path,
                                                   "--background", big, "--socket", socket, "--until-rest"])
        #expect(tooMany.status == 65)
        #expect(tooMany.stderr.contains("big.png: a 8192x1100 picture; at most 8294400 pixels are read here (the output is 1080x1920)"),
                "\(tooMany.stderr)")
        _ = daemon
    }

    /// An icon name that no theme has is drawn without, and said once in the renderer's log.
    @Test func anIconNoThemeHasIsSaidOnce() throws {
        let folder = try temporaryFolder()
        let socket = folder.appendingPathComponent("io.sheetd.Sheet").path
        let content = try temporaryFile("content.yaml", """
            title: Icons
            items:
              - {id: a, label: A, icon: no-such-icon-symbolic}
              - {id: b, label: B, icon: network-wireless-symbolic}
            """)
        let config = try temporaryFile("sheetd.yaml", "content: \(content)\n")
        let renderer = try Renderer(["--backend", "png", "--output", folder.appendingPathComponent("pictures").path,
                                     "--socket", socket, "--until-rest"], folder: folder)
        let daemon = try RunningDaemon(["--config", config, "--input", "replay:\(try Generated.idle())@max"], socketPath: socket)
        #expect(renderer.wait() == 0, "sheet-render: \(renderer.log)")
        let said = renderer.log.components(separatedBy: "no icon named").count - 1
        #expect(said == 1 && renderer.log.contains("no icon named no-such-icon-symbolic in the icon themes (Adwaita, hicolor)"),
                "\(renderer.log)")
        #expect(!renderer.log.contains("network-wireless-symbolic"))
        #expect(!renderer.log.contains("SVG icons cannot be drawn"), "librsvg is opened for the first SVG icon: \(renderer.log)")
        #expect(daemon.stop() == 0)
    }

    @Test func thePNGBackendDrawsWhatTheDaemonPublishes() throws {
        var recording = SyntheticRecording()
        recording.wait(0.3)
        recording.stroke(from: (540, 1000), to: (540, 260), seconds: 0.7, holdSeconds: 0.05)
        let file = try temporaryFile("drag-up.evemu", recording.evemu())
        let expected = try replayEnd(file)

        let folder = try temporaryFolder()
        let socket = folder.appendingPathComponent("io.sheetd.Sheet").path
        let pictures = folder.appendingPathComponent("pictures").path
        let frameLog = folder.appendingPathComponent("frames.jsonl").path
        // The renderer first: it waits for the daemon's socket to appear.
        let renderer = try Renderer(["--backend", "png", "--output", pictures, "--socket", socket,
                                     "--frame-log", frameLog, "--until-rest"], folder: folder)
        let daemon = try RunningDaemon(["--input", "replay:\(file)"], socketPath: socket)
        let status = renderer.wait()
        #expect(status == 0, "sheet-render: \(renderer.log)")

        let lines = try String(contentsOfFile: frameLog, encoding: .utf8).split(separator: "\n")
        #expect(lines.count >= 3, "a drag shows more than its first and last frames")
        var sawDrag = false
        for (index, line) in lines.enumerated() {
            let frame = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            let state = frame["state"] as! [String: Any]
            let top = (state["top"] as! NSNumber).doubleValue, dim = (state["dim"] as! NSNumber).doubleValue
            sawDrag = sawDrag || state["state"] as? String == "dragging"
            let name = String(format: "frame-%06d.png", index + 1)
            let picture = try PNG.decode(Array(try Data(contentsOf: URL(fileURLWithPath: "\(pictures)/\(name)"))))
            #expect(picture.width == 1080 && picture.height == 1920)
            func pixel(_ x: Int, _ y: Int) -> RGB {
                let at = (y * picture.width + x) * 3
                return RGB(picture.rgb[at], picture.rgb[at + 1], picture.rgb[at + 2])
            }
            if top > 40 {
                #expect(pixel(5, 5) == RGB.black.over(RGB(hex: 0x808080), alpha: dim), "\(name): the dim at \(dim)")
            }
            // The card's top row, a quarter across (clear of the corners, grabber and close
            // button): the first pure white row.
            let firstWhite = (0..<picture.height).first { pixel(270, $0) == .white }
            if top >= 0, let firstWhite {
                #expect(abs(Double(firstWhite) - top) <= 1, "\(name): the card starts at row \(firstWhite), the state says \(top)")
            }
        }
        #expect(sawDrag, "the renderer followed the drag")
        let last = try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as! [String: Any]
        let lastState = last["state"] as! [String: Any]
        #expect(lastState["detent"] as? String == expected["detent"] as? String)
        #expect((lastState["top"] as? NSNumber)?.doubleValue == (expected["top"] as? NSNumber)?.doubleValue)
        #expect(daemon.stop() == 0)
    }

    /// Reduced motion, from the configuration file to the pixels: a tap on the dim hides the
    /// card at once and only the dim fades (for a second here, on a small screen, so that the
    /// renderer draws it several times however slow the machine). Every picture has the card
    /// at half or not at all, and the dim its state says.
    @Test func thePNGBackendDrawsReducedMotionAsAFadeOfTheDim() throws {
        var recording = SyntheticRecording()
        recording.wait(0.3)
        recording.tap(x: 540, y: 200)
        recording.wait(1.2)
        let folder = try temporaryFolder()
        let file = try temporaryFile("tap-dim.evemu", recording.evemu())
        let config = folder.appendingPathComponent("sheetd.yaml").path
        try "screen: 270x480\nreduce-motion: true\nreduce-motion-fade-out: 1\n".write(toFile: config, atomically: true, encoding: .utf8)
        let socket = folder.appendingPathComponent("io.sheetd.Sheet").path
        let pictures = folder.appendingPathComponent("pictures").path
        let frameLog = folder.appendingPathComponent("frames.jsonl").path
        let renderer = try Renderer(["--backend", "png", "--output", pictures, "--socket", socket,
                                     "--frame-log", frameLog, "--until-rest"], folder: folder)
        let daemon = try RunningDaemon(["--input", "replay:\(file)", "--config", config], socketPath: socket)
        let status = renderer.wait()
        #expect(status == 0, "sheet-render: \(renderer.log)")

        let lines = try String(contentsOfFile: frameLog, encoding: .utf8).split(separator: "\n")
        var fading = 0
        for (index, line) in lines.enumerated() {
            let frame = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            let state = frame["state"] as! [String: Any]
            let top = (state["top"] as! NSNumber).doubleValue, dim = (state["dim"] as! NSNumber).doubleValue
            #expect(state["reduceMotion"] as? Bool == true)
            #expect(top == 240 || top == 480, "frame \(index + 1): the card at \(top), between detents")
            if top == 480, dim > 0, dim < 0.7 { fading += 1 }
            let name = String(format: "frame-%06d.png", index + 1)
            let picture = try PNG.decode(Array(try Data(contentsOf: URL(fileURLWithPath: "\(pictures)/\(name)"))))
            func pixel(_ x: Int, _ y: Int) -> RGB {
                let at = (y * picture.width + x) * 3
                return RGB(picture.rgb[at], picture.rgb[at + 1], picture.rgb[at + 2])
            }
            #expect(pixel(5, 5) == RGB.black.over(RGB(hex: 0x808080), alpha: dim), "\(name): the dim at \(dim)")
            #expect(picture.width == 270 && picture.height == 480)
            let firstWhite = (0..<picture.height).first { pixel(67, $0) == .white }
            if top == 480 {
                #expect(firstWhite == nil, "\(name): no card while hidden")
            } else {
                #expect(firstWhite.map { abs(Double($0) - top) <= 1 } == true, "\(name): the card starts at row \(firstWhite ?? -1)")
            }
        }
        #expect(fading >= 2, "the dim faded over several frames with the card gone: \(fading)")
        let last = try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as! [String: Any]
        let lastState = last["state"] as! [String: Any]
        #expect(lastState["detent"] as? String == "hidden")
        #expect((lastState["dim"] as? NSNumber)?.doubleValue == 0)
        #expect(daemon.stop() == 0)
    }

    /// `--backend png` draws the content: the daemon takes `examples/menu.yaml` from its
    /// configuration and replays `examples/reorder.evemu` (Bluetooth held and dragged down two
    /// rows). Every picture is exactly what the kit paints for its logged state with the items
    /// in the order they had then (during the drag: the held item at the lifted index; before
    /// it and after it, the menu's order and the replay's final one), so the renderer fetched
    /// the content and kept up with the swaps.
    @Test func thePNGBackendDrawsTheContentThroughAReorder() throws {
        let menu = examples.appendingPathComponent("menu.yaml").path
        let recording = examples.appendingPathComponent("reorder.evemu").path
        let content = try ContentFile.load(path: menu)
        let finalOrder = ["wifi", "display", "sound", "bluetooth", "network", "language", "time", "updates", "about"]

        let folder = try temporaryFolder()
        let config = try temporaryFile("content.yaml", "content: \(menu)\n")
        let socket = folder.appendingPathComponent("io.sheetd.Sheet").path
        let pictures = folder.appendingPathComponent("pictures").path
        let frameLog = folder.appendingPathComponent("frames.jsonl").path
        let renderer = try Renderer(["--backend", "png", "--output", pictures, "--socket", socket,
                                     "--frame-log", frameLog, "--until-rest"], folder: folder)
        let daemon = try RunningDaemon(["--config", config, "--input", "replay:\(recording)"], socketPath: socket)
        #expect(renderer.wait() == 0, "sheet-render: \(renderer.log)")

        func items(in ids: [String]) -> SheetContent {
            var ordered = content
            ordered.items = ids.map { id in content.items.first { $0.id == id }! }
            return ordered
        }
        // The order each frame had; pictures are compared for the first, the last, and six
        // frames of the drag (a debug build paints and decodes a 1080x1920 picture slowly).
        var sawLifted = false
        var frames: [(name: String, state: SheetState, ids: [String])] = []
        let lines = try String(contentsOfFile: frameLog, encoding: .utf8).split(separator: "\n")
        for (index, line) in lines.enumerated() {
            let state = try SheetState(json: try JSONReader.parse(String(line))["state"] ?? .null)
            let list = try #require(state.list, "frame \(index + 1) has no list")
            var ids = content.items.map(\.id)
            if let lifted = list.lifted {
                sawLifted = true
                ids.removeAll { $0 == lifted.item }
                ids.insert(lifted.item, at: lifted.index)
            } else if sawLifted {
                ids = finalOrder
            }
            frames.append((String(format: "frame-%06d.png", index + 1), state, ids))
        }
        let drag = frames.indices.filter { frames[$0].state.list?.lifted != nil }
        let checked = Set([0, frames.count - 1] + stride(from: 0, to: drag.count, by: max(1, drag.count / 6)).map { drag[$0] })
        // The painter the renderer itself picks (Pango, or the console font where none loads).
        let painter = Painter.standard().painter
        for index in checked.sorted() {
            let (name, state, ids) = frames[index]
            let canvas = Canvas(width: 1080, height: 1920, format: .xrgb8888)
            painter.draw(SheetScene(state, content: items(in: ids)), into: canvas)
            let picture = try PNG.decode(Array(try Data(contentsOf: URL(fileURLWithPath: "\(pictures)/\(name)"))))
            #expect(picture.rgb == canvas.rgbBytes(), "\(name) is not the list in the order \(ids)")
        }
        #expect(sawLifted, "the renderer drew the held item")
        #expect(try daemon.client().content().items.map(\.id) == finalOrder)
        #expect(daemon.stop() == 0)
    }

    /// `--backend term` in a real terminal: tmux runs it, the test reads the pane back with its
    /// colours, and waits for each frame on the frame log (a FIFO), never for a time.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func theTerminalBackendDrawsInTmux() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max"])
        let folder = try temporaryFolder()
        let fifo = folder.appendingPathComponent("frames").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let server = "sheetd-test-\(getpid())"
        // tmux's server keeps the descriptors of the client that started it: its output goes to
        // a file, since a pipe would never reach its end.
        let output = folder.appendingPathComponent("tmux.out")
        func tmux(_ arguments: [String]) throws -> String {
            let argv = ["/usr/bin/tmux", "-L", server, "-f", "/dev/null"] + arguments
            let status = try spawnAndWait(argv, output: output.path)
            let text = try String(contentsOf: output, encoding: .utf8)
            guard status == 0 else { throw DaemonTestError("tmux \(arguments): \(text)") }
            return text
        }
        let command = "\(builtExecutable("sheet-render").path) --backend term --socket \(daemon.socketPath) --frame-log \(fifo)"
        _ = try tmux(["new-session", "-d", "-s", "sheet", "-x", "40", "-y", "12", command, ";", "set", "remain-on-exit", "on"])
        // kill-server alone can leave the server running (it holds descriptors it inherited
        // from this process): it is ended by its pid as well.
        let serverProcess = pid_t(try tmux(["display-message", "-p", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
        defer {
            _ = try? tmux(["kill-server"])
            if let serverProcess { kill(serverProcess, SIGKILL) }
        }
        let frames = try FrameLogReader(fifo)

        // tmux reads the renderer's output on its own schedule: a frame in the log is on the pty,
        // and the capture is taken again (a bounded number of times) until tmux has read it.
        func capture(until done: (TerminalPane) -> Bool) throws -> TerminalPane {
            var pane = try TerminalPane(try tmux(["capture-pane", "-p", "-e", "-t", "sheet"]))
            for _ in 0..<500 where !done(pane) { pane = try TerminalPane(try tmux(["capture-pane", "-p", "-e", "-t", "sheet"])) }
            return pane
        }

        // Resting at half on a 1080x1920 screen: the card's top is 960/1920 of 24 half-block
        // rows, row 12, the upper half of the seventh cell row.
        let half = try frames.next { $0["detent"] as? String == "half" }
        #expect((half["dim"] as? NSNumber)?.doubleValue == 0.7)
        let dimmed = RGB.black.over(RGB(hex: 0x808080), alpha: 0.7)
        let card = Cell(text: "▀", foreground: .white, background: .white)
        var pane = try capture { $0.text(7).contains("sheetd") }
        #expect(pane.lines.count == 12)
        for line in 0..<6 { #expect(pane.cell(line, 10) == Cell(text: "▀", foreground: dimmed, background: dimmed), "line \(line)") }
        for line in 6..<12 where line != 7 { #expect(pane.cell(line, 10) == card, "line \(line)") }
        #expect(pane.text(7).contains("sheetd") && pane.text(7).contains("×"), "the title and close mark: \(pane.text(7))")

        // Expanded (top 30 px of 1920): the card fills the terminal from the first line.
        try daemon.client().setDetent("expanded")
        _ = try frames.next { $0["detent"] as? String == "expanded" && $0["state"] as? String == "resting" }
        pane = try capture { $0.text(2).contains("sheetd") }
        #expect(pane.cell(5, 10) == card)
        #expect(pane.text(2).contains("sheetd"))

        // Content: the title on the title line, then a row a line from two lines below it,
        // fetched by the renderer when the revision moved.
        // A Korean row takes two cells a syllable (East Asian Width); an Arabic one is in
        // visual order, joined, and set against the right edge.
        let arabic = "الإعدادات"
        try daemon.client().setContent(ContentChange(title: "Settings", items: [
            SheetItem(id: "wifi", label: "Wi-Fi"), SheetItem(id: "bt", label: "Bluetooth"), SheetItem(id: "display", label: "Display"),
            SheetItem(id: "ko", label: "설정 화면"), SheetItem(id: "ar", label: arabic),
        ]))
        // tmux may show part of a frame: the capture waits for the last row's text too.
        let visual = TerminalText.cells(arabic, columns: 20, direction: .rightToLeft).joined()
        pane = try capture { $0.text(4).contains("Wi-Fi") && $0.text(7).contains("설정") && $0.text(8).contains(visual) }
        #expect(pane.text(2).contains("Settings") && !pane.text(2).contains("sheetd"), "the content's title: \(pane.text(2))")
        #expect(pane.text(4).contains("Wi-Fi") && pane.text(5).contains("Bluetooth") && pane.text(6).contains("Display"),
                "rows: \(pane.lines.indices.map(pane.text))")
        // The 640 pt card of a 1080 px screen takes columns 8..<32 of 40, the dim either side.
        #expect(pane.cell(7, 2) == Cell(text: "▀", foreground: dimmed, background: dimmed), "beside the card, the dim")
        // tmux gives a wide character once: 8 dim and 2 card cells, 5 characters in 9 cells,
        // then 13 card and 8 dim cells.
        #expect(pane.text(7) == String(repeating: "▀", count: 10) + "설정 화면" + String(repeating: "▀", count: 21),
                "the Korean row: \(pane.text(7))")
        #expect(visual != arabic && pane.text(8).hasSuffix(visual + String(repeating: "▀", count: 10)),
                "the Arabic row, right-aligned on the card: \(pane.text(8))")
        #expect(pane.cell(9, 10) == card, "below the list, the card")

        // Ctrl-C: the renderer leaves, the frame log ends, and the terminal's own screen is back.
        _ = try tmux(["send-keys", "-t", "sheet", "C-c"])
        try frames.waitForEnd()
        pane = try capture { !$0.lines.contains { line in line.contains { $0.text == "▀" } } }
        #expect(!pane.lines.contains { line in line.contains { $0.text == "▀" } }, "the alternate screen was left")
        #expect(daemon.stop() == 0)
    }
}

/// Runs `argv` with its output in the file `output` and waits for it with waitpid (Foundation's
/// Process does not reap a tmux client whose server lives on).
func spawnAndWait(_ argv: [String], output: String) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    var arguments = argv.map { strdup($0) } + [nil]
    defer { arguments.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, argv[0], &actions, nil, &arguments, environ)
    guard spawned == 0 else { throw DaemonTestError("\(argv[0]): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}

/// sheet-render started by a test, its standard error kept in a file.
final class Renderer {
    let process = Process()
    let logPath: String

    /// `environment`: changes to the test's own; nil takes a variable away.
    init(_ arguments: [String], folder: URL, environment: [String: String?] = [:]) throws {
        logPath = folder.appendingPathComponent("sheet-render.log").path
        process.executableURL = builtExecutable("sheet-render")
        process.arguments = arguments
        if !environment.isEmpty {
            var merged = ProcessInfo.processInfo.environment
            for (name, value) in environment { merged[name] = value }
            process.environment = merged
        }
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        try process.run()
    }

    /// Waits for it to exit; a renderer still running after the patience is stopped, which
    /// fails the test that waited.
    func wait() -> Int32 {
        let process = self.process
        let watchdog = DispatchWorkItem { if process.isRunning { process.interrupt() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(RendererTests.patienceMilliseconds)), execute: watchdog)
        process.waitUntilExit()
        watchdog.cancel()
        return process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    deinit { if process.isRunning { process.terminate(); process.waitUntilExit() } }
}

/// Reads `--frame-log` lines from a FIFO as the renderer writes them; every wait is on the
/// FIFO, with the patience as its safety net.
final class FrameLogReader {
    private let descriptor: Int32
    private let lines: DescriptorLines

    init(_ path: String) throws {
        // Non-blocking open: a renderer that never opens its end fails the wait, not the run.
        descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw DaemonTestError("cannot open \(path)") }
        lines = DescriptorLines(descriptor, what: "frame")
    }

    deinit { close(descriptor) }

    /// How many frames were read, and the last one's line: a wait that runs out says what the
    /// renderer drew before it stopped drawing.
    private(set) var count = 0
    private var last: [UInt8] = []

    /// The state of the first frame from now on that satisfies `match`.
    func next(_ match: ([String: Any]) -> Bool) throws -> [String: Any] {
        while true {
            let line: [UInt8]?
            do { line = try lines.next() } catch {
                throw DaemonTestError("\(error) after \(count) frame(s); the last: \(String(decoding: last, as: UTF8.self))")
            }
            guard let line else { throw DaemonTestError("the frame log ended before the frame looked for") }
            count += 1
            last = line
            let frame = try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
            let state = frame["state"] as! [String: Any]
            if match(state) { return state }
        }
    }

    func waitForEnd() throws {
        while try lines.next() != nil {}
    }

    /// Whether the renderer has logged a frame not read yet (without waiting).
    var hasUnread: Bool { lines.hasUnread }
}

struct Cell: Equatable, CustomStringConvertible {
    var text: Character
    var foreground: RGB?
    var background: RGB?
    var description: String { "\(text) fg \(foreground.map(\.description) ?? "default") bg \(background.map(\.description) ?? "default")" }
}

/// A pane captured with `capture-pane -e`: characters with the 24-bit colours their SGR
/// sequences set.
struct TerminalPane {
    private(set) var lines: [[Cell]] = []

    init(_ captured: String) throws {
        // tmux writes a colour when it changes, so it carries from one line to the next.
        var foreground: RGB?, background: RGB?
        for raw in captured.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            var cells: [Cell] = []
            var characters = raw.makeIterator()
            while let character = characters.next() {
                guard character == "\u{1B}" else {
                    cells.append(Cell(text: character, foreground: foreground, background: background))
                    continue
                }
                guard characters.next() == "[" else { throw DaemonTestError("an escape that is not CSI in \(raw)") }
                var parameters = ""
                while let c = characters.next(), c != "m" { parameters.append(c) }
                var numbers = parameters.split(separator: ";").compactMap { Int($0) }[...]
                if numbers.isEmpty { foreground = nil; background = nil }
                while let code = numbers.popFirst() {
                    switch code {
                    case 0: foreground = nil; background = nil
                    case 38, 48:
                        guard numbers.popFirst() == 2, let r = numbers.popFirst(), let g = numbers.popFirst(), let b = numbers.popFirst() else { continue }
                        let color = RGB(UInt8(r), UInt8(g), UInt8(b))
                        if code == 38 { foreground = color } else { background = color }
                    case 39: foreground = nil
                    case 49: background = nil
                    default: break
                    }
                }
            }
            lines.append(cells)
        }
    }

    func cell(_ line: Int, _ column: Int) -> Cell? {
        guard line < lines.count, column < lines[line].count else { return nil }
        return lines[line][column]
    }

    func text(_ line: Int) -> String { String(lines[line].map(\.text)) }
}
