/// The tuning of the release-velocity estimate. Every number has its unit and its source.
public struct VelocityConfiguration: Sendable, Hashable {
    /// Only samples this recent (before the newest) take part in the fit.
    /// 100 ms: Android `VelocityTracker` HORIZON, Flutter `_horizonMilliseconds`, Chromium.
    public var horizonSeconds: Double = 0.100
    /// A gap this long between two samples means the finger stopped: older samples are dropped.
    /// A lift this long after the last sample means the finger rested: no velocity.
    /// 40 ms: Android `ASSUME_POINTER_STOPPED_TIME`, Flutter `_assumePointerMoveStoppedMilliseconds`.
    public var stopGapSeconds: Double = 0.040
    /// Speeds below this are no fling and read as 0 (per axis).
    /// 50 pt/s: Android `MINIMUM_FLING_VELOCITY`, Flutter `kMinFlingVelocity` (dp or logical px).
    public var minimumPointsPerSecond: Double = 50
    /// Speeds are clamped to this, per axis. 8000 pt/s: Android `MAXIMUM_FLING_VELOCITY`,
    /// Flutter `kMaxFlingVelocity`.
    public var maximumPointsPerSecond: Double = 8000

    public init() {}
}

/// A velocity with how much to trust it.
public struct VelocityEstimate: Hashable, Sendable {
    /// Velocity in pixels per second (positive y is downwards).
    public var pixelsPerSecond: Vector
    /// Goodness of the fit, R²x · R²y in 0…1 (Flutter's confidence); 0 when there was no fit.
    public var confidence: Double
    /// How many samples the fit used.
    public var sampleCount: Int

    public static let none = VelocityEstimate(pixelsPerSecond: .zero, confidence: 0, sampleCount: 0)
}

/// Estimates a finger's velocity from its timestamped positions.
///
/// The method, chosen against the anchors in the velocity research:
/// - a ring of the last 20 samples (Android, Flutter); a sample with the same timestamp as the
///   newest replaces it (Android);
/// - the fit uses the samples of the last 100 ms, back to the first gap longer than 40 ms;
/// - an unweighted least-squares quadratic in time, per axis (Android's default LSQ2); the
///   velocity is its slope at the newest sample. Two samples give the secant; one gives nothing;
/// - **rest rule**: at a lift more than 40 ms after the newest sample the finger had stopped, so
///   the estimate is zero (MT protocol B sends no frames for a still finger, so this gap is the
///   only sign of rest);
/// - **no reversal**: an axis whose fitted velocity points against the net displacement over
///   the fit window reads 0 (Chromium's LSQ2_RESTRICTED), so a flick that ends in a short hold
///   never flings the other way;
/// - per axis, |v| below 50 pt/s reads 0 and |v| is clamped to 8000 pt/s.
///
/// Example: samples every 10 ms moving +10 px each give 1000 px/s.
public struct VelocityTracker: Sendable {
    public static let capacity = 20

    struct Sample: Sendable {
        var time: Timestamp
        var x: Double
        var y: Double
    }

    private var samples: InlineArray<20, Sample>
    /// Index of the newest sample in the ring.
    private var newest: Int = -1
    private var count: Int = 0
    public var configuration: VelocityConfiguration
    /// Pixels per point, to apply the limits (given in points) to pixel velocities.
    public var scale: Double

    public init(configuration: VelocityConfiguration = VelocityConfiguration(), scale: Double = 1) {
        self.samples = InlineArray(repeating: Sample(time: .zero, x: 0, y: 0))
        self.configuration = configuration
        self.scale = scale
    }

    public var isEmpty: Bool { count == 0 }

    public var lastSampleTime: Timestamp? { count == 0 ? nil : samples[newest].time }

    public mutating func reset() {
        count = 0
        newest = -1
    }

    /// Adds a position (pixels) seen at `time`. Samples must come in time order; one older than
    /// the newest is ignored.
    public mutating func add(_ positionInPixels: Point, at time: Timestamp) {
        if count > 0 {
            let last = samples[newest].time
            if time < last { return }
            if time == last {
                samples[newest] = Sample(time: time, x: positionInPixels.x, y: positionInPixels.y)
                return
            }
        }
        newest = (newest + 1) % Self.capacity
        samples[newest] = Sample(time: time, x: positionInPixels.x, y: positionInPixels.y)
        count = Swift.min(count + 1, Self.capacity)
    }

    /// The velocity at a lift (or any instant) at `time`.
    public func estimate(at time: Timestamp) -> VelocityEstimate {
        guard let used = window(at: time) else { return .none }
        let newestSample = samples[newest]
        let xFit = fit(xAxis: true, samples: used, rSquared: true)
        let yFit = fit(xAxis: false, samples: used, rSquared: true)
        let oldest = samples[slot(back: used - 1)]
        let vx = limited(xFit.slope, displacement: newestSample.x - oldest.x)
        let vy = limited(yFit.slope, displacement: newestSample.y - oldest.y)
        return VelocityEstimate(
            pixelsPerSecond: Vector(dx: vx, dy: vy),
            confidence: xFit.rSquared * yFit.rSquared,
            sampleCount: used)
    }

    /// The vertical component of `estimate(at:)` alone (px/s), without the fit's quality: what
    /// a drag publishes on every frame, for a third of the work.
    public func verticalVelocity(at time: Timestamp) -> Double {
        guard let used = window(at: time) else { return 0 }
        let oldest = samples[slot(back: used - 1)]
        return limited(fit(xAxis: false, samples: used, rSquared: false).slope, displacement: samples[newest].y - oldest.y)
    }

    /// The ring index `back` samples before the newest (a branch, not a division: this runs
    /// for every sample of every fit).
    @inline(__always)
    private func slot(back: Int) -> Int {
        let index = newest - back
        return index < 0 ? index + Self.capacity : index
    }

    /// How many samples, back from the newest, the estimate at `time` uses: those inside the
    /// horizon up to a long gap; nil when the finger had stopped or there is only one.
    private func window(at time: Timestamp) -> Int? {
        guard count > 0 else { return nil }
        let newestSample = samples[newest]
        if time.seconds(since: newestSample.time) > configuration.stopGapSeconds { return nil }
        var used = 1
        var previousTime = newestSample.time
        while used < count {
            let sample = samples[slot(back: used)]
            if newestSample.time.seconds(since: sample.time) > configuration.horizonSeconds { break }
            if previousTime.seconds(since: sample.time) > configuration.stopGapSeconds { break }
            previousTime = sample.time
            used += 1
        }
        return used >= 2 ? used : nil
    }

    private func limited(_ pixelsPerSecond: Double, displacement: Double) -> Double {
        // No reversal: the fit must agree in sign with where the finger actually went.
        if pixelsPerSecond * displacement <= 0 { return 0 }
        let magnitude = abs(pixelsPerSecond)
        if magnitude < configuration.minimumPointsPerSecond * scale { return 0 }
        let clamped = Swift.min(magnitude, configuration.maximumPointsPerSecond * scale)
        return pixelsPerSecond < 0 ? -clamped : clamped
    }

    /// Least-squares polynomial (degree 2, or 1 with two samples) of one axis against time in
    /// seconds relative to the newest sample; returns the slope at the newest sample and, when
    /// asked (a second pass over the samples), R².
    private func fit(xAxis: Bool, samples used: Int, rSquared wanted: Bool) -> (slope: Double, rSquared: Double) {
        let origin = samples[newest]
        // Sums for the normal equations, with positions relative to the newest sample so that
        // large screen coordinates do not cost precision.
        var s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0
        var sy = 0.0, sty = 0.0, st2y = 0.0, syy = 0.0
        for back in 0..<used {
            let sample = samples[slot(back: back)]
            let t = sample.time.seconds(since: origin.time)
            let y = xAxis ? sample.x - origin.x : sample.y - origin.y
            let t2 = t * t
            s0 += 1; s1 += t; s2 += t2; s3 += t2 * t; s4 += t2 * t2
            sy += y; sty += t * y; st2y += t2 * y; syy += y * y
        }
        let meanY = sy / s0
        let totalVariance = syy - s0 * meanY * meanY
        if used == 2 {
            let denominator = s0 * s2 - s1 * s1
            guard denominator != 0 else { return (0, 0) }
            let slope = (s0 * sty - s1 * sy) / denominator
            return (slope, 1)
        }
        // Solve [s0 s1 s2; s1 s2 s3; s2 s3 s4] · [a b c] = [sy sty st2y] by Cramer's rule.
        let det = s0 * (s2 * s4 - s3 * s3) - s1 * (s1 * s4 - s3 * s2) + s2 * (s1 * s3 - s2 * s2)
        guard abs(det) > 1e-18 else { return (0, 0) }
        let b = (s0 * (sty * s4 - st2y * s3) - sy * (s1 * s4 - s3 * s2) + s2 * (s1 * st2y - sty * s2)) / det
        guard wanted else { return (b, 1) }
        let a = (sy * (s2 * s4 - s3 * s3) - s1 * (sty * s4 - s3 * st2y) + s2 * (sty * s3 - s2 * st2y)) / det
        let c = (s0 * (s2 * st2y - s3 * sty) - s1 * (s1 * st2y - sty * s2) + sy * (s1 * s3 - s2 * s2)) / det
        // R² from the residuals; a constant axis fits perfectly.
        var residual = 0.0
        for back in 0..<used {
            let sample = samples[slot(back: back)]
            let t = sample.time.seconds(since: origin.time)
            let y = xAxis ? sample.x - origin.x : sample.y - origin.y
            let e = y - (a + b * t + c * t * t)
            residual += e * e
        }
        let rSquared = totalVariance > 1e-12 ? Swift.max(0, 1 - residual / totalVariance) : 1
        return (b, rSquared)
    }
}
