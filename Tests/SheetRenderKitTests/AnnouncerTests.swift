import SheetCore
import SheetProtocol
import Testing
@testable import SheetRenderKit

/// What `Announcer` says as states come, without a speech server (SpeechTests has one).
@Suite struct AnnouncerTests {
    static let content = SheetContent(title: "Tickets", items: [
        SheetItem(id: "single", label: "Single", subtitle: "2.80 €", accessory: .check(isChecked: true), section: "Fares"),
        SheetItem(id: "day", label: "Day pass", accessory: .check(isChecked: false)),
        SheetItem(id: "guide", label: "Spoken guidance", accessory: .toggle(isOn: false), section: "Help"),
        SheetItem(id: "more", label: "More", accessory: .chevron, disabled: true),
        SheetItem(id: "zone", label: "Zone", accessory: .value("A+B")),
    ])

    func state(_ kind: SheetMachine.StateKind, _ detent: DetentName?, target: DetentName? = nil,
               focus: FocusedElement? = nil) -> SheetState {
        SheetState(state: kind, detent: detent, target: target, topInPixels: 960, progress: 0.5, dim: 0.5,
                   velocityInPixelsPerSecond: 0, screen: ScreenSize(widthInPixels: 1080, heightInPixels: 1920),
                   cause: .initial, detents: [], focus: focus)
    }

    @Test func itSaysTheOpeningTheFocusAValueChangeAndTheClosingAndNothingInADrag() {
        var announcer = Announcer()
        #expect(announcer.utterances(for: state(.resting, .hidden), content: Self.content) == [])
        #expect(announcer.utterances(for: state(.dragging, nil), content: Self.content) == [], "a drag says nothing")
        #expect(announcer.utterances(for: state(.settling, nil, target: .half), content: Self.content)
                == ["Tickets, sheet, half open"])
        #expect(announcer.utterances(for: state(.resting, .half), content: Self.content) == [], "the same place again")
        #expect(announcer.utterances(for: state(.resting, .half, focus: .item("single")), content: Self.content)
                == ["Single, 2.80 €, checked, 1 of 2"])
        #expect(announcer.utterances(for: state(.resting, .half, focus: .item("guide")), content: Self.content)
                == ["Spoken guidance, switch, off, 1 of 3"])
        var flipped = Self.content
        flipped.items[2].accessory = .toggle(isOn: true)
        #expect(announcer.utterances(for: state(.resting, .half, focus: .item("guide")), content: flipped) == ["on"])
        #expect(announcer.utterances(for: state(.resting, .half, focus: .item("more")), content: flipped)
                == ["More, button, dimmed, 2 of 3"])
        #expect(announcer.utterances(for: state(.resting, .expanded, focus: .close), content: flipped) == ["Close, button"])
        #expect(announcer.utterances(for: state(.resting, .hidden), content: flipped) == ["Tickets, sheet, closed"])
    }

    /// Another program's sheet shown in the place of the last (OpenSheet), or one coming back
    /// as the sheet over it goes: said as it opens, where it rests.
    @Test func anotherProgramsSheetShownIsSaidAsItOpens() {
        var announcer = Announcer()
        _ = announcer.utterances(for: state(.resting, .half), content: Self.content)
        var media = state(.resting, .expanded)
        media.stacked = StackedSheets(sheet: "sheet-2", stack: ["sheet-2"])
        let player = SheetContent(title: "Media", items: [SheetItem(id: "play", label: "Play")])
        #expect(announcer.utterances(for: media, content: player) == ["Media, sheet, fully open"])
        #expect(announcer.utterances(for: media, content: player) == [])
        #expect(announcer.utterances(for: state(.resting, .half, focus: .item("single")), content: Self.content)
                == ["Tickets, sheet, half open", "Single, 2.80 €, checked, 1 of 2"], "the shared sheet back, with its focus")
    }

    @Test func aSheetWithoutATitleIsASheet() {
        var announcer = Announcer()
        #expect(announcer.utterances(for: state(.resting, .expanded), content: nil) == ["Sheet, fully open"])
        #expect(announcer.utterances(for: state(.resting, .hidden), content: nil) == ["Sheet, closed"])
    }
}
