import SheetCore
import SheetInput
import Testing

/// `WakeLead` settles at the 97.5th percentile of the lateness it is shown, within its range.
struct WakeLeadTests {
    /// Shows `WakeLead` lateness spread evenly over `range` µs (a fixed sequence: the same every
    /// run); the lead after the last wake, and its mean over the last half (it saws up by 39 µs
    /// and down by 1 around the percentile).
    private func settle(_ range: ClosedRange<Int64>, wakes: Int = 20_000) -> (last: Int64, mean: Double) {
        var lead = WakeLead()
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let span = UInt64(range.upperBound - range.lowerBound + 1)
        var sum = 0.0
        for index in 0..<wakes {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let late = range.lowerBound + Int64((state >> 33) % span)
            let armed = Timestamp(microseconds: Int64(index) * 10_000)
            lead.record(armed: armed, woke: armed.adding(microseconds: late))
            if index >= wakes / 2 { sum += Double(lead.microseconds) }
        }
        return (lead.microseconds, sum / Double(wakes - wakes / 2))
    }

    @Test func settlesNearTheLatenessThatOneWakeInFortyPasses() {
        // Uniform over 100…200 µs: the 97.5th percentile is 197.5.
        let narrow = settle(100...200)
        #expect((187.5...207.5).contains(narrow.mean), "\(narrow)")
        // Over 0…1,000 µs: 975.
        let wide = settle(0...1_000)
        #expect((955.0...995.0).contains(wide.mean), "\(wide)")
    }

    @Test func staysWithinItsRange() {
        #expect(settle(0...0).last == WakeLead.range.lowerBound)
        #expect(settle(50_000...50_000).last == WakeLead.range.upperBound)
    }

    @Test func startsAtThreeHundredMicroseconds() {
        #expect(WakeLead().microseconds == 300)
    }
}
