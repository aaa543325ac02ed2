import Foundation
import Glibc
import SheetClient
import SheetCore
import SheetProtocol
import SheetTestSupport
import Testing
import SheetSystem

/// What the daemon keeps in its state directory: the content, its order and the resting detent,
/// across a stop (SIGTERM) and a crash (SIGKILL), and what it does with a file it cannot use.
@Suite(.serialized) struct PersistenceTests {
    static let menu = examples.appendingPathComponent("menu.yaml").path
    static let reorder = examples.appendingPathComponent("reorder.evemu").path
    static let menuOrder = ["wifi", "bluetooth", "display", "sound", "network", "language", "time", "updates", "about"]
    static let reordered = ["wifi", "display", "sound", "bluetooth", "network", "language", "time", "updates", "about"]

    /// The daemon with the menu from its configuration, replaying the reorder at full speed.
    func reorderedDaemon(state: String) throws -> RunningDaemon {
        let config = try temporaryFile("content.yaml", "content: \(Self.menu)\n")
        let daemon = try RunningDaemon(["--config", config, "--state-directory", state, "--input", "replay:\(Self.reorder)@max"])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        return daemon
    }

    /// Waits until `state.json` in `folder` satisfies `match`, woken by inotify when a file is
    /// renamed into the folder (how the daemon replaces it), never by a timer.
    @discardableResult
    func waitForStateFile(in folder: String, _ match: (String) -> Bool) throws -> String {
        let path = folder + "/state.json"
        let notifications = inotify_init1(Int32(IN_CLOEXEC))
        defer { close(notifications) }
        guard inotify_add_watch(notifications, folder, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE)) >= 0 else {
            throw DaemonTestError("inotify on \(folder): \(String(cString: strerror(errno)))")
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if match(text) { return text }
            var ready = pollfd.readable(notifications)
            guard poll(&ready, 1, Int32(RunningDaemon.patienceSeconds * 1000)) > 0 else {
                throw DaemonTestError("\(path) never matched; it holds: \(text)")
            }
            _ = buffer.withUnsafeMutableBytes { read(notifications, $0.baseAddress, $0.count) }
        }
    }

    @Test func theOrderAndTheRestingDetentSurviveAStop() throws {
        let state = try temporaryFolder().path
        var daemon = try reorderedDaemon(state: state)
        try daemon.client().setDetent("expanded")
        try waitForStateFile(in: state) { $0.contains("\"detent\":\"expanded\"") }
        #expect(daemon.stop() == 0)

        // No content in the configuration now: all of it comes from the state directory.
        daemon = try RunningDaemon(["--state-directory", state, "--input", "replay:\(try Generated.idle())@max"])
        #expect(try daemon.client().content().items.map(\.id) == Self.reordered)
        #expect(try daemon.client().content().title == "Settings")
        #expect(try daemon.client().state().detent == "expanded")
        #expect(daemon.log.contains("restored from \(state)/state.json"), "\(daemon.log)")
        #expect(daemon.stop() == 0)
    }

    /// `SetReduceMotion` (here through `sheetctl reduce-motion`) holds across a reload that
    /// leaves the file's `reduce-motion` as it was, and across a restart; a file that changes
    /// its setting wins. Nobody outside the control group may call it; a bad value changes
    /// nothing.
    @Test func reducedMotionAsAClientSetItSurvivesAReloadAndARestart() throws {
        let state = try temporaryFolder().path
        let config = try temporaryFile("motion.yaml", "policy: projection\n")
        func start() throws -> RunningDaemon { try Self.idleDaemon(config: config, state: state, ["--socket-mode", "0666"]) }
        func reload(_ daemon: RunningDaemon, _ text: String) throws { try Self.reload(daemon, config: config, text) }
        var daemon = try start()
        #expect(try daemon.client().state().reduceMotion == false)
        let on = try runTool("sheetctl", ["reduce-motion", "on", "--socket", daemon.socketPath])
        #expect(on.status == 0, "\(on.stderr)")
        #expect(try daemon.client().state().reduceMotion == true)
        #expect(try runTool("sheetctl", ["state", "--socket", daemon.socketPath, "--format", "text"]).stdout.contains("reduced motion"))

        let raw = try daemon.client().connection
        try raw.send(VarlinkCall(method: "io.sheetd.Sheet.SetReduceMotion", parameters: .object(["enabled": .string("yes")])))
        let refused = try raw.readReply()
        #expect(refused.error == VarlinkErrorName.invalidParameter)
        #expect(refused.parameters == .object(["parameter": .string("enabled")]))
        if geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") {
            let copy = daemon.folder.appendingPathComponent("sheetctl")
            try installExecutable(builtExecutable("sheetctl"), at: copy)
            let nobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", copy.path]
            let denied = try runTool("", ["reduce-motion", "off", "--socket", daemon.socketPath], prefix: nobody)
            #expect(denied.status == 77, "\(denied.stderr)")
        }
        #expect(try daemon.client().state().reduceMotion == true, "refused calls change nothing")

        try reload(daemon, "policy: projection\nlog-level: debug\n")
        #expect(try daemon.client().state().reduceMotion == true, "a reload that leaves the setting keeps the client's")
        try waitForStateFile(in: state) { $0.contains("\"reduceMotion\":true") }
        #expect(daemon.stop() == 0)

        daemon = try start()
        #expect(try daemon.client().state().reduceMotion == true, "restored from the state directory")
        try reload(daemon, "reduce-motion: true\n")
        try reload(daemon, "reduce-motion: false\n")
        #expect(try daemon.client().state().reduceMotion == false, "a file that changes its setting wins")
        #expect(daemon.stop() == 0)
    }

    /// `SetAppearance` (day to night) holds across a reload that leaves the file's appearance
    /// as it was, and across a restart; a reload that changes the file's appearance wins, and
    /// cancels nothing (only how the sheet looks changed).
    @Test func anAppearanceAsAClientSetItSurvivesAReloadAndARestart() throws {
        let state = try temporaryFolder().path
        let config = try temporaryFile("look.yaml", "accent: \"#e66100\"\n")
        func start() throws -> RunningDaemon { try Self.idleDaemon(config: config, state: state) }
        func reload(_ daemon: RunningDaemon, _ text: String) throws { try Self.reload(daemon, config: config, text) }
        var daemon = try start()
        let night = AppearanceChange(theme: .dark, textScale: 1.25)
        try daemon.client().setAppearance(night)
        let chosen = night.applied(to: Appearance(accent: RGB(hex: 0xE66100)))
        #expect(try daemon.client().state().appearance == chosen)
        try reload(daemon, "accent: \"#e66100\"\nlog-level: debug\n")
        #expect(try daemon.client().state().appearance == chosen, "a reload that leaves the appearance keeps the client's")
        try waitForStateFile(in: state) { $0.contains("\"theme\":\"dark\"") }
        #expect(daemon.stop() == 0)

        daemon = try start()
        #expect(try daemon.client().state().appearance == chosen, "restored from the state directory")
        try reload(daemon, "accent: \"#2ec27e\"\n")
        #expect(try daemon.client().state().appearance == Appearance(accent: RGB(hex: 0x2EC27E)), "a file that changes it wins")
        #expect(daemon.stop() == 0)
    }

    /// A daemon on `config` keeping its state in `state`, its idle recording played.
    static func idleDaemon(config: String, state: String, _ more: [String] = []) throws -> RunningDaemon {
        let daemon = try RunningDaemon(["--config", config, "--state-directory", state] + more
                                       + ["--input", "replay:\(try Generated.idle())@max"])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        return daemon
    }

    /// `text` as the configuration, then SIGHUP, until the daemon is ready again.
    static func reload(_ daemon: RunningDaemon, config: String, _ text: String) throws {
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        try daemon.waitForStatus { $0 == "RELOADING=1" }
        try daemon.waitForStatus { $0 == "READY=1" }
    }

    @Test func whatWasSavedASecondBeforeACrashSurvivesIt() throws {
        let state = try temporaryFolder().path
        var daemon = try reorderedDaemon(state: state)
        // Within a second of the reorder's end the file has the new order; then SIGKILL,
        // which leaves the daemon no time for anything.
        try waitForStateFile(in: state) { $0.contains("\"bluetooth\",\"label\":\"Bluetooth\"},{\"id\":\"network\"") }
        kill(daemon.process.processIdentifier, SIGKILL)
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationReason == .uncaughtSignal)

        daemon = try RunningDaemon(["--state-directory", state, "--input", "replay:\(try Generated.idle())@max"])
        #expect(try daemon.client().content().items.map(\.id) == Self.reordered)
        #expect(!FileManager.default.fileExists(atPath: state + "/state.json.corrupt"))
        #expect(daemon.stop() == 0)
    }

    /// A saved detent that is not a detent's name (saved before names were held to 15 bytes)
    /// costs the detent alone: the content is restored and the sheet starts at the initial one.
    @Test func aSavedDetentThatIsNoLongerANameIsLeftOutAndSaid() throws {
        let state = try temporaryFolder().path
        let file = state + "/state.json"
        let contents = "{\"version\":1,\"detent\":\"a-name-of-twenty-bytes\",\"content\":{\"title\":\"Saved\",\"items\":[{\"id\":\"x\",\"label\":\"X\"}],\"guarded\":false}}"
        try Data(contents.utf8).write(to: URL(fileURLWithPath: file))
        let daemon = try RunningDaemon(["--state-directory", state, "--input", "replay:\(try Generated.idle())@max"])
        #expect(try daemon.client().content().items.map(\.id) == ["x"], "the content was restored")
        #expect(try daemon.client().state().detent == "half")
        #expect(daemon.log.contains("the saved detent \"a-name-of-twenty-bytes\" is not a detent's name"), "\(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: file + ".corrupt"))
        #expect(daemon.stop() == 0)
    }

    @Test(arguments: [
        ("{\"version\":1,\"detent\":\"half\",\"content\":{\"title\":\"Sett", "cut short"),
        ("{\"version\":7,\"detent\":\"half\",\"content\":{\"title\":\"\",\"items\":[],\"guarded\":false}}", "version 7"),
        ("{\"version\":1,\"content\":{\"title\":\"\",\"items\":[{\"id\":\"a\"},{\"id\":\"a\"}],\"guarded\":false}}", "items[1].id"),
        ("\u{FF}\u{FE}binary", "not JSON"),
    ])
    func aStateFileItCannotUseIsMovedAsideAndSaid(_ contents: String, _ reason: String) throws {
        let state = try temporaryFolder().path
        let file = state + "/state.json"
        try Data(contents.utf8).write(to: URL(fileURLWithPath: file))
        let config = try temporaryFile("content.yaml", "content: \(Self.menu)\n")
        let daemon = try RunningDaemon(["--config", config, "--state-directory", state, "--input", "replay:\(try Generated.idle())@max"])
        #expect(try daemon.client().content().items.map(\.id) == Self.menuOrder, "started from the configuration")
        #expect(try String(contentsOfFile: file + ".corrupt", encoding: .utf8) == contents)
        let said = daemon.log.split(separator: "\n").first { $0.contains("saved state unusable") } ?? ""
        #expect(said.contains(file) && said.contains(reason) && said.contains("moved to \(file).corrupt"), "\(daemon.log)")
        #expect(daemon.stop() == 0)
    }

    /// What is in the state directory is not trusted to be a file: a symlink where the state
    /// file goes is not read through, and is replaced by the saved file, the file it pointed to
    /// untouched; a FIFO where the state file or its temporary go neither holds up the start
    /// nor the saves and the stop.
    @Test func aSymlinkOrAFifoWhereTheStateGoesIsNeitherFollowedNorWaitedOn() throws {
        for shape in ["symlink", "fifo", "temporary fifo", "temporary symlink"] {
            let state = try temporaryFolder().path
            let file = state + "/state.json", outside = try temporaryFile("outside.json", "{\"precious\":true}\n")
            switch shape {
            case "symlink": guard symlink(outside, file) == 0 else { throw DaemonTestError("symlink") }
            case "fifo": guard mkfifo(file, 0o600) == 0 else { throw DaemonTestError("mkfifo") }
            case "temporary fifo": guard mkfifo(file + ".tmp", 0o600) == 0 else { throw DaemonTestError("mkfifo") }
            default: guard symlink(outside, file + ".tmp") == 0 else { throw DaemonTestError("symlink") }
            }
            let daemon = try RunningDaemon(["--state-directory", state, "--input", "replay:\(try Generated.idle())@max"])
            try daemon.client().setContent(ContentChange(title: "Saved", items: [SheetItem(id: "x", label: "X")]))
            #expect(daemon.stop() == 0, "\(shape): \(daemon.log)")
            #expect(try String(contentsOfFile: outside, encoding: .utf8) == "{\"precious\":true}\n", "\(shape): the file outside is untouched")
            var status = stat()
            #expect(lstat(file, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG, "\(shape): the state was saved as a file of its own")
            #expect(try String(contentsOfFile: file, encoding: .utf8).contains("\"Saved\""), "\(shape)")
            if shape == "symlink" || shape == "fifo" {
                #expect(daemon.log.contains("not a regular file"), "\(shape): said: \(daemon.log)")
            }
        }
    }
}
