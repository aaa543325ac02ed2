import SheetCore
import SheetInput

/// When the loop's thread must be up: the engine's next deadline, a recorded frame falling
/// due, the watchdog, a save, a paced subscriber's held state. Live input needs no timer for its frames: the kernel's events
/// wake the thread.
///
/// A recording's frames stand for events the kernel would deliver at their time. A timer wakes
/// a sleeping thread late (on a virtual machine by 100 µs and more), so while a recording plays
/// the timer is set early by how late it has been firing (`WakeLead`) and the rest is waited
/// out on the clock: the recorded timing is kept to a few microseconds for the CPU time the
/// machine's wake-up latency asks.
struct WakeTimer {
    /// While a recording plays: the monotonic time its next frame or deadline is due.
    private var due: Timestamp?
    /// When the timer is set early for `due`: the time it is set for.
    private var early: Timestamp?
    private(set) var lead = WakeLead()

    /// The time to set the timer for (monotonic; nil: none). `engineDue` is the engine's
    /// deadline and `recordedDue` the next recorded frame's, both already on the monotonic
    /// clock; `replaying`: either one is a recording's, to be kept to the microsecond.
    mutating func plan(engineDue: Timestamp?, recordedDue: Timestamp?, replaying: Bool,
                       watchdog: Timestamp?, save: Timestamp?, paced: Timestamp?) -> Timestamp? {
        var wake = Self.earliest(engineDue, recordedDue)
        due = replaying ? wake : nil
        early = nil
        wake = Self.earliest(Self.earliest(Self.earliest(wake, watchdog), save), paced)
        if let due, let planned = wake, due <= planned {
            wake = due.adding(microseconds: -lead.microseconds)
            early = wake
        }
        return wake
    }

    /// Read just before the wait: the thread goes to sleep before the early time, so a timer
    /// that wakes it may teach `lead` how late it fires.
    var sleepsBeforeWake: Bool {
        guard let early else { return false }
        return LibinputInput.monotonicNow() < early
    }

    /// After the wait: spins to the due time once the early time has passed; learns how late
    /// the timer fired when it is what woke the thread from a sleep begun before that time
    /// (not a call or a plugin's frame, nor a timer set for a time already past).
    mutating func waitOut(timerWoke: Bool) {
        guard let due, let armed = early else { return }
        var now = LibinputInput.monotonicNow()
        guard now >= armed else { return }
        if timerWoke { lead.record(armed: armed, woke: now) }
        early = nil
        while now < due { now = LibinputInput.monotonicNow() }
    }

    private static func earliest(_ a: Timestamp?, _ b: Timestamp?) -> Timestamp? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }
}
