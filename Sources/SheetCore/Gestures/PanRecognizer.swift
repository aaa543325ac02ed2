/// Recognises a pan: the finger moves past the slop. Its translation is measured from the
/// touch-down point, so whatever it drags stays under the finger; its end carries the release
/// velocity. Extra fingers are ignored: a second finger never hijacks a pan in progress.
///
///     idle --down--> possible --move past slop--> active --move--> active (changed)
///                    possible --rejected--> failed          active --up--> idle (ended, velocity)
///                    possible --up/cancel--> idle           active --cancel/rejected--> idle (cancelled)
///     failed --up/cancel--> idle
public struct PanRecognizer: Sendable {
    public enum State: Sendable, Equatable {
        case idle
        case possible(start: Point)
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
        case began(start: Point, at: Point, Timestamp)
        case changed(start: Point, at: Point, Timestamp)
        case ended(start: Point, at: Point, Timestamp, velocity: Vector)
        case cancelled(start: Point, at: Point, Timestamp)

        public var name: String {
            switch self {
            case .none: return "none"
            case .began: return "began"
            case .changed: return "changed"
            case .ended: return "ended"
            case .cancelled: return "cancelled"
            }
        }
    }

    public private(set) var state: State = .idle
    public var slop: Double

    public init(slop: Double, state: State = .idle) {
        self.slop = slop
        self.state = state
    }

    @inline(__always)
    public mutating func handle(_ event: PointerEvent) -> Effect {
        switch (state, event) {
        case (.idle, .down(let point, _)):
            state = .possible(start: point)
            return .none
        case (.idle, .move), (.idle, .up), (.idle, .cancel), (.idle, .extraFinger),
             (.idle, .timeout), (.idle, .rejected):
            return .none

        case (.possible(let start), .move(let point, let time)):
            guard (point - start).length > slop else { return .none }
            state = .active(start: start, last: point)
            return .began(start: start, at: point, time)
        case (.possible, .up), (.possible, .cancel):
            state = .idle
            return .none
        case (.possible, .rejected):
            state = .failed
            return .none
        case (.possible, .down), (.possible, .extraFinger), (.possible, .timeout):
            return .none

        case (.active(let start, _), .move(let point, let time)):
            state = .active(start: start, last: point)
            return .changed(start: start, at: point, time)
        case (.active(let start, let last), .up(_, let time, let velocity)):
            state = .idle
            return .ended(start: start, at: last, time, velocity: velocity.pixelsPerSecond)
        case (.active(let start, let last), .cancel(let time)),
             (.active(let start, let last), .rejected(let time)):
            state = .idle
            return .cancelled(start: start, at: last, time)
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
