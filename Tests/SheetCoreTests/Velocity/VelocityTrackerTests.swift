import Foundation
import SheetTestSupport
import Testing
@testable import SheetCore

@Suite struct VelocityTrackerTests {
    func tracker(_ samples: [(ms: Double, y: Double)]) -> VelocityTracker {
        var tracker = VelocityTracker()
        for sample in samples { tracker.add(Point(x: 0, y: sample.y), at: Timestamp(seconds: sample.ms / 1000)) }
        return tracker
    }

    @Test func steadyMotionGivesItsSpeed() {
        let samples = (0...10).map { (ms: Double($0) * 10, y: Double($0) * 10) }
        let estimate = tracker(samples).estimate(at: Timestamp(seconds: 0.105))
        #expect(abs(estimate.pixelsPerSecond.dy - 1000) < 1)
        #expect(estimate.pixelsPerSecond.dx == 0)
        #expect(estimate.confidence > 0.99)
    }

    @Test func onlyTheLastHundredMillisecondsCount() {
        // Slow for 200 ms, then fast for the last 100 ms.
        var samples: [(ms: Double, y: Double)] = (0...20).map { index in (ms: Double(index) * 10, y: Double(index)) }
        for index in 1...10 {
            let step = Double(index)
            samples.append((ms: 200 + step * 10, y: 20 + step * 30))
        }
        let estimate = tracker(samples).estimate(at: Timestamp(seconds: 0.305))
        #expect(abs(estimate.pixelsPerSecond.dy - 3000) < 30)
    }

    @Test func aFingerThatRestedBeforeLiftingHasNoVelocity() {
        let samples = (0...10).map { (ms: Double($0) * 10, y: Double($0) * 30) }
        #expect(tracker(samples).estimate(at: Timestamp(seconds: 0.150)).pixelsPerSecond == .zero)
    }

    @Test func aPauseCutsTheHistory() {
        // Fast, a 60 ms pause, then two slow samples: only those count.
        var samples: [(ms: Double, y: Double)] = (0...5).map { index in (ms: Double(index) * 10, y: Double(index) * 50) }
        samples += [(ms: 110, y: 251), (ms: 120, y: 252), (ms: 130, y: 253)]
        let estimate = tracker(samples).estimate(at: Timestamp(seconds: 0.135))
        #expect(abs(estimate.pixelsPerSecond.dy - 100) < 1)
        #expect(estimate.sampleCount == 3)
    }

    @Test func noReversedDirectionAfterAHold() {
        // Chromium's NoDirectionReversal: +10 px/ms for 50 ms, then still for 10 ms, 1 ms apart.
        var samples: [(ms: Double, y: Double)] = (0...50).map { index in (ms: Double(index), y: Double(index) * 10) }
        for index in 51...60 { samples.append((ms: Double(index), y: 500)) }
        let estimate = tracker(samples).estimate(at: Timestamp(seconds: 0.060))
        #expect(estimate.pixelsPerSecond.dy >= 0)
    }

    @Test func slowMotionReadsZeroAndFastIsClamped() {
        let slow = (0...10).map { (ms: Double($0) * 10, y: Double($0) * 0.3) }
        #expect(tracker(slow).estimate(at: Timestamp(seconds: 0.1)).pixelsPerSecond.dy == 0)
        let fast = (0...10).map { (ms: Double($0) * 10, y: Double($0) * 200) }
        #expect(tracker(fast).estimate(at: Timestamp(seconds: 0.1)).pixelsPerSecond.dy == 8000)
    }

    @Test func limitsScaleWithPixelsPerPoint() {
        var tracker = VelocityTracker(scale: 2)
        for index in 0...10 { tracker.add(Point(x: 0, y: Double(index) * 120), at: Timestamp(seconds: Double(index) / 100)) }
        #expect(abs(tracker.estimate(at: Timestamp(seconds: 0.1)).pixelsPerSecond.dy - 12000) < 1e-6)
    }

    @Test func sameTimestampReplacesTheSample() {
        var tracker = VelocityTracker()
        tracker.add(Point(x: 0, y: 0), at: Timestamp(seconds: 0))
        tracker.add(Point(x: 0, y: 999), at: Timestamp(seconds: 0.01))
        tracker.add(Point(x: 0, y: 10), at: Timestamp(seconds: 0.01))
        #expect(abs(tracker.estimate(at: Timestamp(seconds: 0.01)).pixelsPerSecond.dy - 1000) < 1)
    }

    @Test func oneSampleHasNoVelocity() {
        var tracker = VelocityTracker()
        tracker.add(Point(x: 5, y: 5), at: .zero)
        #expect(tracker.estimate(at: .zero) == .none)
        #expect(VelocityTracker().estimate(at: .zero) == .none)
    }

    /// The stop gap and horizon, compared in whole microseconds, decide every span as the
    /// seconds did: the boundary is the longest span that `seconds(since:)` reads as within.
    @Test func spansInMicrosecondsDecideAsSeconds() {
        for seconds in [0.040, 0.100, 0.0400004, 0.1234567, 1e-7, 0, 2.5, 0.3] {
            let limit = VelocityTracker.Spans.microseconds(within: seconds)
            let base = Timestamp(microseconds: 7_000_000)
            for span in max(0, limit - 3)...(limit + 3) {
                let later = base.adding(microseconds: span)
                #expect((span <= limit) == (later.seconds(since: base) <= seconds), "\(seconds) s, \(span) µs")
            }
        }
        #expect(VelocityTracker.Spans.microseconds(within: -1) == -1)
        #expect(VelocityTracker.Spans.microseconds(within: .nan) == .max)
        #expect(VelocityTracker.Spans.microseconds(within: .infinity) == .max)
    }

    /// The kept sums give what a fit made afresh from the window gives, on every frame of a long
    /// drag far from the origin: sampling at 1 ms (the ring, not the horizon, bounds the window),
    /// at 8 ms, irregular, with pauses longer than the stop gap and repeated timestamps.
    @Test func keptSumsMatchAFreshFitOnEveryFrame() {
        var tracker = VelocityTracker()
        var generator = SplitMix(seed: 7)
        var history: [(t: Int64, y: Double)] = []
        var time: Int64 = 3_600_000_000  // an hour after boot
        var y = 40_000.0
        var checked = 0, moving = 0
        for index in 0..<20_000 {
            let step: Int64 = switch (index / 500) % 4 {
            case 0: 1_000
            case 1: 8_000
            case 2: Int64(generator.next() % 20_000)  // 0 repeats a timestamp
            default: index % 50 == 0 ? 45_000 : 11_000
            }
            time += step
            y += sin(Double(index) / 40) * 6 + Double(generator.next() % 100) / 50
            tracker.add(Point(x: 100, y: y), at: Timestamp(microseconds: time))
            if step == 0, !history.isEmpty { history[history.count - 1].y = y } else { history.append((time, y)) }
            if history.count > VelocityTracker.capacity { history.removeFirst() }
            let expected = freshVerticalVelocity(history)
            let got = tracker.verticalVelocity(at: Timestamp(microseconds: time))
            #expect(abs(got - expected) <= 1e-6 * max(1, abs(expected)), "frame \(index): \(got) against \(expected)")
            if abs(got - expected) > 1e-6 * max(1, abs(expected)) { return }
            checked += 1
            if expected != 0 { moving += 1 }
        }
        #expect(checked == 20_000 && moving > 10_000)
    }

    /// The reference: the window found by walking back from the newest sample, then the
    /// normal equations summed around the newest sample, then the tracker's limits.
    func freshVerticalVelocity(_ history: [(t: Int64, y: Double)]) -> Double {
        guard let newest = history.last else { return 0 }
        var used = 1
        while used < history.count {
            let sample = history[history.count - 1 - used], later = history[history.count - used]
            if newest.t - sample.t > 100_000 || later.t - sample.t > 40_000 { break }
            used += 1
        }
        guard used >= 2 else { return 0 }
        var s = [Double](repeating: 0, count: 5), p = [Double](repeating: 0, count: 3)
        for sample in history.suffix(used) {
            let t = Double(sample.t - newest.t) / 1e6, value = sample.y - newest.y
            for power in 0..<5 { s[power] += pow(t, Double(power)) }
            for power in 0..<3 { p[power] += pow(t, Double(power)) * value }
        }
        let slope: Double
        if used == 2 {
            slope = (s[0] * p[1] - s[1] * p[0]) / (s[0] * s[2] - s[1] * s[1])
        } else {
            let det = s[0] * (s[2] * s[4] - s[3] * s[3]) - s[1] * (s[1] * s[4] - s[3] * s[2]) + s[2] * (s[1] * s[3] - s[2] * s[2])
            slope = (s[0] * (p[1] * s[4] - p[2] * s[3]) - p[0] * (s[1] * s[4] - s[3] * s[2]) + s[2] * (s[1] * p[2] - p[1] * s[2])) / det
        }
        let displacement = newest.y - history[history.count - used].y
        guard slope * displacement > 0, abs(slope) >= 50 else { return 0 }
        return min(abs(slope), 8000) * (slope < 0 ? -1 : 1)
    }
}
