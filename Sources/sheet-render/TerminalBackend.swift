#if canImport(Glibc)
import Glibc
#endif
import SheetProtocol
import SheetRenderKit

/// `--backend term`: the sheet in a terminal, for SSH sessions and demos. Each character cell
/// is two pixels, one above the other: `▀` in the upper pixel's colour over the lower's (24-bit
/// colour, which current terminals and tmux take). The title and the close mark are written as
/// text on the card. Only the cell rows that changed are written again; the terminal's own
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
    /// The cell row that holds the title now, which the next frame must also redraw.
    private var titleLine: Int?
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
        try writeAll(output, Array("\u{1B}[2J".utf8), naming: "the terminal")
    }

    func show(_ state: SheetState) throws(RenderError) -> Presentation {
        let scene = SheetScene(state, width: columns, height: lines * 2, look: looks.look(width: columns, height: lines * 2))
        guard let rows = scene.damage(since: drawn) else { return .shown(rows: nil) }
        painter.draw(scene, into: canvas, rows: rows)
        drawn = scene

        // Cell rows to write: those the damaged pixel rows touch, and the title's old and new rows.
        let title = titlePlacement(scene)
        var cells = Set((rows.lowerBound / 2)..<((rows.upperBound + 1) / 2))
        if let titleLine { cells.insert(titleLine) }
        if let title { cells.insert(title.line) }
        titleLine = title?.line

        var text = ""
        for line in cells.sorted() where line < lines {
            text += "\u{1B}[\(line + 1);1H"
            var previous: (RGB, RGB)?
            for column in 0..<columns {
                let upper = canvas.pixel(x: column, y: line * 2), lower = canvas.pixel(x: column, y: line * 2 + 1)
                if previous.map({ $0.0 != upper || $0.1 != lower }) ?? true {
                    text += "\u{1B}[38;2;\(upper.r);\(upper.g);\(upper.b);48;2;\(lower.r);\(lower.g);\(lower.b)m"
                    previous = (upper, lower)
                }
                if let title, line == title.line, let character = title.character(column) {
                    // Text on the card: the card's colour behind, the title's in front.
                    let card = scene.look.card, ink = scene.look.title
                    text += "\u{1B}[38;2;\(ink.r);\(ink.g);\(ink.b);48;2;\(card.r);\(card.g);\(card.b)m\(character)"
                    previous = nil
                } else {
                    text += "▀"
                }
            }
        }
        text += "\u{1B}[0m"
        try writeAll(output, Array(text.utf8), naming: "the terminal")
        return .shown(rows: rows)
    }

    /// Where the title and the close mark go: the second cell row wholly on the card, when the
    /// card shows that much.
    private func titlePlacement(_ scene: SheetScene) -> (line: Int, character: (Int) -> Character?)? {
        let line = Int((scene.top / 2).rounded(.up)) + 1
        guard line < lines, columns >= 12 else { return nil }
        let title = Array(scene.look.titleText.prefix(columns - 8))
        let closeColumn = columns - 3
        return (line, { column in
            if column >= 2 && column < 2 + title.count { return title[column - 2] }
            if column == closeColumn { return "×" }
            return nil
        })
    }

    func finish() throws(RenderError) -> Bool {
        guard entered else { return false }
        entered = false
        try writeAll(output, Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l".utf8), naming: "the terminal")
        return false
    }
}
