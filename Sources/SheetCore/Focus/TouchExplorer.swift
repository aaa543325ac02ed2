/// Explore by touch, for a person who cannot see the screen: one finger moves the focus to what
/// is under it (which a renderer speaks) and never taps, scrolls or drags; a double tap anywhere
/// activates what has the focus; a quick one-finger flick right or left moves it to the next or
/// the previous element; two fingers act as one finger does without exploration, at their
/// midpoint (a two-finger drag moves the sheet or scrolls the list, a fast two-finger swipe down
/// dismisses). TalkBack's and VoiceOver's model.
///
/// A finger that lands is not yet exploring: it may be the first tap of a double tap, or a
/// flick. It explores once it has been down `exploreAfterSeconds`; a finger lifted before that
/// is a tap, which explores where it was once no second tap came within
/// `doubleTapSeconds`; one that leaves the slop slower than `flickMinimumPointsPerSecond`
/// explores at once; one that leaves it faster and lifts before it explores is a flick when it
/// went mostly sideways, at least `flickMinimumPoints`, and else explores where it lifted.
///
/// State diagram (the table in docs/machines/explore.md is the full spec):
///
///     idle --down--> pressed --timeout--> exploring --up--> idle
///                    pressed --move past slop--> sliding --up--> idle (flick: next / previous)
///                    pressed --up--> tapped --down--> second --up--> idle (activate)
///                                    tapped --timeout--> idle (explore where it was)
///     any one-finger state --second finger--> passing (pass-down) --a finger up--> draining
///     draining --the last finger up--> idle
public struct TouchExplorer: Sendable {
    /// Thresholds, each with its source.
    public struct Configuration: Sendable, Hashable {
        /// How long a finger is down before it explores. 0.3 s: Android's touch explorer waits
        /// `ViewConfiguration.getDoubleTapTimeout()` (300 ms) to tell a gesture from
        /// exploration.
        public var exploreAfterSeconds: Double = 0.3
        /// The longest gap between a tap's lift and the second tap's touch. 0.3 s: Android
        /// `ViewConfiguration.getDoubleTapTimeout()`.
        public var doubleTapSeconds: Double = 0.3
        /// A flick goes at least this far sideways: twice the gestures' slop.
        public var flickMinimumPoints: Double = 32
        /// A finger that leaves the slop slower than this explores at once: TalkBack reads slow
        /// slides as exploration and fast ones as gestures. 400 pt/s, some 6 cm a second on a
        /// phone, between a finger that reads its way down a list and a flick.
        public var flickMinimumPointsPerSecond: Double = 400
        /// "Mostly sideways": the horizontal travel beats the vertical at least this much, as a
        /// swipe's axis does (`GestureConfiguration.swipeAxisRatio`).
        public var flickAxisRatio: Double = 2

        public init() {}
    }

    public enum State: Sendable, Equatable {
        case idle
        /// One finger down, not yet known as a tap, a flick or exploration.
        case pressed(slot: Int, start: Point, last: Point, at: Timestamp)
        /// One finger moved past the slop before it explored: a flick if it lifts in time.
        case sliding(slot: Int, start: Point, last: Point, at: Timestamp)
        /// One finger moves the focus to what is under it.
        case exploring(slot: Int, last: Point)
        /// A tap lifted at `point`; a second may follow.
        case tapped(point: Point, at: Timestamp)
        /// The second tap's finger is down.
        case second(slot: Int, start: Point, last: Point, at: Timestamp)
        /// Two fingers: one finger at their midpoint goes to the gestures.
        case passing(first: Int, second: Int, a: Point, b: Point)
        /// Fingers left after a pass-through or a cancel: nothing until the last lifts.
        case draining

        public var name: String {
            switch self {
            case .idle: return "idle"
            case .pressed: return "pressed"
            case .sliding: return "sliding"
            case .exploring: return "exploring"
            case .tapped: return "tapped"
            case .second: return "second"
            case .passing: return "passing"
            case .draining: return "draining"
            }
        }
    }

    public enum Event: Sendable, Equatable {
        case down(slot: Int, Point, Timestamp)
        case move(slot: Int, Point, Timestamp)
        case up(slot: Int, Point, Timestamp)
        case cancel(slot: Int, Timestamp)
        /// The deadline came.
        case timeout(Timestamp)
    }

    public enum Effect: Sendable, Equatable {
        case none
        /// The focus to what is under the point, where something takes it.
        case explore(Point)
        case activate
        case next
        case previous
        /// The one finger the gestures see: down, moved, lifted, cancelled at the point.
        case passDown(Point)
        case passMove(Point)
        case passUp(Point)
        case passCancel

        public var name: String {
            switch self {
            case .none: return "none"
            case .explore: return "explore"
            case .activate: return "activate"
            case .next: return "next"
            case .previous: return "previous"
            case .passDown: return "pass-down"
            case .passMove: return "pass-move"
            case .passUp: return "pass-up"
            case .passCancel: return "pass-cancel"
            }
        }
    }

    public private(set) var state: State = .idle
    /// The slots down, one bit each (slots 0 to 31).
    public private(set) var held: UInt32 = 0
    public let configuration: Configuration
    /// The slop and the flick's travel in the unit of the positions (pixels).
    let slop: Double
    let flickDistance: Double
    let flickSpeed: Double

    /// `state` and `held`: where a test starts it.
    public init(configuration: Configuration = Configuration(), slop: Double, scale: Double = 1,
                state: State = .idle, held: UInt32 = 0) {
        self.configuration = configuration
        self.slop = slop
        flickDistance = configuration.flickMinimumPoints * scale
        flickSpeed = configuration.flickMinimumPointsPerSecond * scale
        self.state = state
        self.held = held
    }

    /// When `timeout` is due, if anything waits for it.
    public var deadline: Timestamp? {
        switch state {
        case .pressed(_, _, _, let at), .sliding(_, _, _, let at), .second(_, _, _, let at):
            return at.adding(seconds: configuration.exploreAfterSeconds)
        case .tapped(_, let at):
            return at.adding(seconds: configuration.doubleTapSeconds)
        case .idle, .exploring, .passing, .draining:
            return nil
        }
    }

    /// Forgets every finger (exploration turned off, or the engine reset).
    public mutating func reset() {
        state = .idle
        held = 0
    }

    public mutating func handle(_ event: Event) -> Effect {
        switch event {
        case .down(let slot, _, _) where slot >= 0 && slot < 32: held |= 1 << UInt32(slot)
        case .up(let slot, _, _) where slot >= 0 && slot < 32, .cancel(let slot, _) where slot >= 0 && slot < 32:
            held &= ~(1 << UInt32(slot))
        default: break
        }
        switch (state, event) {
        case (.idle, .down(let slot, let point, let time)):
            state = .pressed(slot: slot, start: point, last: point, at: time)
            return .none
        case (.idle, _):
            return .none

        // One finger, not yet known.
        case (.pressed(let first, _, let last, _), .down(let slot, let point, _)),
             (.sliding(let first, _, let last, _), .down(let slot, let point, _)),
             (.second(let first, _, let last, _), .down(let slot, let point, _)),
             (.exploring(let first, let last), .down(let slot, let point, _)):
            return pass(first, last, slot, point)
        case (.pressed(let slot, let start, _, let at), .move(let finger, let point, let time)) where finger == slot:
            guard (point - start).length > slop else {
                state = .pressed(slot: slot, start: start, last: point, at: at)
                return .none
            }
            return leftSlop(slot, from: start, to: point, downAt: at, now: time)
        case (.pressed(let slot, let start, _, _), .up(let finger, let point, let time)) where finger == slot:
            // Lifted past the slop (its last moves unreported): a slide's end, else a tap.
            guard (point - start).length <= slop else { return slid(from: start, to: point) }
            state = .tapped(point: start, at: time)
            return .none
        case (.pressed(let slot, _, let last, _), .timeout):
            state = .exploring(slot: slot, last: last)
            return .explore(last)

        case (.sliding(let slot, let start, _, let at), .move(let finger, let point, _)) where finger == slot:
            state = .sliding(slot: slot, start: start, last: point, at: at)
            return .none
        case (.sliding(let slot, let start, _, _), .up(let finger, let point, _)) where finger == slot:
            return slid(from: start, to: point)
        case (.sliding(let slot, _, let last, _), .timeout):
            state = .exploring(slot: slot, last: last)
            return .explore(last)

        case (.exploring(let slot, _), .move(let finger, let point, _)) where finger == slot:
            state = .exploring(slot: slot, last: point)
            return .explore(point)
        case (.exploring(let slot, _), .up(let finger, _, _)) where finger == slot:
            state = .idle
            return .none

        case (.tapped, .down(let slot, let point, let time)):
            state = .second(slot: slot, start: point, last: point, at: time)
            return .none
        case (.tapped(let point, _), .timeout):
            state = .idle
            return .explore(point)

        case (.second(let slot, let start, _, let at), .move(let finger, let point, let time)) where finger == slot:
            guard (point - start).length > slop else {
                state = .second(slot: slot, start: start, last: point, at: at)
                return .none
            }
            return leftSlop(slot, from: start, to: point, downAt: at, now: time)
        case (.second(let slot, let start, _, _), .up(let finger, let point, _)) where finger == slot:
            guard (point - start).length <= slop else { return slid(from: start, to: point) }
            state = .idle
            return .activate
        case (.second(let slot, _, let last, _), .timeout):
            state = .exploring(slot: slot, last: last)
            return .explore(last)

        // A one-finger state's own finger cancelled: nothing happens, and whatever else is down
        // is waited out.
        case (.pressed(let slot, _, _, _), .cancel(let finger, _)) where finger == slot,
             (.sliding(let slot, _, _, _), .cancel(let finger, _)) where finger == slot,
             (.exploring(let slot, _), .cancel(let finger, _)) where finger == slot,
             (.second(let slot, _, _, _), .cancel(let finger, _)) where finger == slot:
            state = held == 0 ? .idle : .draining
            return .none

        case (.passing(let first, let second, var a, var b), .move(let slot, let point, _)) where slot == first || slot == second:
            if slot == first { a = point } else { b = point }
            state = .passing(first: first, second: second, a: a, b: b)
            return .passMove(Self.midpoint(a, b))
        case (.passing(let first, let second, var a, var b), .up(let slot, let point, _)) where slot == first || slot == second:
            if slot == first { a = point } else { b = point }
            state = held == 0 ? .idle : .draining
            return .passUp(Self.midpoint(a, b))
        case (.passing(let first, let second, _, _), .cancel(let slot, _)) where slot == first || slot == second:
            state = held == 0 ? .idle : .draining
            return .passCancel

        case (.draining, .up), (.draining, .cancel):
            if held == 0 { state = .idle }
            return .none

        default:
            // A third finger, another finger's motion, a timeout with nothing due.
            return .none
        }
    }

    /// A finger that was still left the slop: fast, perhaps a flick; slowly, a person reading
    /// their way down the sheet, who explores from here.
    private mutating func leftSlop(_ slot: Int, from start: Point, to point: Point, downAt: Timestamp, now: Timestamp) -> Effect {
        if (point - start).length >= flickSpeed * max(0, now.seconds(since: downAt)) {
            state = .sliding(slot: slot, start: start, last: point, at: downAt)
            return .none
        }
        state = .exploring(slot: slot, last: point)
        return .explore(point)
    }

    /// A finger that moved past the slop lifted before it explored: a flick when it went far
    /// enough mostly sideways (right is next, left previous), else the focus to where it lifted.
    private mutating func slid(from start: Point, to point: Point) -> Effect {
        state = .idle
        let dx = point.x - start.x, dy = point.y - start.y
        if abs(dx) >= flickDistance, abs(dx) >= configuration.flickAxisRatio * abs(dy) {
            return dx > 0 ? .next : .previous
        }
        return .explore(point)
    }

    /// Two fingers: the first's position so far and the second's; the gestures see one
    /// finger land at their midpoint.
    private mutating func pass(_ first: Int, _ a: Point, _ second: Int, _ b: Point) -> Effect {
        state = .passing(first: first, second: second, a: a, b: b)
        return .passDown(Self.midpoint(a, b))
    }

    static func midpoint(_ a: Point, _ b: Point) -> Point { Point(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2) }
}
