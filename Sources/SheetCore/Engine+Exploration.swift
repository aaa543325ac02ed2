/// Explore by touch (`TouchExplorer`), wired to the focus and the gestures: the fingers the
/// sheet owns go to the explorer; its single finger, two fingers' midpoint, goes through the
/// gestures on the last slot, which no real finger uses while exploring; the fingers the sheet
/// does not own (beside a non-modal card) pass to the windows as ever.
extension Engine {
    /// The slot of the explorer's one finger in the gestures.
    var explorationSlot: Int { slotDown.count - 1 }

    mutating func explore(_ frame: TouchFrame, into out: inout [EngineOutput]) {
        let time = frame.time
        for contact in frame.contacts {
            let slot = contact.slot
            // The explorer keeps its fingers in a 32-bit set; the last slot is its own finger's.
            guard slot >= 0, slot < min(32, explorationSlot) else { continue }
            let point = contact.positionInPixels
            let explored = explorer.held & (1 << UInt32(slot)) != 0
            switch contact.phase {
            case .down:
                if explored {  // a down on a busy slot: the old contact ends first
                    activeTouchCount -= 1
                    handleExplorer(.cancel(slot: slot, time), into: &out)
                }
                guard !slotDown[slot], sheet.owns(points(point), source) else {
                    handle(contact, at: time, into: &out)
                    continue
                }
                activeTouchCount += 1
                handleExplorer(.down(slot: slot, point, time), into: &out)
            case .move:
                if explored { handleExplorer(.move(slot: slot, point, time), into: &out) } else { handle(contact, at: time, into: &out) }
            case .up:
                guard explored else { handle(contact, at: time, into: &out); continue }
                activeTouchCount -= 1
                handleExplorer(.up(slot: slot, point, time), into: &out)
            case .cancel:
                guard explored else { handle(contact, at: time, into: &out); continue }
                activeTouchCount -= 1
                handleExplorer(.cancel(slot: slot, time), into: &out)
            }
        }
    }

    mutating func handleExplorer(_ event: TouchExplorer.Event, into out: inout [EngineOutput]) {
        let time: Timestamp
        switch event {
        case .down(_, _, let at), .move(_, _, let at), .up(_, _, let at), .cancel(_, let at), .timeout(let at): time = at
        }
        let effect = explorer.handle(event)
        explorationDeadline = explorer.deadline
        let slot = explorationSlot
        switch effect {
        case .none: break
        case .explore(let point):
            focusCause = .user
            focusWhatIsUnder(point, at: time, into: &out)
        case .activate: perform(.activate, at: time, by: .user, into: &out)
        case .next: perform(.next, at: time, by: .user, into: &out)
        case .previous: perform(.previous, at: time, by: .user, into: &out)
        case .passDown(let point): handle(Contact(slot: slot, phase: .down, positionInPixels: point), at: time, into: &out)
        case .passMove(let point): handle(Contact(slot: slot, phase: .move, positionInPixels: point), at: time, into: &out)
        case .passUp(let point): handle(Contact(slot: slot, phase: .up, positionInPixels: point), at: time, into: &out)
        case .passCancel: handle(Contact(slot: slot, phase: .cancel, positionInPixels: .zero), at: time, into: &out)
        }
    }

    /// The explorer's fingers in `slots` cancelled (their input ended).
    mutating func cancelExplored(in slots: Range<Int>, at time: Timestamp, into out: inout [EngineOutput]) {
        for slot in slots.clamped(to: 0..<min(32, explorationSlot)) where explorer.held & (1 << UInt32(slot)) != 0 {
            activeTouchCount -= 1
            handleExplorer(.cancel(slot: slot, time), into: &out)
        }
    }

    /// Before exploration turns on or off (`SetPresentation`): a gesture in progress ends, its
    /// fingers cancelled the way they were taken.
    mutating func endTouchesForExploration(at time: Timestamp, into out: inout [EngineOutput]) {
        cancelAllTouches(at: time, into: &out)
        explorer.reset()
        explorationDeadline = nil
    }
}

extension Engine {
    /// Headphones plugged or pulled (a headphone switch the daemon reads): with `speech:
    /// headset` the sheet is spoken while they are in, and explored by touch unless that is set
    /// off. A finger down when exploration comes or goes is cancelled, as at run time.
    public mutating func setHeadphones(_ plugged: Bool, at time: Timestamp, into out: inout [EngineOutput]) {
        var presentation = configuration.sheet.presentation
        guard presentation.headphonesPlugged != plugged else { return }
        presentation.headphonesPlugged = plugged
        perform(SheetCommand.setPresentation(presentation), at: time, into: &out)
    }
}
