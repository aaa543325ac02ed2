/// The focus: keys, a knob's steps and a switch move it over the close button and the items
/// and use what it is on, as a finger would (`FocusCommand`). It follows its item by index
/// across reorders, by id across new content, and goes when the sheet goes.
extension Engine {
    /// A key or a knob's step, through the key map. A key held down that moves the focus
    /// repeats by the engine's clock until it is released or another key is pressed.
    public mutating func key(_ event: KeyEvent, into out: inout [EngineOutput]) {
        advance(to: event.time, into: &out)
        if event.action != .repeated, keyRepeat != nil, event.action == .press || keyRepeat?.input == event.input {
            keyRepeat = nil
            keyRepeatDeadline = nil
        }
        guard let command = keyMap.command(for: event) else { return }
        perform(command, at: event.time, by: .keys, into: &out)
        if command.repeats, case .key = event.input {
            keyRepeat = (event.input, command)
            keyRepeatDeadline = event.time.adding(microseconds: configuration.focus.repeatDelayMicroseconds)
        }
    }

    /// Every key let go: a key device went away, or a recording ended, with keys held. A
    /// held key stops repeating, and no modifier stays held.
    public mutating func releaseKeys(at time: Timestamp, into out: inout [EngineOutput]) {
        advance(to: time, into: &out)
        keyRepeat = nil
        keyRepeatDeadline = nil
        keyMap.releaseModifiers()
    }

    /// The held key's command again. The next repeat is planned first: the command advances
    /// the engine to now, which must not find this repeat due still.
    mutating func repeatKey(at time: Timestamp, into out: inout [EngineOutput]) {
        guard let held = keyRepeat else {
            keyRepeatDeadline = nil
            return
        }
        keyRepeatDeadline = time.adding(microseconds: max(configuration.focus.repeatIntervalMicroseconds, 1_000))
        perform(held.command, at: time, by: .keys, into: &out)
    }

    /// A focus command at `time`, by `cause` (a program's `Focus`, keys, a finger exploring).
    /// Nothing but `open` acts on a sheet that is not shown, and nothing acts while a finger
    /// drags the sheet or holds an item: the finger has it.
    public mutating func perform(_ command: FocusCommand, at time: Timestamp, by cause: SheetCause = .command,
                                 into out: inout [EngineOutput]) {
        advance(to: time, into: &out)
        focusCause = cause
        if command == .open {
            open(at: time, into: &out)
            return
        }
        guard sheet.isShown, sheet.kind != .dragging, list.state.kind != .reordering else { return }
        let before = focus
        focus.visible = true
        switch command {
        case .next: moveFocus(to: step(from: focusSlot, by: 1, wrapping: true), at: time, into: &out)
        case .previous: moveFocus(to: step(from: focusSlot, by: -1, wrapping: true), at: time, into: &out)
        case .left, .right:
            let forwards = (command == .right) == (sheet.titleDirection == .leftToRight)
            moveFocus(to: step(from: focusSlot, by: forwards ? 1 : -1, wrapping: true), at: time, into: &out)
        case .up:
            moveFocus(to: focusSlot == nil ? firstItemSlot ?? closeSlot : step(from: focusSlot, by: -1, wrapping: false),
                      at: time, into: &out)
        case .down:
            let from = focusSlot == Self.closeSlotIndex ? nil : focusSlot
            moveFocus(to: from == nil ? firstItemSlot ?? closeSlot : step(from: from, by: 1, wrapping: false),
                      at: time, into: &out)
        case .first: moveFocus(to: firstItemSlot ?? closeSlot, at: time, into: &out)
        case .last: moveFocus(to: lastItemSlot ?? closeSlot, at: time, into: &out)
        case .pageUp, .pageDown:
            if let at = sheet.targetDetentIndex ?? sheet.detentIndex {
                let next = at + (command == .pageUp ? -1 : 1)
                // Never onto the floor: going away is `back`'s.
                if next >= 0, next < sheet.detents.hiddenIndex { feedSheetAsKey(.present(detent: next, time), into: &out) }
            }
        case .activate: activate(at: time, into: &out)
        case .back: dismissByUser(.back, at: time, into: &out)
        case .moveUp, .moveDown:
            if case .item(let index) = focus.target, let position = list.order.firstIndex(of: index) {
                feedList(.keyMove(position: position, by: command == .moveUp ? -1 : 1, time), into: &out)
                reveal(at: time, into: &out)
            }
        case .open: break
        }
        restartScan(at: time)
        if focus != before { publish(at: time, into: &out) }
    }

    /// The focus put on `target` by a program acting for a person (an assistive technology's
    /// focus or click, `Focus` on the wire), its ring shown and its row scrolled into view;
    /// nil when done, else why not. Nothing moves while the sheet is not shown or a finger has
    /// it; the close button takes the focus only where it is drawn, an item unless disabled.
    public mutating func focus(on target: FocusTarget, at time: Timestamp, into out: inout [EngineOutput]) -> FocusRefusal? {
        advance(to: time, into: &out)
        focusCause = .command
        guard sheet.isShown else { return .notShown }
        guard sheet.kind != .dragging, list.state.kind != .reordering else { return .fingerDown }
        if let refusal = refusal(toFocus: target) { return refusal }
        let before = focus
        focus = FocusSnapshot(target: target, visible: true)
        reveal(at: time, into: &out)
        restartScan(at: time)
        if focus != before { publish(at: time, into: &out) }
        return nil
    }

    /// Why `target` could not take the focus of this content, wherever the sheet is: nil when
    /// it could (`focus(on:)` asks besides whether the sheet is shown and free of fingers).
    public func refusal(toFocus target: FocusTarget) -> FocusRefusal? {
        switch target {
        case .none: return .nothing
        case .close: return sheet.presentation.canClose ? nil : .closeNotShown
        case .item(let index):
            guard index >= 0, index < content.items.count else { return .nothing }
            return content.items[index].disabled ? .disabled : nil
        }
    }

    /// Explore by touch: the focus to the close button or the row under `pixels`, where one
    /// takes it (a disabled item, a header, the title or the dim leave it where it is), with
    /// its ring shown. The row is under the finger already: nothing scrolls.
    mutating func focusWhatIsUnder(_ pixels: Point, at time: Timestamp, into out: inout [EngineOutput]) {
        guard sheet.isShown, sheet.kind != .dragging, list.state.kind != .reordering else { return }
        let point = points(pixels)
        var slot: Int?
        if closeSlot != nil, sheet.layout.isOnCloseButton(point, top: sheet.top, span: sheet.span, direction: sheet.titleDirection) {
            slot = Self.closeSlotIndex
        } else if !content.items.isEmpty, let position = list.position(at: point, cardTop: sheet.top), takesFocus(position) {
            slot = position
        }
        guard let slot else { return }
        let before = focus
        focus.target = slotTarget(slot)
        focus.visible = true
        if focus != before { publish(at: time, into: &out) }
    }

    // MARK: What a command does

    private mutating func open(at time: Timestamp, into out: inout [EngineOutput]) {
        guard !sheet.isShown, sheet.presentation.canOpen else { return }
        feedSheetAsKey(.present(detent: sheet.openDetent, time), into: &out)
        focus = FocusSnapshot(target: slotTarget(firstSlot), visible: true)
        reveal(at: time, into: &out)
        restartScan(at: time)
        publish(at: time, into: &out)
    }

    private mutating func activate(at time: Timestamp, into out: inout [EngineOutput]) {
        switch focus.target {
        case .none: moveFocus(to: firstSlot, at: time, into: &out)
        case .close: dismissByUser(.closeButton, at: time, into: &out)
        case .item(let index): useItem(index, at: time, into: &out)
        }
    }

    /// What a person closing the sheet gets: nothing where they may not close it, a
    /// `dismiss-attempted` on a guarded sheet, else it goes.
    private mutating func dismissByUser(_ cause: DismissCause, at time: Timestamp, into out: inout [EngineOutput]) {
        guard sheet.presentation.canClose else { return }
        if content.guarded {
            out.append(.content(ContentEventReport(time: time, event: .dismissAttempted(cause))))
            return
        }
        feedSheetAsKey(.dismiss(time), into: &out)
    }

    /// A `present` or `dismiss` the focus asked for: a person's (a key, a knob, a switch, a
    /// finger exploring) is reported as a key's and moves the sheet with the cause `keys`; a
    /// program's `Focus` as a program's.
    private mutating func feedSheetAsKey(_ event: SheetMachine.Event, into out: inout [EngineOutput]) {
        sheet.presentCause = focusCause == .command ? .control : .key
        feedSheet(event, into: &out)
        sheet.presentCause = .control
    }

    /// An item used as a tap uses it: a toggle flips (`itemToggled`), anything else is tapped.
    mutating func useItem(_ index: Int, at time: Timestamp, into out: inout [EngineOutput]) {
        guard index >= 0, index < content.items.count, !content.items[index].disabled else { return }
        if case .toggle(let isOn) = content.items[index].accessory {
            content.items[index].accessory = .toggle(isOn: !isOn)
            list.contentChanged()
            out.append(.content(ContentEventReport(time: time, event: .itemToggled(item: index, isOn: !isOn))))
            publish(at: time, into: &out)
            return
        }
        out.append(.content(ContentEventReport(time: time, event: .itemTapped(item: index))))
    }

    private mutating func moveFocus(to slot: Int?, at time: Timestamp, into out: inout [EngineOutput]) {
        guard let slot else { return }
        focus.target = slotTarget(slot)
        reveal(at: time, into: &out)
    }

    /// The focused row scrolled into what the card shows where it rests or is going. A row
    /// that the list cannot scroll up far enough at that detent raises the sheet to its highest
    /// first, as a finger's scroll does (`moveNested`).
    private mutating func reveal(at time: Timestamp, into out: inout [EngineOutput]) {
        guard case .item(let index) = focus.target, let position = list.order.firstIndex(of: index) else { return }
        let titleBar = configuration.list.titleBarHeightInPoints, height = configuration.screen.heightInPoints
        var top = (sheet.targetDetentIndex ?? sheet.detentIndex).map { sheet.detents[$0].topInPoints } ?? sheet.top
        let bottom = list.layout.top(position) + list.layout.heights[position]
        if bottom > list.maximumOffset + height - top - titleBar, sheet.kind != .dragging {
            feedSheetAsKey(.present(detent: 0, time), into: &out)
            top = sheet.detents.topmost.topInPoints
        }
        feedList(.reveal(position: position, visibleHeight: height - top - titleBar, time), into: &out)
    }

    // MARK: Reading order
    //
    // A slot is a place in reading order: -1 the close button, 0… the list's positions.

    static var closeSlotIndex: Int { -1 }

    /// The close button takes the focus where a person may close the sheet (it is drawn then).
    private var closeSlot: Int? { sheet.presentation.canClose ? Self.closeSlotIndex : nil }

    // The slots' reads are `mutating get` though they change nothing: called on a `self` being
    // mutated, a plain getter copied the whole engine (3,338 bytes) on every key.
    private var focusSlot: Int? {
        mutating get {
            switch focus.target {
            case .none: return nil
            case .close: return Self.closeSlotIndex
            case .item(let index): return list.order.firstIndex(of: index)
            }
        }
    }

    private func slotTarget(_ slot: Int?) -> FocusTarget {
        guard let slot else { return .none }
        return slot == Self.closeSlotIndex ? .close : .item(list.order[slot])
    }

    private func takesFocus(_ slot: Int) -> Bool {
        if slot == Self.closeSlotIndex { return closeSlot != nil }
        return slot >= 0 && slot < list.order.count && !content.items[list.order[slot]].disabled
    }

    private var firstSlot: Int? {
        mutating get { closeSlot ?? firstItemSlot }
    }
    private var firstItemSlot: Int? {
        mutating get {
            step(from: Self.closeSlotIndex, by: 1, wrapping: false, itemsOnly: true).flatMap { $0 >= 0 ? $0 : nil }
        }
    }
    private var lastItemSlot: Int? {
        mutating get { step(from: list.order.count, by: -1, wrapping: false, itemsOnly: true) }
    }

    /// The next slot that takes the focus from `slot` (nil: from before the first, or after the
    /// last going back), or nil where there is none.
    // Mutating, as the slots' reads above, so that no call copies the engine.
    private mutating func step(from slot: Int?, by delta: Int, wrapping: Bool, itemsOnly: Bool = false) -> Int? {
        let lowest = itemsOnly ? 0 : Self.closeSlotIndex, count = list.order.count
        let span = count - lowest
        guard span > 0 else { return nil }
        var current = slot ?? (delta > 0 ? lowest - 1 : count)
        for _ in 0..<span {
            current += delta
            if current < lowest || current >= count {
                guard wrapping else { return slot.flatMap { takesFocus($0) ? $0 : nil } }
                current = current < lowest ? count - 1 : lowest
            }
            if takesFocus(current) { return current }
        }
        return slot.flatMap { takesFocus($0) ? $0 : nil }
    }

    // MARK: Keeping the focus

    /// After new content: the focus stays on the item with the same id, if it can take it.
    mutating func refocus(afterItems old: [SheetItem]) {
        guard case .item(let index) = focus.target else { return }
        let id = index < old.count ? old[index].id : nil
        if let id, let found = content.items.firstIndex(where: { $0.id == id }), !content.items[found].disabled {
            focus.target = .item(found)
        } else {
            focus.target = .none
        }
    }

    /// The focus goes with the sheet; a touch hides the ring (and keeps the focus).
    mutating func focusFollowsSheet() {
        if !sheet.isShown { focus = .none }
    }

    /// The focus leaves what no longer takes it: the sheet gone, the close button a person may
    /// no longer use (it is not drawn), an item now disabled or gone.
    mutating func focusFitsSheet() {
        switch focus.target {
        case .none: break
        case .close: if closeSlot == nil { focus = .none }
        case .item(let index): if index >= content.items.count || content.items[index].disabled { focus = .none }
        }
        focusFollowsSheet()
    }

    /// The one-switch scan: the next step due `switchScan` after now while the sheet is shown.
    mutating func restartScan(at time: Timestamp) {
        guard let interval = configuration.focus.switchScanMicroseconds else { return }
        scanDeadline = sheet.isShown ? time.adding(microseconds: interval) : nil
    }

    /// The scan's step: the focus moves on, its ring shown.
    mutating func scanStep(at time: Timestamp, into out: inout [EngineOutput]) {
        scanDeadline = nil
        guard sheet.isShown else { return }
        // A finger has the sheet or an item: the scan waits a step.
        guard sheet.kind != .dragging, list.state.kind != .reordering else {
            restartScan(at: time)
            return
        }
        focus.visible = true
        focusCause = .keys
        moveFocus(to: step(from: focusSlot, by: 1, wrapping: true), at: time, into: &out)
        restartScan(at: time)
        publish(at: time, into: &out)
    }
}
