/// Recognises a tap: one finger down and up again before the long-press time, without moving
/// past the slop, and with no other finger joining. A cancelled touch is never a tap.
///
/// State diagram (the table in docs/machines/tap.md is the full spec):
///
///     idle --down--> possible --up--> idle (recognized)
///                    possible --move past slop / extraFinger / rejected--> failed
///     failed --up/cancel--> idle
public struct TapRecognizer: Sendable {
    public enum State: Sendable, Equatable {
        case idle
        case possible(start: Point, downAt: Timestamp)
        case failed

        public var name: String {
            switch self {
            case .idle: return "idle"
            case .possible: return "possible"
            case .failed: return "failed"
            }
        }
    }

    public enum Effect: Sendable, Equatable {
        case none
        case recognized(at: Point, Timestamp)
        case failed

        public var name: String {
            switch self {
            case .none: return "none"
            case .recognized: return "recognized"
            case .failed: return "failed"
            }
        }
    }

    public private(set) var state: State = .idle
    /// The slop, in the unit of the positions it is given (pixels).
    public var slop: Double

    public init(slop: Double, state: State = .idle) {
        self.slop = slop
        self.state = state
    }

    @inline(__always)
    public mutating func handle(_ event: PointerEvent) -> Effect {
        switch (state, event) {
        case (.idle, .down(let point, let time)):
            state = .possible(start: point, downAt: time)
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
        case (.possible(let start, _), .up(_, let time, _)):
            state = .idle
            return .recognized(at: start, time)
        case (.possible, .cancel):
            state = .idle
            return .failed
        case (.possible, .extraFinger), (.possible, .rejected):
            state = .failed
            return .failed
        case (.possible, .down), (.possible, .timeout):
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
