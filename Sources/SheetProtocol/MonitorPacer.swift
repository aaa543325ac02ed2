import SheetCore

/// A `Monitor` subscriber that asked for `maxRate` gets at most that many states a second, the
/// newest each time, and never loses what happened:
///
/// - A state that carries an event (a content event, or a gesture that began, ended, was
///   cancelled or recognized) goes at once: pacing never drops or delays an event.
/// - Any other state (the card moving, a pan that changed) goes at once when the last one went
///   an interval ago or more; else it is held, and the newest held goes when the interval is
///   up (`due`). So the last state, the one the sheet comes to rest in, always arrives, at most
///   one interval late.
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
    /// When the held state must go out; nil: none is held.
    public private(set) var due: Int64?

    /// `maxRate` within `rates`.
    public init(maxRate: Int) {
        precondition(Self.rates.contains(maxRate), "maxRate \(maxRate) outside \(Self.rates)")
        intervalInMicroseconds = (1_000_000 + Int64(maxRate) / 2) / Int64(maxRate)
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

    /// `update` is published at `now`: true when it goes out now; false when it is held (the
    /// newest held replaces any older one) until `due`.
    public mutating func offer(_ update: MonitorUpdate, at now: Int64) -> Bool {
        offer(carryingEvent: Self.carriesEvent(update), at: now)
    }

    /// `offer(_:at:)` of a state that carries an event (`carriesEvent`) or not.
    public mutating func offer(carryingEvent: Bool, at now: Int64) -> Bool {
        if carryingEvent || lastSent.map({ now - $0 >= intervalInMicroseconds }) ?? true {
            lastSent = now
            due = nil
            return true
        }
        due = lastSent.map { $0 + intervalInMicroseconds }
        return false
    }

    /// True when a held state is due at `now`: it goes out now, and the interval starts again
    /// from now (a flush later than due never lets the next state follow sooner).
    public mutating func flush(at now: Int64) -> Bool {
        guard let due, now >= due else { return false }
        lastSent = now
        self.due = nil
        return true
    }

    /// When the publisher should wake to flush the held state; nil: none is held. While a
    /// finger is down (`touching`) states keep coming and the next one takes the held one's
    /// place: the wake waits one interval more, so that touches at about the pacing's rate do
    /// not wake the publisher between frames.
    public func wake(touching: Bool) -> Int64? {
        due.map { touching ? $0 + intervalInMicroseconds : $0 }
    }
}

extension SheetInterface {
    /// `Monitor`, with `maxRate` when given.
    public static func monitorCall(maxRate: Int?) -> VarlinkCall {
        VarlinkCall(method: "\(name).Monitor", parameters: .object(maxRate.map { ["maxRate": .number(Double($0))] } ?? [:]),
                    more: true)
    }
}
