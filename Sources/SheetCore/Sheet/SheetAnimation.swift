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
        let omega0 = stiffness.squareRoot()
        let beta = dampingRatio * omega0
        let x0 = from - target
        let v0 = initialVelocity
        if dampingRatio < 1 {
            let omega1 = omega0 * (1 - dampingRatio * dampingRatio).squareRoot()
            let a = x0, b = (beta * x0 + v0) / omega1
            let decay = Double.exp(-beta * t), c = Double.cos(omega1 * t), s = Double.sin(omega1 * t)
            let x = decay * (a * c + b * s)
            let v = decay * ((b * omega1 - beta * a) * c + (-a * omega1 - beta * b) * s)
            return (target + x, v)
        } else if dampingRatio == 1 {
            let decay = Double.exp(-beta * t)
            let slope = beta * x0 + v0
            return (target + decay * (x0 + slope * t), decay * (v0 - beta * slope * t))
        } else {
            let root = (beta * beta - omega0 * omega0).squareRoot()
            let r1 = -beta + root, r2 = -beta - root
            let c2 = (v0 - r1 * x0) / (r2 - r1), c1 = x0 - c2
            let e1 = Double.exp(r1 * t), e2 = Double.exp(r2 * t)
            return (target + c1 * e1 + c2 * e2, c1 * r1 * e1 + c2 * r2 * e2)
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
            let (value, velocity) = spring.state(after: t)
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
}
