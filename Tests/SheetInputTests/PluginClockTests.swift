import Testing
import SheetCore
@testable import SheetInput

/// A plugin device's own clock mapped onto the daemon's monotonic one (docs/protocol.md): its
/// spacing kept from the first frame, through stalls that hold frames back, within 1 s of now.
@Suite struct PluginClockTests {
    /// The device's times (µs) arriving at the monotonic times `arrivals` (ms), mapped (ms).
    func mapped(_ frames: [(device: Int64, arrival: Int64)]) -> [Int64] {
        var anchor: (device: Int64, monotonic: Int64)?
        return frames.map { frame in
            PluginInput.monotonic(frame.device * 1000, clock: .own, anchor: &anchor,
                                  now: Timestamp(microseconds: frame.arrival * 1000)) / 1000
        }
    }

    @Test func theFirstFrameIsNowAndTheRestKeepTheirSpacing() {
        #expect(mapped([(5, 1000), (15, 1012), (25, 1090), (35, 1035)]) == [1000, 1010, 1020, 1030])
    }

    /// A stall: four frames made 10 ms apart arrive together, 400 ms late. Taken at their
    /// arrival they would be one instant, and the slow drag they make a fling.
    @Test func framesAStallHeldBackArriveAsFarApartAsTheyWereMade() {
        #expect(mapped([(0, 1000), (10, 1410), (20, 1410), (30, 1410), (40, 1410)]) == [1000, 1010, 1020, 1030, 1040])
    }

    @Test func aFrameSoonerThanAnyBeforeLowersTheDelay() {
        #expect(mapped([(0, 1000), (100, 1050), (110, 1060)]) == [1000, 1050, 1060])
    }

    /// Held back more than a second: taken a second behind now, the spacing kept from there.
    @Test func aFrameHeldBackMoreThanASecondIsTakenASecondBehindNow() {
        #expect(mapped([(0, 1000), (100, 3000), (200, 3000), (300, 3005)]) == [1000, 2000, 2100, 2200])
    }

    /// A device clock that runs at half speed: followed, never more than a second behind.
    @Test func aClockThatRunsSlowIsFollowed() {
        let frames = (0..<40).map { (device: Int64($0) * 50, arrival: 1000 + Int64($0) * 100) }
        let times = mapped(frames)
        #expect(zip(frames, times).allSatisfy { frame, time in time <= frame.arrival && time >= frame.arrival - 1000 })
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
    }
}
