import Testing
@testable import SheetCore

/// Which program's sheet is shown (`SheetStack`), without a daemon.
@Suite struct SheetStackTests {
    @Test func aNewerAppSheetGoesOverAnOlderOneAndASystemSheetOverBoth() throws {
        var stack = SheetStack()
        #expect(stack.shown == nil, "no program's sheet: the shared one")
        let aOpened = stack.open(owner: 1, layer: .app)
        let a = try #require(aOpened)
        let staffOpened = stack.open(owner: 3, layer: .system)
        let staff = try #require(staffOpened)
        let bOpened = stack.open(owner: 2, layer: .app)
        let b = try #require(bOpened)
        #expect(stack.shown == staff, "an app sheet opened under a system sheet waits beneath it")
        #expect(stack.presented == [a, b, staff])
        stack.close(staff)
        #expect(stack.shown == b)
        stack.dismiss(b)
        #expect(stack.shown == a && stack.presented == [a], "dismissed, B rests beneath")
        stack.present(b)
        #expect(stack.shown == b && stack.presented == [a, b])
        stack.present(a)
        #expect(stack.shown == a && stack.presented == [b, a], "presented again: the top of its layer")
        #expect(stack.topmost(ownedBy: 2) == b && stack.topmost(ownedBy: 9) == nil)
    }

    @Test func idsAreNeverReusedAndReadBackOnlyAsWritten() throws {
        var stack = SheetStack()
        let firstOpened = stack.open(owner: 1, layer: .app)
        let first = try #require(firstOpened)
        stack.close(first)
        let secondOpened = stack.open(owner: 1, layer: .app)
        let second = try #require(secondOpened)
        #expect(first.description == "sheet-1" && second.description == "sheet-2")
        #expect(SheetStack.ID("sheet-2") == second)
        for text in ["sheet-0", "sheet-02", "sheet-", "sheet-x", "Sheet-1", "sheet-+1", "sheet-99999999999999999999999"] {
            #expect(SheetStack.ID(text) == nil, "\(text)")
        }
    }

    @Test func limitsHoldPerOwnerAndInAll() {
        var limits = SheetStack.Limits()
        limits.perOwner = 2
        limits.all = 3
        var stack = SheetStack(limits: limits)
        let opened = [stack.open(owner: 1, layer: .app), stack.open(owner: 1, layer: .app), stack.open(owner: 1, layer: .app)]
        #expect(opened.map { $0 != nil } == [true, true, false] && stack.limit(for: 1) == 2)
        let system = stack.open(owner: 2, layer: .system), more = stack.open(owner: 3, layer: .app)
        #expect(system != nil && more == nil && stack.limit(for: 3) == 3)
        #expect(stack.sheets(ownedBy: 1).count == 2)
    }
}
