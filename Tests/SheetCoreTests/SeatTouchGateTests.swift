import SheetCore
import Testing

/// One touch, read once: the seat's own touchscreen contacts while a compositor's touches are
/// forwarded, walked through the gate's table.
struct SeatTouchGateTests {
    func frame(_ contacts: (Int, ContactPhase)..., source: TouchSource = .touchscreen) -> TouchFrame {
        TouchFrame(time: .zero, source: source,
                   contacts: contacts.map { Contact(slot: $0.0, phase: $0.1, positionInPixels: Point(x: 10, y: 20)) })
    }

    /// What passes of each frame in turn: the slots of the contacts that reach the engine.
    func walk(_ gate: inout SeatTouchGate, _ frames: [TouchFrame]) -> [[Int]] {
        frames.map { frame in
            var frame = frame
            return gate.admit(&frame) ? frame.contacts.map(\.slot) : []
        }
    }

    /// Not forwarded, every frame passes as it is; nothing is counted.
    @Test func withNoForwarderEverythingPasses() {
        var gate = SeatTouchGate()
        #expect(walk(&gate, [frame((0, .down)), frame((0, .move), (1, .down)), frame((0, .up)), frame((1, .cancel))])
            == [[0], [0, 1], [0], [1]])
        #expect(gate.framesHeldBack == 0)
    }

    /// Forwarded: nothing of the seat's touchscreens passes, each frame is counted; a finger
    /// the engine holds down when it began is to be cancelled (true), and none is when none is.
    @Test func forwardedHoldsEveryFrameBack() {
        var gate = SeatTouchGate()
        #expect(walk(&gate, [frame((0, .down))]) == [[0]])
        let began = gate.setForwarded(true, seatFingersDown: 1 << 0), again = gate.setForwarded(true, seatFingersDown: 1 << 0)
        #expect(began, "a finger is down: the caller cancels it")
        #expect(!again, "no change")
        #expect(walk(&gate, [frame((0, .move)), frame((1, .down)), frame((0, .up)), frame((1, .up))]) == [[], [], [], []])
        #expect(gate.framesHeldBack == 4)
        let ended = gate.setForwarded(false, seatFingersDown: 0)
        #expect(!ended, "ending cancels nothing")
        var fresh = SeatTouchGate()
        let none = fresh.setForwarded(true, seatFingersDown: 0)
        #expect(!none, "nothing down: nothing to cancel")
    }

    /// A finger down when forwarding ends is held until it lifts, while a new finger beside it
    /// passes: the frame keeps only the new one's contact.
    @Test func aFingerDownAcrossTheEndIsHeldUntilItLifts() {
        var gate = SeatTouchGate()
        _ = gate.setForwarded(true, seatFingersDown: 0)
        #expect(walk(&gate, [frame((0, .down))]) == [[]])
        _ = gate.setForwarded(false, seatFingersDown: 0)
        #expect(walk(&gate, [frame((0, .move)), frame((0, .move), (1, .down)), frame((0, .up), (1, .move)), frame((1, .up))])
            == [[], [1], [1], [1]])
        #expect(walk(&gate, [frame((0, .down)), frame((0, .up))]) == [[0], [0]], "the slot lifted: a new finger there passes")
        #expect(gate.framesHeldBack == 1 + 3)
    }

    /// A finger down when forwarding begins stays held after it ends, until it lifts; a new
    /// down on its slot (its lift lost) starts afresh.
    @Test func aFingerDownAcrossBothChangesIsHeldAndANewDownStartsAfresh() {
        var gate = SeatTouchGate()
        #expect(walk(&gate, [frame((3, .down))]) == [[3]])
        let began = gate.setForwarded(true, seatFingersDown: 1 << 3)
        #expect(began)
        _ = gate.setForwarded(false, seatFingersDown: 0)
        #expect(walk(&gate, [frame((3, .move))]) == [[]])
        #expect(walk(&gate, [frame((3, .down)), frame((3, .move))]) == [[3], [3]])
    }

    /// A touchpad's frames never pass through the gate: its two- and three-finger motion is not
    /// a touch a compositor forwards. An empty frame passes.
    @Test func touchpadFramesAndEmptyFramesPass() {
        var gate = SeatTouchGate()
        _ = gate.setForwarded(true, seatFingersDown: 0)
        #expect(walk(&gate, [frame((31, .down), source: .touchpad), frame((31, .move), source: .touchpad), frame()]) == [[31], [31], []])
        var empty = frame()
        let admitted = gate.admit(&empty)
        #expect(admitted)
        #expect(gate.framesHeldBack == 0)
    }
}
