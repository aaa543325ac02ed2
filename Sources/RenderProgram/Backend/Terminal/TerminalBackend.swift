#if canImport(Glibc)
import Glibc
#endif
import SheetCore
import SheetProtocol
import SheetRenderKit

/// `--backend term`: the sheet in a terminal, for SSH sessions and demos. Each character cell
/// is two pixels, one above the other: `▀` in the upper pixel's colour over the lower's (24-bit
/// colour, which current terminals and tmux take). The title, the close mark and the list's
/// rows are written as text on the card, a row a line, the picked-up one highlighted. Only the cell rows that changed are written again; the terminal's own
/// screen comes back on exit (the alternate screen).
final class TerminalBackend: Backend {
    let name = "term"
    let displaySize: (width: Int, height: Int)? = nil
    private let output: Int32
    private let painter = Painter()
    private var canvas: Canvas
    private var columns: Int
    private var lines: Int
    private var drawn: SheetScene?
    /// The text on the screen by line (the title, the list's rows), which the next frame
    /// rewrites where it changes.
    private var written: [Int: TextLine] = [:]
    private let looks: Looks
    private var entered = false

    init(output: Int32 = 1, looks: Looks) throws(RenderError) {
        guard isatty(output) == 1 else {
            throw .unavailable("the term backend draws on a terminal, and standard output is not one")
        }
        self.output = output
        self.looks = looks
        (columns, lines) = try Self.size(of: output)
        canvas = Canvas(width: columns, height: lines * 2, format: .xrgb8888)
        // The alternate screen, no cursor, nothing of the shell's left behind.
        try writeAll(output, Array("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J".utf8), naming: "the terminal")
        entered = true
    }

    static func size(of descriptor: Int32) throws(RenderError) -> (columns: Int, lines: Int) {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0 else { throw .system("the terminal's size") }
        guard size.ws_col >= 8, size.ws_row >= 4 else {
            throw .unavailable("the terminal is \(size.ws_col)x\(size.ws_row); the sheet needs at least 8x4")
        }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    func resized() throws(RenderError) {
        (columns, lines) = try Self.size(of: output)
        canvas = Canvas(width: columns, height: lines * 2, format: .xrgb8888)
        drawn = nil
        written = [:]
        try writeAll(output, Array("\u{1B}[2J".utf8), naming: "the terminal")
    }

    func show(_ state: SheetState, content: SheetContent?) throws(RenderError) -> Presentation {
        var scene = SheetScene(state, width: columns, height: lines * 2, content: content,
                               look: try looks.look(width: columns, height: lines * 2))
        // The list is text here, a line a row; the pixels are the card's. The focus is shown
        // in the text, in reverse video.
        let list = scene.list, focus = scene.focusRing
        scene.list = nil
        scene.focusRing = nil
        let rows = scene.damage(since: drawn)
        if let rows { painter.draw(scene, into: canvas, rows: rows) }
        drawn = scene

        // Cell rows to write: those the damaged pixel rows touch, and those whose text changed.
        let text = textLines(scene, list: list, focus: focus)
        var cells = Set<Int>()
        if let rows { cells.formUnion((rows.lowerBound / 2)..<((rows.upperBound + 1) / 2)) }
        for (line, content) in text where written[line] != content { cells.insert(line) }
        for line in written.keys where text[line] == nil { cells.insert(line) }
        written = text
        guard !cells.isEmpty else { return .shown(rows: nil) }

        var out = ""
        for line in cells.sorted() where line >= 0 && line < lines {
            out += "\u{1B}[\(line + 1);1H"
            var previous: (RGB, RGB)?
            let overlay = text[line]
            for column in 0..<columns {
                if let overlay, let character = overlay.character(column) {
                    // The second cell of a wide character: the terminal moved past it already.
                    if character.isEmpty { continue }
                    // Text on the card: its background (or the lifted row's) behind, ink in front:
                    // a header and a disabled row in the second line's colour, an accessory in the
                    // accent.
                    let ground = overlay.highlighted ? scene.look.separator : scene.look.card
                    let ink = overlay.isTrailing(column) ? scene.look.accent
                        : overlay.faint ? scene.look.secondaryLabel : scene.look.label
                    let reverse = overlay.isFocused(column) ? 7 : 27
                    out += "\u{1B}[\(reverse);38;2;\(ink.r);\(ink.g);\(ink.b);48;2;\(ground.r);\(ground.g);\(ground.b)m\(character)"
                    previous = nil
                    continue
                }
                let upper = canvas.pixel(x: column, y: line * 2), lower = canvas.pixel(x: column, y: line * 2 + 1)
                if previous.map({ $0.0 != upper || $0.1 != lower }) ?? true {
                    out += "\u{1B}[27;38;2;\(upper.r);\(upper.g);\(upper.b);48;2;\(lower.r);\(lower.g);\(lower.b)m"
                    previous = (upper, lower)
                }
                out += "▀"
            }
        }
        out += "\u{1B}[0m"
        try writeAll(output, Array(out.utf8), naming: "the terminal")
        return .shown(rows: rows)
    }

    /// A line of text over the card: the title with the close mark, a row of the list with its
    /// accessory as text at the trailing edge (`on`, `off`, `✓`, `›`, a value), or a section's
    /// header, in cells (`TerminalText`: visual order, a wide character's second cell empty),
    /// within the card's columns.
    struct TextLine: Equatable {
        var cells: [String]
        var trailing: [String]
        /// The card's columns: the whole terminal, or a narrower card's.
        var card: Range<Int>
        var close: Bool
        /// Right to left: set against the right edge, the close mark on the left.
        var rightToLeft: Bool
        /// The picked-up row: the whole line on a darker ground.
        var highlighted: Bool
        /// A header or a disabled row: drawn in the second line's colour.
        var faint: Bool
        /// The focused row (the whole line across the card), or the title line's close mark,
        /// drawn in reverse video.
        var focused = false
        var closeFocused = false

        init(_ text: String, card: Range<Int>, close: Bool = false, highlighted: Bool = false, faint: Bool = false,
             accessory: ItemAccessory? = nil) {
            let direction = TextDirection.of(text)
            rightToLeft = direction == .rightToLeft
            var mark = ""
            switch accessory {
            case .toggle(let isOn): mark = isOn ? "on" : "off"
            case .check(let isChecked): mark = isChecked ? "✓" : ""
            case .chevron: mark = "›"
            case .value(let value): mark = value
            case nil: break
            }
            trailing = mark.isEmpty ? [] : TerminalText.cells(mark, columns: max(card.count / 3, 1), direction: TextDirection.of(mark))
            let room = card.count - (close ? 8 : 4) - (trailing.isEmpty ? 0 : trailing.count + 1)
            cells = TerminalText.cells(text, columns: max(room, 1), direction: direction)
            self.card = card
            self.close = close
            self.highlighted = highlighted
            self.faint = faint
        }

        /// Where the accessory starts: 2 columns in from the trailing edge.
        private var trailingStart: Int { rightToLeft ? card.lowerBound + 2 : card.upperBound - 2 - trailing.count }

        private var closeColumn: Int { rightToLeft ? card.lowerBound + 2 : card.upperBound - 3 }

        func isFocused(_ column: Int) -> Bool {
            (focused && card.contains(column)) || (closeFocused && column == closeColumn)
        }

        func isTrailing(_ column: Int) -> Bool {
            !trailing.isEmpty && column >= trailingStart && column < trailingStart + trailing.count
        }

        /// What column `column` shows: a character, "" for the second cell of a wide one
        /// (nothing to write), or nil where the card's pixels show.
        func character(_ column: Int) -> String? {
            if close && column == closeColumn { return "×" }
            if isTrailing(column) { return trailing[column - trailingStart] }
            let start = rightToLeft ? card.upperBound - 2 - cells.count : card.lowerBound + 2
            if column >= start && column < start + cells.count { return cells[column - start] }
            return (highlighted || focused) && card.contains(column) ? " " : nil
        }
    }

    /// The text this frame shows, by line: the title on the second line wholly on the card,
    /// then, from two lines below it, the list a row a line, scrolled and reordered as the
    /// state says (a row's offset and the scroll counted in rows), cut at the screen's foot.
    private func textLines(_ scene: SheetScene, list: ListScene?, focus: SheetScene.FocusRing?) -> [Int: TextLine] {
        var text: [Int: TextLine] = [:]
        let titleLine = Int((scene.top / 2).rounded(.up)) + 1
        let card = Int(scene.cardLeft)..<Int(scene.cardLeft + scene.cardWidth)
        guard titleLine < lines, card.count >= 12 else { return text }
        text[titleLine] = TextLine(scene.title, card: card, close: scene.showsClose)
        text[titleLine]?.closeFocused = scene.showsClose && focus == .close
        guard let list else { return text }
        let firstLine = titleLine + 2
        guard firstLine < lines else { return text }
        // The same list a line a row: two canvas pixels are one line.
        let rows = 2 / list.itemHeight
        // Every row a line, two lines or one, and a section's header a line of its own.
        let lined = ListScene(items: list.items, titleBarHeight: Double(firstLine * 2) - scene.top, itemHeight: 2,
                              twoLineItemHeight: 2, headerHeight: 2, scroll: list.scroll * rows, othersScale: 1,
                              lifted: list.lifted.map { .init(position: $0.position, offset: $0.offset * rows, scale: 1, opacity: 1) },
                              moving: list.moving.map { .init(position: $0.position, offset: $0.offset * rows) },
                              height: lines * 2)
        lined.headers(top: scene.top, clip: Double(firstLine * 2)..<Double(lines * 2)) { title, y0, _ in
            let line = Int((y0 / 2).rounded(.down))
            guard line >= firstLine, line < lines else { return }
            text[line] = TextLine(title, card: card, faint: true)
        }
        lined.rows(top: scene.top, clip: Double(firstLine * 2)..<Double(lines * 2)) { row in
            let line = Int((row.centre / 2).rounded(.down))
            guard line >= firstLine, line < lines, text[line]?.highlighted != true else { return }
            let item = list.items[row.position]
            text[line] = TextLine(item.label, card: card, highlighted: row.isLifted, faint: item.disabled, accessory: item.accessory)
            text[line]?.focused = focus == .row(row.position)
        }
        return text
    }

    func finish() throws(RenderError) -> Bool {
        guard entered else { return false }
        entered = false
        try writeAll(output, Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l".utf8), naming: "the terminal")
        return false
    }
}
