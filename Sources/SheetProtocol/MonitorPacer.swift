import SheetCore

/// A `Monitor` subscriber that asked for `maxRate` gets at most that many states a second, the
/// newest each time, and never loses what happened:
///
/// - A state that carries an event (a content event, or a gesture that began, ended, was
///   cancelled or recognized) goes at once: pacing never drops or delays an event.
/// - A state in which only a gesture under way moved (a pan's or a long press's `changed`,
///   with the sheet, its list and the flags as in the state before: nothing a renderer draws)
///   is not sent on its own and sets no time to go: the gesture's positions in between are
///   not sent, and the next state sent carries the gesture as it is then. A finger on the
///   screen's other controls while the sheet is closed wakes no renderer.
/// - Any other state (the card moving, the list scrolling) goes at once when the last one
///   went an interval ago or more; else it is held, and the newest held goes when the interval
///   is up (`due`). So the last state, the one the sheet comes to rest in, always arrives, at
///   most one interval late.
///
/// Times are CLOCK_MONOTONIC microseconds: a state is offered at its `timestampUSec` (the
/// instant it describes, when the daemon publishes it), a held one is sent at `due`. The same
/// stream of states therefore gives the same paced stream: the daemon and the tests run this.
public struct MonitorPacer: Sendable, Equatable {
    /// What `Monitor(maxRate:)` takes, in states a second.
    public static let rates: ClosedRange<Int> = 1...1000

    public let intervalInMicroseconds: Int64
    /// When the last state went out.
    private var lastSent: Int64?
    /// When the held state must go out, finger down or not; nil: none is held. (Waiting, while
    /// a finger is down, for the next frame to take its place would cost fewer wakes, but a
    /// renderer would judder: on a 60 Hz panel about half the frames come a little sooner
    /// than 16,667 µs after the last, and each of those would be dropped; a 70 Hz panel's drag
    /// would reach a 60 Hz renderer at 35 states a second.)
    public private(set) var due: Int64?

    /// `maxRate` within `rates`.
    public init(maxRate: Int) {
        precondition(Self.rates.contains(maxRate), "maxRate \(maxRate) outside \(Self.rates)")
        intervalInMicroseconds = (1_000_000 + Int64(maxRate) / 2) / Int64(maxRate)
    }

    /// What a state brings a paced subscriber.
    public enum Novelty: Sendable, Equatable {
        /// A content event, or a gesture that began, ended, was cancelled or recognized.
        case event
        /// The sheet, its list or the flags changed.
        case change
        /// Only a gesture under way moved: the state is the one before with a gesture's
        /// `changed` (a pan, a long press).
        case gestureMoved

        /// What `update` brings after `previous`, the update published before it. The daemon
        /// knows it as it publishes: a state with no new snapshot of the sheet or its list and
        /// `inputActive` as before. (The two differ only where the engine's own rounding or a
        /// list animation between its frames makes a state look new to this comparison, which
        /// then calls a change what the daemon held back; the animation's next frame follows.)
        public static func of(_ update: MonitorUpdate, after previous: MonitorUpdate?) -> Novelty {
            if carriesEvent(update) { return .event }
            return update.gesture?.phase == .changed && previous?.state == update.state ? .gestureMoved : .change
        }
    }

    /// Whether `update` goes out whatever the pacing: it carries an event.
    @inlinable
    public static func carriesEvent(_ update: MonitorUpdate) -> Bool {
        carriesEvent(gesture: update.gesture, events: update.events.count)
    }

    /// The same, of a state's gesture and its number of content events, before it is built.
    @inlinable
    public static func carriesEvent(gesture: GestureReport?, events: Int) -> Bool {
        events > 0 || gesture.map { $0.phase != .changed } ?? false
    }

    /// A state that brings `novelty` is published at `now`: true when it goes out now; false
    /// when it is held (the newest held replaces any older one) until `due`, or, when only a
    /// gesture moved, not sent on its own.
    public mutating func offer(_ novelty: Novelty, at now: Int64) -> Bool {
        switch novelty {
        case .gestureMoved:
            return false
        case .change where lastSent.map({ now - $0 < intervalInMicroseconds }) ?? false:
            due = lastSent.map { $0 + intervalInMicroseconds }
            return false
        case .event, .change:
            lastSent = now
            due = nil
            return true
        }
    }

    /// True when a held state is due at `now`: it goes out now, and the interval starts again
    /// from now (a flush later than due never lets the next state follow sooner).
    public mutating func flush(at now: Int64) -> Bool {
        guard let due, now >= due else { return false }
        lastSent = now
        self.due = nil
        return true
    }
}

extension SheetInterface {
    /// `Monitor`, with `maxRate` when given.
    public static func monitorCall(maxRate: Int?) -> VarlinkCall {
        VarlinkCall(method: "\(name).Monitor", parameters: .object(maxRate.map { ["maxRate": .number(Double($0))] } ?? [:]),
                    more: true)
    }
}
