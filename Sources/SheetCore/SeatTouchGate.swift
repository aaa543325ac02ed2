/// One touch, read once. Under a compositor, the compositor reads the seat's touchscreens and
/// routes each touch to the surface under it; the renderer whose surface the sheet is forwards
/// the touches that reach it (a plugin device that `forwards: compositor`). A daemon that reads
/// the same touchscreens itself would hand the recogniser each of those touches twice, and
/// every touch on the windows beside the sheet once more. So while a device forwards the
/// compositor's touches, the seat's own touchscreen contacts are held back:
///
/// | forwarded | contact                                   | reaches the engine |
/// |-----------|-------------------------------------------|--------------------|
/// | no        | of a finger not held                      | yes                |
/// | no        | of a finger held (down across a change)   | no, until it lifts |
/// | yes       | any                                       | no                 |
///
/// A finger down when forwarding begins is the compositor's now: the caller cancels it in the
/// engine (`setForwarded` says when), and it stays held until it lifts. One down when
/// forwarding ends was never seen by the engine: it stays held until it lifts, so that the
/// engine never sees a move for a finger it does not know. A new `down` on a slot starts
/// afresh. A touchpad's frames (its two- and three-finger motion, which a compositor does not
/// forward as touches) and plugin devices' frames never pass through here.
///
/// Pure: frames in, a verdict out, no allocation (a frame partly held has those contacts
/// taken out in place). With no forwarder and no finger held, a frame passes untouched, at the
/// cost of one comparison: the fingers down when forwarding begins are the engine's to say
/// (`setForwarded(_:seatFingersDown:)`), so the gate follows the fingers only while it holds any.
public struct SeatTouchGate: Sendable, Equatable {
    /// Whether a device forwards the compositor's touches now.
    public private(set) var isForwarded = false
    /// The seat's fingers down, as their frames went by since forwarding began: bit n for slot n.
    @usableFromInline var down: UInt64 = 0
    /// Fingers held back until they lift.
    @usableFromInline var held: UInt64 = 0
    /// Touchscreen frames held back, whole or in part, since the daemon started (`GetStats`).
    public private(set) var framesHeldBack = 0

    /// Nothing forwarded and nothing held: every frame passes untouched.
    @inlinable public var passesAll: Bool { !isForwarded && held == 0 }

    /// The seat's slots the gate tracks (libinput's seat slots, and a recording's).
    public static let slots = 0..<64

    public init() {}

    /// Forwarding begins or ends; `seatFingersDown` is the seat's fingers the engine holds down
    /// now (bit n for slot n). True when it begins with seat fingers down, which the caller
    /// cancels in the engine.
    public mutating func setForwarded(_ forwarded: Bool, seatFingersDown: UInt64) -> Bool {
        guard forwarded != isForwarded else { return false }
        isForwarded = forwarded
        if forwarded {
            // Fingers the engine let through, and those still held from an earlier change.
            down = seatFingersDown | held
            held = down
            return seatFingersDown != 0
        }
        held = down
        return false
    }

    /// Whether `frame`, one of the seat's own devices, reaches the engine; a frame only some of
    /// whose contacts may pass keeps those. The common case (nothing forwarded, nothing held)
    /// is decided where it is called.
    @inlinable
    public mutating func admit(_ frame: inout TouchFrame) -> Bool {
        guard isForwarded || held != 0 else { return true }
        return gate(&frame)
    }

    @usableFromInline
    mutating func gate(_ frame: inout TouchFrame) -> Bool {
        guard frame.source == .touchscreen else { return true }
        // Which of the frame's contacts pass (bit i for contact i; a frame has far fewer than 64).
        var passing: UInt64 = 0
        for (index, contact) in frame.contacts.enumerated() {
            let bit: UInt64 = Self.slots.contains(contact.slot) ? 1 << UInt64(contact.slot) : 0
            var passes = !isForwarded && held & bit == 0
            switch contact.phase {
            case .down:
                down |= bit
                if !isForwarded {
                    held &= ~bit
                    passes = true
                }
            case .up, .cancel:
                down &= ~bit
                held &= ~bit
            case .move:
                break
            }
            if passes, index < 64 { passing |= 1 << UInt64(index) }
        }
        let count = frame.contacts.count
        let all: UInt64 = count >= 64 ? .max : (1 << UInt64(count)) - 1
        if passing == all { return true }
        framesHeldBack += 1
        if passing == 0 { return false }
        var index = 0
        frame.contacts.removeAll { _ in
            defer { index += 1 }
            return index >= 64 || passing & (1 << UInt64(index)) == 0
        }
        return true
    }
}
