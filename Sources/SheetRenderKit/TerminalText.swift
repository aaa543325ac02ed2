import CPangoCairo
import SheetCore
#if canImport(Glibc)
import Glibc
#endif

/// Text laid out for a terminal's character cells, which have no bidirectional layout or
/// shaping of their own: FriBidi puts the line in visual order (right-to-left runs reversed,
/// Arabic letters in their joined presentation forms, brackets mirrored) and glibc's `wcwidth`
/// says how many cells each character takes (two for East Asian wide characters and emoji,
/// none for a combining mark, which joins the cell before it).
public enum TerminalText {
    /// The most characters of a line that are laid out; the rest could never fit a terminal.
    static let maximumScalars = 1024

    /// `text` in visual order, one element per cell: a wide character's second cell is "",
    /// which the terminal fills as it writes the first. At most `columns` cells: a longer line
    /// ends in "…" where it logically ends (on the left when it reads right to left).
    public static func cells(_ text: String, columns: Int, direction: TextDirection) -> [String] {
        guard columns > 0, !text.isEmpty else { return [] }
        var logical = text.unicodeScalars.prefix(maximumScalars).map { FriBidiChar($0.value) }
        var visual = [FriBidiChar](repeating: 0, count: logical.count)
        var paragraph = sheet_fribidi_paragraph(direction == .rightToLeft ? 1 : 0)
        let level = fribidi_log2vis(&logical, FriBidiStrIndex(logical.count), &paragraph, &visual, nil, nil, nil)
        if level == 0 { visual = logical }
        var cells: [String] = []
        withUTF8Locale {
            for value in visual {
                guard let scalar = Unicode.Scalar(value) else { continue }
                let width = sheet_wcwidth(value)
                if width == 0, !cells.isEmpty {
                    // A combining mark: with its base, in the base's cell (or its first).
                    let base = cells.last == "" ? cells.count - 2 : cells.count - 1
                    cells[base].unicodeScalars.append(scalar)
                } else if width == 1 {
                    cells.append(String(scalar))
                } else if width == 2 {
                    cells.append(String(scalar))
                    cells.append("")
                }
                // Controls (width -1) and a mark with nothing before it take no cell.
            }
        }
        guard cells.count > columns else { return cells }
        if direction == .rightToLeft {
            var kept = Array(cells.suffix(columns - 1))
            if kept.first == "" { kept[0] = " " }
            return ["…"] + kept
        }
        var kept = Array(cells.prefix(columns - 1))
        if kept.count >= 1, cells[kept.count] == "" { kept[kept.count - 1] = " " }
        return kept + ["…"]
    }

    /// The C.UTF-8 locale for this thread while `body` runs: `wcwidth` knows widths only in
    /// a UTF-8 locale, and the process's own stays as it is.
    private static func withUTF8Locale(_ body: () -> Void) {
        guard let locale = utf8Locale.locale else { return body() }
        let previous = uselocale(locale)
        defer { uselocale(previous) }
        body()
    }

    private struct Locale: @unchecked Sendable { let locale: locale_t? }
    private static let utf8Locale = Locale(locale: newlocale(LC_CTYPE_MASK, "C.UTF-8", nil))
}
