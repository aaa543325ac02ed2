import Foundation
import SheetCore
import SheetTestSupport
import Testing
@testable import RenderProgram

/// The compositor's input times (Wayland's 32-bit milliseconds) as the renderer forwards them:
/// their spacing kept, across the wrap, never back, and on the wire of `io.sheetd.Input`.
struct CompositorClockTests {
    @Test func theCompositorsSpacingIsKeptFromItsFirstEvent() {
        var clock = CompositorClock()
        #expect(clock.advance(to: 5_000, now: 0) == 0)
        #expect(clock.advance(to: 5_010, now: 0) == 10_000)
        #expect(clock.advance(to: 5_010, now: 0) == 10_000)
        #expect(clock.advance(to: 5_260, now: 0) == 260_000)
    }

    @Test func theThirtyTwoBitsWrapAndTheTimeGoesOn() {
        var clock = CompositorClock()
        _ = clock.advance(to: UInt32.max - 4, now: 0)
        #expect(clock.advance(to: 5, now: 0) == 10_000)
    }

    /// Events of two devices a little out of order: no step back, and the way forward again is
    /// not counted twice.
    @Test func aSmallStepBackIsNoStep() {
        var clock = CompositorClock()
        _ = clock.advance(to: 100, now: 0)
        _ = clock.advance(to: 120, now: 0)
        #expect(clock.advance(to: 115, now: 0) == 20_000)
        #expect(clock.advance(to: 130, now: 0) == 30_000)
    }

    /// (A virtual pointer's times are its client's: sway passes them on as they are.) The time
    /// that passed here stands for the step.
    @Test func aStepBackOfMoreThanASecondIsTheClockSetAnew() {
        var clock = CompositorClock()
        _ = clock.advance(to: 50_000, now: 7_000_000)
        _ = clock.advance(to: 50_100, now: 7_100_000)
        #expect(clock.advance(to: 10, now: 7_150_000) == 150_000)
        #expect(clock.advance(to: 30, now: 7_160_000) == 170_000)
    }

    /// A compositor sending steps of 24 days: the time stops at what the socket takes.
    @Test func stepsOfDaysStopAtTheCeiling() {
        var clock = CompositorClock()
        var time: UInt32 = 0
        _ = clock.advance(to: time, now: 0)
        for _ in 0..<5_000 {
            time &+= UInt32(Int32.max)
            _ = clock.advance(to: time, now: 0)
        }
        #expect(clock.microseconds == CompositorClock.ceilingMicroseconds)
    }

    /// What the forwarder sends a stand-in of the daemon's input socket: the touch device on its
    /// own clock, a drag's frames stamped with the compositor's spacing however fast the renderer
    /// forwarded them (here: all at once); keys on the monotonic clock, stamped when read.
    @Test func theForwarderStampsTouchesAndKeysWithTheCompositorsTimes() throws {
        let socket = try temporaryFolder().appendingPathComponent("io.sheetd.Input").path
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("python_input_standin.py")
        let standIn = try LineReadingProcess(URL(fileURLWithPath: "/usr/bin/python3"), [script.path, socket], environment: [:])
        #expect(try standIn.lines(1) == ["listening"])
        let forwarder = InputForwarder(path: socket, log: Log(quiet: false))
        forwarder.size = (540, 960)
        forwarder.forward(PluginContacts(one: PluginContact(slot: 0, phase: .down, x: 270, y: 955)), at: 86_400_000)
        forwarder.forward(PluginContacts(one: PluginContact(slot: 0, phase: .move, x: 270, y: 900)), at: 86_400_010)
        forwarder.forward(PluginContacts(one: PluginContact(slot: 0, phase: .up, x: 270, y: 900)), at: 86_400_260)
        forwarder.forwardKey(KeyCode.escape, pressed: true, at: 123_456)
        let calls = try standIn.lines(6).map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let methods = calls.map { ($0["method"] as? String ?? "").replacingOccurrences(of: "io.sheetd.Input.", with: "") }
        #expect(methods == ["OpenDevice", "SendFrame", "SendFrame", "SendFrame", "OpenKeys", "SendKeys"])
        let parameters = calls.map { $0["parameters"] as? [String: Any] ?? [:] }
        #expect(parameters[0]["clock"] as? String == "own" && parameters[4]["clock"] as? String == "monotonic", "\(parameters)")
        let times = [1, 2, 3, 5].map { parameters[$0]["time"] as? Int }
        #expect(times == [0, 10_000, 260_000, 123_456])
    }
}
