#if canImport(Glibc)
import Glibc
#endif
import Logging
import SheetConfig
import SheetCore
import SheetInput
import SheetProtocol
import SheetRecordings
import SheetServer
import SheetService
import Synchronization

/// The loop's timer (the engine's deadlines, a recording's next frame, the watchdog, a save
/// put off, a paced subscriber's held state) and what it publishes.
extension LoopState {
    // MARK: Timer

    // A getter of the core called on `engine` itself copies the whole engine first (2.5 KB, with
    // a retain and a release of each buffer it holds), as the engine is a value of another
    // module: so it did in a class, and still does in this struct (a plain `engine.nextDeadline`
    // here costs 500 instructions a turn more). Read through its address, the copy goes.
    // `nextDeadline`, read before every wait, is inlinable and takes none.

    /// The engine's next deadline of motion and exploration (`Engine.restDeadline`), read in
    /// place too.
    var engineMotionDeadline: Timestamp? {
        mutating get { withUnsafeMutablePointer(to: &engine) { $0.pointee.restDeadline } }
    }

    /// The engine's next deadline (`Engine.nextDeadline`).
    var engineDeadline: Timestamp? {
        mutating get { withUnsafeMutablePointer(to: &engine) { $0.pointee.nextDeadline } }
    }

    mutating func armTimer() {
        var recordedDue: Timestamp?
        if clock.replaying, let player = input.recording, let time = player.nextTime {
            recordedDue = clock.monotonic(atEngine: time)
        }
        pacedDue = server?.pacedDue().map(Timestamp.init(microseconds:))
        let wake = timer.plan(engineDue: engineDeadline.map(clock.monotonic(atEngine:)), recordedDue: recordedDue,
                              replaying: clock.replaying, watchdog: nextWatchdog, save: persistence.nextSave, paced: pacedDue)
        waiter.arm(at: wake)
    }

    /// Paced subscribers' held states that are due go out (`MonitorPacer`), once the turn knows
    /// their time has come (`reached`).
    mutating func flushPaced() {
        guard let due = pacedDue, let now = reached(), now >= due else { return }
        pacedDue = nil
        server?.flushPaced(at: now.microseconds)
    }

    /// The time this turn has reached, for what asks whether a time has come (a held state,
    /// the watchdog): known without a read when the timer woke the turn (`TurnClock.known`),
    /// as the timer is set for each such time; a recording played as fast as possible sets no
    /// timer, and the clock is read, once a batch.
    mutating func reached() -> Timestamp? {
        clock.asFastAsPossible ? turn.now() : turn.known
    }

    // MARK: Publishing

    /// A finger is down, or the recording has frames still to play (`State.inputActive`).
    var inputActive: Bool { clock.replaying || engine.activeTouchCount > 0 }

    /// Publishes what the engine emitted.
    mutating func publish(maySkip: Bool = true) {
        publisher.publish(&outputs, of: &engine, clock: clock, turn: &turn, inputActive: inputActive, maySkip: maySkip)
    }

    /// Publishes the state as it is now for a `GetState` or a new subscriber that came after
    /// states were skipped (`VarlinkServer.skip`): the clock and the engine brought to now
    /// (live input; a recording keeps its own time), what that emits published, and then, if
    /// the server still holds none of the states since, the state itself, kept whether or not
    /// anyone watches. A subscriber that came meanwhile has had a state already.
    mutating func refreshState() {
        if !clock.replaying {
            let now = clock.tick()
            engine.advance(to: now, into: &outputs)
        }
        publish(maySkip: false)
        guard server?.statesSkipped ?? false else { return }
        publisher.refresh(of: &engine, clock: clock, turn: &turn, inputActive: inputActive)
    }
}
