import SheetCore
import SheetProtocol
import SheetServer
import Testing

/// `Engine.perform(_: ControlRequest…)`: the one mapping from a control call to the engine and
/// its answer, which the daemon and the fuzzer's harness both use.
struct ControlCallTests {
    static let content = SheetContent(title: "Menu", items: (0..<6).map { SheetItem(id: "item-\($0)", label: "Item \($0)") })

    /// An engine with content, resting at half, its list reversed, at 1 s.
    private func engineWithContent() -> (Engine, [EngineOutput]) {
        var engine = Engine(configuration: EngineConfiguration())
        var out: [EngineOutput] = []
        engine.setContent(Self.content, order: Array((0..<6).reversed()), at: .zero, into: &out)
        engine.advance(to: Timestamp(seconds: 1), into: &out)
        out.removeAll()
        return (engine, out)
    }

    /// A bar height given while the bar is off is kept for when it comes on; a change that
    /// keeps the detents (can-close) applies in place and is published, with the content kept.
    @Test func aPresentationIsKeptWholeAndAppliedInPlaceWhenItCan() {
        var (engine, out) = engineWithContent()
        #expect(engine.perform(ControlRequest.setPresentation(PresentationChange(barHeightInPoints: 100)), at: Timestamp(seconds: 2), into: &out) == .done)
        #expect(engine.sheet.detents.floor.name == .hidden)
        #expect(engine.perform(ControlRequest.setPresentation(PresentationChange(gestures: .bottomBar)), at: Timestamp(seconds: 3), into: &out) == .done)
        #expect(engine.sheet.detents.floor.name == .collapsed && engine.sheet.detents.floor.topInPoints == 1920 - 100)
        out.removeAll()
        #expect(engine.perform(ControlRequest.setPresentation(PresentationChange(canClose: false)), at: Timestamp(seconds: 4), into: &out) == .done)
        #expect(!engine.sheet.presentation.canClose && engine.configuration.sheet.presentation.barHeightInPoints == 100)
        #expect(out.contains { if case .sheet = $0 { true } else { false } }, "a state is published for the close button")
        #expect(engine.content == Self.content)
    }

    /// `Focus`: what an assistive technology's focus and click do. The element takes the focus
    /// (ring shown) and `activate` is a tap on it; what cannot take the focus is refused, why
    /// said, and nothing moves; `back` on a guarded sheet is a dismissal attempt.
    @Test func focusPutsTheFocusOnAnElementAndActsAsAPersonsKey() {
        var (engine, out) = engineWithContent()
        var content = Self.content
        content.items[2].disabled = true
        content.items[4].accessory = .toggle(isOn: false)
        content.guarded = true
        engine.setContent(content, at: Timestamp(seconds: 1), into: &out)
        out.removeAll()
        #expect(engine.perform(ControlRequest.focus(element: "item-4", command: .activate), at: Timestamp(seconds: 2), into: &out) == .done)
        #expect(engine.focus == FocusSnapshot(target: .item(4), visible: true))
        #expect(out.contains { if case .content(let report) = $0, case .itemToggled(4, true) = report.event { true } else { false } })
        out.removeAll()
        for (element, reason) in [("item-2", "the item is disabled"), ("nope", "there is no such item")] {
            #expect(engine.perform(ControlRequest.focus(element: element, command: .activate), at: Timestamp(seconds: 3), into: &out)
                == .cannotFocus(element, reason: reason))
        }
        #expect(out.isEmpty && engine.focus.target == .item(4), "refused: nothing moved, nothing activated")
        #expect(engine.perform(ControlRequest.focus(element: "close", command: nil), at: Timestamp(seconds: 4), into: &out) == .done)
        #expect(engine.focus.target == .close)
        #expect(engine.snapshot(at: Timestamp(seconds: 4)).cause == .command, "a program moved the focus")
        #expect(engine.perform(ControlRequest.focus(element: nil, command: .back), at: Timestamp(seconds: 5), into: &out) == .done)
        #expect(out.contains { if case .content(let report) = $0, case .dismissAttempted = report.event { true } else { false } })
        #expect(engine.sheet.isShown, "a guarded sheet stays")
        #expect(engine.perform(ControlRequest.dismiss(force: true), at: Timestamp(seconds: 6), into: &out) == .done)
        engine.advance(to: Timestamp(seconds: 8), into: &out)
        #expect(engine.perform(ControlRequest.focus(element: "item-0", command: nil), at: Timestamp(seconds: 9), into: &out)
            == .cannotFocus("item-0", reason: "the sheet is not shown"))
    }

    /// `speech: headset`: the sheet is spoken while headphones are plugged, and touches explore
    /// while it is, unless exploration was set off; rate and volume are held to -100…100.
    @Test func speechWhileHeadphonesArePluggedAndExplorationWithIt() {
        var (engine, out) = engineWithContent()
        #expect(engine.perform(ControlRequest.setPresentation(PresentationChange(speech: .headset)), at: Timestamp(seconds: 2), into: &out) == .done)
        #expect(!engine.configuration.sheet.presentation.speaking && !engine.exploresByTouch)
        out.removeAll()
        engine.setHeadphones(true, at: Timestamp(seconds: 3), into: &out)
        #expect(engine.configuration.sheet.presentation.speaking && engine.exploresByTouch)
        #expect(out.contains { if case .sheet = $0 { true } else { false } }, "a state is published for the renderers to speak")
        #expect(engine.perform(ControlRequest.setPresentation(PresentationChange(touchExploration: false)), at: Timestamp(seconds: 4), into: &out) == .done)
        #expect(engine.configuration.sheet.presentation.speaking && !engine.exploresByTouch, "exploration set off stays off")
        engine.setHeadphones(false, at: Timestamp(seconds: 5), into: &out)
        #expect(!engine.configuration.sheet.presentation.speaking)
        #expect(engine.perform(ControlRequest.setPresentation(PresentationChange(speech: .on)), at: Timestamp(seconds: 6), into: &out) == .done)
        #expect(engine.configuration.sheet.presentation.speaking)
        for (rate, volume) in [(101, 0), (0, -101)] {
            #expect(PresentationChange(speechRate: rate, speechVolume: volume).problem() != nil)
        }
    }

    @Test func anUnknownDetentIsRefusedWithTheKnownOnesAndChangesNothing() {
        var (engine, out) = engineWithContent()
        let state = engine.sheet.state
        let known = engine.sheet.detents.detents.map(\.name)
        #expect(engine.perform(ControlRequest.present(detent: "side"), at: Timestamp(seconds: 2), into: &out)
            == .unknownDetent("side", known: known.map(\.description)))
        #expect(engine.perform(ControlRequest.setDetent("side"), at: Timestamp(seconds: 2), into: &out)
            == .unknownDetent("side", known: known.map(\.description)))
        #expect(out.isEmpty && engine.sheet.state == state)
        #expect(engine.perform(ControlRequest.setDetent("expanded"), at: Timestamp(seconds: 2), into: &out) == .done)
        #expect(engine.sheet.targetDetentIndex == engine.sheet.detents.index(named: "expanded"))
    }

    @Test func aScreenOutsideTheLimitsIsRefusedAndTheSameScreenChangesNothing() {
        var (engine, out) = engineWithContent()
        let screen = engine.configuration.screen
        for (width, height, scale) in [(0, 1920, 1.0), (1080, 1_000_000, 1.0), (1080, 1920, 0.0), (1080, 1920, .nan), (200, 480, 17.0), (63, 480, 1.0)] {
            let result = engine.perform(ControlRequest.setScreen(width: width, height: height, scale: scale), at: Timestamp(seconds: 2), into: &out)
            guard case .invalidScreen = result else {
                Issue.record("\(width)x\(height) at \(scale) was taken: \(result)")
                continue
            }
        }
        #expect(engine.configuration.screen == screen && out.isEmpty)
        let same = ControlRequest.setScreen(width: screen.widthInPixels, height: screen.heightInPixels, scale: nil)
        #expect(engine.perform(same, at: Timestamp(seconds: 2), into: &out) == .done)
        #expect(out.isEmpty, "the screen as it is: no new engine, no state")
    }

    /// A new screen rebuilds the engine: the finger down is cancelled, the content, its order
    /// and the detent stay, and the list's revision counts on.
    @Test func aNewScreenKeepsTheContentTheOrderAndTheDetentAndCancelsTheFinger() {
        var (engine, out) = engineWithContent()
        let revision = engine.list.revision
        engine.process(TouchFrame(time: Timestamp(seconds: 2), contacts: [Contact(slot: 0, phase: .down, positionInPixels: Point(x: 500, y: 1500))]), into: &out)
        out.removeAll()
        #expect(engine.perform(ControlRequest.setScreen(width: 800, height: 480, scale: 1), at: Timestamp(seconds: 3), into: &out) == .done)
        #expect(engine.configuration.screen == ScreenSize(widthInPixels: 800, heightInPixels: 480))
        #expect(engine.activeTouchCount == 0)
        #expect(out.contains { if case .touch(let touch) = $0 { touch.phase == .cancel } else { false } })
        #expect(engine.content == Self.content && engine.list.order == Array((0..<6).reversed()))
        #expect(engine.list.revision > revision)
        #expect(engine.sheet.detentIndex == engine.sheet.detents.index(named: "half"))
        #expect(out.contains { if case .sheet = $0 { true } else { false } }, "the new screen's state is published")
    }

    @Test func aTitleAloneKeepsTheListAndItemsReplaceIt() {
        var (engine, out) = engineWithContent()
        #expect(engine.perform(ControlRequest.setContent(ContentChange(title: "Edited")), at: Timestamp(seconds: 2), into: &out) == .done)
        #expect(engine.content.title == "Edited" && engine.content.items == Self.content.items)
        #expect(engine.list.order == Array((0..<6).reversed()))
        let items = Array(Self.content.items.prefix(2))
        #expect(engine.perform(ControlRequest.setContent(ContentChange(items: items)), at: Timestamp(seconds: 3), into: &out) == .done)
        #expect(engine.content.title == "Edited" && engine.content.items == items && engine.list.order == [0, 1])
    }

    @Test func aGuardedSheetRefusesAPlainDismissAndReducedMotionAsItIsChangesNothing() {
        var (engine, out) = engineWithContent()
        #expect(engine.perform(ControlRequest.setContent(ContentChange(guarded: true)), at: Timestamp(seconds: 2), into: &out) == .done)
        out.removeAll()
        #expect(engine.perform(ControlRequest.dismiss(force: false), at: Timestamp(seconds: 3), into: &out) == .guarded)
        #expect(engine.perform(ControlRequest.setReduceMotion(false), at: Timestamp(seconds: 3), into: &out) == .done)
        #expect(out.isEmpty)
        #expect(engine.perform(ControlRequest.setReduceMotion(true), at: Timestamp(seconds: 3), into: &out) == .done)
        #expect(engine.configuration.sheet.reduceMotion && !out.isEmpty)
        #expect(engine.perform(ControlRequest.dismiss(force: true), at: Timestamp(seconds: 4), into: &out) == .done)
        #expect(engine.sheet.targetDetentIndex == engine.sheet.detents.hiddenIndex || engine.sheet.detentIndex == engine.sheet.detents.hiddenIndex)
    }

    @Test func anAppearanceChangePublishesOnceAndKeepsWhatItDoesNotName() {
        var (engine, out) = engineWithContent()
        out.removeAll()
        let dark = AppearanceChange(theme: .dark, accent: RGB(hex: 0xE66100))
        #expect(engine.perform(ControlRequest.setAppearance(dark), at: Timestamp(seconds: 2), into: &out) == .done)
        #expect(out.filter { if case .sheet = $0 { true } else { false } }.count == 1, "one state carries it")
        #expect(engine.appearance.theme == .dark && engine.appearance.accent == RGB(hex: 0xE66100) && engine.appearance.cornerRadiusInPoints == 28)
        out.removeAll()
        #expect(engine.perform(ControlRequest.setAppearance(dark), at: Timestamp(seconds: 3), into: &out) == .done)
        #expect(out.isEmpty, "the same appearance again publishes nothing")
        // A new screen rebuilds the engine; the appearance set at run time stays.
        #expect(engine.perform(ControlRequest.setScreen(width: 800, height: 480, scale: nil), at: Timestamp(seconds: 4), into: &out) == .done)
        #expect(engine.appearance.theme == .dark)
    }
}
