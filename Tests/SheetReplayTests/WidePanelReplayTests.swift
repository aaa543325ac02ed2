import Testing
import SheetCore
import SheetRecordings
import Foundation
@testable import SheetReplay

/// A 1920x720 landscape car panel at scale 1: the card is 640 pt wide and centred (640..<1280);
/// at half its top is 360, the list starts 56 pt lower at 416 and each row is 56 pt. Beside the
/// card is the dim: a tap there dismisses as a tap above the card does, and no item is hit.
@Suite struct WidePanelReplayTests {
    func panel() -> SyntheticRecording {
        var r = SyntheticRecording()
        r.widthInUnits = 1920
        r.heightInUnits = 720
        return r
    }

    func run(_ recording: SyntheticRecording, policy: ReleaseRuleSet = .projection, title: String = "Settings",
             align: CardAlignment = .center) throws -> ReplayRun {
        var replayOptions = options(policy: policy, touches: false)
        replayOptions.engine.screen = ScreenSize(widthInPixels: 1920, heightInPixels: 720)
        replayOptions.engine.layout.alignment = align
        replayOptions.content = SheetContent(title: title, items: (0..<4).map { SheetItem(id: "item-\($0)", label: "Item \($0)") })
        return try replay(recording, replayOptions)
    }

    func tapped(_ run: ReplayRun) -> [String] {
        run.kind("event").filter { $0["event"] as? String == "item-tapped" }.compactMap { $0["item"] as? String }
    }

    @Test(arguments: ReleaseRuleSet.allCases)
    func aTapBesideTheCardDismissesLikeADimTap(policy: ReleaseRuleSet) throws {
        for x: Int32 in [300, 1600] {
            var r = panel()
            r.tap(x: x, y: 444)  // the height of the first row, beside the card
            let run = try run(r, policy: policy)
            #expect(run.lastSheet?["detent"] as? String == "hidden", "a tap at x \(x) beside the card")
            #expect(tapped(run).isEmpty)
        }
        var onCard = panel()
        onCard.tap(x: 700, y: 444)
        let run = try run(onCard, policy: policy)
        #expect(run.lastSheet?["detent"] as? String == "half")
        #expect(tapped(run) == ["item-0"])
    }

    @Test func aSwipeDownBesideTheCardDismissesLikeOneOnTheDim() throws {
        var r = panel()
        r.stroke(from: (200, 400), to: (200, 700), seconds: 0.1)
        #expect(try run(r).lastSheet?["detent"] as? String == "hidden")
    }

    @Test func aDragBesideTheCardDoesNotMoveIt() throws {
        var r = panel()
        r.stroke(from: (1700, 380), to: (1700, 420), seconds: 1, holdSeconds: 0.1)
        let run = try run(r)
        #expect(run.kind("sheet").allSatisfy { $0["state"] as? String != "dragging" })
    }

    @Test func theCloseButtonIsAtTheCardsCornerOnTheTitlesSide() throws {
        var r = panel()
        r.tap(x: 1280 - 31, y: 360 + 31)
        #expect(try run(r).lastSheet?["detent"] as? String == "hidden", "the close button of a left-to-right title")
        var left = panel()
        left.tap(x: 640 + 31, y: 360 + 31)
        #expect(try run(left).lastSheet?["detent"] as? String == "half", "the title bar of a left-to-right title")
        #expect(try run(left, title: "الإعدادات").lastSheet?["detent"] as? String == "hidden",
                "a right-to-left title has its close button on the left")
    }

    @Test func anEndAlignedCardTakesTapsOnTheRight() throws {
        var r = panel()
        r.tap(x: 1700, y: 444)
        let run = try run(r, align: .end)
        #expect(run.lastSheet?["detent"] as? String == "half")
        #expect(tapped(run) == ["item-0"])
    }
}
