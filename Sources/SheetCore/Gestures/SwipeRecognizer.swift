/// Recognises a swipe: a fast, mostly straight flick, judged at the lift. It is recognised
/// when, at the lift,
/// - the touch lasted at most `swipeMaximumSeconds` (a flick, not a drag that ends fast);
/// - the velocity along the main axis is at least `swipeMinimumPointsPerSecond`, and beats the
///   other axis by `swipeAxisRatio`; the net displacement does too, in the same direction, and
///   is longer than the slop;
/// - the path was straight: net displacement / path length ≥ `swipeStraightness`.
///
///     idle --down--> tracking --move--> tracking --up--> idle (recognized, or failed)
///                    tracking --rejected--> failed;  tracking --cancel--> idle
///     failed --up/cancel--> idle
public struct SwipeRecognizer: Sendable {
    public enum State: Sendable, Equatable {
        case idle
        case tracking(start: Point, downAt: Timestamp, last: Point, pathLength: Double)
        case failed

        public var name: String {
            switch self {
            case .idle: return "idle"
            case .tracking: return "tracking"
            case .failed: return "failed"
            }
        }
    }

    public enum Effect: Sendable, Equatable {
        case none
        case recognized(SwipeDirection, start: Point, at: Point, Timestamp, velocity: Vector)
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
    /// Thresholds converted to pixels: slop (px), minimum speed (px/s).
    public var slop: Double
    public var minimumSpeed: Double
    public var configuration: GestureConfiguration

    public init(configuration: GestureConfiguration, scale: Double, state: State = .idle) {
        self.configuration = configuration
        self.slop = configuration.slopInPoints * scale
        self.minimumSpeed = configuration.swipeMinimumPointsPerSecond * scale
        self.state = state
    }

    @inline(__always)
    public mutating func handle(_ event: PointerEvent) -> Effect {
        switch (state, event) {
        case (.idle, .down(let point, let time)):
            state = .tracking(start: point, downAt: time, last: point, pathLength: 0)
            return .none
        case (.idle, .move), (.idle, .up), (.idle, .cancel), (.idle, .extraFinger),
             (.idle, .timeout), (.idle, .rejected):
            return .none

        case (.tracking(let start, let downAt, let last, let path), .move(let point, _)):
            state = .tracking(start: start, downAt: downAt, last: point,
                              pathLength: path + (point - last).length)
            return .none
        case (.tracking(let start, let downAt, let last, let path), .up(_, let time, let velocity)):
            state = .idle
            let v = velocity.pixelsPerSecond
            guard time.seconds(since: downAt) <= configuration.swipeMaximumSeconds,
                  let direction = judge(displacement: last - start, velocity: v, pathLength: path)
            else { return .failed }
            return .recognized(direction, start: start, at: last, time, velocity: v)
        case (.tracking, .cancel):
            state = .idle
            return .failed
        case (.tracking, .rejected):
            state = .failed
            return .failed
        case (.tracking, .down), (.tracking, .extraFinger), (.tracking, .timeout):
            return .none

        case (.failed, .up), (.failed, .cancel):
            state = .idle
            return .none
        case (.failed, .down), (.failed, .move), (.failed, .extraFinger), (.failed, .timeout),
             (.failed, .rejected):
            return .none
        }
    }

    private func judge(displacement: Vector, velocity: Vector, pathLength: Double) -> SwipeDirection? {
        let vertical = abs(displacement.dy) >= abs(displacement.dx)
        let mainDistance = vertical ? displacement.dy : displacement.dx
        let crossDistance = vertical ? displacement.dx : displacement.dy
        let mainSpeed = vertical ? velocity.dy : velocity.dx
        let crossSpeed = vertical ? velocity.dx : velocity.dy
        guard abs(mainDistance) > slop,
              abs(mainDistance) >= configuration.swipeAxisRatio * abs(crossDistance),
              abs(mainSpeed) >= minimumSpeed,
              abs(mainSpeed) >= configuration.swipeAxisRatio * abs(crossSpeed),
              mainSpeed * mainDistance > 0,
              pathLength > 0, displacement.length / pathLength >= configuration.swipeStraightness
        else { return nil }
        if vertical { return mainDistance > 0 ? .down : .up }
        return mainDistance > 0 ? .right : .left
    }
}
