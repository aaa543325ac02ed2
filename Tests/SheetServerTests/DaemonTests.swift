import Foundation
import Glibc
import SheetClient
import SheetCore
import SheetProtocol
import SheetRecordings
import SheetTestSupport
import Testing

/// Recordings the daemon tests generate: a 1080x1920 panel where one unit is one pixel.
enum Generated {
    /// A tap on the card, which moves nothing: an input that leaves the sheet where it is.
    static func idle() throws -> String {
        var r = SyntheticRecording()
        r.tap(x: 540, y: 1500)
        return try temporaryFile("idle.evemu", r.evemu())
    }

    /// A fast flick down from the half detent: the sheet is dismissed.
    static func flickDown() throws -> String {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1000), to: (540, 1400), seconds: 0.08)
        return try temporaryFile("flick-down.evemu", r.evemu())
    }

    /// Many slow drags up and down, at most `seconds` long: a long stream of dragging states.
    static func longDrags(seconds: Int) throws -> String {
        var r = SyntheticRecording()
        // A drag up and one down: 2 × (0.9 s moving, 0.05 s held, 0.1 s apart).
        for _ in 0..<Int(Double(seconds) / 2.1) {
            r.stroke(from: (540, 1000), to: (540, 400), seconds: 0.9, holdSeconds: 0.05)
            r.wait(0.1)
            r.stroke(from: (540, 400), to: (540, 1000), seconds: 0.9, holdSeconds: 0.05)
            r.wait(0.1)
        }
        return try temporaryFile("long-drags.evemu", r.evemu())
    }
}

func matches(_ state: SheetState, _ line: [String: Any]) -> Bool {
    state.state.name.description == line["state"] as? String && state.detent?.description == line["detent"] as? String
        && state.topInPixels == (line["top"] as? NSNumber)?.doubleValue && state.dim == (line["dim"] as? NSNumber)?.doubleValue
        && state.cause.name.description == line["cause"] as? String
}

/// Subscribes and reads until an update satisfies `done`; returns every update read.
@discardableResult
func monitor(_ client: SheetClient, until done: (MonitorUpdate) -> Bool) throws -> [MonitorUpdate] {
    var updates: [MonitorUpdate] = []
    try client.monitor { update, _ in
        updates.append(update)
        return !done(update)
    }
    return updates
}

@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: builtExecutable("sheetd").path)))
struct DaemonTests {
    @Test(arguments: ["ts-atmel-maxtouch.1-finger-drag-up-down.evemu", "ts-atmel-maxtouch.4-finger-drag-down.evemu",
                      "ts-ep0430m09.2-finger-scroll-down.evemu", "flick-down"])
    func monitorStreamEndsWhereReplayEnds(_ name: String) throws {
        let file = name == "flick-down" ? try Generated.flickDown() : trace(name)
        let expected = try replayEnd(file)
        // At four times the recording's pace: a subscriber sees the sheet move, then rest.
        let daemon = try RunningDaemon(["--input", "replay:\(file)@4"])
        // (A recording that never moves the sheet ends where it began, cause "initial".)
        let updates = try monitor(try daemon.client()) { matches($0.state, expected) && $0.state.isIdle }
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        let final = try daemon.client().state()
        #expect(final == updates.last?.state, "the stream's last state is where the daemon rests")
        #expect(matches(final, expected), "sheetctl replay ends at \(expected); the daemon at \(final)")
        #expect(zip(updates, updates.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
        #expect(daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "the socket it made is removed on stop")
        #expect(!daemon.log.contains("error"), "\(daemon.log)")
    }

    @Test func controlCallsWorkForTheOwnerAndAreRefusedForOthers() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max", "--socket-mode", "0666"])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        let owner = try daemon.client()
        try owner.present(detent: "expanded")
        try monitor(try daemon.client()) { $0.state.state == .resting && $0.state.detent == "expanded" }
        #expect(throws: ClientError.remote(name: VarlinkErrorName.unknownDetent,
                                           parameters: .object(["detent": .string("nowhere"),
                                                                "known": .array([.string("expanded"), .string("half"), .string("hidden")])]))) {
            try owner.setDetent("nowhere")
        }
        try owner.dismiss()
        let end = try monitor(try daemon.client()) { $0.state.state == .resting }
        #expect(end.last?.state.detent == "hidden")
        #expect(end.last?.state.cause == .animation || end.last?.state.cause == .command)

        // Someone else: may read, may not control.
        if geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") {
            let copy = daemon.folder.appendingPathComponent("sheetctl")
            try installExecutable(builtExecutable("sheetctl"), at: copy)
            let nobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", copy.path]
            let state = try runTool("", ["state", "--socket", daemon.socketPath], prefix: nobody)
            #expect(state.status == 0, "\(state.stderr)")
            #expect(state.stdout.contains("\"detent\":\"hidden\""))
            let refused = try runTool("", ["present", "--socket", daemon.socketPath], prefix: nobody)
            #expect(refused.status == 77)
            #expect(refused.stderr.contains("not allowed: control calls need root, the daemon's user or group "), "\(refused.stderr)")
            #expect(try daemon.client().state().detent == "hidden", "a refused call changes nothing")
        }
        #expect(daemon.stop() == 0)
    }

    @Test func sixtyFourSubscribersAllFollowTheSheet() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max"])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        var subscribers: [SheetClient] = []
        for _ in 0..<64 {
            let client = try daemon.client()
            try client.connection.send(VarlinkCall(method: "io.sheetd.Sheet.Monitor", more: true))
            let first = try MonitorUpdate(json: try client.connection.readReply().parameters)
            #expect(first.state.detent == "half")
            subscribers.append(client)
        }
        try daemon.client().present(detent: "expanded")
        for client in subscribers {
            var last: MonitorUpdate?
            repeat {
                let reply = try client.connection.readReply()
                #expect(reply.continues)
                last = try MonitorUpdate(json: reply.parameters)
            } while !(last!.state.state == .resting && last!.state.detent == "expanded")
        }
        #expect(daemon.stop() == 0)
    }

    @Test func aClientThatStopsReadingIsDroppedAndSlowsNobody() throws {
        // Played at 5x: 500 changes a second, which a reader keeps up with while the other
        // suites run beside it (at 20x, 2,000 a second, a reader starved of the CPU by them
        // missed 1.5 % of the states: its own slowness, not the stalled client's).
        let file = try Generated.longDrags(seconds: 20)
        let expected = try replayEnd(file)
        let daemon = try RunningDaemon(["--input", "replay:\(file)@5", "--client-stall-timeout", "0.3"])
        // A subscriber that never reads, with the smallest receive buffer the kernel allows.
        let stalled = try daemon.client()
        var small: Int32 = 1024
        setsockopt(stalled.connection.fileDescriptor, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        try stalled.connection.send(VarlinkCall(method: "io.sheetd.Sheet.Monitor", more: true))

        // A reader that reads all it is sent. What a Unix stream socket holds for it is bounded
        // by the daemon's send buffer (the kernel charges a stream's bytes to the sender; the
        // reader's SO_RCVBUF does not count), so a reader the machine's load starves of the CPU
        // falls behind by a buffer and is given the newest state instead of some (a gap), as
        // any slow reader is: a few in a thousand on a loaded machine.
        let reader = try daemon.client()
        let start = LibinputClock.now()
        let updates = try monitor(reader) { matches($0.state, expected) && $0.state.cause != .initial && $0.state.state == .resting && $0.sequence > 10 }
        let elapsed = LibinputClock.now() - start
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        #expect(matches(try daemon.client().state(), expected))
        // The reader keeps up while another client stalls: a stalled client that held the
        // daemon up would leave it a backlog, given as the newest state (gaps).
        let gaps = zip(updates, updates.dropFirst()).filter { $1.sequence != $0.sequence + 1 }.count
        #expect(gaps * 100 <= updates.count, "the reader missed \(gaps) of \(updates.count) updates while another client stalled")
        #expect(daemon.log.contains("dropped"), "the stalled client is dropped: \(daemon.log)")
        // What the stalled client holds ends in a closed connection, not a hang.
        var ended = false
        while !ended {
            do { _ = try stalled.connection.readReply() } catch { ended = true }
        }
        print("reader: \(updates.count) updates (\(gaps) gaps) in \(elapsed / 1000) ms beside a stalled client")
        #expect(daemon.stop() == 0)
    }

    @Test func badClientsGetTheirAnswerAndTheDaemonServesOn() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max"])
        func expectClosedAfterError(_ bytes: [UInt8], _ name: String) throws {
            let connection = try daemon.client().connection
            try connection.sendRaw(bytes)
            let reply = try connection.readReply()
            #expect(reply.error == name)
            #expect(throws: ClientError.closed(path: daemon.socketPath)) { _ = try connection.readReply() }
        }
        try expectClosedAfterError(Array("hello\0".utf8), VarlinkErrorName.invalidMessage)
        try expectClosedAfterError(Array("{\"method\":5}\0".utf8), VarlinkErrorName.invalidMessage)
        try expectClosedAfterError(Array(repeating: UInt8(ascii: "["), count: 1000) + [0], VarlinkErrorName.invalidMessage)
        try expectClosedAfterError(Array(repeating: UInt8(ascii: "a"), count: 70_000), VarlinkErrorName.invalidMessage)

        let connection = try daemon.client().connection
        func errorName(_ call: VarlinkCall) throws -> String? {
            try connection.send(call)
            return try connection.readReply().error
        }
        #expect(try errorName(VarlinkCall(method: "io.sheetd.Sheet.Fly")) == VarlinkErrorName.methodNotFound)
        #expect(try errorName(VarlinkCall(method: "org.example.Nothing.Fly")) == VarlinkErrorName.interfaceNotFound)
        #expect(try errorName(VarlinkCall(method: "io.sheetd.Sheet.Monitor")) == VarlinkErrorName.expectedMore)
        #expect(try errorName(VarlinkCall(method: "io.sheetd.Sheet.SetDetent", parameters: .object(["detent": .number(5)])))
            == VarlinkErrorName.invalidParameter)
        #expect(try errorName(VarlinkCall(method: "org.varlink.service.GetInterfaceDescription",
                                          parameters: .object(["interface": .string("org.example.Nothing")])))
            == VarlinkErrorName.interfaceNotFound)
        // The same connection still answers.
        let info = try connection.call(VarlinkCall(method: "org.varlink.service.GetInfo"))
        #expect(info["interfaces"] == .array([.string("org.varlink.service"), .string("io.sheetd.Sheet")]))
        let description = try connection.call(VarlinkCall(method: "org.varlink.service.GetInterfaceDescription",
                                                         parameters: .object(["interface": .string("io.sheetd.Sheet")])))
        #expect(description["description"]?.stringValue == SheetInterface.description)

        // Clients that vanish: mid-message, mid-control-call, mid-subscription.
        try daemon.client().connection.sendRaw(Array("{\"method\":\"io.sheetd.Sheet.GetSt".utf8))
        try daemon.client().connection.send(VarlinkCall(method: "io.sheetd.Sheet.Present", parameters: .object(["detent": .string("expanded")])))
        try daemon.client().connection.send(VarlinkCall(method: "io.sheetd.Sheet.Monitor", more: true))
        // Pipelined calls are answered in order.
        let pipelined = try daemon.client().connection
        try pipelined.sendRaw(VarlinkCall(method: "io.sheetd.Sheet.SetDetent", parameters: .object(["detent": .string("half")])).encoded()
                              + VarlinkCall(method: "io.sheetd.Sheet.GetState").encoded())
        #expect(try pipelined.readReply().error == nil)
        #expect(try pipelined.readReply().parameters["state"] != nil)
        // One-way calls get no reply; the next call's reply comes first.
        try pipelined.send(VarlinkCall(method: "io.sheetd.Sheet.Dismiss", oneway: true))
        #expect(try pipelined.call(VarlinkCall(method: "org.varlink.service.GetInfo"))["product"] == .string("sheetd"))

        #expect(try daemon.client().state().screen == ScreenSize(widthInPixels: 1080, heightInPixels: 1920, scale: 1))
        #expect(daemon.process.isRunning)
        #expect(daemon.stop() == 0)
    }

    @Test func setScreenMovesTheSheetOntoTheNewDisplay() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max"])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        let client = try daemon.client()
        try client.setScreen(width: 800, height: 480, scale: 1)
        let state = try client.state()
        #expect(state.screen == ScreenSize(widthInPixels: 800, heightInPixels: 480, scale: 1))
        #expect(state.detent == "half")
        #expect(state.topInPixels == 240)
        // Screens every renderer can draw, or InvalidParameter naming the value.
        for (width, height, scale, parameter) in [(14, 480, 1.0, "width"), (32768, 32768, 1, "width"), (800, 63, 1, "height"),
                                                  (200, 480, 17, "scale"), (200, 480, -1, "scale")] {
            #expect(throws: ClientError.remote(name: VarlinkErrorName.invalidParameter, parameters: .object(["parameter": .string(parameter)]))) {
                try client.setScreen(width: width, height: height, scale: scale)
            }
        }
        try client.setScreen(width: 200, height: 480, scale: 16)
        #expect(try client.state().screen == ScreenSize(widthInPixels: 200, heightInPixels: 480, scale: 16))
        // A new screen keeps the sheet at its detent, but Present() still means the
        // configured initial one (it used to become the detent of the last rebuild).
        try client.setDetent("expanded")
        try client.setScreen(width: 800, height: 480, scale: 1)
        #expect(try client.state().detent == "expanded")
        try client.dismiss()
        try client.present()
        #expect(try client.state().target == "half")
        #expect(daemon.stop() == 0)
    }

    @Test func aVarlinkClientWrittenBySomeoneElseWorks() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max"])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("python_varlink_client.py")
        let result = try runTool("", [script.path, daemon.socketPath], prefix: [testPython])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("GetInfo ok"))
        #expect(result.stdout.contains("GetState ok: resting half"))
        #expect(result.stdout.contains("Monitor ok: resting expanded"))
        #expect(daemon.stop() == 0)
    }

    @Test func badConfigurationIsRefusedWithFileAndLine() throws {
        let file = try temporaryFile("sheetd.yaml", "screen: 800x480\npolicy: sideways\n")
        let result = try runTool("sheetd", ["--check-config", "--config", file])
        #expect(result.status == 78)
        #expect(result.stderr == "\(file):2: `policy` wants tutorial, half-drag or projection; got `sideways`\n")
        let good = try runTool("sheetd", ["--check-config", "--config",
                                          fixtures.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("packaging/sheetd.yaml").path])
        #expect(good.status == 0, "\(good.stderr)")
        let missingInput = try runTool("sheetd", ["--config", "/dev/null", "--input", "replay:/nonexistent.yml", "--socket", "/tmp/unused"])
        #expect(missingInput.status == 69)
        #expect(missingInput.stderr.contains("/nonexistent.yml: cannot open"))
    }
}

/// CLOCK_MONOTONIC in microseconds, for reporting how long a test's wait took.
enum LibinputClock {
    static func now() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }
}

@Suite(.serialized) struct ContentDaemonTests {
    /// A client that shuts down its side after its calls (`printf CALL | socat`) still gets
    /// every reply, a control call's too (answered after the engine thread ran it), and then
    /// the daemon closes the connection.
    @Test func aHalfClosedConnectionIsAnsweredThenClosed() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max"])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        let connection = try daemon.client().connection
        let calls = #"{"method":"io.sheetd.Sheet.Present","parameters":{"detent":"expanded"}}"# + "\0"
            + #"{"method":"io.sheetd.Sheet.GetState"}"# + "\0"
        let bytes = Array(calls.utf8)
        #expect(bytes.withUnsafeBytes { write(connection.fileDescriptor, $0.baseAddress, $0.count) } == bytes.count)
        shutdown(connection.fileDescriptor, Int32(SHUT_WR))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(connection.fileDescriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            received += chunk[..<count]
        }
        let replies = received.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        #expect(replies.count == 3 && replies[2].isEmpty, "two replies, each ended by NUL, then the end: \(replies)")
        #expect(replies.first == #"{"parameters":{}}"#)
        #expect(replies.dropFirst().first?.contains(#""target":"expanded""#) == true, "\(replies)")
        #expect(daemon.stop() == 0)
    }

    @Test func contentThroughAVarlinkClientWrittenBySomeoneElse() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max"])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("python_content_client.py")
        let result = try runTool("", [script.path, daemon.socketPath], prefix: [testPython])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        for check in ["SetContent/GetContent ok", "bad content refused ok", "guarded Dismiss refused ok", "forced Dismiss ok"] {
            #expect(result.stdout.contains(check), "\(result.stdout)\(result.stderr)")
        }
        #expect(daemon.stop() == 0)
    }

    @Test func aReorderOnTheDaemonReachesMonitorAndGetContent() throws {
        // The configuration gives the content; the recording waits for the subscriber (the
        // daemon says READY before it plays), then holds row 1 and drags it down two rows.
        let config = try fourItems()
        var r = SyntheticRecording()
        r.report()  // the recording's time starts here
        r.at(2)
        r.reorderRowOne(stillFramesEvery: nil)
        let recording = try temporaryFile("reorder.evemu", r.evemu())
        let daemon = try RunningDaemon(["--config", config, "--input", "replay:\(recording)@1"])
        let client = try daemon.client()
        var events: [SheetEvent] = []
        var sawLifted = false
        try client.monitor { update, _ in
            events += update.events
            if let lifted = update.state.list?.lifted, lifted.scale > 1.1 { sawLifted = true }
            return !events.contains { $0.kind == .reorderEnded }
        }
        #expect(events.map(\.kind) == [.reorderBegan, .reorderMoved, .reorderMoved, .reorderEnded])
        #expect(events.last?.order == ["a", "c", "d", "b"])
        #expect(sawLifted, "the state carries the lifted item")
        #expect(try daemon.client().content().items.map(\.id) == ["a", "c", "d", "b"])
        #expect(daemon.stop() == 0)
    }

    /// Two reorders played at a thousand times their pace, so that the daemon takes many frames
    /// in one turn: each reorder's end names the order it left, not the one the next reorder
    /// made before the state went out (the event takes the order from the list when published).
    @Test func eachReorderEndNamesItsOwnOrder() throws {
        let config = try fourItems()
        var r = SyntheticRecording()
        r.report()
        r.at(2_000)  // two seconds at 1000x: time to subscribe
        // Empty frames 0.2 ms apart (0.2 µs at 1000x) keep the daemon behind the recording, so
        // that one turn takes the first reorder's end and the second's swaps.
        for _ in 0..<2 {
            r.reorderRowOne(stillFramesEvery: 0.0002)
            r.still(0.6, framesEvery: 0.0002)  // the list settles before the next hold
        }
        let recording = try temporaryFile("reorders.evemu", r.evemu())
        let daemon = try RunningDaemon(["--config", config, "--input", "replay:\(recording)@1000"])
        var events: [SheetEvent] = []
        try daemon.client().monitor { update, _ in
            events += update.events
            return events.count { $0.kind == .reorderEnded } < 2
        }
        let ended = events.filter { $0.kind == .reorderEnded }.map(\.order)
        #expect(ended == [["a", "c", "d", "b"], ["a", "d", "b", "c"]], "\(events)")
        #expect(try daemon.client().content().items.map(\.id) == ["a", "d", "b", "c"])
        #expect(daemon.stop() == 0)
    }
}

/// The configuration's content: four items, a to d.
private func fourItems() throws -> String {
    try temporaryFile("content.yaml", """
        content:
          title: Menu
          items:
            - {id: a, label: Alpha}
            - {id: b, label: Beta}
            - {id: c, label: Gamma}
            - {id: d, label: Delta}
        """)
}

private extension SyntheticRecording {
    /// Holds row 1 of the half-open sheet for 0.3 s, drags it down two rows and lifts.
    mutating func reorderRowOne(stillFramesEvery interval: Double?) {
        down(slot: 0, x: 300, y: 1016 + 56 + 28)
        report()
        still(0.3, framesEvery: interval)
        for index in 1...30 {
            wait(0.01)
            move(slot: 0, x: 300, y: 1016 + 56 + 28 + Int32(index * 4))
            report()
        }
        up(slot: 0)
        report()
    }

    /// `seconds` with nothing moving: empty frames every `interval`, or none.
    mutating func still(_ seconds: Double, framesEvery interval: Double?) {
        guard let interval else { return wait(seconds) }
        for _ in 0..<Int((seconds / interval).rounded()) {
            wait(interval)
            report()
        }
    }
}
