import Testing
@testable import SheetCore

/// A sheet at half with a close button and five items, two sections: Wi-Fi (a toggle),
/// Bluetooth (disabled) and VPN under Network, Sound and Display under Device.
private let settings = SheetContent(title: "Settings", items: [
    SheetItem(id: "wifi", label: "Wi-Fi", accessory: .toggle(isOn: false), section: "Network"),
    SheetItem(id: "bluetooth", label: "Bluetooth", disabled: true),
    SheetItem(id: "vpn", label: "VPN"),
    SheetItem(id: "sound", label: "Sound", section: "Device"),
    SheetItem(id: "display", label: "Display"),
])

private func engine(_ content: SheetContent = settings, configure: (inout EngineConfiguration) -> Void = { _ in })
    -> (Engine, [EngineOutput]) {
    var configuration = EngineConfiguration()
    configure(&configuration)
    var engine = Engine(configuration: configuration)
    var out: [EngineOutput] = []
    engine.setContent(content, at: .zero, into: &out)
    engine.start(at: .zero, into: &out)
    return (engine, out)
}

/// The focus's name: `-`, `close`, or the item's id.
private func name(_ engine: Engine) -> String {
    switch engine.focus.target {
    case .none: return "-"
    case .close: return "close"
    case .item(let index): return engine.content.items[index].id
    }
}

/// What a step emitted that a person would notice: content events and where the sheet goes.
private func effects(_ out: [EngineOutput], _ engine: Engine) -> String {
    var said: [String] = []
    for output in out {
        switch output {
        case .content(let report):
            switch report.event {
            case .itemTapped(let item): said.append("item-tapped \(engine.content.items[item].id)")
            case .itemToggled(let item, let isOn): said.append("item-toggled \(engine.content.items[item].id) \(isOn ? "on" : "off")")
            case .reorderBegan(let item, let index): said.append("reorder-began \(engine.content.items[item].id) \(index)")
            case .reorderMoved(_, let from, let to): said.append("reorder-moved \(from)→\(to)")
            case .reorderEnded: said.append("reorder-ended")
            case .dismissAttempted(let cause): said.append("dismiss-attempted \(cause.name)")
            case .presented(let cause): said.append("presented \(cause.name)")
            }
        case .transition(let transition) where transition.to == .settling:
            said.append("settling to \(transition.detent?.description ?? "-")")
        default: break
        }
    }
    return said.isEmpty ? "none" : said.joined(separator: ", ")
}

@Suite struct FocusTableTests {
    @Test func focusMatchesItsTable() throws {
        let t = Timestamp(seconds: 1)
        let states: [(String, [FocusCommand])] = [
            ("-", []),
            ("close", [.next]),
            ("wifi", [.next, .next]),
            ("vpn", [.next, .next, .next]),
            ("display", [.previous]),
        ]
        let events: [(String, FocusCommand)] = FocusCommand.allCases.map { ($0.name.description, $0) }
        try MachineTable.walk("focus", states: states, events: events) { setup, command in
            var (sheet, out) = engine()
            for step in setup { sheet.perform(step, at: .zero, into: &out) }
            out.removeAll()
            sheet.perform(command, at: t, into: &out)
            return (name(sheet), effects(out, sheet))
        }
    }
}

@Suite struct FocusTests {
    let t = Timestamp(seconds: 1)

    func press(_ code: UInt16, _ action: KeyAction = .press, at time: Timestamp) -> KeyEvent {
        KeyEvent(time: time, input: .key(code), action: action)
    }

    /// A key pressed and let go 50 ms later.
    func type(_ code: UInt16, at time: Timestamp, into sheet: inout Engine, _ out: inout [EngineOutput]) {
        sheet.key(press(code, at: time), into: &out)
        sheet.key(press(code, .release, at: time.adding(seconds: 0.05)), into: &out)
    }

    @Test func tabAndDownWalkTheEnabledItemsInOrderAndShiftTabGoesBack() {
        var (sheet, out) = engine()
        var seen: [String] = []
        for step in 0..<6 {
            type(KeyCode.tab, at: t.adding(seconds: Double(step)), into: &sheet, &out)
            seen.append(name(sheet))
        }
        #expect(seen == ["close", "wifi", "vpn", "sound", "display", "close"])
        sheet.key(press(KeyCode.leftShift, at: t.adding(seconds: 10)), into: &out)
        type(KeyCode.tab, at: t.adding(seconds: 11), into: &sheet, &out)
        #expect(name(sheet) == "display")
        sheet.key(press(KeyCode.leftShift, .release, at: t.adding(seconds: 12)), into: &out)
        type(KeyCode.tab, at: t.adding(seconds: 13), into: &sheet, &out)
        #expect(name(sheet) == "close")
        seen = []
        for step in 0..<5 {
            type(KeyCode.down, at: t.adding(seconds: 20 + Double(step)), into: &sheet, &out)
            seen.append(name(sheet))
        }
        #expect(seen == ["wifi", "vpn", "sound", "display", "display"])
        #expect(sheet.focus.visible)
    }

    @Test func enterOnAToggleFlipsItOnceAndAHeldKeyRepeatsMovementOnly() {
        var (sheet, out) = engine()
        sheet.perform(.first, at: t, into: &out)
        out.removeAll()
        // Enter held for a second, with the kernel's repeats (which the engine ignores).
        sheet.key(press(KeyCode.enter, at: t.adding(seconds: 1)), into: &out)
        for step in 0..<5 { sheet.key(press(KeyCode.enter, .repeated, at: t.adding(seconds: 1.6 + Double(step) * 0.04)), into: &out) }
        sheet.advance(to: t.adding(seconds: 2), into: &out)
        sheet.key(press(KeyCode.enter, .release, at: t.adding(seconds: 2)), into: &out)
        #expect(effects(out, sheet) == "item-toggled wifi on")
        #expect(sheet.content.items[0].accessory == .toggle(isOn: true))
        // Down held for 0.69 s: one step, then repeats at 0.6, 0.64 and 0.68 s (sway's
        // 600 ms and 25 a second), by the engine's clock.
        sheet.perform(.next, at: t.adding(seconds: 3), into: &out)
        sheet.perform(.previous, at: t.adding(seconds: 3), into: &out)
        #expect(name(sheet) == "wifi")
        let held = t.adding(seconds: 4)
        sheet.key(press(KeyCode.down, at: held), into: &out)
        #expect(name(sheet) == "vpn")
        sheet.advance(to: held.adding(seconds: 0.69), into: &out)
        #expect(name(sheet) == "display")
        sheet.key(press(KeyCode.down, .release, at: held.adding(seconds: 0.69)), into: &out)
        #expect(sheet.keyRepeatDeadline == nil)
    }

    @Test func spaceTapsAnItemAndEscapeDismissesOrIsReportedOnAGuardedSheet() {
        var (sheet, out) = engine()
        sheet.perform(.down, at: t, into: &out)
        sheet.perform(.down, at: t, into: &out)
        out.removeAll()
        sheet.key(press(KeyCode.space, at: t.adding(seconds: 1)), into: &out)
        #expect(effects(out, sheet) == "item-tapped vpn")

        var guarded = settings
        guarded.guarded = true
        var (held, heldOut) = engine(guarded)
        heldOut.removeAll()
        held.key(press(KeyCode.escape, at: t), into: &heldOut)
        #expect(effects(heldOut, held) == "dismiss-attempted back")
        #expect(held.sheet.isShown)

        out.removeAll()
        sheet.key(press(KeyCode.escape, at: t.adding(seconds: 2)), into: &out)
        #expect(effects(out, sheet) == "settling to hidden")
        #expect(sheet.focus == .none, "the focus goes with the sheet")
        // Hidden: only `open` acts; it opens with the focus on the close button, its ring shown.
        sheet.advance(to: t.adding(seconds: 5), into: &out)
        out.removeAll()
        sheet.perform(.next, at: t.adding(seconds: 6), into: &out)
        #expect(effects(out, sheet) == "none")
        sheet.key(press(KeyCode.menu, at: t.adding(seconds: 7)), into: &out)
        #expect(effects(out, sheet) == "settling to half, presented key")
        #expect(sheet.focus == FocusSnapshot(target: .close, visible: true))
    }

    @Test func aSheetLockedOpenIgnoresBackAndItsCloseButtonTakesNoFocus() {
        var (sheet, out) = engine { $0.sheet.presentation.canClose = false }
        sheet.perform(.next, at: t, into: &out)
        #expect(name(sheet) == "wifi")
        out.removeAll()
        sheet.perform(.back, at: t, into: &out)
        #expect(effects(out, sheet) == "none")
    }

    @Test func ctrlDownMovesTheFocusedItemWithinItsSectionAndTheFocusFollows() {
        var (sheet, out) = engine()
        sheet.perform(.first, at: t, into: &out)
        out.removeAll()
        sheet.key(press(KeyCode.rightControl, at: t), into: &out)
        type(KeyCode.down, at: t.adding(seconds: 1), into: &sheet, &out)
        type(KeyCode.down, at: t.adding(seconds: 2), into: &sheet, &out)
        // A third step would leave the section.
        type(KeyCode.down, at: t.adding(seconds: 3), into: &sheet, &out)
        #expect(effects(out, sheet) == "reorder-began wifi 0, reorder-moved 0→1, reorder-ended, reorder-began wifi 1, reorder-moved 1→2, reorder-ended")
        #expect(sheet.list.order == [1, 2, 0, 3, 4])
        #expect(name(sheet) == "wifi")
        sheet.key(press(KeyCode.rightControl, .release, at: t.adding(seconds: 4)), into: &out)
        type(KeyCode.up, at: t.adding(seconds: 5), into: &sheet, &out)
        #expect(name(sheet) == "vpn", "reading order follows the new order; Bluetooth is still disabled")
    }

    @Test func theFocusFollowsItsItemByIdAcrossNewContentAndGoesWithIt() {
        var (sheet, out) = engine()
        sheet.perform(.last, at: t, into: &out)
        #expect(name(sheet) == "display")
        var reversed = settings
        reversed.items.reverse()
        sheet.setContent(reversed, at: t.adding(seconds: 1), into: &out)
        #expect(name(sheet) == "display")
        reversed.items.removeFirst()
        sheet.setContent(reversed, at: t.adding(seconds: 2), into: &out)
        #expect(sheet.focus.target == .none)
    }

    @Test func aTouchHidesTheRingAndKeepsTheFocus() {
        var (sheet, out) = engine()
        sheet.perform(.next, at: t, into: &out)
        #expect(sheet.focus == FocusSnapshot(target: .close, visible: true))
        out.removeAll()
        let down = TouchFrame(time: t.adding(seconds: 1), contacts: [Contact(slot: 0, phase: .down, positionInPixels: Point(x: 540, y: 1500))])
        sheet.process(down, into: &out)
        #expect(sheet.focus == FocusSnapshot(target: .close, visible: false))
        let published = out.compactMap { if case .sheet(let snapshot) = $0 { snapshot } else { nil } }
        #expect(published.last?.focus.visible == false, "the hidden ring is published")
    }

    /// `SetPresentation(touchExploration:)` at run time: on, a finger held on a row focuses it
    /// and taps nothing, and a finger down when it changes is cancelled; off, a tap taps again.
    @Test func explorationTurnsOnAndOffAtRunTime() {
        var (sheet, out) = engine()
        func frame(_ phase: ContactPhase, at seconds: Double, y: Double = 1100) -> TouchFrame {
            TouchFrame(time: t.adding(seconds: seconds), contacts: [Contact(slot: 0, phase: phase, positionInPixels: Point(x: 540, y: y))])
        }
        var presentation = sheet.configuration.sheet.presentation
        presentation.touchExploration = true
        sheet.perform(.setPresentation(presentation), at: t, into: &out)
        #expect(sheet.exploresByTouch)
        #expect(sheet.snapshot(at: t).presentationRevision > 0)
        out.removeAll()
        sheet.process(frame(.down, at: 1), into: &out)
        sheet.advance(to: t.adding(seconds: 1.5), into: &out)
        #expect(name(sheet) == "wifi")
        #expect(sheet.activeTouchCount == 1)
        // Off with the finger still down: it is cancelled, and the next tap taps.
        presentation.touchExploration = false
        sheet.perform(.setPresentation(presentation), at: t.adding(seconds: 1.6), into: &out)
        #expect(!sheet.exploresByTouch)
        #expect(sheet.activeTouchCount == 0)
        sheet.process(frame(.up, at: 1.7), into: &out)
        out.removeAll()
        sheet.process(frame(.down, at: 2), into: &out)
        sheet.process(frame(.up, at: 2.05), into: &out)
        #expect(effects(out, sheet).contains("item-toggled wifi"), "\(effects(out, sheet))")
    }

    @Test func theFocusedRowIsScrolledIntoView() {
        let long = SheetContent(title: "Long", items: (0..<60).map { SheetItem(id: "\($0)", label: "Item \($0)") })
        var (sheet, out) = engine(long)
        sheet.perform(.last, at: t, into: &out)
        while let deadline = sheet.nextDeadline { sheet.advance(to: deadline, into: &out) }
        // At half the list cannot scroll the last row into view: the sheet rises to expanded
        // (top 30 pt) first, as a finger's scroll does, and there the last row's bottom is at
        // the screen's bottom edge.
        #expect(sheet.sheet.detentIndex.map { sheet.sheet.detents[$0].name } == .expanded)
        let visible = 1920 - 30 - ListConfiguration().titleBarHeightInPoints
        #expect(abs(sheet.list.offset - (60 * 56 - visible)) < 0.5)
        sheet.perform(.first, at: t.adding(seconds: 5), into: &out)
        while let deadline = sheet.nextDeadline { sheet.advance(to: deadline, into: &out) }
        #expect(sheet.list.offset == 0)
    }

    @Test func pageUpAndDownStepBetweenDetentsAndNeverDismiss() {
        var (sheet, out) = engine()
        out.removeAll()
        sheet.perform(.pageUp, at: t, into: &out)
        #expect(effects(out, sheet) == "settling to expanded")
        sheet.advance(to: t.adding(seconds: 3), into: &out)
        sheet.perform(.pageDown, at: t.adding(seconds: 3), into: &out)
        sheet.advance(to: t.adding(seconds: 6), into: &out)
        out.removeAll()
        sheet.perform(.pageDown, at: t.adding(seconds: 6), into: &out)
        #expect(effects(out, sheet) == "none")
        #expect(sheet.sheet.detentIndex.map { sheet.sheet.detents[$0].name } == .half)
    }

    @Test func switchScanningStepsByItselfAndASwitchPressActivates() {
        var (sheet, out) = engine { $0.focus.switchScanMicroseconds = 1_000_000 }
        #expect(sheet.scanDeadline == Timestamp(seconds: 1), "a sheet shown from the start scans from the start")
        #expect(sheet.motionDeadline == nil, "nothing moves: a replay's end does not wait for the scan")
        sheet.perform(.next, at: .zero, into: &out)
        #expect(name(sheet) == "close")
        var seen: [String] = []
        for _ in 0..<3 {
            guard let deadline = sheet.scanDeadline else { break }
            sheet.advance(to: deadline, into: &out)
            seen.append(name(sheet))
        }
        #expect(seen == ["wifi", "vpn", "sound"])
        out.removeAll()
        let at = sheet.scanDeadline!.adding(microseconds: -500_000)
        sheet.key(KeyEvent(time: at, input: .key(KeyCode.button0), action: .press), into: &out)
        #expect(effects(out, sheet) == "item-tapped sound")
        #expect(sheet.scanDeadline == at.adding(microseconds: 1_000_000), "a press starts the step again")
    }

    @Test func aKnobsStepsMoveTheFocusAndItsPushActivates() {
        var (sheet, out) = engine()
        for step in 0..<3 { sheet.key(KeyEvent(time: t.adding(seconds: Double(step)), input: .dialUp, action: .press), into: &out) }
        sheet.key(KeyEvent(time: t.adding(seconds: 4), input: .dialDown, action: .press), into: &out)
        #expect(name(sheet) == "wifi")
        out.removeAll()
        sheet.key(KeyEvent(time: t.adding(seconds: 5), input: .key(KeyCode.button0), action: .press), into: &out)
        #expect(effects(out, sheet) == "item-toggled wifi on")
    }

    @Test func rightToLeftContentMirrorsLeftAndRightOnly() {
        var hebrew = settings
        hebrew.title = "הגדרות"
        var (sheet, out) = engine(hebrew)
        sheet.perform(.left, at: t, into: &out)
        #expect(name(sheet) == "close")
        sheet.perform(.next, at: t, into: &out)
        #expect(name(sheet) == "wifi")
        sheet.perform(.right, at: t, into: &out)
        #expect(name(sheet) == "close")
    }

    @Test func aNewScreenKeepsTheFocusOnItsItemAndTheCloseButtonLosesItWhenItGoes() {
        var (sheet, out) = engine()
        sheet.perform(.last, at: t, into: &out)
        var configuration = sheet.configuration
        configuration.screen = ScreenSize(widthInPixels: 800, heightInPixels: 1280)
        sheet.reconfigure(configuration, at: t.adding(seconds: 1), into: &out)
        #expect(name(sheet) == "display", "the focus stays on its item across a reconfigure")
        sheet.perform(.first, at: t.adding(seconds: 2), into: &out)
        sheet.perform(.previous, at: t.adding(seconds: 2), into: &out)
        #expect(name(sheet) == "close")
        var locked = sheet.configuration.sheet.presentation
        locked.canClose = false
        sheet.perform(.setPresentation(locked), at: t.adding(seconds: 3), into: &out)
        #expect(sheet.focus.target == .none, "the close button is not drawn any more: the focus leaves it")
    }
}

