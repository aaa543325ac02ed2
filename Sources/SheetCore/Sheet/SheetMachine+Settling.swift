/// Where a released sheet goes (the rule set's choice of detent, flings and projection) and
/// how it gets there (the spring, or the cross-fade under reduced motion).
extension SheetMachine {
    // MARK: Releasing

    /// The detent a release goes to, by the rule set.
    public func releaseTarget(drag: Drag, velocity: Double) -> Int {
        releaseDecision(drag: drag, velocity: velocity).target
    }

    /// The detent a release goes to and the rule of the rule set that chose it, with the
    /// numbers it compared (`sheetctl replay --explain`, the daemon's debug log).
    public func releaseDecision(drag: Drag, velocity: Double) -> ReleaseDecision {
        let top = drag.top
        func decided(_ rule: ReleaseDecision.Rule, _ target: Int, threshold: Double? = nil,
                     projected: Double? = nil) -> ReleaseDecision {
            ReleaseDecision(rule: rule, target: target, targetName: detents[target].name, topInPoints: top,
                            pointsPerSecond: velocity, projectedTopInPoints: projected, threshold: threshold)
        }
        switch configuration.ruleSet {
        case .tutorial:
            let fling = configuration.tutorialDismissPointsPerSecond
            if velocity > fling { return decided(.dismissVelocity, detents.hiddenIndex, threshold: fling) }
            let expandLine = configuration.tutorialExpandFraction * height
            if top < expandLine {
                return decided(.aboveExpandLine, detents.index(named: .expanded) ?? 0, threshold: expandLine)
            }
            let hideLine = floorTop - configuration.tutorialHideMarginInPoints
            if top < hideLine {
                return decided(.aboveHideLine, detents.index(named: .half) ?? detents.nearest(to: top, includingHidden: false),
                               threshold: hideLine)
            }
            return decided(.belowHideLine, detents.hiddenIndex, threshold: hideLine)
        case .halfDrag:
            if drag.originDetent == detents.hiddenIndex {
                // Opening, the rule turned round: dragged up more than that fraction of the way
                // to the open detent opens, at the open detent nearest to where it was let go.
                let way = configuration.halfDragHideFraction * (drag.startTop - detents[openDetent].topInPoints)
                guard drag.startTop - top > way else { return decided(.shortOfHalfWay, detents.hiddenIndex, threshold: way) }
                return decided(.pastHalfWay, detents.nearest(to: top, includingHidden: false), threshold: way)
            }
            let way = configuration.halfDragHideFraction * (floorTop - drag.startTop)
            if top - drag.startTop > way { return decided(.pastHalfWay, detents.hiddenIndex, threshold: way) }
            return decided(.shortOfHalfWay, drag.originDetent, threshold: way)
        case .projection:
            let fling = configuration.flingPointsPerSecond
            if abs(velocity) >= fling {
                // A fling moves to the next detent in its direction, and no further.
                if velocity > 0 {
                    return decided(.fling, detents.next(below: top, tolerance: tolerance) ?? detents.hiddenIndex, threshold: fling)
                }
                return decided(.fling, detents.next(above: top, tolerance: tolerance) ?? 0, threshold: fling)
            }
            let projected = top + projectedDistance(velocity)
            let nearest = detents.nearest(to: projected)
            // From the floor, the nearest detent opens or not; the dismiss line is for dismissals.
            if drag.originDetent == detents.hiddenIndex { return decided(.nearestToProjection, nearest, projected: projected) }
            let dismissLine = floorTop - configuration.dismissLineMarginInPoints
            if nearest == detents.hiddenIndex && projected < dismissLine {
                return decided(.aboveDismissLine, detents.nearest(to: projected, includingHidden: false),
                               threshold: dismissLine, projected: projected)
            }
            return decided(.nearestToProjection, nearest, projected: projected)
        }
    }

    /// A downward release fast enough to count as the rule set's fling.
    func isFling(_ velocity: Double) -> Bool {
        switch configuration.ruleSet {
        case .tutorial: return velocity > configuration.tutorialDismissPointsPerSecond
        case .halfDrag, .projection: return velocity >= configuration.flingPointsPerSecond
        }
    }

    /// How far momentum carries at `decelerationRate` per ms: v/1000 · r/(1 − r) (0.499 s · v).
    public func projectedDistance(_ pointsPerSecond: Double) -> Double {
        let r = configuration.decelerationRate
        return pointsPerSecond / 1000 * r / (1 - r)
    }

    // MARK: Settling

    mutating func settle(to detent: Int, velocity: Double, at time: Timestamp, cause: SheetCause) -> Effect {
        if kind == .resting, restingDetent == detent { return .none }
        if configuration.reduceMotion { return fade(to: detent, at: time, cause: cause) }
        let from = top
        let target = detents[detent].topInPoints
        let animation: SheetAnimation
        switch configuration.ruleSet {
        case .tutorial:
            animation = .curve(from: from, to: target, seconds: configuration.tutorialAnimationSeconds, .easeIn)
        case .halfDrag:
            animation = .curve(from: from, to: target, seconds: configuration.halfDragAnimationSeconds, .easeInOut)
        case .projection:
            let spring = Spring(from: from, target: target, initialVelocity: velocity,
                                stiffness: configuration.springStiffness,
                                dampingRatio: configuration.springDampingRatio)
            animation = .spring(spring, clampAtTarget: detent == detents.hiddenIndex)
        }
        self.cause = cause
        // At the target and still, or at the floor and moving on down (it would bounce off the
        // screen's bottom edge and back).
        if abs(from - target) <= tolerance && (velocity == 0 || (detent == detents.hiddenIndex && velocity > 0)) {
            rest(at: detent)
            return .changed
        }
        begin(Settle(targetDetent: detent, animation: animation, startedAt: time, top: from,
                     velocity: velocity, nextFrame: time.adding(microseconds: configuration.frameIntervalMicroseconds),
                     cause: cause))
        return .changed
    }

    /// Reduced motion: the card goes to `detent` at once and the dim cross-fades from what it
    /// is now. Dims less than half an 8-bit level apart rest at once.
    mutating func fade(to detent: Int, at time: Timestamp, cause: SheetCause) -> Effect {
        self.cause = cause
        let from = dim, target = detents[detent].topInPoints, to = dim(atTop: target)
        let seconds = to > from ? configuration.reducedMotionFadeInSeconds : configuration.reducedMotionFadeOutSeconds
        guard abs(to - from) >= 0.5 / 255, seconds > 0 else {
            rest(at: detent)
            return .changed
        }
        begin(Settle(targetDetent: detent, animation: .curve(from: from, to: to, seconds: seconds, .linear),
                     startedAt: time, top: target, velocity: 0,
                     nextFrame: time.adding(microseconds: configuration.frameIntervalMicroseconds),
                     cause: cause, dim: from))
        return .changed
    }

    /// A new target while settling: a spring keeps the current velocity, a curve starts afresh.
    mutating func retarget(to detent: Int, at time: Timestamp) -> Effect {
        guard kind == .settling, settling.targetDetent != detent else { return .none }
        return settle(to: detent, velocity: configuration.ruleSet == .projection ? settling.velocity : 0,
                      at: time, cause: .command)
    }

    /// The settle's animation at `time`, with the rest thresholds in points. A spring is read
    /// off its grid, which is the closed form's numbers without its `exp`, `cos` and `sin` on
    /// most frames.
    mutating func sampleSettle(at time: Timestamp) -> (value: Double, velocity: Double, finished: Bool) {
        let restDistance = configuration.springRestDistanceInPixels / screen.scale
        let restSpeed = configuration.springRestPixelsPerSecond / screen.scale
        if case .spring(let spring, let clamp) = settling.animation,
           let state = springGrid?.state(afterMicroseconds: time.microseconds - settling.startedAt.microseconds) {
            return SheetAnimation.ending(spring, clampAtTarget: clamp, state, restDistance: restDistance, restSpeed: restSpeed)
        }
        return settling.animation.sample(after: time.seconds(since: settling.startedAt), restDistance: restDistance,
                                         restSpeed: restSpeed)
    }

    /// Samples the animation at `time`; rests at the target when it is over.
    mutating func advance(to time: Timestamp, scheduling: Bool = true) -> Effect {
        guard kind == .settling else { return .none }
        let result = sampleSettle(at: time)
        if result.finished {
            rest(at: settling.targetDetent)
            return .changed
        }
        if settling.dim != nil {
            settling.dim = result.value
        } else {
            settling.top = result.value
            settling.velocity = result.velocity
        }
        if scheduling {
            // Frames stay on the grid that started with the settle, whatever woke us.
            let interval = configuration.frameIntervalMicroseconds
            let elapsed = time.microseconds - settling.startedAt.microseconds
            settling.nextFrame = settling.startedAt.adding(microseconds: (elapsed / interval + 1) * interval)
        }
        return .changed
    }
}

/// Why a release went where it did: the rule of the rule set that chose the detent, and the
/// numbers it compared. Positions are the card's top in points, velocities in points a second
/// (positive downwards).
public struct ReleaseDecision: Sendable, Equatable, BitwiseCopyable {
    public enum Rule: UInt8, Sendable, BitwiseCopyable, Named {
        /// projection: as fast as `fling-velocity` or faster: the next detent that way.
        case fling
        /// projection: the detent nearest to where momentum would carry the card.
        case nearestToProjection
        /// projection: the nearest was the floor, but the card would stop above the dismiss line.
        case aboveDismissLine
        /// tutorial: down faster than its dismiss velocity.
        case dismissVelocity
        /// tutorial: let go above the expand line (a quarter of the screen).
        case aboveExpandLine
        /// tutorial: let go between the expand line and the hide line.
        case aboveHideLine
        /// tutorial: let go below the hide line.
        case belowHideLine
        /// half-drag: dragged more than the fraction of the way (to close, or to open).
        case pastHalfWay
        /// half-drag: dragged less than that.
        case shortOfHalfWay

        public var name: StaticString {
            switch self {
            case .fling: "fling"
            case .nearestToProjection: "nearest-to-projection"
            case .aboveDismissLine: "above-dismiss-line"
            case .dismissVelocity: "dismiss-velocity"
            case .aboveExpandLine: "above-expand-line"
            case .aboveHideLine: "above-hide-line"
            case .belowHideLine: "below-hide-line"
            case .pastHalfWay: "past-half-way"
            case .shortOfHalfWay: "short-of-half-way"
            }
        }
    }

    public var rule: Rule
    /// The detent chosen (the machine may still spring back: a guarded sheet, `can-close`).
    public var target: Int
    public var targetName: DetentName
    /// Where the card was let go.
    public var topInPoints: Double
    public var pointsPerSecond: Double
    /// Where momentum would carry the card (projection's rules).
    public var projectedTopInPoints: Double?
    /// What the rule compared with: a velocity (fling, dismiss velocity), a line's top, or the
    /// distance of half the way.
    public var threshold: Double?
}
