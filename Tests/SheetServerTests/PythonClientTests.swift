import Foundation
import Glibc
import SheetCore
import SheetInput
import SheetRecordings
import SheetTestSupport
import Testing

/// clients/python against the real daemon, and the examples that use it (and socat).
@Suite struct PythonClientTests {
    static let root = fixtures.deletingLastPathComponent().deletingLastPathComponent()
    static let pythonPath = root.appendingPathComponent("clients/python").path

    /// A copy of the clone's `paths` in a folder any user may read, for a program a test runs
    /// as another user: a clone in /root (mode 700) is not readable by it.
    static func readableCopy(_ paths: [String]) throws -> URL {
        let folder = try temporaryFolder()
        for path in paths {
            let target = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: root.appendingPathComponent(path), to: target)
        }
        // Readable (and folders enterable) by all, whatever the clone's modes were.
        let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isDirectoryKey])
        chmod(folder.path, 0o755)
        while let item = walker?.nextObject() as? URL {
            let isFolder = (try? item.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
            chmod(item.path, isFolder ? 0o755 : 0o644)
        }
        return folder
    }

    /// The client's own tests: fake servers (malformed replies, errors, a restart under
    /// follow()) and, with SHEETD_TEST_SOCKET, the real daemon.
    @Test func theClientsTestsPassAgainstTheDaemon() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max"])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        let result = try runProcess(URL(fileURLWithPath: testPython), [Self.root.appendingPathComponent("clients/python/tests/test_client.py").path, "-v"],
                                    environment: ["SHEETD_TEST_SOCKET": daemon.socketPath])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("Ran 23 tests"), "\(result.stderr)")
        #expect(!result.stderr.contains("skipped"), "every test ran against the daemon: \(result.stderr)")
        #expect(daemon.stop() == 0)
    }

    /// examples/python/kiosk.py on a daemon that replays, two seconds in, a tap on the first
    /// setting and then two swipes down: the tap toggles it and guards the sheet, the first
    /// swipe is refused and asks, the second discards and dismisses.
    @Test func theKioskExampleConfirmsAGuardedDismissal() throws {
        var r = SyntheticRecording()
        r.report()  // the recording's time starts here; the kiosk sets its content meanwhile
        r.at(2)
        r.tap(x: 300, y: 1016 + 28)  // the first row at the half detent (the list starts at 1016)
        for start in [3.0, 4.0] {
            r.at(start)
            r.stroke(from: (540, 1100), to: (540, 1700), seconds: 0.08)
        }
        let recording = try temporaryFile("kiosk.evemu", r.evemu())
        let daemon = try RunningDaemon(["--input", "replay:\(recording)"])
        let kiosk = try LineReadingProcess(URL(fileURLWithPath: testPython),
                                           [Self.root.appendingPathComponent("examples/python/kiosk.py").path, daemon.socketPath],
                                           environment: ["PYTHONPATH": Self.pythonPath])
        let lines = try kiosk.lines(4)
        #expect(lines == ["content set, sheet presented", "wifi on", "dismissal refused, asking (swipe-down)",
                          "changes discarded, dismissed (swipe-down)"], "\(lines)\n\(kiosk.errors)")
        let content = try daemon.client().content()
        #expect(content.items.first?.label == "  Wi-Fi" && content.guarded == false, "the changes were discarded: \(content)")
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        #expect(try daemon.client().state().detent == "hidden")
        #expect(daemon.stop() == 0)
    }

    /// Waits until the daemon has `count` connections, the one that asks included: a client
    /// closed for idleness is one fewer, a follower back after a restart one more.
    static func waitForConnections(_ daemon: RunningDaemon, _ count: Int) throws {
        let asking = try daemon.client()
        for _ in 0..<(RunningDaemon.patienceSeconds * 50) {
            if try asking.stats().connections == count { return }
            usleep(20_000)
        }
        throw DaemonTestError("sheetd never had \(count) connections; log:\n\(daemon.log)")
    }

    /// A kiosk left running: examples/python/kiosk.py answers a tap after the daemon closed its
    /// idle connection, and another after the daemon restarted under it (the content kept in
    /// the state directory, as the installed service keeps it).
    @Test func theKioskAnswersAfterIdleTimeAndARestart() throws {
        let state = try temporaryFolder().path
        let arguments = ["--input", "none", "--screen", "1080x1920", "--client-idle-timeout", "0.3", "--state-directory", state]
        var daemon = try RunningDaemon(arguments)
        let kiosk = try LineReadingProcess(URL(fileURLWithPath: testPython),
                                           [Self.root.appendingPathComponent("examples/python/kiosk.py").path, daemon.socketPath],
                                           environment: ["PYTHONPATH": Self.pythonPath])
        #expect(try kiosk.lines(1) == ["content set, sheet presented"], "\(kiosk.errors)")
        // The kiosk's calls' connection closed for idleness: its follower and this one left.
        try Self.waitForConnections(daemon, 2)
        #expect(daemon.log.contains("made no call for 0.3 s; closed"), "\(daemon.log)")
        try daemon.client().focus("wifi", command: .activate)
        #expect(try kiosk.lines(1) == ["wifi on"], "\(kiosk.errors)")
        #expect(daemon.stop() == 0)
        daemon = try RunningDaemon(arguments, socketPath: daemon.socketPath)
        // The kiosk's follower back on the new daemon.
        try Self.waitForConnections(daemon, 2)
        try daemon.client().focus("bluetooth", command: .activate)
        #expect(try kiosk.lines(1) == ["bluetooth on"], "\(kiosk.errors)")
        let content = try daemon.client().content()
        #expect(content.items.prefix(2).map(\.label) == ["✓ Wi-Fi", "✓ Bluetooth"] && content.guarded == true, "\(content)")
        kill(kiosk.process.processIdentifier, SIGKILL)
        kiosk.process.waitUntilExit()
        #expect(daemon.stop() == 0)
    }

    /// A player left running: its own sheet goes with a daemon that stops, and is opened again
    /// on the next one with what it last showed; the player answers taps there as before.
    @Test(arguments: [false, true]) func theMediaPlayerAnswersAfterARestart(async: Bool) throws {
        let arguments = ["--input", "none", "--screen", "540x960", "--client-idle-timeout", "0.3"]
        var daemon = try RunningDaemon(arguments)
        let player = try LineReadingProcess(URL(fileURLWithPath: testPython),
                                            [Self.root.appendingPathComponent("examples/python/media-player.py").path, daemon.socketPath]
                                                + (async ? ["--async"] : []),
                                            environment: ["PYTHONPATH": Self.pythonPath])
        let opened = try player.lines(1)
        let sheet = String(opened.first?.split(separator: " ").first ?? "")
        try ProgramsTests.wait(for: daemon) { $0.sheet == sheet && $0.isIdle }
        try daemon.client().focus("next", command: .activate)
        #expect(try player.lines(2) == ["presented (control)", "next: ▶ Northbound"], "\(player.errors)")
        #expect(daemon.stop() == 0)
        daemon = try RunningDaemon(arguments, socketPath: daemon.socketPath)
        let back = try ProgramsTests.wait(for: daemon) { $0.sheet != nil && $0.isIdle }
        #expect(try daemon.client().contentOfSheet(back.sheet ?? "").content.title == "▶ Northbound")
        // Its follower back too (with this one): a tap now is heard.
        try Self.waitForConnections(daemon, 3)
        try daemon.client().focus("next", command: .activate)
        // The new sheet's presentation is heard first, held for the player until it followed.
        var heard = try player.lines(1)
        if heard == ["presented (control)"] { heard += try player.lines(1) }
        #expect(heard.last == "next: ▶ Slow Rain", "\(heard) \(player.errors)")
        #expect(player.errors.contains("the daemon went; following it again, the events until then are lost"), "\(player.errors)")
        kill(player.process.processIdentifier, SIGKILL)
        player.process.waitUntilExit()
        #expect(daemon.stop() == 0)
    }

    /// examples/python/media-player.py, followed with an iterator and with asyncio: a person's
    /// taps (a screen reader's clicks, Focus(activate) on the sheet shown) are answered, the
    /// title showing the next track and the shuffle toggle the player's answer.
    @Test(arguments: [false, true]) func theMediaPlayerAnswersEachTap(async: Bool) throws {
        let daemon = try RunningDaemon(["--input", "none", "--screen", "540x960"])
        let player = try LineReadingProcess(URL(fileURLWithPath: testPython),
                                            [Self.root.appendingPathComponent("examples/python/media-player.py").path, daemon.socketPath]
                                                + (async ? ["--async"] : []),
                                            environment: ["PYTHONPATH": Self.pythonPath])
        let opened = try player.lines(1)
        #expect(opened.first?.hasSuffix(" opened: ▶ Harbour Lights") == true, "\(opened) \(player.errors)")
        let sheet = String(opened.first?.split(separator: " ").first ?? "")
        try ProgramsTests.wait(for: daemon) { $0.sheet == sheet && $0.isIdle }
        let person = try daemon.client()
        try person.focus("next", command: .activate)
        // Its sheet presented (heard even when it came before the player followed), then the tap.
        #expect(try player.lines(2) == ["presented (control)", "next: ▶ Northbound"], "\(player.errors)")
        try person.focus("toggle", command: .activate)
        #expect(try player.lines(1) == ["toggle: ⏸ Northbound"], "\(player.errors)")
        try person.focus("shuffle", command: .activate)
        #expect(try player.lines(1) == ["shuffle: ⏸ Northbound, shuffle"], "\(player.errors)")
        let answered = try person.contentOfSheet(sheet).content
        #expect(answered.title == "⏸ Northbound" && answered.items.map(\.label) == ["Play", "Next track", "Previous track", "Shuffle"])
        #expect(answered.items.last?.subtitle == "Album order, random" && answered.items.last?.accessory == .toggle(isOn: true), "\(answered.items)")
        kill(player.process.processIdentifier, SIGKILL)
        player.process.waitUntilExit()
        #expect(daemon.stop() == 0)
    }

    /// examples/python/confirmed-settings.py: a toggle shows the program's answer. Bluetooth,
    /// tapped on, goes back off and says why; Airplane mode turns Wi-Fi off and greys it.
    @Test func theConfirmedSettingsShowTheProgramsAnswer() throws {
        let daemon = try RunningDaemon(["--input", "none", "--screen", "540x960"])
        let settings = try LineReadingProcess(URL(fileURLWithPath: testPython),
                                              [Self.root.appendingPathComponent("examples/python/confirmed-settings.py").path, daemon.socketPath],
                                              environment: ["PYTHONPATH": Self.pythonPath])
        let sheet = String(try settings.lines(1).first?.split(separator: " ").first ?? "")
        try ProgramsTests.wait(for: daemon) { $0.sheet == sheet && $0.isIdle }
        let person = try daemon.client()
        for item in ["wifi", "bluetooth", "airplane"] { try person.focus(item, command: .activate) }
        #expect(try settings.lines(3) == ["wifi tapped on: wifi on, bluetooth off, airplane off",
                                          "bluetooth tapped on: wifi on, bluetooth off, airplane off (No adapter found)",
                                          "airplane tapped on: wifi off, bluetooth off, airplane on"], "\(settings.errors)")
        let items = try person.contentOfSheet(sheet).content.items
        #expect(items.map(\.accessory) == [.toggle(isOn: false), .toggle(isOn: false), .toggle(isOn: true)], "\(items)")
        #expect(items.map(\.disabled) == [true, true, false] && items[0].subtitle == "Off", "\(items)")
        kill(settings.process.processIdentifier, SIGKILL)
        settings.process.waitUntilExit()
        #expect(daemon.stop() == 0)
    }

    /// examples/python/watch.py prints the state at once and a line per change.
    @Test func theWatchExamplePrintsTheState() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max"])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        let watch = try LineReadingProcess(URL(fileURLWithPath: testPython),
                                           [Self.root.appendingPathComponent("examples/python/watch.py").path, daemon.socketPath],
                                           environment: ["PYTHONPATH": Self.pythonPath])
        let first = try watch.lines(1)
        try daemon.client().present(detent: "expanded")
        let next = try watch.lines(1)
        #expect(first.first?.contains("resting") == true, "\(first) \(watch.errors)")
        #expect(next.first?.contains("toward expanded") == true, "\(next) \(watch.errors)")
        let lines = (try? String(contentsOf: Self.root.appendingPathComponent("examples/python/watch.py"), encoding: .utf8))?
            .split(separator: "\n", omittingEmptySubsequences: false).count ?? 0
        #expect(lines <= 21, "a watch in twenty lines: \(lines)")
        #expect(daemon.stop() == 0)
    }

    /// examples/socat.sh: a call from the shell. socat shuts its side down once it has sent
    /// the call; the daemon still answers a control call that goes through the engine.
    @Test func theSocatExampleCallsTheDaemon() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max"])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        let script = Self.root.appendingPathComponent("examples/socat.sh")
        let present = try runProcess(script, ["present", "expanded"], environment: ["SHEETD_SOCKET": daemon.socketPath])
        #expect(present.status == 0 && present.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"parameters":{}}"#, "\(present)")
        let state = try runProcess(script, ["state"], environment: ["SHEETD_SOCKET": daemon.socketPath])
        let reply = try JSONSerialization.jsonObject(with: Data(state.stdout.utf8)) as? [String: Any]
        let parameters = reply?["parameters"] as? [String: Any], sheet = parameters?["state"] as? [String: Any]
        #expect(sheet?["target"] as? String == "expanded" || sheet?["detent"] as? String == "expanded", "\(state)")
        #expect(daemon.stop() == 0)
    }
}

/// A process whose standard output is read line by line as it comes; stopped when the test is
/// done with it.
final class LineReadingProcess {
    let process = Process()
    private let output = Pipe()
    private let errorPath: String
    private let outputLines: DescriptorLines

    init(_ executable: URL, _ arguments: [String], environment: [String: String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        errorPath = try temporaryFolder().appendingPathComponent("stderr").path
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        outputLines = DescriptorLines(output.fileHandleForReading.fileDescriptor, what: "line")
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var errors: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// The next `count` lines.
    func lines(_ count: Int) throws -> [String] {
        var read: [String] = []
        while read.count < count {
            do {
                guard let line = try outputLines.next() else { throw DaemonTestError("the output ended") }
                read.append(String(decoding: line, as: UTF8.self))
            } catch {
                throw DaemonTestError("\(error) after \(read); stderr: \(errors)")
            }
        }
        return read
    }
}

/// `io.sheetd.Input` through the third-party Python varlink client (python_input_client.py):
/// a plugin's drag ends where the replay of the same frames does, every kind of bad frame is
/// refused by its number with the sheet unmoved, a 17th device is refused, and a plugin killed
/// mid-drag cancels its touch. Then `sheetctl feed` as a user outside the input group.
@Suite struct InputPluginTests {
    @Test func aPluginDrivesTheSheetAndIsHeldToTheRules() throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1100), to: (540, 500), seconds: 0.12)
        let recording = try temporaryFile("drag.evemu", r.evemu())
        let expected = try #require(try replayEnd(recording)["detent"] as? String)
        // The same frames, decoded as the replay decodes them, in screen pixels.
        let input = try RecordedInput(path: recording, screen: ScreenSize(widthInPixels: 1080, heightInPixels: 1920))
        var lines = ""
        var frame = TouchFrame(time: .zero)
        var keys: [KeyEvent] = []
        while try input.next(screen: ScreenSize(widthInPixels: 1080, heightInPixels: 1920), into: &frame, keys: &keys) {
            guard !frame.isEmpty else { continue }
            let contacts = frame.contacts.map { #"{"slot":\#($0.slot),"phase":"\#($0.phase.name)","x":\#($0.positionInPixels.x),"y":\#($0.positionInPixels.y)}"# }
            lines += #"{"time":\#(frame.time.microseconds),"contacts":[\#(contacts.joined(separator: ","))]}"# + "\n"
        }
        let frames = try temporaryFile("drag.jsonl", lines)
        let daemon = try RunningDaemon(["--input", "none", "--socket-mode", "0666"])
        let inputSocket = daemon.folder.appendingPathComponent("io.sheetd.Input").path
        let result = try runProcess(URL(fileURLWithPath: testPython),
                                    [PythonClientTests.root.appendingPathComponent("Tests/SheetServerTests/python_input_client.py").path,
                                     daemon.socketPath, inputSocket, frames, expected])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)\n\(daemon.log)")
        for check in ["GetInfo ok", "drag ok", "ListDevices ok", "bad frames ok", "17th device ok", "killed mid-drag ok"] {
            #expect(result.stdout.contains(check), "\(check) missing: \(result.stdout)\(result.stderr)")
        }
        #expect(daemon.log.contains("frame 101 of device 1 refused: contacts[0]: slot 2 is out of range 0 to 1"), "\(daemon.log)")

        if geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") {
            let copy = daemon.folder.appendingPathComponent("sheetctl")
            try installExecutable(builtExecutable("sheetctl"), at: copy)
            let lines = try temporaryFile("tap.jsonl", #"{"contacts":[{"slot":0,"phase":"down","x":540,"y":1500}]}"# + "\n")
            chmod(lines, 0o644)
            let nobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh", "-c",
                          "exec \(copy.path) feed - --size 1080x1920 --input-socket \(inputSocket) < \(lines)"]
            let denied = try runProcess(URL(fileURLWithPath: nobody[0]), Array(nobody.dropFirst()))
            #expect(denied.status == 77, "\(denied.stderr)")
            #expect(denied.stderr.contains("not allowed: feeding touches needs root, the daemon's user or group"), "\(denied.stderr)")
        }
        #expect(try daemon.client().state().detent?.description == expected, "the refused feed moved nothing")
        #expect(daemon.stop() == 0)
    }

    /// `sheetctl feed -` reads stdin in constant memory: a line that never ends is refused once
    /// it passes 64 KiB, named by its line number.
    @Test func aFeedLineWithoutAnEndIsRefusedAtItsLimit() throws {
        let daemon = try RunningDaemon(["--input", "none"])
        let script = """
            { printf '{"contacts": []}\\n'; head -c 300000 /dev/zero | tr '\\0' x; } | \
            "$0" feed - --socket "$1"
            """
        let fed = try runTool("", [builtExecutable("sheetctl").path, daemon.socketPath], prefix: ["/bin/sh", "-c", script])
        #expect(fed.status == 65, "\(fed.stderr)")
        #expect(fed.stderr.contains("sheetctl: stdin:2: line longer than 64 KiB"), "\(fed.stderr)")
        #expect(daemon.stop() == 0)
    }

    /// `sheetctl feed FILE` plays each touchscreen recording into a daemon that has no input of
    /// its own, and the sheet ends where `sheetctl replay FILE` ends.
    @Test(arguments: ["ts-atmel-maxtouch.1-finger-drag-up-down.evemu", "ts-ep0430m09.2-finger-scroll-down.evemu",
                      "ts-atmel-maxtouch.4-finger-drag-down.evemu"])
    func feedingARecordingEndsWhereItsReplayDoes(_ name: String) throws {
        let expected = try #require(try replayEnd(trace(name))["detent"] as? String)
        let daemon = try RunningDaemon(["--input", "none"])
        let fed = try runTool("sheetctl", ["feed", trace(name), "--socket", daemon.socketPath])
        #expect(fed.status == 0, "\(fed.stderr)")
        // The last frame's effects are published before its reply: wait for rest on Monitor.
        let watcher = try daemon.client()
        try watcher.monitor { update, _ in !(update.state.state == .resting && !update.state.inputActive) }
        #expect(try daemon.client().state().detent?.description == expected, "\(daemon.log)")
        #expect(daemon.stop() == 0)
    }
}
