import Testing
import SheetCore
import SheetRecordings
import SheetConfig
import Foundation
import SheetTestSupport
@testable import SheetReplay

/// Content in the sheet, replayed: a 1080x1920 screen at scale 1 where one device unit is one
/// pixel. At half the card's top is 960, the list starts 56 pt lower at 1016 and each row is
/// 56 pt: row k spans 1016 + 56k ..< 1072 + 56k. At expanded (top 30) the list starts at 86
/// and shows 1834 pt, so 60 rows (3360 pt) scroll by at most 1526 pt.
@Suite struct ContentReplayTests {
    static let listTopAtHalf: Int32 = 1016
    static let row: Int32 = 56

    static func content(_ count: Int, guarded: Bool = false) -> SheetContent {
        SheetContent(title: "Settings", items: (0..<count).map { SheetItem(id: "item-\($0)", label: "Item \($0)") },
                     guarded: guarded)
    }

    func run(_ recording: SyntheticRecording, items: Int = 8, guarded: Bool = false, policy: ReleaseRuleSet = .projection,
             initial: DetentName = "half", reduceMotion: Bool = false) throws -> ReplayRun {
        var replayOptions = options(policy: policy, initial: initial, touches: false)
        replayOptions.engine.sheet.reduceMotion = reduceMotion
        replayOptions.content = Self.content(items, guarded: guarded)
        return try replay(recording, replayOptions)
    }

    /// The centre of row `k` with the card at half.
    func rowCentre(_ k: Int32) -> Int32 { Self.listTopAtHalf + Self.row * k + Self.row / 2 }

    /// A finger held still `hold` seconds at (x, y), then moved by `dy` in `steps` frames over
    /// `seconds`, held `after` seconds, then lifted (or not).
    func pressAndDrag(_ r: inout SyntheticRecording, x: Int32 = 300, y: Int32, hold: Double = 0.3, dy: Int32,
                      seconds: Double = 0.5, after: Double = 0.05, lift: Bool = true, slot: Int = 0) {
        r.down(slot: slot, x: x, y: y)
        r.report()
        r.wait(hold)
        let steps = max(1, Int(seconds * 100))
        for index in 1...steps {
            r.wait(seconds / Double(steps))
            r.move(slot: slot, x: x, y: y + Int32((Double(dy) * Double(index) / Double(steps)).rounded()))
            r.report()
        }
        r.wait(after)
        if lift {
            r.up(slot: slot)
            r.report()
        }
    }

    func events(_ run: ReplayRun, _ name: String? = nil) -> [Line] {
        run.kind("event").filter { name == nil || $0["event"] as? String == name }
    }

    // MARK: Taps

    @Test(arguments: ReleaseRuleSet.allCases)
    func aTapOnEachRowTapsItsItem(policy: ReleaseRuleSet) throws {
        var r = SyntheticRecording()
        for k: Int32 in [0, 2, 5] {
            r.tap(x: 300, y: rowCentre(k))
            r.wait(0.5)
        }
        let run = try run(r, policy: policy)
        #expect(events(run, "item-tapped").map { $0["item"] as? String } == ["item-0", "item-2", "item-5"])
        #expect(run.lastSheet?["detent"] as? String == "half")
    }

    @Test func aTapOnTheTitleBarOrBelowTheListTapsNoItem() throws {
        var r = SyntheticRecording()
        r.tap(x: 300, y: 990)  // the title bar
        r.wait(0.5)
        r.tap(x: 300, y: rowCentre(12))  // below the 8th row: the card, no item
        let run = try run(r)
        #expect(events(run).isEmpty)
        #expect(run.lastSheet?["detent"] as? String == "half")
    }

    // MARK: Reorder

    @Test(arguments: ReleaseRuleSet.allCases)
    func aHeldItemDraggedDownTwoRowsMovesTwice(policy: ReleaseRuleSet) throws {
        var r = SyntheticRecording()
        pressAndDrag(&r, y: rowCentre(1), dy: 2 * Self.row + 10)
        let run = try run(r, policy: policy)
        let began = try #require(events(run, "reorder-began").first)
        #expect(began["item"] as? String == "item-1" && began["index"] as? Int == 1)
        #expect(events(run, "reorder-moved").map { [$0["from"] as? Int, $0["to"] as? Int] } == [[1, 2], [2, 3]])
        let ended = try #require(events(run, "reorder-ended").first)
        #expect(ended["order"] as? [String] == ["item-0", "item-2", "item-3", "item-1", "item-4", "item-5", "item-6", "item-7"])
        #expect(run.gestures("pan").isEmpty, "a held item never pans")
        #expect(run.lastSheet?["detent"] as? String == "half", "the sheet stays where it was")
        let lifted = run.kind("sheet").compactMap { $0["lifted"] as? Line }
        #expect(lifted.contains { ($0["scale"] as? Double ?? 0) > 1.15 }, "the held item grows to 1.2")
        #expect(run.lastSheet?["lifted"] == nil && run.lastSheet?["othersScale"] == nil, "everything back at rest")
    }

    /// Reduced motion: the same swaps, but the held item is lifted at once (scale 1.2 from its
    /// first state), neighbours jump to their slots (nothing `moving`), and the drop lands at once.
    @Test func aReorderWithReducedMotionLandsEveryStepAtOnce() throws {
        var r = SyntheticRecording()
        pressAndDrag(&r, y: rowCentre(1), dy: 2 * Self.row + 10)
        let run = try run(r, reduceMotion: true)
        #expect(events(run, "reorder-moved").map { [$0["from"] as? Int, $0["to"] as? Int] } == [[1, 2], [2, 3]])
        let lifted = run.kind("sheet").compactMap { $0["lifted"] as? Line }
        #expect(!lifted.isEmpty && lifted.allSatisfy { $0["scale"] as? Double == 1.2 }, "\(lifted)")
        #expect(run.kind("sheet").allSatisfy { $0["moving"] == nil }, "no neighbour slides")
        let ended = try #require(events(run, "reorder-ended").first)
        let after = run.kind("sheet").filter { ($0["t"] as? Double ?? 0) >= (ended["t"] as? Double ?? 0) }
        #expect(after.allSatisfy { $0["lifted"] == nil }, "the drop lands at once")
        #expect(run.lastSheet?["othersScale"] == nil)
    }

    @Test func theSwapHappensExactlyWhenTheCentresCross() throws {
        // Dragged down by exactly one row the centres meet but do not cross; one pixel more crosses.
        for (dy, moves) in [(Self.row, 0), (Self.row + 1, 1)] {
            var r = SyntheticRecording()
            pressAndDrag(&r, y: rowCentre(1), dy: dy)
            #expect(events(try run(r), "reorder-moved").count == moves, "dy \(dy)")
        }
    }

    @Test(arguments: ReleaseRuleSet.allCases)
    func aHeldItemDraggedUpTwoRowsMovesTwice(policy: ReleaseRuleSet) throws {
        var r = SyntheticRecording()
        pressAndDrag(&r, y: rowCentre(3), dy: -(2 * Self.row + 10))
        let run = try run(r, policy: policy)
        #expect(events(run, "reorder-moved").map { [$0["from"] as? Int, $0["to"] as? Int] } == [[3, 2], [2, 1]])
        #expect(events(run, "reorder-ended").first?["order"] as? [String]
            == ["item-0", "item-3", "item-1", "item-2", "item-4", "item-5", "item-6", "item-7"])
    }

    @Test func aPressThatMovesBeforeTheHoldTimeIsAPan() throws {
        var r = SyntheticRecording()
        pressAndDrag(&r, y: rowCentre(1), hold: 0.1, dy: 200, seconds: 0.5)
        let run = try run(r)
        #expect(events(run).isEmpty)
        #expect(run.gestures("pan", "began").count == 1)
        #expect(run.kind("sheet").contains { $0["state"] as? String == "dragging" }, "the pan drags the sheet")
    }

    @Test func aSecondFingerDoesNothingToAReorder() throws {
        var alone = SyntheticRecording()
        pressAndDrag(&alone, y: rowCentre(1), dy: 2 * Self.row + 10)
        var joined = SyntheticRecording()
        joined.down(slot: 0, x: 300, y: rowCentre(1))
        joined.report()
        joined.wait(0.3)
        joined.down(slot: 1, x: 800, y: 500)  // a second finger on the dim
        joined.report()
        for index in 1...50 {
            joined.wait(0.01)
            joined.move(slot: 0, x: 300, y: rowCentre(1) + Int32((Double(2 * Self.row + 10) * Double(index) / 50).rounded()))
            joined.move(slot: 1, x: 800, y: 500 + Int32(index * 4))
            joined.report()
        }
        joined.wait(0.05)
        joined.up(slot: 1)
        joined.report()
        joined.up(slot: 0)
        joined.report()
        let expected = events(try run(alone), "reorder-ended").first?["order"] as? [String]
        let run = try run(joined)
        #expect(events(run, "reorder-began").count == 1)
        #expect(events(run, "reorder-ended").first?["order"] as? [String] == expected)
        #expect(run.lastSheet?["detent"] as? String == "half")
    }

    @Test func aCancelDropsTheItemWhereItIs() throws {
        var r = SyntheticRecording()
        pressAndDrag(&r, y: rowCentre(1), dy: Self.row + 10, lift: false)
        r.palm(slot: 0)
        r.report()
        let run = try run(r)
        #expect(events(run, "reorder-moved").count == 1)
        #expect(events(run, "reorder-ended").first?["order"] as? [String]
            == ["item-0", "item-2", "item-1", "item-3", "item-4", "item-5", "item-6", "item-7"])
        #expect(run.lastSheet?["lifted"] == nil)
    }

    @Test func holdingNearTheBottomEdgeScrollsTheListThenTheTopEdgeScrollsBack() throws {
        // At expanded the list starts at 86; 60 rows scroll by at most 1526 pt.
        var r = SyntheticRecording()
        let start: Int32 = 86 + Self.row * 20 + 28
        r.down(slot: 0, x: 300, y: start)
        r.report()
        r.wait(0.3)
        // Down into the bottom band (1920 − 48 … 1920) and hold there for a second.
        let bottom: Int32 = 1910
        for index in 1...20 {
            r.wait(0.01)
            r.move(slot: 0, x: 300, y: start + (bottom - start) * Int32(index) / 20)
            r.report()
        }
        r.wait(1)
        r.move(slot: 0, x: 301, y: bottom)
        r.report()
        // Up into the top band (86 … 134) and hold there.
        for index in 1...40 {
            r.wait(0.01)
            r.move(slot: 0, x: 301, y: bottom - (bottom - 95) * Int32(index) / 40)
            r.report()
        }
        r.wait(0.5)
        r.up(slot: 0)
        r.report()
        let run = try run(r, items: 60, initial: "expanded")
        let scrolls = run.kind("sheet").compactMap { $0["scroll"] as? Double }
        let deepest = try #require(scrolls.max())
        #expect(deepest > 500, "a second in the bottom band scrolls far (up to 1000 pt/s), got \(deepest)")
        #expect(try #require(scrolls.last) < deepest - 300, "the top band scrolls back")
        let moved = events(run, "reorder-moved")
        #expect(moved.count > 20, "the held item passes the rows that scroll under it")
        let ended = try #require(events(run, "reorder-ended").first)
        #expect((ended["order"] as? [String])?.count == 60)
    }

    // MARK: Scrolling

    @Test func aFlickUpScrollsWithMomentumThenAPanDownAtTheTopDragsTheSheet() throws {
        var r = SyntheticRecording()
        // A flick up on the list at expanded.
        r.stroke(from: (540, 1500), to: (540, 1350), seconds: 0.1)
        r.wait(2)
        var scrolled = try run(r, items: 60, initial: "expanded")
        let scrolls = scrolled.kind("sheet").compactMap { $0["scroll"] as? Double }
        let afterLift = try #require(scrolls.last)
        #expect(afterLift > 225, "momentum carries the list past the 150 pt the finger moved, got \(afterLift)")
        #expect(afterLift <= 1526.01)
        #expect(scrolled.lastSheet?["detent"] as? String == "expanded")

        // Then a slow pan down: it scrolls the list back to its top first, then drags the sheet.
        // (The pan stays on the panel: a finger past its edge is held there.)
        #expect(400 + afterLift + 400 < 1920)
        r.stroke(from: (540, 400), to: (540, 400 + Int32(afterLift) + 400), seconds: 2, holdSeconds: 0.1)
        scrolled = try run(r, items: 60, initial: "expanded")
        let sheets = scrolled.kind("sheet")
        let firstDrag = try #require(sheets.firstIndex { $0["state"] as? String == "dragging" })
        #expect(sheets[firstDrag]["scroll"] as? Double == 0, "the sheet moves only once the list is at its top")
        let top = try #require(sheets.compactMap { $0["top"] as? Double }.max())
        #expect(top > 300, "the rest of the pan lowered the sheet, to \(top)")
    }

    @Test func aPanUpFromHalfRaisesTheSheetFirstThenScrolls() throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1500), to: (540, 300), seconds: 2, holdSeconds: 0.1)
        let run = try run(r, items: 60)
        let sheets = run.kind("sheet")
        let firstScroll = try #require(sheets.firstIndex { ($0["scroll"] as? Double ?? 0) > 0 })
        #expect(sheets[firstScroll]["top"] as? Double == 30, "the list scrolls only once the sheet is at expanded")
        #expect(run.lastSheet?["detent"] as? String == "expanded")
        let scroll = try #require(run.lastSheet?["scroll"] as? Double)
        #expect(abs(scroll - (1200 - 930)) < 2, "the finger's travel past the sheet's 930 pt scrolls the list, got \(scroll)")
    }

    @Test func aShortListDoesNotScrollAndDragsTheSheetAsBefore() throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1500), to: (540, 300), seconds: 2, holdSeconds: 0.1)
        let withItems = try run(r, items: 8)
        #expect(withItems.kind("sheet").allSatisfy { ($0["scroll"] as? Double ?? 0) == 0 })
        let plain = try replay(r, options(touches: false))
        #expect(withItems.lastSheet?["top"] as? Double == plain.lastSheet?["top"] as? Double)
    }

    // MARK: Guarded

    @Test(arguments: ReleaseRuleSet.allCases)
    func everyUserDismissalOfAGuardedSheetSpringsBack(policy: ReleaseRuleSet) throws {
        var dimTap = SyntheticRecording()
        dimTap.tap(x: 540, y: 400)
        var close = SyntheticRecording()
        // 31 pt in from the card's top-right corner (the 640 pt card centred on 1080 px).
        close.tap(x: Int32(SheetLayout().cardSpan(screenWidth: 1080).right) - 31, y: 960 + 31)
        var swipe = SyntheticRecording()
        swipe.stroke(from: (540, 300), to: (540, 700), seconds: 0.1)
        var flick = SyntheticRecording()
        flick.stroke(from: (540, 990), to: (540, 1400), seconds: 0.1)
        var drag = SyntheticRecording()
        drag.stroke(from: (540, 990), to: (540, 1900), seconds: 2, holdSeconds: 0.1)
        var cases: [(String, SyntheticRecording, String)] = [
            ("dim tap", dimTap, "dim-tap"), ("close", close, "close-button"), ("swipe", swipe, "swipe-down"),
            ("drag", drag, "drag"),
        ]
        if policy != .halfDrag { cases.append(("flick", flick, "swipe-down")) }
        for (name, recording, cause) in cases {
            let open = try run(recording, policy: policy)
            #expect(open.lastSheet?["detent"] as? String == "hidden", "\(name): unguarded, it dismisses")
            let guarded = try run(recording, guarded: true, policy: policy)
            #expect(events(guarded, "dismiss-attempted").map { $0["cause"] as? String } == [cause], "\(name)")
            #expect(guarded.lastSheet?["detent"] as? String == "half", "\(name): back at the detent it left")
        }
    }

    @Test func aGuardedSheetRefusesAPlainDismissButNotAForcedOne() {
        var engine = Engine(configuration: EngineConfiguration())
        var out: [EngineOutput] = []
        engine.setContent(Self.content(3, guarded: true), at: .zero, into: &out)
        #expect(engine.perform(SheetCommand.dismiss(force: false), at: Timestamp(seconds: 1), into: &out) == .guarded)
        #expect(engine.sheet.state == .resting(detent: 1))
        #expect(engine.perform(SheetCommand.dismiss(force: true), at: Timestamp(seconds: 2), into: &out) == .done)
        #expect(engine.sheet.targetDetentIndex == engine.sheet.detents.hiddenIndex)
    }

    @Test func realFastTapsOnARowTapTheItemsUnderThem() throws {
        // Nine real taps at y 912…1056 px; with half at 45 % (864) the rows start at 920, so the
        // tap at 912 is on the title bar and the others on the first three rows.
        var replayOptions = options(touches: false)
        replayOptions.engine.sheet.detents.append(DetentSpec(name: "half", position: .fractionOfHeight(0.45)))
        replayOptions.content = Self.content(9)
        let run = try replay(path: trace("ts-atmel-maxtouch.1-finger-fast-taps.evemu"), replayOptions)
        #expect(events(run, "item-tapped").map { $0["item"] as? String }
            == ["item-0", "item-0", "item-1", "item-1", "item-1", "item-1", "item-2", "item-1"])
        #expect(run.lastSheet?["detent"] as? String == "half")
    }

    // MARK: Output

    @Test func theSummaryCarriesTheFinalOrderAndTheSameBytesEveryTime() throws {
        var r = SyntheticRecording()
        pressAndDrag(&r, y: rowCentre(0), dy: Self.row + 10)
        var summaryOptions = options(touches: false)
        summaryOptions.content = Self.content(3)
        summaryOptions.summary = true
        let first = try replay(r, summaryOptions)
        let summary = try #require(first.kind("summary").first)
        #expect(summary["order"] as? [String] == ["item-1", "item-0", "item-2"])
        #expect(try replay(r, summaryOptions).text == first.text)
        #expect(try run(r).text == (try run(r)).text)
    }

    /// A new title or guard (SetContent without items) leaves the list as it is: the order,
    /// the scroll, a reorder in progress; only the revision moves on, for renderers.
    @Test func aNewTitleKeepsTheListAsItIs() {
        var configuration = EngineConfiguration()
        configuration.initialDetent = "expanded"
        var engine = Engine(configuration: configuration)
        var outputs: [EngineOutput] = []
        let order = Array((0..<40).reversed())
        engine.setContent(Self.content(40), order: order, scrollInPoints: 120, at: .zero, into: &outputs)
        let revision = engine.list.revision
        engine.setTitle("Edited", guarded: true, at: Timestamp(microseconds: 1000), into: &outputs)
        #expect(engine.list.order == order && engine.list.offset == 120)
        #expect(engine.list.revision == revision + 1)
        #expect(engine.content.title == "Edited" && engine.content.guarded && engine.sheet.guarded)
        #expect(engine.content.items == Self.content(40).items)
    }

    // MARK: The bundled example

    /// `examples/reorder.evemu`, the reorder docs/content.md draws, is this generated recording (after a
    /// deliberate change, `SHEETD_UPDATE_GOLDENS=1` writes it again): on `examples/menu.yaml`
    /// at half, a finger rests on Bluetooth for 0.4 s, drags it down past Display and Sound,
    /// holds, and lifts.
    @Test func theBundledReorderRecordingIsThisOneAndReordersTheMenu() throws {
        var r = SyntheticRecording()
        r.name = "sheetd example: a long-press reorder"
        r.report()
        r.wait(0.5)
        pressAndDrag(&r, x: 420, y: rowCentre(1), hold: 0.4, dy: 2 * Self.row + 30, seconds: 0.8, after: 0.3)
        r.wait(0.6)
        r.report()
        let bundled = examples.appendingPathComponent("reorder.evemu")
        if ProcessInfo.processInfo.environment["SHEETD_UPDATE_GOLDENS"] == "1" {
            try Data(r.evemu().utf8).write(to: bundled)
        }
        #expect(try String(contentsOf: bundled, encoding: .utf8) == r.evemu(), "\(bundled.path) is not what the test generates")

        var replayOptions = options(touches: false)
        replayOptions.content = try ContentFile.load(path: examples.appendingPathComponent("menu.yaml").path)
        let run = try replay(path: bundled.path, replayOptions)
        #expect(events(run).map { $0["event"] as? String } == ["reorder-began", "reorder-moved", "reorder-moved", "reorder-ended"])
        let ended = try #require(events(run, "reorder-ended").first)
        #expect((ended["order"] as? [String])?.prefix(4) == ["wifi", "display", "sound", "bluetooth"])
    }
}
