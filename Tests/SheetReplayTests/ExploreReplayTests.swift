import Testing
import SheetCore
import SheetRecordings
import SheetTestSupport
@testable import SheetReplay

/// Explore by touch (`touch-exploration`), replayed: recordings of a touchscreen generated here,
/// with the settings sheet of the key tests resting at half on a 1080x1920 screen.
@Suite struct ExploreReplayTests {
    func run(_ recording: SyntheticRecording, policy: ReleaseRuleSet = .projection) throws -> ReplayRun {
        var replayOptions = options(policy: policy, touches: false)
        replayOptions.content = KeyReplayTests.settings
        replayOptions.engine.sheet.presentation.touchExploration = true
        return try replay(recording, replayOptions)
    }

    func focusSteps(_ run: ReplayRun) -> [String] { KeyReplayTests().focusSteps(run) }
    func events(_ run: ReplayRun) -> [String] { KeyReplayTests().events(run) }

    /// Where the sheet rested, from the sheet lines: every one the same while nothing moves it.
    func places(_ run: ReplayRun) -> Set<String> {
        Set(run.kind("sheet").map { "\($0["state"] ?? "-") \($0["detent"] ?? "-") \($0["top"] ?? "-")" })
    }

    @Test(arguments: ReleaseRuleSet.allCases)
    func aSlowSlideDownTheCardFocusesTheRowsInOrderAndMovesNothing(policy: ReleaseRuleSet) throws {
        var touches = SyntheticRecording()
        touches.wait(0.2)
        touches.stroke(from: (540, 1080), to: (540, 1900), seconds: 4, hertz: 60)
        let run = try run(touches, policy: policy)
        #expect(focusSteps(run) == ["-", "wifi", "vpn", "sound", "display"])
        #expect(events(run).isEmpty, "exploring taps nothing")
        #expect(places(run).count == 1, "the sheet never moved: \(places(run))")
        #expect(run.lastSheet?["focusVisible"] as? Bool == true)
    }

    /// A single tap explores where it was (once no second tap came) and taps nothing; a
    /// double tap anywhere else (here on the title) activates what has the focus: the toggle
    /// flips, once.
    @Test(arguments: ReleaseRuleSet.allCases)
    func aDoubleTapAnywhereActivatesTheFocusedItem(policy: ReleaseRuleSet) throws {
        var touches = SyntheticRecording()
        touches.wait(0.2)
        touches.tap(x: 540, y: 1100)
        touches.wait(0.6)
        touches.tap(x: 300, y: 1000)
        touches.wait(0.1)
        touches.tap(x: 300, y: 1000)
        touches.wait(0.6)
        let run = try run(touches, policy: policy)
        #expect(focusSteps(run) == ["-", "wifi"])
        #expect(events(run) == ["item-toggled wifi"])
        #expect(places(run).count == 1)
    }

    /// Flicks right and left step through the reading order as Tab and Shift+Tab do; a slow
    /// slide the same way explores instead.
    @Test(arguments: ReleaseRuleSet.allCases)
    func flicksMoveTheFocus(policy: ReleaseRuleSet) throws {
        var touches = SyntheticRecording()
        for (from, to) in [(300, 700), (300, 700), (300, 700), (700, 300)] {
            touches.wait(0.5)
            touches.stroke(from: (Int32(from), 1500), to: (Int32(to), 1510), seconds: 0.1)
        }
        touches.wait(0.5)
        let run = try run(touches, policy: policy)
        #expect(focusSteps(run) == ["-", "close", "wifi", "vpn", "wifi"])
        #expect(events(run).isEmpty)
        #expect(places(run).count == 1)
    }

    /// Two fingers act as one without exploration: a fast swipe down with two fingers on the
    /// card ends where one finger's swipe along their midpoint ends without exploration
    /// (dismissed, under the rules that dismiss on a fast swipe).
    @Test(arguments: ReleaseRuleSet.allCases)
    func aTwoFingerSwipeDownActsAsOneFingersWithoutExploration(policy: ReleaseRuleSet) throws {
        func swipe(fingers: [Int32]) -> SyntheticRecording {
            var touches = SyntheticRecording()
            touches.wait(0.2)
            for (slot, x) in fingers.enumerated() { touches.down(slot: slot, x: x, y: 1200) }
            touches.report()
            for step in 1...8 {
                touches.wait(0.01)
                for (slot, x) in fingers.enumerated() { touches.move(slot: slot, x: x, y: 1200 + Int32(step) * 60) }
                touches.report()
            }
            touches.wait(0.01)
            for slot in fingers.indices { touches.up(slot: slot) }
            touches.report()
            touches.wait(1)
            return touches
        }
        let two = try run(swipe(fingers: [440, 640]), policy: policy)
        var plain = options(policy: policy, touches: false)
        plain.content = KeyReplayTests.settings
        let one = try replay(swipe(fingers: [540]), plain)
        #expect(two.lastSheet?["detent"] as? String == one.lastSheet?["detent"] as? String)
        #expect(two.kind("sheet").count > 2, "the card moved with the fingers")
        if policy == .projection { #expect(two.lastSheet?["detent"] as? String == "hidden") }
        #expect(focusSteps(two) == ["-"])
    }

    /// With exploration off the same single tap taps the row.
    @Test func withoutExplorationATapTaps() throws {
        var touches = SyntheticRecording()
        touches.wait(0.2)
        touches.tap(x: 540, y: 1100)
        touches.wait(0.6)
        var replayOptions = options(touches: false)
        replayOptions.content = KeyReplayTests.settings
        let run = try replay(touches, replayOptions)
        #expect(events(run) == ["item-toggled wifi"])
        #expect(focusSteps(run) == ["-"])
    }
}
