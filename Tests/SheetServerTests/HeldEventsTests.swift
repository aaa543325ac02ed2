import SheetCore
import SheetProtocol
@testable import SheetServer
import Testing

/// The events a program's sheets said while it followed none are held for its first
/// `Monitor`, in order, bounded by sheet and by program, the dropped ones counted.
struct HeldEventsTests {
    static func tap(_ sheet: String, _ index: Int) -> SheetEvent {
        var event = SheetEvent(kind: .itemTapped, item: "item-\(index)")
        event.sheet = sheet
        return event
    }

    @Test func aSheetKeepsItsNewest64() {
        var held = HeldEvents()
        held.hold((0..<100).map { Self.tap("sheet-1", $0) }, for: 1)
        held.hold([Self.tap("sheet-2", 0)], for: 2)
        let taken = held.take(1)
        #expect(taken.events.count == HeldEvents.perSheet && taken.dropped == 100 - HeldEvents.perSheet)
        #expect(taken.events.first?.item == "item-36" && taken.events.last?.item == "item-99")
        #expect(held.take(1).events.isEmpty, "taken once")
        #expect(held.take(2).events.map(\.item) == ["item-0"], "another program's are its own")
    }

    /// A program that opens and closes sheets for ever and never follows holds no more than
    /// one with every sheet it may have open.
    @Test func aProgramKeepsNoMoreThanItsSheetsAtOnce() {
        var held = HeldEvents()
        for sheet in 1...100 { held.hold((0..<10).map { Self.tap("sheet-\(sheet)", $0) }, for: 1) }
        let taken = held.take(1)
        #expect(taken.events.count == HeldEvents.perProgram && taken.dropped == 1000 - HeldEvents.perProgram)
        #expect(taken.events.last?.sheet == "sheet-100")
    }
}
