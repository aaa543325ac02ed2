import Foundation
import SheetClient
import SheetCore
import SheetProtocol
import SheetRecordings
import SheetTestSupport
import Testing

/// `sheetctl`'s client commands as a script uses them: the socket from `SHEETD_SOCKET`,
/// `--wait` for a daemon that is starting, `--until-rest` that never waits for a sheet that is
/// already idle.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: builtExecutable("sheetd").path)))
struct ClientCommandTests {
    /// Runs sheetctl with `SHEETD_SOCKET` set to `socket` and no `--socket`.
    func sheetctl(_ arguments: [String], socket: String) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProcess(builtExecutable("sheetctl"), arguments, environment: ["SHEETD_SOCKET": socket])
    }

    @Test func untilRestEndsAtOnceOnAnIdleSheetAndWaitsOutAReplay() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(trace("ts-atmel-maxtouch.1-finger-drag-up-down.evemu"))@4"])
        // While the recording plays, the watcher follows it to the end.
        let during = try sheetctl(["watch", "--until-rest"], socket: daemon.socketPath)
        #expect(during.status == 0, "\(during.stderr)")
        let updates = try during.stdout.split(separator: "\n").map { try MonitorUpdate(json: JSONReader.parse(String($0))) }
        #expect(updates.first?.state.inputActive == true, "the replay was under way when the watcher came")
        #expect(updates.last?.state.isIdle == true)
        #expect(updates.dropLast().allSatisfy { !$0.state.isIdle }, "it stops at the first idle state")

        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        // Idle now: one line, at once.
        let after = try sheetctl(["watch", "--until-rest", "--format", "text"], socket: daemon.socketPath)
        #expect(after.status == 0, "\(after.stderr)")
        #expect(after.stdout.split(separator: "\n").count == 1, "\(after.stdout)")
        #expect(after.stdout.contains("resting at half"), "\(after.stdout)")
        #expect(daemon.stop() == 0)
    }

    @Test func aReplayThatNeverMovesTheSheetEndsIdle() throws {
        // A still finger on the card: the sheet never moves, but `inputActive` changes: true
        // while the recording plays, false once it has played its last frame.
        var recording = SyntheticRecording()
        recording.wait(0.2)
        recording.stroke(from: (540, 1400), to: (541, 1400), seconds: 0.3, holdSeconds: 0)
        recording.wait(0.3)
        let file = try temporaryFile("still.evemu", recording.evemu())
        let daemon = try RunningDaemon(["--input", "replay:\(file)"])
        let updates = try monitor(try daemon.client()) { $0.state.isIdle }
        #expect(updates.allSatisfy { $0.state.state == .resting && $0.state.cause == .initial }, "\(updates.map(\.state))")
        #expect(updates.count >= 2, "the replay's end is a state of its own")
        #expect(updates.first?.state.inputActive == true)
        #expect(daemon.stop() == 0)
    }

    /// Day to night: `sheetctl appearance --theme dark` reaches every subscriber in the next
    /// state; a value past its limit is refused before it is sent, naming the option.
    @Test func appearanceTurnsTheSheetDarkForEverySubscriber() throws {
        let daemon = try RunningDaemon(["--input", "none", "--accent", "#e66100"])
        let client = try daemon.client()
        #expect(try client.state().appearance == Appearance(accent: RGB(hex: 0xE66100)))
        let set = try sheetctl(["appearance", "--theme", "dark", "--text-scale", "1.5"], socket: daemon.socketPath)
        #expect(set.status == 0, "\(set.stderr)")
        let state = try client.state()
        #expect(state.appearance == Appearance(theme: .dark, accent: RGB(hex: 0xE66100), textScale: 1.5))
        let refused = try sheetctl(["appearance", "--text-scale", "7"], socket: daemon.socketPath)
        #expect(refused.status != 0 && refused.stderr.contains("--text-scale: not 0.5 to 3.0"), "\(refused.stderr)")
        // Sent anyway by a client of its own: InvalidParameter naming the field.
        #expect(throws: ClientError.self) { try client.setAppearance(AppearanceChange(textScale: 7)) }
        #expect(try client.state().appearance.textScale == 1.5)
        #expect(daemon.stop() == 0)
    }

    /// A kiosk's sheet made a bottom bar and non-modal at run time: `sheetctl presentation`
    /// rebuilds the detents (the closed sheet rests at the bar), every state says so, a tap
    /// fed on the bar opens it with `presented` (bar-tap) in the stream, and it all survives
    /// a restart with a state directory. A bad value is refused naming its option.
    @Test func presentationMakesABottomBarThatATapOpensAndARestartKeeps() throws {
        let state = try temporaryFolder().path
        var daemon = try RunningDaemon(["--input", "none", "--initial", "hidden", "--state-directory", state])
        let client = try daemon.client()
        let set = try sheetctl(["presentation", "--present-gesture", "bottom-bar", "--modal", "false", "--can-close", "false"],
                               socket: daemon.socketPath)
        #expect(set.status == 0, "\(set.stderr)")
        let closed = try client.state()
        #expect(closed.detent == .collapsed && closed.topInPixels == 1920 - 64, "\(closed)")
        #expect(closed.presentation.gestures == .bottomBar && !closed.presentation.modal && !closed.presentation.canClose)
        #expect(closed.regionInPixels == ScreenRegion(x: 220, y: 1920 - 64 - 35, width: 640, height: 64 + 35), "the bar")
        let refused = try sheetctl(["presentation", "--present-gesture", "corner"], socket: daemon.socketPath)
        #expect(refused.status != 0 && refused.stderr.contains("--present-gesture:"), "\(refused.stderr)")

        // A tap on the bar, fed as a program would: the sheet opens, and says what opened it.
        let watcher = try daemon.client()
        try watcher.connection.send(VarlinkCall(method: "io.sheetd.Sheet.Monitor", more: true))
        let input = try InputClient(path: daemon.socketPath.replacingOccurrences(of: "io.sheetd.Sheet", with: "io.sheetd.Input"))
        let device = try input.open(PluginDevice(name: "test", kind: .touchscreen, x: 0...1080, y: 0...1920, slots: 1, clock: .own))
        let now: Int64 = 0
        try input.send(PluginFrame(sequence: 1, timeInMicroseconds: now, contacts: [PluginContact(slot: 0, phase: .down, x: 540, y: 1890)]), device: device)
        try input.send(PluginFrame(sequence: 2, timeInMicroseconds: now + 50_000, contacts: [PluginContact(slot: 0, phase: .up, x: 540, y: 1890)]), device: device)
        var events: [SheetEvent] = []
        while true {
            let reply = try watcher.connection.readReply()
            let update = try MonitorUpdate(json: reply.parameters)
            events += update.events
            if update.state.isIdle && update.state.detent == .half { break }
        }
        #expect(events.contains { $0.kind == .presented && $0.presentCause == .barTap }, "\(events)")
        #expect(daemon.stop() == 0)

        daemon = try RunningDaemon(["--input", "none", "--state-directory", state])
        let restarted = try daemon.client().state()
        #expect(restarted.presentation.gestures == .bottomBar && !restarted.presentation.modal, "\(restarted.presentation)")
        #expect(restarted.detent == .half)
        #expect(daemon.stop() == 0)
    }

    /// A tap on a switch row of examples/settings.yaml (Wi-Fi, under the Connections header at
    /// half: 1064..<1136): the update that says `item-toggled` already carries its revision,
    /// a mirror that follows the stream flips the switch with no `GetContent`, and the
    /// daemon's content says so too.
    @Test func aTappedSwitchIsFlippedInTheStateThatSaysSo() throws {
        let settings = fixtures.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples/settings.yaml").path
        var recording = SyntheticRecording()
        recording.wait(1)
        recording.tap(x: 400, y: 1100)
        recording.wait(0.1)
        let file = try temporaryFile("tap.evemu", recording.evemu())
        let config = try temporaryFile("settings.yaml", "content: \(settings)\n")
        let daemon = try RunningDaemon(["--config", config, "--input", "replay:\(file)"])
        let client = try daemon.client()
        var mirror = ContentMirror()
        let first = try client.contentAndRevision()
        var flipped: MonitorUpdate?
        _ = try monitor(try daemon.client()) { update in
            if mirror.revision == nil { mirror.fetched(first.content, revision: first.revision) }
            let needsFetch = mirror.follow(update)
            if update.events.contains(where: { $0.kind == .itemToggled }) {
                flipped = update
                #expect(!needsFetch, "the event accounts for the revision")
            }
            // Idle only once the recording has played (the tap comes 1 s in).
            return update.state.isIdle
        }
        let update = try #require(flipped)
        #expect(update.events.map(\.description) == ["item-toggled wifi off"])
        #expect(update.state.list?.revision == first.revision + 1)
        #expect(mirror.content?.items.first?.accessory == .toggle(isOn: false))
        #expect(try client.content().items.first?.accessory == .toggle(isOn: false))
        #expect(daemon.stop() == 0)
    }

    @Test func waitWaitsForADaemonThatIsStarting() throws {
        let folder = try temporaryFolder()
        let socket = folder.appendingPathComponent("io.sheetd.Sheet").path
        // The client first; the daemon after, on the socket it waits for.
        let (process, out, _) = try startProcess(builtExecutable("sheetctl"), ["state", "--wait=60", "--format", "text"],
                                                 environment: ["SHEETD_SOCKET": socket])
        let daemon = try RunningDaemon(["--input", "replay:\(trace("ts-atmel-maxtouch.1-finger-fast-taps.evemu"))@max"], socketPath: socket)
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(printed.hasPrefix("resting") || printed.hasPrefix("settling") || printed.hasPrefix("dragging"), "\(printed)")
        #expect(daemon.stop() == 0)

        // Without a daemon, a bounded wait ends with the reason and EX_UNAVAILABLE.
        let missing = try sheetctl(["state", "--wait=0.2"], socket: folder.appendingPathComponent("none").path)
        #expect(missing.status == 69)
        #expect(missing.stderr.contains("No such file or directory (waited 0.2 s)"), "\(missing.stderr)")
        // And with none at all, it does not wait.
        let unasked = try sheetctl(["state"], socket: folder.appendingPathComponent("none").path)
        #expect(unasked.status == 69)
        #expect(!unasked.stderr.contains("waited"), "\(unasked.stderr)")
    }

    @Test func aBadWaitIsRefused() throws {
        let result = try sheetctl(["state", "--wait=soon"], socket: "/nonexistent")
        #expect(result.status == 64, "\(result.stderr)")
    }
}
