import Foundation
import Glibc
import SheetClient
import SheetCore
import SheetProtocol
import SheetRecordings
import SheetTestSupport
import Testing
import SheetSystem

/// The input socket and reloads attacked: what a broken or hostile feeder and an operator's
/// reload storm can do to the daemon, each followed by a client that must still be answered.
@Suite(.serialized) struct InputHardeningTests {
    /// Open file descriptors of `pid`.
    func descriptors(_ pid: pid_t) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
    }

    /// A SIGHUP every 10 ms for two seconds while a recording drags the sheet and two
    /// subscribers follow: the daemon reloads on, plays the recording to its end and the
    /// subscribers' last state is where it rests.
    @Test func aReloadEveryTenMillisecondsWhileAReplayPlays() throws {
        var recording = SyntheticRecording()
        recording.wait(0.2)
        for _ in 0..<3 {
            recording.stroke(from: (540, 1000), to: (540, 500), seconds: 0.4, holdSeconds: 0.05)
            recording.stroke(from: (540, 500), to: (540, 1000), seconds: 0.4, holdSeconds: 0.05)
        }
        let file = try temporaryFile("drags.evemu", recording.evemu())
        let config = try temporaryFile("sheetd.yaml", "policy: projection\n")
        let daemon = try RunningDaemon(["--input", "replay:\(file)", "--config", config])
        let subscribers = try (0..<2).map { _ in
            let connection = try daemon.client().connection
            try connection.send(VarlinkCall(method: "io.sheetd.Sheet.Monitor", more: true))
            return connection
        }
        let pid = daemon.process.processIdentifier
        for _ in 0..<200 {
            kill(pid, SIGHUP)
            var pause = timespec.of(seconds: 0, nanoseconds: 10_000_000)
            nanosleep(&pause, nil)
        }
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        #expect(daemon.process.isRunning)
        let final = try daemon.client().state()
        for subscriber in subscribers {
            var last: SheetState
            repeat { last = try SheetState(json: subscriber.readReply().parameters["state"]!) } while !last.isIdle
            #expect(last.detent == final.detent && last.topInPixels == final.topInPixels, "\(last) vs \(final)")
        }
        #expect(daemon.log.contains("reloaded"), "\(daemon.log.suffix(500))")
        #expect(daemon.stop() == 0)
    }

    /// Odd and hostile feeders on `io.sheetd.Input`: a frame of 10,000 contacts (past the
    /// message limit), contacts in slots the device does not have, a call cut in half, 2,000
    /// connections opened and dropped, and a feeder that sends 20,000 frames and never reads a
    /// reply. Each is refused or outlasted; a client is answered after each, the daemon keeps
    /// no descriptor of the connections gone and does not grow by the flood.
    @Test func theInputSocketOutlastsFloodsOddFramesAndChurn() throws {
        let daemon = try RunningDaemon(["--input", "none"])
        let pid = daemon.process.processIdentifier
        let inputPath = daemon.socketPath.replacingOccurrences(of: "io.sheetd.Sheet", with: "io.sheetd.Input")
        let declaration = PluginDevice(name: "hostile", kind: .touchscreen, x: 0...1080, y: 0...1920, slots: 2, clock: .own)
        let baseline = try descriptors(pid)

        // 10,000 contacts: a message past 64 KiB, refused, and the connection closed.
        let huge = try InputClient(path: inputPath)
        let device = try huge.open(declaration)
        // A frame holds 16 contacts at most, so this one is written as JSON.
        let contact: JSONValue = .object(["slot": .number(0), "phase": .string("down"), "x": .number(1), "y": .number(1)])
        let parameters: JSONValue = .object(["device": .number(Double(device)), "sequence": .number(1), "time": .number(0),
                                             "contacts": .array(Array(repeating: contact, count: 10_000))])
        #expect(throws: ClientError.self) { try huge.connection.call(VarlinkCall(method: SendFrameCall.method, parameters: parameters)) }
        #expect(try daemon.client().state().state == .resting)

        // Slots the device does not have: InvalidFrame, and the device still takes good frames.
        let odd = try InputClient(path: inputPath)
        let oddDevice = try odd.open(declaration)
        do {
            try odd.send(PluginFrame(sequence: 7, timeInMicroseconds: 0, contacts: [PluginContact(slot: 99, phase: .down, x: 5, y: 5)]), device: oddDevice)
            Issue.record("a contact in slot 99 of a 2-slot device was taken")
        } catch {
            guard case .remote(let name, let parameters) = error else { Issue.record("\(error)"); return }
            #expect(name.hasSuffix("InvalidFrame") && parameters["sequence"]?.intValue == 7, "\(name) \(parameters)")
        }
        try odd.send(PluginFrame(sequence: 8, timeInMicroseconds: 0, contacts: [PluginContact(slot: 1, phase: .down, x: 5, y: 5)]), device: oddDevice)

        // A call cut in half, then the connection gone.
        let half = try VarlinkClientConnection(path: inputPath)
        let call = VarlinkCall(method: "io.sheetd.Input.OpenDevice", parameters: declaration.parameters).encoded()
        try half.sendRaw(Array(call.prefix(call.count / 2)))
        _ = half

        // 2,000 connections opened and dropped.
        for _ in 0..<2000 { _ = try VarlinkClientConnection(path: inputPath) }
        #expect(try daemon.client().state().state == .resting)

        // A feeder that never reads: its replies back up, the daemon stops reading it.
        let before = try residentKiB(pid)
        let flooder = try VarlinkClientConnection(path: inputPath)
        var flood: [UInt8] = VarlinkCall(method: "io.sheetd.Input.OpenDevice", parameters: declaration.parameters).encoded()
        for sequence in 0..<20_000 {
            let phase: ContactPhase = sequence % 2 == 0 ? .down : .up
            let frame = PluginFrame(sequence: Int64(sequence), timeInMicroseconds: Int64(sequence) * 1000,
                                    contacts: [PluginContact(slot: 0, phase: phase, x: 10, y: 10)])
            flood += VarlinkCall(method: "io.sheetd.Input.SendFrame", parameters: frame.parameters(device: 1_000_000)).encoded()
        }
        var sent = 0
        let descriptor = flooder.fileDescriptor
        var flags = fcntl(descriptor, F_GETFL)
        flags |= O_NONBLOCK
        _ = fcntl(descriptor, F_SETFL, flags)
        while sent < flood.count {
            let count = flood[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }  // the socket is full: the daemon is not reading it
            sent += count
        }
        #expect(try daemon.client().state().state == .resting, "a client is answered during the flood")
        let after = try residentKiB(pid)
        #expect(after - before < 16 * 1024, "the daemon grew by \(after - before) KiB for \(sent) bytes of flood")
        _ = flooder

        #expect(daemon.process.isRunning)
        _ = try daemon.client().state()
        // The connections this test still holds (the odd feeder, the half call, the flooder)
        // are a few; 2,000 kept would show.
        let open = try descriptors(pid)
        #expect(open <= baseline + 8, "descriptors: \(baseline) before, \(open) after")
        #expect(daemon.stop() == 0)
    }
}
