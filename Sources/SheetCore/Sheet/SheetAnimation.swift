import RealModule  // exp, cos, sin in pure Swift: the core imports no Glibc or Foundation

/// A CSS/Core Animation cubic Bézier timing curve from (0,0) to (1,1).
public struct TimingCurve: Hashable, Sendable {
    public var x1: Double, y1: Double, x2: Double, y2: Double

    /// `kCAMediaTimingFunctionEaseIn`, UIView `.curveEaseIn`: (0.42, 0, 1, 1).
    public static let easeIn = TimingCurve(x1: 0.42, y1: 0, x2: 1, y2: 1)
    /// `kCAMediaTimingFunctionEaseInEaseOut`, UIView `.curveEaseInOut`: (0.42, 0, 0.58, 1).
    public static let easeInOut = TimingCurve(x1: 0.42, y1: 0, x2: 0.58, y2: 1)
    /// Constant speed: (0, 0, 1, 1), where x and y are the same polynomial.
    public static let linear = TimingCurve(x1: 0, y1: 0, x2: 1, y2: 1)

    private func bezier(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
        let u = 1 - s
        return 3 * u * u * s * p1 + 3 * u * s * s * p2 + s * s * s
    }

    private func bezierSlope(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
        let u = 1 - s
        return 3 * u * u * p1 + 6 * u * s * (p2 - p1) + 3 * s * s * (1 - p2)
    }

    /// The curve parameter whose x is `x`: Newton's method from s = x, which on these smooth,
    /// monotonic curves reaches double precision in a few steps (the approach of WebKit's
    /// UnitBezier), with bisection (40 halvings) where a slope near zero would send it astray.
    private func parameter(forX x: Double) -> Double {
        var s = x
        for _ in 0..<8 {
            let error = bezier(s, x1, x2) - x
            if abs(error) < 1e-12 { return s }
            let slope = bezierSlope(s, x1, x2)
            guard abs(slope) > 1e-6 else { break }
            s -= error / slope
            guard s >= 0, s <= 1 else { break }
        }
        var low = 0.0, high = 1.0
        for _ in 0..<40 {
            let mid = (low + high) / 2
            if bezier(mid, x1, x2) < x { low = mid } else { high = mid }
        }
        return (low + high) / 2
    }

    /// Progress (0…1) at time fraction `x` (0…1).
    public func value(at x: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        return bezier(parameter(forX: x), y1, y2)
    }

    /// d(progress)/d(time fraction) at `x`.
    public func slope(at x: Double) -> Double {
        let s = parameter(forX: min(max(x, 0), 1))
        let dx = bezierSlope(s, x1, x2)
        return dx > 1e-9 ? bezierSlope(s, y1, y2) / dx : 0
    }
}

/// A damped spring pulling a value to `target`, in closed form so that the frame rate does not
/// change the path and it can be sampled (and caught) at any instant.
/// `m·x'' + c·x' + k·(x − target) = 0` with m = 1, ω0 = √k, ζ = c / (2√k).
public struct Spring: Hashable, Sendable {
    public var from: Double
    public var target: Double
    /// Initial velocity, value units per second.
    public var initialVelocity: Double
    public var stiffness: Double
    public var dampingRatio: Double

    public init(from: Double, target: Double, initialVelocity: Double, stiffness: Double, dampingRatio: Double) {
        self.from = from
        self.target = target
        self.initialVelocity = initialVelocity
        self.stiffness = stiffness
        self.dampingRatio = dampingRatio
    }

    /// Position and velocity `t` seconds after the start.
    public func state(after t: Double) -> (value: Double, velocity: Double) {
        let motion = Motion(self)
        return motion.state(motion.terms(after: t), after: t)
    }

    /// The spring's solution with its constants worked out once: a sum of terms in time (an
    /// exponential decay times a cosine and a sine, one decay, or two decays) weighted by
    /// constants. `state(after:)` and `Grid` share it, so that both give the same numbers.
    struct Motion: Sendable {
        enum Damping: Sendable { case under, critical, over }
        let damping: Damping
        let target: Double
        /// Under: the decay rate β and the damped frequency ω1. Critical: β (and 0). Over: the
        /// two roots r1 and r2 of the characteristic equation.
        let rate: Double, frequency: Double
        /// Weights of the position's and of the velocity's terms.
        let a: Double, b: Double, velocityA: Double, velocityB: Double

        init(_ spring: Spring) {
            target = spring.target
            let omega0 = spring.stiffness.squareRoot()
            let beta = spring.dampingRatio * omega0
            let x0 = spring.from - spring.target
            let v0 = spring.initialVelocity
            if spring.dampingRatio < 1 {
                damping = .under
                let omega1 = omega0 * (1 - spring.dampingRatio * spring.dampingRatio).squareRoot()
                rate = beta
                frequency = omega1
                a = x0
                b = (beta * x0 + v0) / omega1
                velocityA = b * omega1 - beta * a
                velocityB = -a * omega1 - beta * b
            } else if spring.dampingRatio == 1 {
                damping = .critical
                rate = beta
                frequency = 0
                a = x0
                b = beta * x0 + v0  // the slope
                velocityA = v0
                velocityB = 0
            } else {
                damping = .over
                let root = (beta * beta - omega0 * omega0).squareRoot()
                rate = -beta + root
                frequency = -beta - root
                b = (v0 - rate * x0) / (frequency - rate)
                a = x0 - b
                velocityA = 0
                velocityB = 0
            }
        }

        /// The terms at `t`: (decay, cos, sin) under, (decay, 0, 0) critical, (e^r1·t, e^r2·t, 0) over.
        func terms(after t: Double) -> SIMD3<Double> {
            switch damping {
            case .under:
                return SIMD3(Double.exp(-rate * t), Double.cos(frequency * t), Double.sin(frequency * t))
            case .critical:
                return SIMD3(Double.exp(-rate * t), 0, 0)
            case .over:
                return SIMD3(Double.exp(rate * t), Double.exp(frequency * t), 0)
            }
        }

        /// The terms `step` later than `terms`, given the terms of `step` itself: decays
        /// multiply, the cosine and sine turn by the step's angle.
        func advance(_ terms: SIMD3<Double>, by step: SIMD3<Double>) -> SIMD3<Double> {
            switch damping {
            case .under:
                return SIMD3(terms.x * step.x, terms.y * step.y - terms.z * step.z, terms.z * step.y + terms.y * step.z)
            case .critical, .over:
                return SIMD3(terms.x * step.x, terms.y * step.y, 0)
            }
        }

        func state(_ terms: SIMD3<Double>, after t: Double) -> (value: Double, velocity: Double) {
            switch damping {
            case .under:
                let (decay, c, s) = (terms.x, terms.y, terms.z)
                return (target + decay * (a * c + b * s), decay * (velocityA * c + velocityB * s))
            case .critical:
                let decay = terms.x
                return (target + decay * (a + b * t), decay * (velocityA - rate * b * t))
            case .over:
                let (e1, e2) = (terms.x, terms.y)
                return (target + a * e1 + b * e2, a * rate * e1 + b * frequency * e2)
            }
        }
    }

    /// A spring sampled on a grid of equal steps from its start, as a settle's animation frames
    /// are. From one grid point to the next each exponential is multiplied by the same factor
    /// and the cosine and sine turn by the same angle, so a step costs a few multiplications
    /// where `state(after:)` takes an `exp`, a `cos` and a `sin` (most of a settle frame). Each
    /// `exactEvery`-th point, and any instant off the grid, is evaluated in closed form, so the
    /// steps' rounding (a few units in the last place each) cannot pile up.
    public struct Grid: Sendable {
        public static let exactEvery: Int64 = 16
        let motion: Motion
        public let stepMicroseconds: Int64
        private let step: SIMD3<Double>
        /// The grid point whose terms are kept, -1 for none yet.
        private var index: Int64 = -1
        private var terms = SIMD3<Double>()

        public init(_ spring: Spring, stepMicroseconds: Int64) {
            motion = Motion(spring)
            self.stepMicroseconds = Swift.max(1, stepMicroseconds)
            step = motion.terms(after: Double(self.stepMicroseconds) / 1_000_000)
        }

        /// `Spring.state(after:)` at `elapsed` microseconds from the start.
        public mutating func state(afterMicroseconds elapsed: Int64) -> (value: Double, velocity: Double) {
            let t = Double(elapsed) / 1_000_000
            guard elapsed >= 0, elapsed % stepMicroseconds == 0 else { return motion.state(motion.terms(after: t), after: t) }
            let point = elapsed / stepMicroseconds
            if point == index + 1, point % Self.exactEvery != 0 {
                terms = motion.advance(terms, by: step)
            } else if point != index {
                terms = motion.terms(after: t)
            }
            index = point
            return motion.state(terms, after: t)
        }
    }
}

/// UIScrollView's rubber band past an edge: `(1 − 1/(x·c/d + 1))·d` for an overshoot x over a
/// dimension d, slope c at the edge and never reaching d (c = 0.55, as quoted by FloatingPanel).
/// The sheet bands over the screen's height, the list over the height it shows.
public struct RubberBand: Sendable, Hashable {
    public var coefficient: Double
    public var dimension: Double

    public init(coefficient: Double, dimension: Double) {
        self.coefficient = coefficient
        self.dimension = dimension
    }

    /// How far the banded value moves for `overshoot` of raw travel.
    public func offset(_ overshoot: Double) -> Double {
        (1 - 1 / (overshoot * coefficient / dimension + 1)) * dimension
    }

    /// The derivative: `c/(x·c/d + 1)²`.
    public func slope(_ overshoot: Double) -> Double {
        let k = overshoot * coefficient / dimension + 1
        return coefficient / (k * k)
    }
}

/// How the card moves on its own toward a detent.
public enum SheetAnimation: Hashable, Sendable {
    /// A fixed-duration curve from `from` to `to` (the tutorials' UIView animations).
    case curve(from: Double, to: Double, seconds: Double, TimingCurve)
    /// A spring that carries the release velocity (rule set `projection`). `clampAtTarget`
    /// stops it at its first crossing of the target (no bounce past hidden).
    case spring(Spring, clampAtTarget: Bool)

    public var target: Double {
        switch self {
        case .curve(_, let to, _, _): return to
        case .spring(let spring, _): return spring.target
        }
    }

    /// Where the card is `t` seconds in, how fast it moves (value units per second), and
    /// whether the animation is over (then the value is exactly the target).
    public func sample(after t: Double, restDistance: Double, restSpeed: Double)
        -> (value: Double, velocity: Double, finished: Bool)
    {
        switch self {
        case .curve(let from, let to, let seconds, let curve):
            if t >= seconds || seconds <= 0 { return (to, 0, true) }
            let x = t / seconds
            return (from + (to - from) * curve.value(at: x), (to - from) * curve.slope(at: x) / seconds, false)
        case .spring(let spring, let clamp):
            return Self.ending(spring, clampAtTarget: clamp, spring.state(after: t), restDistance: restDistance,
                               restSpeed: restSpeed)
        }
    }

    /// A spring's sample as `sample(after:restDistance:restSpeed:)` gives it, from its state
    /// (`Spring.state(after:)`, or a `Spring.Grid`'s): at the target, finished, once clamped or
    /// at rest.
    public static func ending(_ spring: Spring, clampAtTarget clamp: Bool, _ state: (value: Double, velocity: Double),
                              restDistance: Double, restSpeed: Double) -> (value: Double, velocity: Double, finished: Bool) {
        let (value, velocity) = state
        let startSide = spring.from - spring.target
        if clamp, startSide != 0, (value - spring.target) * startSide <= 0 {
            return (spring.target, 0, true)
        }
        if abs(value - spring.target) < restDistance, abs(velocity) < restSpeed {
            return (spring.target, 0, true)
        }
        return (value, velocity, false)
    }
}
