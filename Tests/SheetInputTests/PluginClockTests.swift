import Testing
import SheetCore
@testable import SheetInput

/// A plugin device's own clock mapped onto the daemon's monotonic one (docs/protocol.md): its
/// spacing kept from the first frame, through stalls that hold frames back, a clock that runs
/// slow followed, never more than 300 ms behind now. (Times that go back never reach it: the
/// frame is refused.)
@Suite struct PluginClockTests {
    /// The device's times arriving at monotonic times, both in ms; the mapped times, in ms.
    func mapped(_ frames: [(device: Int64, arrival: Int64)]) -> [Int64] {
        var own = OwnClockMapping()
        return frames.map { frame in
            PluginInput.monotonic(frame.device * 1000, clock: .own, own: &own,
                                  now: Timestamp(microseconds: frame.arrival * 1000)) / 1000
        }
    }

    @Test func theFirstFrameIsNowAndTheRestKeepTheirSpacing() {
        #expect(mapped([(5, 1000), (15, 1012), (25, 1090), (35, 1091)]) == [1000, 1010, 1020, 1030])
    }

    /// A stall: four frames made 10 ms apart arrive together, 200 ms late. Taken at their
    /// arrival they would be one instant, and the slow drag they make a fling.
    @Test func framesAStallHeldBackArriveAsFarApartAsTheyWereMade() {
        #expect(mapped([(0, 1000), (10, 1210), (20, 1210), (30, 1210), (40, 1210)]) == [1000, 1010, 1020, 1030, 1040])
    }

    @Test func aFrameSoonerThanAnyBeforeLowersTheDelay() {
        #expect(mapped([(0, 1000), (100, 1050), (110, 1060)]) == [1000, 1050, 1060])
    }

    /// Held back more than 300 ms: taken 300 ms behind now, the spacing kept from there, never
    /// past now.
    @Test func aFrameHeldBackLongerIsTakenAtMost300msBehindNow() {
        #expect(mapped([(0, 1000), (100, 3000), (200, 3000), (300, 3005), (400, 3005)]) == [1000, 2700, 2800, 2900, 3000])
    }

    /// A device clock 10 % slow (a feeder that adds its period and sleeps): its frames stay
    /// within 50 ms of their arrival, so a touch-down's long press is not hastened by a delay
    /// that grows for as long as the device is open.
    @Test func aClockThatRunsSlowIsFollowed() {
        let frames = (0..<1000).map { (device: Int64($0) * 9, arrival: 1000 + Int64($0) * 10) }
        let times = mapped(frames)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
        let behind = zip(frames, times).map { $0.arrival - $1 }
        #expect(behind.allSatisfy { (0...50).contains($0) }, "\(behind.max() ?? 0) ms behind at most")
    }

    /// A stall of two seconds after steady frames, then the frames it held back all at once:
    /// taken 300 ms behind now and as far apart as they were made.
    @Test func aLongStallsFramesKeepTheirSpacingFromTheFloor() {
        let steady = (0..<50).map { (device: Int64($0) * 10, arrival: 1000 + Int64($0) * 10) }
        let burst = (0..<20).map { (device: 500 + Int64($0) * 10, arrival: Int64(3500)) }
        #expect(Array(mapped(steady + burst).suffix(3)) == [3370, 3380, 3390])
    }
}
