import SheetCore
import SheetRenderKit
import Testing

/// Lines laid out in terminal cells: wide characters take two, marks none, right-to-left runs
/// in visual order, and an overlong line ends in "…" where it logically ends.
@Suite struct TerminalTextTests {
    @Test func eastAsianWideCharactersTakeTwoCells() {
        #expect(TerminalText.cells("설정 A", columns: 40, direction: .leftToRight) == ["설", "", "정", "", " ", "A"])
        #expect(TerminalText.cells("日本", columns: 40, direction: .leftToRight) == ["日", "", "本", ""])
        #expect(TerminalText.cells("🔋", columns: 40, direction: .leftToRight) == ["🔋", ""])
    }

    @Test func aCombiningMarkJoinsTheCellBeforeIt() {
        let cells = TerminalText.cells("e\u{301}x", columns: 40, direction: .leftToRight)
        #expect(cells == ["e\u{301}", "x"])
    }

    @Test func rightToLeftTextIsInVisualOrderAndJoined() {
        let cells = TerminalText.cells("שלום abc", columns: 40, direction: .rightToLeft)
        #expect(cells.joined() == "abc םולש", "the Latin run keeps its order, the Hebrew one is reversed, and it reads from the right")
        let arabic = TerminalText.cells("باب", columns: 40, direction: .rightToLeft)
        #expect(arabic.count == 3)
        #expect(arabic.allSatisfy { $0.unicodeScalars.allSatisfy { (0xFE70...0xFEFF).contains($0.value) } },
                "Arabic letters in their joined presentation forms: \(arabic.map { $0.unicodeScalars.map { String($0.value, radix: 16) } })")
    }

    @Test func anOverlongLineEndsInAnEllipsisWhereItEnds() {
        #expect(TerminalText.cells("abcdefgh", columns: 5, direction: .leftToRight) == ["a", "b", "c", "d", "…"])
        // A wide character cut in half leaves a blank, not half a glyph.
        #expect(TerminalText.cells("설정설정", columns: 4, direction: .leftToRight) == ["설", "", " ", "…"])
        let hebrew = TerminalText.cells("אבגדהו", columns: 4, direction: .rightToLeft)
        #expect(hebrew == ["…", "ג", "ב", "א"], "right to left, the line ends on the left")
        #expect(TerminalText.cells("", columns: 4, direction: .leftToRight).isEmpty)
        #expect(TerminalText.cells("a\u{7}b", columns: 4, direction: .leftToRight) == ["a", "b"], "a control takes no cell")
    }
}
