import Foundation
import SheetClient
import SheetCore
import SheetInput
import SheetProtocol
import SheetRecordings
import SheetTestSupport
import Testing

/// A frame fed over `io.sheetd.Input` (a driver, `sheetctl feed`, sheet-render forwarding the
/// compositor's touches) reaches the state before its reply comes back.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: builtExecutable("sheetd").path)))
struct FedFrameTests {
    /// Each frame's effect is published before `SendFrame` answers, so `GetState` right after
    /// it sees the card where the finger put it. (The states of fed frames once waited in the
    /// loop until the next call or timer woke it: a frame's time, and for the last frame of a
    /// gesture, for as long as nothing else came.)
    @Test func eachFramesStateIsPublishedBeforeItsReply() throws {
        let daemon = try RunningDaemon(["--input", "none"])
        let client = try daemon.client()
        let feeder = try InputClient(path: InputInterface.socketPath(besideSocket: daemon.socketPath))
        let device = try feeder.open(PluginDevice(name: "panel", kind: .touchscreen, x: 0...1080, y: 0...1920, slots: 1))
        let start = LibinputInput.monotonicNow().microseconds - 200_000
        let before = try client.state()
        #expect(before.state == .resting && before.topInPixels == 960)
        var tops: [Double] = []
        for step in 0..<12 {
            let contact = PluginContact(slot: 0, phase: step == 0 ? .down : .move, x: 540, y: 1000 + Double(step) * 20)
            try feeder.send(PluginFrame(sequence: Int64(step + 1), timeInMicroseconds: start + Int64(step) * 8_000, contacts: [contact]),
                            device: device)
            let state = try client.state()
            if state.state == .dragging { tops.append(state.topInPixels) }
        }
        // Past the pan's slop the card follows the finger, frame by frame, with nothing else sent.
        #expect(tops.count >= 6, "\(tops)")
        #expect(tops.last == Double(960 + 11 * 20), "the last frame's top, read at once: \(tops)")
        #expect(zip(tops, tops.dropFirst()).allSatisfy { $1 == $0 + 20 }, "\(tops)")
        #expect(daemon.stop() == 0)
    }

    /// One touch, read once: a device that forwards a compositor's touches (as sheet-render's
    /// wayland and web backends open theirs) takes the seat's touchscreens off the daemon. The
    /// seat's finger down when it opens is cancelled (its lift on the dim is no tap), the seat's
    /// frames are held back and counted, `ListDevices` says why; the forwarded tap on the dim
    /// dismisses, one gesture; closed, the seat is read again.
    @Test func aCompositorsForwardedTouchesLeaveTheSeatsTouchscreensAlone() throws {
        var recording = SyntheticRecording()
        recording.wait(0.3)
        recording.down(slot: 0, x: 540, y: 300)  // on the dim, held still...
        recording.report()
        for step in 0..<60 {
            recording.wait(0.1)
            recording.move(slot: 0, x: 540, y: 301 + Int32(step % 2))
            recording.report()
        }
        recording.up(slot: 0)  // ...and lifted there six seconds on: a tap, were it read
        recording.report()
        let file = try temporaryFile("held.evemu", recording.evemu())
        let daemon = try RunningDaemon(["--input", "replay:\(file)@1"])
        let client = try daemon.client()
        try daemon.waitForStats(client) { $0.fingersDown == 1 }
        let feeder = try InputClient(path: InputInterface.socketPath(besideSocket: daemon.socketPath))
        let device = try feeder.open(PluginDevice(name: "wayland touch (sheet-render)", kind: .touchscreen, x: 0...1080, y: 0...1920,
                                                  slots: 2, clock: .monotonic, forwards: .compositor))
        // The seat's finger is the compositor's now: cancelled at once.
        #expect(try client.stats().fingersDown == 0)
        let seat = try client.devices().first { !$0.node.hasPrefix("plugin:") }
        #expect(seat?.used == false && seat?.reason.hasPrefix("left to the compositor: plugin:\(device)") == true, "\(String(describing: seat))")
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        let held = try client.state()
        #expect(held.state == .resting && held.detent == "half", "the seat's lift on the dim was held back: \(held)")
        let before = try client.stats()
        #expect(before.framesHeldBack > 50, "\(before.framesHeldBack)")
        #expect(daemon.log.contains("forwards the compositor's touches: the seat's touchscreens are left to the compositor"), "\(daemon.log)")

        let now = LibinputInput.monotonicNow().microseconds
        try feeder.send(PluginFrame(sequence: 1, timeInMicroseconds: now - 60_000, contacts: [PluginContact(slot: 0, phase: .down, x: 540, y: 300)]),
                        device: device)
        try feeder.send(PluginFrame(sequence: 2, timeInMicroseconds: now, contacts: [PluginContact(slot: 0, phase: .up, x: 540, y: 300)]),
                        device: device)
        try daemon.waitForState(client) { $0.isClosed }
        #expect(try client.stats().gestures == before.gestures + 1, "the forwarded tap, once")
        try feeder.close(device: device)
        #expect(try client.devices().first { !$0.node.hasPrefix("plugin:") }?.used == true, "read again once the forwarder closed")
        #expect(daemon.log.contains("no device forwards the compositor's touches now: the seat's touchscreens are read again"), "\(daemon.log)")
        #expect(daemon.stop() == 0)
    }

    /// A recording that ends while a fed finger is down ends its own fingers only: the fed one
    /// stays down and goes on moving the card. (Its end once cancelled every finger, the
    /// feeder's included, and said the recording ended with it down.)
    @Test func aRecordingsEndLeavesAFedFingerDown() throws {
        var recording = SyntheticRecording()
        recording.wait(0.3)
        recording.stroke(from: (200, 1500), to: (200, 1400), seconds: 0.1)  // a finger of its own, lifted
        recording.stroke(from: (300, 1500), to: (300, 1450), seconds: 0.05, lift: false)  // one still down at its end
        let file = try temporaryFile("short.evemu", recording.evemu())
        let daemon = try RunningDaemon(["--input", "replay:\(file)@1"])
        let feeder = try InputClient(path: InputInterface.socketPath(besideSocket: daemon.socketPath))
        let device = try feeder.open(PluginDevice(name: "panel", kind: .touchscreen, x: 0...1080, y: 0...1920, slots: 1))
        let start = LibinputInput.monotonicNow().microseconds
        try feeder.send(PluginFrame(sequence: 1, timeInMicroseconds: start, contacts: [PluginContact(slot: 0, phase: .down, x: 540, y: 1000)]),
                        device: device)
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        #expect(daemon.log.contains("the recording ends with 1 finger(s) down"), "its own finger, not the feeder's: \(daemon.log)")
        #expect(try daemon.client().state().inputActive, "the fed finger is still down")
        #expect(daemon.stop() == 0)
    }
}
