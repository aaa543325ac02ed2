import Foundation
import SheetClient
import SheetCore
import SheetInput
import SheetProtocol
import SheetTestSupport
import Testing

/// `Monitor(maxRate:)` on the real daemon: two watchers of one recording fed at its pace, one
/// with every state and one at 60 Hz.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: builtExecutable("sheetd").path)))
struct PacedMonitorTests {
    /// `sheetctl watch` with `flags`, once it has printed its first state (it has subscribed).
    func watcher(_ socket: String, _ flags: [String]) throws -> (process: Process, lines: DescriptorLines, first: MonitorUpdate) {
        let (process, out, _) = try startProcess(builtExecutable("sheetctl"), ["watch", "--socket", socket, "--until-next-rest"] + flags)
        let lines = DescriptorLines(out.fileHandleForReading.fileDescriptor, what: "state from sheetctl watch \(flags)")
        guard let first = try lines.next() else { throw DaemonTestError("sheetctl watch \(flags) ended before its first state") }
        return (process, lines, try Self.decode(first))
    }

    static func decode(_ line: [UInt8]) throws -> MonitorUpdate {
        try MonitorUpdate(json: JSONReader.parse(String(decoding: line, as: UTF8.self)))
    }

    static func rest(of lines: DescriptorLines) throws -> [MonitorUpdate] {
        var updates: [MonitorUpdate] = []
        while let line = try lines.next() { updates.append(try decode(line)) }
        return updates
    }

    /// The paced stream has every event of the unpaced one (the same updates, by number), ends
    /// in the same state, and has fewer states; no more than one without an event for each
    /// 16.7 ms of the stream, and the unpaced stream paced by `MonitorPacer` as the daemon's
    /// timer does keeps them 16.7 ms apart.
    @Test(arguments: ["ts-atmel-maxtouch.1-finger-drag-up-down.evemu", "ts-ep0430m09.2-finger-scroll-down.evemu"])
    func aStreamAt60HzHasEveryEventAndTheSameEnd(_ name: String) throws {
        let daemon = try RunningDaemon(["--input", "none"])
        let plain = try watcher(daemon.socketPath, [])
        let paced = try watcher(daemon.socketPath, ["--rate", "60"])
        let fed = try runTool("sheetctl", ["feed", trace(name), "--socket", daemon.socketPath])
        #expect(fed.status == 0, "\(fed.stderr)")
        let every = try Self.rest(of: plain.lines), some = try Self.rest(of: paced.lines)
        plain.process.waitUntilExit()
        paced.process.waitUntilExit()
        #expect(plain.process.terminationStatus == 0 && paced.process.terminationStatus == 0)

        let last = try #require(every.last), pacedLast = try #require(some.last)
        #expect(pacedLast.state == last.state, "the same end")
        #expect(last.state.isIdle)
        let events = every.filter(MonitorPacer.carriesEvent)
        #expect(!events.isEmpty)
        for event in events {
            #expect(some.contains { $0.sequence == event.sequence && $0 == event }, "update \(event.sequence) with its event")
        }
        for update in some {
            #expect(every.contains(update), "a paced update is one of the daemon's: \(update.sequence)")
        }
        #expect(some.count < every.count, "\(some.count) paced against \(every.count)")
        let span = last.timestampInMicroseconds - (every.first?.timestampInMicroseconds ?? 0)
        let plainStates = some.count { !MonitorPacer.carriesEvent($0) }
        #expect(Int64(plainStates) <= span / 16_667 + 2, "\(plainStates) states over \(span) µs")

        // The same rule over the whole unpaced stream, the timer on time.
        let sent = pacedStream(every, maxRate: 60)
        #expect(sent.last?.update.state == last.state)
        #expect(sent.filter { MonitorPacer.carriesEvent($0.update) }.map(\.update.sequence) == events.map(\.sequence))
        let states = sent.filter { !MonitorPacer.carriesEvent($0.update) }
        for (a, b) in zip(states, states.dropFirst()) {
            #expect(b.time - a.time >= 16_667, "states \(a.update.sequence) and \(b.update.sequence) within one 16.7 ms window")
        }
        #expect(daemon.stop() == 0)
    }

    /// Watched only at 60 Hz, the daemon hands the states its pacer holds to the server
    /// unbuilt (`VarlinkServer.hold`): those that fall due still newest are built then. The
    /// stream keeps its rules (numbers that only grow, one state without an event per 16.7 ms
    /// window, every pan's start and end) and ends in the state `GetState` gives, fewer states
    /// sent than the daemon published.
    @Test func aStreamWatchedOnlyAt60HzIsBuiltWhenItGoes() throws {
        let daemon = try RunningDaemon(["--input", "none"])
        let paced = try watcher(daemon.socketPath, ["--rate", "60"])
        let fed = try runTool("sheetctl", ["feed", trace("ts-atmel-maxtouch.1-finger-drag-up-down.evemu"), "--socket", daemon.socketPath])
        #expect(fed.status == 0, "\(fed.stderr)")
        let some = try Self.rest(of: paced.lines)
        paced.process.waitUntilExit()
        #expect(paced.process.terminationStatus == 0)

        let client = try daemon.client()
        let last = try #require(some.last)
        let state = try client.state()
        #expect(last.state.isIdle && last.state == state, "the end is the daemon's state")
        #expect(zip(some, some.dropFirst()).allSatisfy { $0.sequence < $1.sequence }, "numbers only grow")
        let pans = some.compactMap(\.gesture).filter { $0.kind == .pan }
        #expect(pans.contains { $0.phase == .began } && pans.contains { $0.phase == .ended }, "\(pans.map(\.phase))")
        let plain = some.filter { !MonitorPacer.carriesEvent($0) }
        let span = last.timestampInMicroseconds - (paced.first.timestampInMicroseconds)
        #expect(Int64(plain.count) <= span / 16_667 + 2, "\(plain.count) states over \(span) µs")
        let published = try client.stats().statesPublished
        #expect(Int64(some.count) + 1 < published, "\(some.count) sent of \(published) published")
        #expect(daemon.stop() == 0)
    }

    /// A finger that pans over the screen's other controls while the sheet is closed moves
    /// nothing a renderer draws: a subscriber at 60 Hz is sent the pan's start and end and not
    /// its moves, which an unpaced one gets each of, and both end in the same state.
    @Test func aPanThatMovesNoSheetWakesNoPacedSubscriberBetweenItsStartAndEnd() throws {
        let daemon = try RunningDaemon(["--input", "none"])
        // Closed, and at rest, before the watchers come.
        let closing = SheetSubscription(path: daemon.socketPath)
        try daemon.client().dismiss(force: true)
        var closed = false
        while !closed {
            guard case .update(let update) = try closing.next(timeoutMilliseconds: 5_000) else { continue }
            closed = update.state.isIdle && update.state.detent == .hidden
        }
        closing.disconnect()
        let plain = try watcher(daemon.socketPath, [])
        let paced = try watcher(daemon.socketPath, ["--rate", "60"])
        // The watchers have printed the closed sheet, at rest.
        #expect(paced.first.state.isIdle && paced.first.state.detent == .hidden, "\(paced.first.state)")
        let feeder = try InputClient(path: InputInterface.socketPath(besideSocket: daemon.socketPath))
        let device = try feeder.open(PluginDevice(name: "panel", kind: .touchscreen, x: 0...1080, y: 0...1920, slots: 2))
        let start = LibinputInput.monotonicNow().microseconds - 400_000
        for step in 0..<40 {
            let phase: ContactPhase = step == 0 ? .down : step == 39 ? .up : .move
            let contact = PluginContact(slot: 0, phase: phase, x: 300 + Double(step) * 10, y: 700 + Double(step) * 5)
            try feeder.send(PluginFrame(sequence: Int64(step + 1), timeInMicroseconds: start + Int64(step) * 8_000, contacts: [contact]),
                            device: device)
        }
        let every = try Self.rest(of: plain.lines), some = try Self.rest(of: paced.lines)
        plain.process.waitUntilExit()
        paced.process.waitUntilExit()
        let moves = every.filter { $0.gesture?.kind == .pan && $0.gesture?.phase == .changed }
        #expect(moves.count > 10, "the unpaced subscriber has each move: \(moves.count)")
        #expect(every.allSatisfy { $0.state.detent == .hidden }, "the sheet never moved")
        let pans = some.compactMap(\.gesture).filter { $0.kind == .pan }.map(\.phase)
        #expect(pans == [.began, .ended], "\(pans)")
        #expect(some.last?.state == every.last?.state)
        #expect(daemon.stop() == 0)
    }

    /// A rate outside 1–1000, or not a whole number, is InvalidParameter naming `maxRate`; the
    /// connection stays usable.
    @Test(arguments: [#"0"#, #"1001"#, #"1.5"#, #""60""#, #"-60"#])
    func aRateItCannotKeepIsRefused(_ value: String) throws {
        let daemon = try RunningDaemon(["--input", "none"])
        let client = try daemon.client()
        let parameters = try JSONReader.parse(#"{"maxRate":\#(value)}"#)
        try client.connection.send(VarlinkCall(method: "io.sheetd.Sheet.Monitor", parameters: parameters, more: true))
        let reply = try client.connection.readReply()
        #expect(reply.error == "org.varlink.service.InvalidParameter")
        #expect(reply.parameters["parameter"]?.stringValue == "maxRate")
        #expect(try client.state().state == .resting)
        let refused = try runTool("sheetctl", ["watch", "--rate", "0", "--socket", daemon.socketPath])
        #expect(refused.status != 0 && refused.stderr.contains("--rate wants 1 to 1000; got 0"), "\(refused.stderr)")
        #expect(daemon.stop() == 0)
    }
}
