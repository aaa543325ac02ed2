import RealModule

/// Every number of the list in the card, with its unit and source.
public struct ListConfiguration: Sendable, Hashable {
    /// The title bar at the card's top (grabber, title, close button). 56 pt: Material's top
    /// app bar and list row height.
    public var titleBarHeightInPoints: Double = 56
    /// One row of the list (`item-height`). 56 pt: Material's one-line list item with an icon.
    public var itemHeightInPoints: Double = 56
    /// A row with a second line. 72 pt: Material's two-line list item.
    public var twoLineItemHeightInPoints: Double = 72
    /// A section's header above its first row. 48 pt: Material's list subheader.
    public var sectionHeaderHeightInPoints: Double = 48
    // How long a still finger on an item waits before picking it up is a gesture threshold:
    // `GestureConfiguration.itemLongPressSeconds`.

    // The reorder tutorial's look, exactly.
    /// The picked-up item grows to this scale, goes this opaque and moves this far down.
    public var liftedScale: Double = 1.2
    public var liftedOpacity: Double = 0.85
    public var liftedShiftInPoints: Double = 4
    /// The other items shrink to this scale while one is picked up.
    public var othersScale: Double = 0.9
    /// Picking up, and dropping the picked-up item: a 0.4 s spring with damping ratio 0.8.
    public var liftSeconds: Double = 0.4
    public var liftDampingRatio: Double = 0.8
    /// A neighbour that swapped slides to its new slot in 0.2 s (ease-in-out).
    public var swapSeconds: Double = 0.2
    /// At the drop the others return to scale 1 in 0.3 s (ease-in-out).
    public var dropOthersSeconds: Double = 0.3

    /// While an item is held within this distance of the visible list's top or bottom edge,
    /// the list scrolls by itself, faster the deeper the finger is: up to
    /// `autoScrollMaximumPointsPerSecond` at the edge. 48 pt band, 1,000 pt/s.
    public var autoScrollBandInPoints: Double = 48
    public var autoScrollMaximumPointsPerSecond: Double = 1000

    public init() {}

    /// A spring that settles in about `seconds`, as SwiftUI's `Spring(duration:bounce:)`
    /// defines it: mass 1, stiffness (2π / duration)², and the damping ratio given.
    static func spring(from: Double, to: Double, velocity: Double = 0, seconds: Double, dampingRatio: Double) -> SheetAnimation {
        let omega = 2 * Double.pi / max(seconds, 0.001)
        return .spring(Spring(from: from, target: to, initialVelocity: velocity, stiffness: omega * omega,
                              dampingRatio: dampingRatio), clampAtTarget: false)
    }
}

/// A value moving on its own: an animation and when it started, or a value at rest.
public struct Tween: Sendable, Equatable {
    public var animation: SheetAnimation?
    public var startedAt: Timestamp
    /// The value at rest (the animation's target once it is over).
    public var restValue: Double
    /// How close to its target, and how slow, a spring must be to be over.
    public var restDistance: Double

    public init(value: Double, restDistance: Double) {
        self.animation = nil
        self.startedAt = .zero
        self.restValue = value
        self.restDistance = restDistance
    }

    public var isMoving: Bool { animation != nil }

    public func value(at time: Timestamp) -> Double {
        sample(at: time)?.value ?? restValue
    }

    /// Rest speed: the rest distance per 60 Hz frame.
    private func sample(at time: Timestamp) -> (value: Double, velocity: Double, finished: Bool)? {
        animation?.sample(after: time.seconds(since: startedAt), restDistance: restDistance, restSpeed: restDistance * 60)
    }

    /// Starts `animation` at `time` (it should begin where the value is now); `atOnce`
    /// (reduced motion) puts the value at the animation's target with no motion.
    public mutating func start(_ animation: SheetAnimation, at time: Timestamp, atOnce: Bool = false) {
        self.animation = atOnce ? nil : animation
        self.startedAt = time
        self.restValue = animation.target
    }

    /// Ends the animation when it is over; returns whether it still moves.
    @discardableResult
    public mutating func settle(at time: Timestamp) -> Bool {
        guard let sample = sample(at: time) else { return false }
        if sample.finished { animation = nil }
        return !sample.finished
    }
}
