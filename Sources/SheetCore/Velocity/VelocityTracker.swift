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
/// The fit's sums are kept as samples enter and leave the window, so a drag's velocity on every
/// frame costs the same whatever the window holds. They are taken relative to an anchor sample
/// inside the window and summed afresh whenever the anchor leaves it (about once per window's
/// length), so a long drag neither loses precision to large times nor piles up rounding from
/// its subtractions.
///
/// Example: samples every 10 ms moving +10 px each give 1000 px/s.
public struct VelocityTracker: Sendable {
    public static let capacity = 20

    struct Sample: Sendable {
        var time: Timestamp
        var x: Double
        var y: Double
    }

    /// The least-squares sums over the window: powers of time up to 4, and each axis against
    /// powers of time up to 2; times in seconds and positions in pixels from the anchor.
    struct Sums: Sendable {
        var t0 = 0.0, t1 = 0.0, t2 = 0.0, t3 = 0.0, t4 = 0.0
        var x = 0.0, tx = 0.0, t2x = 0.0
        var y = 0.0, ty = 0.0, t2y = 0.0

        /// Adds a sample (`weight` 1) or takes it out (`weight` −1).
        @inline(__always)
        mutating func add(t: Double, x px: Double, y py: Double, weight: Double) {
            let tt = t * t
            t0 += weight; t1 += weight * t; t2 += weight * tt; t3 += weight * tt * t; t4 += weight * tt * tt
            x += weight * px; tx += weight * t * px; t2x += weight * tt * px
            y += weight * py; ty += weight * t * py; t2y += weight * tt * py
        }
    }

    struct Fit {
        var a: Double, b: Double, c: Double
        var slope: Double
    }

    private var samples: InlineArray<20, Sample>
    /// The newest sample and the oldest one in the window, kept beside the ring by `add`: the
    /// readers (`verticalVelocity` on every frame of a drag) take them from here, because
    /// reading the ring outside a mutating method copies all of it (480 bytes) first.
    private var newestSample = Sample(time: .zero, x: 0, y: 0)
    private var oldestSample = Sample(time: .zero, x: 0, y: 0)
    /// Index of the newest sample in the ring.
    private var newest: Int = -1
    private var count: Int = 0
    /// How many samples, back from the newest, the fit uses: those inside the horizon up to a
    /// long gap.
    private var windowCount: Int = 0
    private var sums = Sums()
    /// The sample the sums are taken from; always inside the window.
    private var anchorTime: Timestamp = .zero
    private var anchorX = 0.0
    private var anchorY = 0.0
    public var configuration: VelocityConfiguration {
        didSet { spans = Spans(configuration) }
    }
    /// Pixels per point, to apply the limits (given in points) to pixel velocities.
    public var scale: Double
    private var spans: Spans

    /// The configuration's stop gap and horizon in whole microseconds, so that each frame
    /// compares integers instead of dividing: the longest span that `seconds(since:)` reads as
    /// at most the configured seconds, so that every comparison decides as it did in seconds.
    struct Spans: Sendable {
        var stopGap: Int64
        var horizon: Int64

        init(_ configuration: VelocityConfiguration) {
            stopGap = Self.microseconds(within: configuration.stopGapSeconds)
            horizon = Self.microseconds(within: configuration.horizonSeconds)
        }

        static func microseconds(within seconds: Double) -> Int64 {
            guard !seconds.isNaN else { return .max }  // no span is more than NaN
            guard seconds >= 0 else { return -1 }
            guard seconds < 1e12 else { return .max }
            var whole = Int64((seconds * 1_000_000).rounded(.down))
            while Double(whole + 1) / 1_000_000 <= seconds { whole += 1 }
            while whole >= 0, Double(whole) / 1_000_000 > seconds { whole -= 1 }
            return whole
        }
    }

    public init(configuration: VelocityConfiguration = VelocityConfiguration(), scale: Double = 1) {
        self.samples = InlineArray(repeating: Sample(time: .zero, x: 0, y: 0))
        self.configuration = configuration
        self.scale = scale
        self.spans = Spans(configuration)
    }

    public var isEmpty: Bool { count == 0 }

    public var lastSampleTime: Timestamp? { count == 0 ? nil : newestSample.time }

    public mutating func reset() {
        count = 0
        newest = -1
        windowCount = 0
    }

    /// Adds a position (pixels) seen at `time`. Samples must come in time order; one older than
    /// the newest is ignored.
    public mutating func add(_ positionInPixels: Point, at time: Timestamp) {
        let sample = Sample(time: time, x: positionInPixels.x, y: positionInPixels.y)
        guard count > 0 else {
            newest = 0
            count = 1
            samples[0] = sample
            windowCount = 1
            resum()
            keepEnds()
            return
        }
        let last = samples[newest]
        if time < last.time { return }
        if time == last.time {
            // Same instant: the newest sample is replaced, the window keeps its members.
            take(last, weight: -1)
            samples[newest] = sample
            take(sample, weight: 1)
            keepEnds()
            return
        }
        if time.microseconds - last.time.microseconds > spans.stopGap {
            windowCount = 0  // the finger stopped: the history before the gap is dropped
        } else if windowCount == Self.capacity {
            take(samples[slot(back: windowCount - 1)], weight: -1)  // the ring overwrites it
            windowCount -= 1
        }
        newest = (newest + 1) % Self.capacity
        samples[newest] = sample
        count = Swift.min(count + 1, Self.capacity)
        windowCount += 1
        take(sample, weight: 1)
        while windowCount > 1 {
            let oldest = samples[slot(back: windowCount - 1)]
            guard time.microseconds - oldest.time.microseconds > spans.horizon else { break }
            take(oldest, weight: -1)
            windowCount -= 1
        }
        if windowCount == 1 || samples[slot(back: windowCount - 1)].time > anchorTime { resum() }
        keepEnds()
    }

    @inline(__always)
    private mutating func keepEnds() {
        newestSample = samples[newest]
        oldestSample = samples[slot(back: windowCount - 1)]
    }

    /// The velocity at a lift (or any instant) at `time`.
    public func estimate(at time: Timestamp) -> VelocityEstimate {
        guard let used = window(at: time) else { return .none }
        let now = newestSample.time.seconds(since: anchorTime)
        let xFit = fit(sums.x, sums.tx, sums.t2x, at: now)
        let yFit = fit(sums.y, sums.ty, sums.t2y, at: now)
        let vx = limited(xFit?.slope ?? 0, displacement: newestSample.x - oldestSample.x)
        let vy = limited(yFit?.slope ?? 0, displacement: newestSample.y - oldestSample.y)
        return VelocityEstimate(
            pixelsPerSecond: Vector(dx: vx, dy: vy),
            confidence: rSquared(of: xFit, xAxis: true) * rSquared(of: yFit, xAxis: false),
            sampleCount: used)
    }

    /// The vertical component of `estimate(at:)` alone (px/s), without the fit's quality: what
    /// a drag publishes on every frame, from the kept sums and ends in constant time, without
    /// reading the ring. Inlined, so that the caller reads the tracker where it lies instead of
    /// copying it first.
    @inline(__always)
    public func verticalVelocity(at time: Timestamp) -> Double {
        guard window(at: time) != nil else { return 0 }
        let slope = slope(sums.y, sums.ty, sums.t2y, at: newestSample.time.seconds(since: anchorTime)) ?? 0
        return limited(slope, displacement: newestSample.y - oldestSample.y)
    }

    /// The ring index `back` samples before the newest (a branch, not a division).
    @inline(__always)
    private func slot(back: Int) -> Int {
        let index = newest - back
        return index < 0 ? index + Self.capacity : index
    }

    /// How many samples the estimate at `time` uses; nil when the finger had stopped or there
    /// is only one.
    private func window(at time: Timestamp) -> Int? {
        guard windowCount >= 2, time.microseconds - newestSample.time.microseconds <= spans.stopGap else { return nil }
        return windowCount
    }

    @inline(__always)
    private mutating func take(_ sample: Sample, weight: Double) {
        sums.add(t: sample.time.seconds(since: anchorTime), x: sample.x - anchorX, y: sample.y - anchorY, weight: weight)
    }

    /// Sums the window afresh from the newest sample as the anchor.
    private mutating func resum() {
        let anchor = samples[newest]
        anchorTime = anchor.time
        anchorX = anchor.x
        anchorY = anchor.y
        sums = Sums()
        for back in 0..<windowCount { take(samples[slot(back: back)], weight: 1) }
    }

    private func limited(_ pixelsPerSecond: Double, displacement: Double) -> Double {
        // No reversal: the fit must agree in sign with where the finger actually went.
        if pixelsPerSecond * displacement <= 0 { return 0 }
        let magnitude = abs(pixelsPerSecond)
        if magnitude < configuration.minimumPointsPerSecond * scale { return 0 }
        let clamped = Swift.min(magnitude, configuration.maximumPointsPerSecond * scale)
        return pixelsPerSecond < 0 ? -clamped : clamped
    }

    /// One axis's least-squares polynomial p(t) = a + b·t + c·t² (c = 0 with two samples) in
    /// the anchor's time, from the sums `s` = Σp, `st` = Σt·p, `st2` = Σt²·p; `slope` is p′ at
    /// `now`, the newest sample; nil for a degenerate window.
    @inline(__always)
    private func fit(_ s: Double, _ st: Double, _ st2: Double, at now: Double) -> Fit? {
        if windowCount == 2 {
            guard let b = secantSlope(s, st) else { return nil }
            return Fit(a: (s - b * sums.t1) / sums.t0, b: b, c: 0, slope: b)
        }
        guard let (det, bNumerator, cNumerator) = quadratic(s, st, st2) else { return nil }
        let s1 = sums.t1, s2 = sums.t2, s3 = sums.t3, s4 = sums.t4
        let a = (s * (s2 * s4 - s3 * s3) - s1 * (st * s4 - s3 * st2) + s2 * (st * s3 - s2 * st2)) / det
        let b = bNumerator / det
        let c = cNumerator / det
        return Fit(a: a, b: b, c: c, slope: b + 2 * c * now)
    }

    /// `fit`'s slope alone, as a drag reads it on every frame: b + 2c·now over Cramer's
    /// common determinant, with one division where the whole fit takes three.
    @inline(__always)
    private func slope(_ s: Double, _ st: Double, _ st2: Double, at now: Double) -> Double? {
        if windowCount == 2 { return secantSlope(s, st) }
        guard let (det, b, c) = quadratic(s, st, st2) else { return nil }
        return (b + 2 * c * now) / det
    }

    /// The line through a window of two samples: its slope; nil when their times coincide.
    @inline(__always)
    private func secantSlope(_ s: Double, _ st: Double) -> Double? {
        let denominator = sums.t0 * sums.t2 - sums.t1 * sums.t1
        guard denominator != 0 else { return nil }
        return (sums.t0 * st - sums.t1 * s) / denominator
    }

    /// Solves [s0 s1 s2; s1 s2 s3; s2 s3 s4] · [a b c] = [s st st2] by Cramer's rule as far as
    /// b and c: the determinant and their numerators, not yet divided; nil for a degenerate
    /// window.
    @inline(__always)
    private func quadratic(_ s: Double, _ st: Double, _ st2: Double) -> (det: Double, b: Double, c: Double)? {
        let s0 = sums.t0, s1 = sums.t1, s2 = sums.t2, s3 = sums.t3, s4 = sums.t4
        let det = s0 * (s2 * s4 - s3 * s3) - s1 * (s1 * s4 - s3 * s2) + s2 * (s1 * s3 - s2 * s2)
        guard abs(det) > 1e-18 else { return nil }
        return (det, s0 * (st * s4 - st2 * s3) - s * (s1 * s4 - s3 * s2) + s2 * (s1 * st2 - st * s2),
                s0 * (s2 * st2 - s3 * st) - s1 * (s1 * st2 - st * s2) + s * (s1 * s3 - s2 * s2))
    }

    /// R² of a fit over the window (a pass over its samples; a lift needs it, a drag does not).
    /// A constant axis, or a window of two, fits perfectly; no fit has no confidence.
    private func rSquared(of fit: Fit?, xAxis: Bool) -> Double {
        guard let fit else { return 0 }
        guard windowCount > 2 else { return 1 }
        let count = Double(windowCount)
        let mean = (xAxis ? sums.x : sums.y) / count
        var residual = 0.0, variance = 0.0
        for back in 0..<windowCount {
            let sample = samples.span[slot(back: back)]
            let t = sample.time.seconds(since: anchorTime)
            let p = xAxis ? sample.x - anchorX : sample.y - anchorY
            let e = p - (fit.a + fit.b * t + fit.c * t * t)
            residual += e * e
            variance += (p - mean) * (p - mean)
        }
        return variance > 1e-12 ? Swift.max(0, 1 - residual / variance) : 1
    }
}
