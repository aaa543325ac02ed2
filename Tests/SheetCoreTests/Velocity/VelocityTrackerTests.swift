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
}
