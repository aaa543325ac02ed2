import Testing
import SheetCore
import SheetRecordings
import Foundation
@testable import SheetReplay

/// Opening the sheet by touch, sharing the screen with it and locking it, on a 1080x1920
/// screen at scale 1: half at 960, expanded at 30, hidden at 1920; the edge band is the bottom
/// 24 px (1896…1920), the bar 64 px tall (collapsed at 1856). The card is 640 px wide, centred
/// (220…860); its close button's centre is 31 px in from its top right corner.
@Suite struct PresentGestureReplayTests {
    func run(_ recording: SyntheticRecording, policy: ReleaseRuleSet = .projection, initial: DetentName = "half",
             _ change: (inout SheetPresentation) -> Void = { _ in }) throws -> ReplayRun {
        var replayOptions = options(policy: policy, initial: initial)
        change(&replayOptions.engine.sheet.presentation)
        return try replay(recording, replayOptions)
    }

    func presented(_ run: ReplayRun) -> [String] {
        run.kind("event").filter { $0["event"] as? String == "presented" }.compactMap { $0["cause"] as? String }
    }

    func detentsRestedAt(_ run: ReplayRun) -> [String] {
        run.kind("sheet").filter { $0["state"] as? String == "resting" }.compactMap { $0["detent"] as? String }
    }

    // MARK: Edge swipe

    @Test(arguments: ReleaseRuleSet.allCases)
    func aSlowEdgeSwipeFollowsTheFingerAndRestsAtTheNearestDetent(policy: ReleaseRuleSet) throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1910), to: (540, 900), seconds: 1.5, holdSeconds: 0.3)
        let run = try run(r, policy: policy, initial: "hidden")
        let dragging = run.kind("sheet").filter { $0["state"] as? String == "dragging" }
        #expect(!dragging.isEmpty, "the card follows the finger")
        // The card's top is where it began (the screen's bottom) plus the finger's travel.
        let fingerYs = run.kind("touch").compactMap { $0["y"] as? Double }
        #expect(dragging.last.flatMap { $0["top"] as? Double }.map { abs($0 - 910) < 2 } == true,
                "the top follows the finger 10 px below it; fingers \(fingerYs.suffix(2))")
        #expect(run.lastSheet?["detent"] as? String == "half")
        #expect(presented(run) == ["edge-swipe"])
    }

    @Test(arguments: ReleaseRuleSet.allCases)
    func aFastEdgeFlickOpensTheSheetToTheTop(policy: ReleaseRuleSet) throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1910), to: (540, 400), seconds: 0.15)
        let run = try run(r, policy: policy, initial: "hidden")
        #expect(run.lastSheet?["detent"] as? String == "expanded")
        #expect(presented(run) == ["edge-swipe"])
    }

    @Test(arguments: ReleaseRuleSet.allCases)
    func aSwipeUpOutsideTheBandDoesNothingWhileHidden(policy: ReleaseRuleSet) throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1700), to: (540, 600), seconds: 0.15)
        let run = try run(r, policy: policy, initial: "hidden")
        #expect(run.kind("sheet").count == 1, "only the initial state")
        #expect(run.lastSheet?["detent"] as? String == "hidden")
        #expect(presented(run).isEmpty)
    }

    @Test(arguments: ReleaseRuleSet.allCases)
    func aTapInTheBandDoesNothing(policy: ReleaseRuleSet) throws {
        var r = SyntheticRecording()
        r.tap(x: 540, y: 1910)
        let run = try run(r, policy: policy, initial: "hidden")
        #expect(run.gestures("tap", "recognized").count == 1)
        #expect(run.kind("sheet").count == 1)
        #expect(run.lastSheet?["detent"] as? String == "hidden")
    }

    @Test func noEdgeSwipeWhenItIsOffOrTheSheetCannotOpen() throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1910), to: (540, 900), seconds: 0.3)
        #expect(try run(r, initial: "hidden") { $0.gestures = .none }.lastSheet?["detent"] as? String == "hidden")
        #expect(try run(r, initial: "hidden") { $0.canOpen = false }.lastSheet?["detent"] as? String == "hidden")
    }

    @Test func aShortEdgeSwipeFallsBackHidden() throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1910), to: (540, 1800), seconds: 0.8, holdSeconds: 0.3)
        let run = try run(r, initial: "hidden")
        #expect(run.kind("sheet").contains { $0["state"] as? String == "dragging" })
        #expect(run.lastSheet?["detent"] as? String == "hidden")
        #expect(presented(run).isEmpty)
    }

    // MARK: Bottom bar

    @Test(arguments: ReleaseRuleSet.allCases)
    func aTapOnTheBarOpensAndADismissReturnsToIt(policy: ReleaseRuleSet) throws {
        var r = SyntheticRecording()
        r.tap(x: 540, y: 1890)
        r.wait(1)
        r.tap(x: 540, y: 200)  // the dim
        let run = try run(r, policy: policy, initial: "hidden") { $0.gestures = .bottomBar }
        let first = try #require(run.kind("sheet").first)
        #expect(first["detent"] as? String == "collapsed")
        #expect(first["top"] as? Double == 1856)
        #expect(first["dim"] as? Double == 0)
        #expect(detentsRestedAt(run) == ["collapsed", "half", "collapsed"])
        #expect(presented(run) == ["bar-tap"])
    }

    @Test(arguments: ReleaseRuleSet.allCases)
    func aSwipeUpFromTheBarOpens(policy: ReleaseRuleSet) throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1880), to: (540, 900), seconds: 1, holdSeconds: 0.3)
        r.wait(1)
        r.stroke(from: (540, 1000), to: (540, 1900), seconds: 0.1)  // flicked back down
        let run = try run(r, policy: policy, initial: "hidden") { $0.gestures = .bottomBar }
        #expect(detentsRestedAt(run) == ["collapsed", "half", "collapsed"])
        #expect(presented(run) == ["bar-swipe"])
        // Never below the bar.
        #expect(run.kind("sheet").allSatisfy { ($0["top"] as? Double ?? 0) <= 1856 + 0.5 }, "\(run.text)")
    }

    @Test func aProgramsPresentIsAPresentedEventToo() throws {
        var engine = Engine(configuration: {
            var configuration = EngineConfiguration()
            configuration.initialDetent = .hidden
            return configuration
        }())
        var out: [EngineOutput] = []
        engine.start(at: Timestamp(microseconds: 0), into: &out)
        engine.perform(SheetCommand.present(nil), at: Timestamp(microseconds: 1000), into: &out)
        #expect(out.contains { if case .content(let report) = $0 { report.event == .presented(.control) } else { false } })
    }

    // MARK: can-close

    @Test(arguments: ReleaseRuleSet.allCases)
    func aSheetThatCannotCloseStaysUpAgainstEveryDismissRoute(policy: ReleaseRuleSet) throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1000), to: (540, 1900), seconds: 0.1)  // a fast swipe down on the card
        r.wait(1)
        r.stroke(from: (540, 1000), to: (540, 1850), seconds: 1.5, holdSeconds: 0.3)  // a drag past the line
        r.wait(1)
        r.tap(x: 540, y: 200)  // the dim
        r.wait(1)
        r.tap(x: 860 - 31, y: 960 + 31)  // the close button
        r.wait(1)
        r.stroke(from: (540, 200), to: (540, 800), seconds: 0.1)  // a swipe down on the dim
        let run = try run(r, policy: policy) { $0.canClose = false }
        #expect(run.kind("sheet").allSatisfy { $0["target"] as? String != "hidden" && $0["detent"] as? String != "hidden" })
        #expect(run.lastSheet?["detent"] as? String == "half")
        #expect(run.kind("event").isEmpty, "no dismissal was attempted on a guard")
        // The same recording dismisses a sheet that can close.
        #expect(try self.run(r, policy: policy).kind("sheet").contains { $0["target"] as? String == "hidden" })
    }

    // MARK: Non-modal

    @Test(arguments: ReleaseRuleSet.allCases)
    func aTapOutsideANonModalCardIsNotTheSheets(policy: ReleaseRuleSet) throws {
        var r = SyntheticRecording()
        r.tap(x: 540, y: 200)
        r.wait(0.5)
        r.stroke(from: (540, 300), to: (540, 900), seconds: 0.1)  // a swipe down above the card
        let run = try run(r, policy: policy) { $0.modal = false }
        #expect(run.kind("sheet").count == 1, "nothing changed")
        #expect(run.lastSheet?["dim"] as? Double == 0, "no dim")
        #expect(run.kind("gesture").isEmpty, "no gesture was the sheet's")
        let touches = run.kind("touch")
        #expect(!touches.isEmpty && touches.allSatisfy { $0["passThrough"] as? Bool == true })
    }

    @Test func aNonModalCardStillDragsAndItsCloseButtonCloses() throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1100), to: (540, 400), seconds: 0.5, holdSeconds: 0.3)
        r.wait(1)
        r.tap(x: 860 - 31, y: 30 + 31)
        let run = try run(r) { $0.modal = false }
        #expect(detentsRestedAt(run) == ["half", "expanded", "hidden"])
        #expect(run.kind("touch").allSatisfy { $0["passThrough"] == nil })
    }
}
