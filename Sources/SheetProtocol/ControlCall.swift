import SheetCore

extension Engine {
    /// What a control call does to the sheet, and what it answers: the one mapping from a
    /// call to the engine, used by the daemon and by the fuzzer's harness, so that what one
    /// refuses the other refuses too. A call that changes nothing (the screen or reduced motion
    /// as they are) emits nothing; the caller publishes what `out` holds.
    public mutating func perform(_ request: ControlRequest, at time: Timestamp, into out: inout [EngineOutput]) -> ControlResult {
        switch request {
        case .present(nil):
            perform(SheetCommand.present(nil), at: time, into: &out)
        case .present(let detent?):
            // A name a detent could not have is unknown as any other.
            guard let name = DetentName(detent), perform(SheetCommand.present(name), at: time, into: &out) == .done else {
                return unknownDetent(detent)
            }
        case .dismiss(let force):
            if perform(SheetCommand.dismiss(force: force), at: time, into: &out) == .guarded { return .guarded }
        case .setDetent(let detent):
            guard let name = DetentName(detent), perform(SheetCommand.setDetent(name), at: time, into: &out) == .done else {
                return unknownDetent(detent)
            }
        case .setContent(let change):
            let content = change.applied(to: content)
            if change.items != nil {
                setContent(content, at: time, into: &out)
            } else {
                // A title alone keeps the items, their order, the scroll and a reorder.
                setTitle(content.title, guarded: content.guarded, at: time, into: &out)
            }
        case .setScreen(let width, let height, let scale):
            let scale = scale ?? configuration.screen.scale
            if let reason = ScreenSize.refusal(width: width, height: height, scale: scale) { return .invalidScreen(reason) }
            let screen = ScreenSize(widthInPixels: width, heightInPixels: height, scale: scale)
            guard screen != configuration.screen else { return .done }
            var configuration = configuration
            configuration.screen = screen
            reconfigure(configuration, at: time, into: &out)
        case .setReduceMotion(let enabled):
            guard enabled != configuration.sheet.reduceMotion else { return .done }
            perform(SheetCommand.setReduceMotion(enabled), at: time, into: &out)
        case .setAppearance(let change):
            setAppearance(change.applied(to: appearance), at: time, into: &out)
        case .focus(let element, let command):
            if let element {
                if let refusal = focus(on: focusTarget(named: element), at: time, into: &out) {
                    return .cannotFocus(element, reason: refusal.reason)
                }
            }
            if let command { perform(command, at: time, into: &out) }
        case .setPresentation(let change):
            // Held to the limits when the call was read; what passed applies to any presentation.
            // The presentation as set (a bar height given while the bar is off included), which
            // the machine holds but for the bar's shape.
            let presentation = change.applied(to: configuration.sheet.presentation)
            guard presentation != configuration.sheet.presentation else { return .done }
            perform(SheetCommand.setPresentation(presentation), at: time, into: &out)
        }
        return .done
    }

    private func unknownDetent(_ name: String) -> ControlResult {
        .unknownDetent(name, known: sheet.detents.detents.map(\.name.description))
    }
}

extension Engine {
    /// What a `Focus` call's element names: `close`, or an item by its id (none when no item has it).
    public func focusTarget(named element: String) -> FocusTarget {
        element == "close" ? .close : content.items.firstIndex { $0.id == element }.map(FocusTarget.item) ?? .none
    }
}
