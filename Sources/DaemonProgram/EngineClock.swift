import SheetCore
import SheetInput

/// The engine's clock. With libinput the engine runs on CLOCK_MONOTONIC, the clock of the
/// kernel's event stamps. A recording runs on its own time from zero, mapped onto the
/// monotonic clock at its speed (`@max`: not at all, frame after frame); when it has ended and
/// the sheet rests, the clock goes on at the real pace from where it is.
///
/// Engine time = anchorEngine + (monotonic − anchorMonotonic) × rate, and never before the
/// newest event the engine saw (`time`).
struct EngineClock {
    private var anchorEngine = Timestamp.zero
    private var anchorMonotonic = Timestamp.zero
    private var rate = 1.0
    /// A recording is being played: the engine's time is the recording's.
    private(set) var replaying = false
    /// A recording plays at `@max`: the engine's time is the recording's alone.
    private(set) var asFastAsPossible = false
    /// Engine time of the newest event processed; the engine never goes back.
    private(set) var time = Timestamp.zero

    /// Live input: engine time is monotonic time from `now`.
    mutating func startLive(at now: Timestamp) {
        anchorEngine = now
        anchorMonotonic = now
        time = self.now()
    }

    /// A recording's time zero falls at `now`; `speed` nil: as fast as possible.
    mutating func startRecording(at now: Timestamp, speed: Double?) {
        replaying = true
        asFastAsPossible = speed == nil
        anchorEngine = .zero
        anchorMonotonic = now
        rate = speed ?? 1
        time = self.now()
    }

    /// The recording is over: from `time`, at the real pace.
    mutating func resumeRealPace(at now: Timestamp) {
        replaying = false
        asFastAsPossible = false
        anchorEngine = time
        anchorMonotonic = now
        rate = 1
    }

    func engine(atMonotonic monotonic: Timestamp) -> Timestamp {
        let elapsed = Double(monotonic.microseconds - anchorMonotonic.microseconds) * rate
        return Timestamp(microseconds: anchorEngine.microseconds + Int64(elapsed.rounded()))
    }

    func monotonic(atEngine engine: Timestamp) -> Timestamp {
        let elapsed = Double(engine.microseconds - anchorEngine.microseconds) / rate
        return Timestamp(microseconds: anchorMonotonic.microseconds + Int64(elapsed.rounded()))
    }

    /// The engine's "now", never before the last event it saw.
    func now() -> Timestamp {
        if asFastAsPossible { return time }
        return now(atMonotonic: LibinputInput.monotonicNow())
    }

    /// The engine's time at monotonic time `monotonic`, never before the last event it saw.
    func now(atMonotonic monotonic: Timestamp) -> Timestamp {
        max(engine(atMonotonic: monotonic), time)
    }

    /// Moves `time` to `now()` and returns it: a call or a reload happens now.
    mutating func tick() -> Timestamp {
        time = now()
        return time
    }

    /// An event at engine time `stamp` was processed.
    mutating func saw(_ stamp: Timestamp) {
        time = max(time, stamp)
    }

    /// A live frame stamped on the monotonic clock, on the engine's: never before the last
    /// event it saw.
    mutating func stamp(monotonic: Timestamp) -> Timestamp {
        time = max(time, engine(atMonotonic: monotonic))
        return time
    }

    /// The monotonic time a state made at engine time `engine` is stamped with: at `@max`,
    /// when it is published.
    func publishedTime(ofEngine engine: Timestamp) -> Timestamp {
        asFastAsPossible ? LibinputInput.monotonicNow() : monotonic(atEngine: engine)
    }
}

/// The monotonic time of one turn of the loop, read when first asked and then kept for the
/// turn: where the machine has no usable TSC (a VM whose clock source is the HPET) each read
/// is a system call and a device read, dearer than the rest of a frame's work, so what a turn
/// times (a state's latency) shares one read.
///
/// What only asks whether a time has come (an engine deadline, a paced subscriber's held
/// state, the watchdog) does not read it while the loop's timer is set: each such time is one
/// the timer is set for, or later, so before it comes the timer wakes the loop, and that turn
/// knows the time reached (`known`). A turn that input woke knows none, and what it would
/// have found due a little early waits for the timer's turn, which follows at once. (A
/// recording played as fast as possible sets no timer: its turns read the clock,
/// `LoopState.reached`.)
struct TurnClock {
    private var read: Timestamp?
    /// The time the timer that woke this turn was set for.
    private var reached: Timestamp?

    /// The turn's time: the first call reads the clock.
    mutating func now() -> Timestamp {
        if let read { return read }
        let now = LibinputInput.monotonicNow()
        read = now
        return now
    }

    /// The latest time this turn is known to have reached without a read: the clock's, when it
    /// was read already, else the time of the timer that woke the turn; nil: neither.
    var known: Timestamp? { read ?? reached }

    /// A new turn (after a wait, or before the next plugin call of a turn): the next `now()`
    /// reads. `reached`: the time the timer that woke it was set for (`Waiter.Readiness.timer`).
    mutating func next(reached: Timestamp? = nil) {
        read = nil
        self.reached = reached
    }
}
