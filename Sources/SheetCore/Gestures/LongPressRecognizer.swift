/// Recognises a long press: one finger held within the slop for the long-press time
/// (0.5 s by default). It is recognised when its deadline passes, then follows the finger
/// (`changed`) until the lift (`ended`) or a cancel (`cancelled`).
///
///     idle --down--> possible --timeout--> active --up--> idle (ended)
///                    possible --move past slop / extraFinger / rejected--> failed
///                    possible --up/cancel--> idle
///     active --cancel/rejected--> idle (cancelled)
///     failed --up/cancel--> idle
public struct LongPressRecognizer: Sendable {
    public enum State: Sendable, Equatable {
        case idle
        case possible(start: Point, deadline: Timestamp)
        case active(start: Point, last: Point)
        case failed

        public var name: String {
            switch self {
            case .idle: return "idle"
            case .possible: return "possible"
            case .active: return "active"
            case .failed: return "failed"
            }
        }
    }

    public enum Effect: Sendable, Equatable {
        case none
        case recognized(at: Point, Timestamp)
        case changed(at: Point, Timestamp)
        case ended(at: Point, Timestamp)
        case cancelled(at: Point, Timestamp)
        case failed

        public var name: String {
            switch self {
            case .none: return "none"
            case .recognized: return "recognized"
            case .changed: return "changed"
            case .ended: return "ended"
            case .cancelled: return "cancelled"
            case .failed: return "failed"
            }
        }
    }

    public private(set) var state: State = .idle
    public var slop: Double
    public var holdSeconds: Double

    public init(slop: Double, holdSeconds: Double, state: State = .idle) {
        self.slop = slop
        self.holdSeconds = holdSeconds
        self.state = state
    }

    /// When the recognizer wants a `.timeout`.
    @inlinable @inline(__always)
    public var deadline: Timestamp? {
        if case .possible(_, let deadline) = state { return deadline }
        return nil
    }

    @inline(__always)
    public mutating func handle(_ event: PointerEvent) -> Effect {
        switch (state, event) {
        case (.idle, .down(let point, let time)):
            state = .possible(start: point, deadline: time.adding(seconds: holdSeconds))
            return .none
        case (.idle, .move), (.idle, .up), (.idle, .cancel), (.idle, .extraFinger),
             (.idle, .timeout), (.idle, .rejected):
            return .none

        case (.possible(let start, _), .move(let point, _)):
            if (point - start).length > slop {
                state = .failed
                return .failed
            }
            return .none
        case (.possible(let start, let deadline), .timeout(let time)):
            guard time >= deadline else { return .none }
            state = .active(start: start, last: start)
            return .recognized(at: start, deadline)
        case (.possible, .up), (.possible, .cancel):
            state = .idle
            return .failed
        case (.possible, .extraFinger), (.possible, .rejected):
            state = .failed
            return .failed
        case (.possible, .down):
            return .none

        case (.active(let start, _), .move(let point, let time)):
            state = .active(start: start, last: point)
            return .changed(at: point, time)
        case (.active(_, let last), .up(_, let time, _)):
            state = .idle
            return .ended(at: last, time)
        case (.active(_, let last), .cancel(let time)), (.active(_, let last), .rejected(let time)):
            state = .idle
            return .cancelled(at: last, time)
        case (.active, .down), (.active, .extraFinger), (.active, .timeout):
            return .none

        case (.failed, .up), (.failed, .cancel):
            state = .idle
            return .none
        case (.failed, .down), (.failed, .move), (.failed, .extraFinger), (.failed, .timeout),
             (.failed, .rejected):
            return .none
        }
    }
}
