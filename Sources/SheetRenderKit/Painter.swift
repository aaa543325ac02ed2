import SheetCore

#if canImport(Glibc)
import Glibc
#endif

/// Draws a `SheetScene` into a `Canvas`, row by row: rows away from the card's edge are single
/// fills (the dimmed background above, the card below), so a frame costs about what writing
/// its bytes once costs; only the rows around the edge and the decorations are worked out pixel
/// by pixel, with anti-aliasing from signed distances sampled at pixel centres.
public struct Painter: Sendable {
    /// How the title and the labels are drawn.
    public enum Text: Sendable {
        /// Set by Pango in any script, with fallback fonts, anti-aliased.
        case typeset(Typesetter)
        /// A Linux console font, whole pixels magnified: what is left when no fontconfig font
        /// loads. It has Latin, Greek and Cyrillic glyphs and nothing else.
        case console(PSF2Font)
        /// No text at all (the shapes alone).
        case none
    }

    public var text: Text
    /// The items' icons, from the icon theme; none drawn when nil.
    public var icons: IconCache?

    /// A painter with the console font, or with no text when `font` is nil.
    public init(font: PSF2Font? = nil) {
        text = font.map(Text.console) ?? .none
    }

    public init(typesetter: Typesetter, icons: IconCache? = nil) {
        text = .typeset(typesetter)
        self.icons = icons
    }

    /// The painter a renderer uses: Pango with the fontconfig pattern `font` (the system's
    /// sans-serif when empty), or, when no fontconfig font loads, the console font, with the
    /// reason to log. `fallback` is nil when the text is typeset.
    public static func standard(font: String = "") -> (painter: Painter, fallback: String?) {
        do {
            return (Painter(typesetter: try Typesetter(font: font), icons: IconCache()), nil)
        } catch {
            let console = PSF2Font.system()
            let used = console == nil ? "no text at all: no console font in \(PSF2Font.searchPaths.joined(separator: ", ")) either"
                                      : "the console font (Latin, Greek and Cyrillic only)"
            return (Painter(font: console), "text falls back to \(used): \(error.reason)")
        }
    }

    /// Draws rows `rows` of `scene` (every row when nil) into `canvas`, which has the scene's
    /// size.
    public func draw(_ scene: SheetScene, into canvas: Canvas, rows: Range<Int>? = nil) {
        precondition(canvas.width == scene.width && canvas.height == scene.height,
                     "a \(scene.width)x\(scene.height) scene on a \(canvas.width)x\(canvas.height) canvas")
        let rows = (rows ?? 0..<scene.height).clamped(to: 0..<scene.height)
        guard !rows.isEmpty else { return }
        let geometry = Geometry(scene)
        for y in rows {
            geometry.drawBase(row: y, into: canvas)
        }
        if scene.look.cardEdgePoints > 0 { geometry.drawCardEdge(rows: rows, into: canvas) }
        geometry.drawGrabber(rows: rows, into: canvas)
        if scene.showsClose { geometry.drawClose(rows: rows, into: canvas) }
        switch text {
        case .typeset(let typesetter): geometry.drawTitle(typesetter, rows: rows, into: canvas)
        case .console(let font): geometry.drawTitle(font: font, rows: rows, into: canvas)
        case .none: break
        }
        if let list = scene.list { geometry.drawList(list, text: text, icons: icons, rows: rows, into: canvas) }
        if let ring = scene.focusRing { geometry.drawFocusRing(ring, rows: rows, into: canvas) }
    }
}

/// Coverage of a pixel by a shape whose signed distance (px, negative inside) at the pixel's
/// centre is `distance`: a one-pixel-wide ramp across the edge.
@inline(__always)
func coverage(_ distance: Double) -> Double { min(max(0.5 - distance, 0), 1) }

/// A scene's shapes and colours, worked out once per frame.
struct Geometry {
    let scene: SheetScene
    let width: Int
    /// The card's edges (px, whole): `left..<right`, the dim on either side.
    let left: Double
    let right: Double
    let top: Double
    let radius: Double
    let dimmed: RGB
    /// How opaque `dimmed` is: 1, or the scene's dim when the look is see-through (and then
    /// `dimmed` is premultiplied by it).
    let dimAlpha: Double
    let card: RGB
    /// The backdrop, when the look has one of the scene's size, and what the dim makes of each
    /// channel value over it (exactly `RGB.over`, looked up instead of multiplied per pixel).
    let backdrop: [UInt8]?
    let dimRed: [UInt8], dimGreen: [UInt8], dimBlue: [UInt8]

    init(_ scene: SheetScene) {
        self.scene = scene
        width = scene.width
        left = scene.cardLeft
        right = scene.cardLeft + scene.cardWidth
        top = scene.top
        radius = scene.cornerRadius
        if scene.look.seeThrough {
            dimmed = scene.look.dim.over(.black, alpha: scene.dim)
            dimAlpha = scene.dim
        } else {
            dimmed = scene.look.dim.over(scene.look.background, alpha: scene.dim)
            dimAlpha = 1
        }
        card = scene.look.card
        if !scene.look.seeThrough, let picture = scene.look.backdrop, picture.width == scene.width, picture.height == scene.height {
            backdrop = picture.rgb
            let levels = (0...255).map { scene.look.dim.over(RGB(UInt8($0), UInt8($0), UInt8($0)), alpha: scene.dim) }
            dimRed = levels.map(\.r)
            dimGreen = levels.map(\.g)
            dimBlue = levels.map(\.b)
        } else {
            backdrop = nil
            dimRed = []
            dimGreen = []
            dimBlue = []
        }
    }

    /// The dimmed background at the pixel (x, y).
    @inline(__always)
    func behind(x: Int, y: Int) -> RGB {
        guard let backdrop else { return dimmed }
        let index = (y * width + x) * 3
        return RGB(dimRed[Int(backdrop[index])], dimGreen[Int(backdrop[index + 1])], dimBlue[Int(backdrop[index + 2])])
    }

    /// Signed distance from the card (rounded top corners, open below) at (px, py).
    @inline(__always)
    func cardDistance(_ px: Double, _ py: Double) -> Double {
        let cy = top + radius
        if py < cy {
            if px < left + radius { return hypot(px - (left + radius), py - cy) - radius }
            if px > right - radius { return hypot(px - (right - radius), py - cy) - radius }
        }
        // Below the corners: the nearest of the top and the two sides.
        return max(top - py, left - px, px - right)
    }

    /// The card over the dimmed background at the pixel (x, y), and how opaque that is (1
    /// unless the look is see-through).
    @inline(__always)
    func baseWithAlpha(x: Int, y: Int) -> (color: RGB, alpha: Double) {
        let covered = coverage(cardDistance(Double(x) + 0.5, Double(y) + 0.5))
        return (card.over(behind(x: x, y: y), alpha: covered), baseAlpha(cardCoverage: covered))
    }

    /// The card over the dimmed background at the pixel (x, y).
    @inline(__always)
    func base(x: Int, y: Int) -> RGB { baseWithAlpha(x: x, y: y).color }

    /// The opacity of the card over the dim where the card covers `cardCoverage` of a pixel.
    @inline(__always)
    func baseAlpha(cardCoverage: Double) -> Double { cardCoverage + dimAlpha * (1 - cardCoverage) }

    /// The dim above the card, the card, and the edge between. On a see-through look the dim
    /// has its alpha and the card's edge fades to it (premultiplied colours); on the others
    /// every alpha here is 1, which the opaque formats do not store.
    func drawBase(row y: Int, into canvas: Canvas) {
        let rowTop = Double(y)
        let cardLeft = Int(left), cardRight = Int(right)
        if rowTop + 1 <= top {
            drawDim(row: y, from: 0, to: width, into: canvas)
        } else if rowTop >= top + radius {
            drawDim(row: y, from: 0, to: cardLeft, into: canvas)
            canvas.fill(row: y, from: cardLeft, to: cardRight, card)
            drawDim(row: y, from: cardRight, to: width, into: canvas)
        } else {
            // The edge: the straight part shares one coverage; the corners are worked out.
            drawDim(row: y, from: 0, to: cardLeft, into: canvas)
            drawDim(row: y, from: cardRight, to: width, into: canvas)
            let corner = min(Int(radius.rounded(.up)) + 1, (cardRight - cardLeft + 1) / 2)
            let edge = coverage(top - (rowTop + 0.5))
            if backdrop == nil {
                canvas.fill(row: y, from: cardLeft + corner, to: cardRight - corner, card.over(dimmed, alpha: edge),
                            alpha: baseAlpha(cardCoverage: edge))
            } else {
                for x in (cardLeft + corner)..<max(cardLeft + corner, cardRight - corner) {
                    canvas.set(x: x, y: y, card.over(behind(x: x, y: y), alpha: edge))
                }
            }
            for offset in 0..<corner {
                let leftPixel = baseWithAlpha(x: cardLeft + offset, y: y), rightPixel = baseWithAlpha(x: cardRight - 1 - offset, y: y)
                canvas.set(x: cardLeft + offset, y: y, leftPixel.color, alpha: leftPixel.alpha)
                canvas.set(x: cardRight - 1 - offset, y: y, rightPixel.color, alpha: rightPixel.alpha)
            }
        }
    }

    /// A line just inside the card's edge (its top, its corners and, on a card narrower than
    /// the screen, its sides), in the text's colour.
    func drawCardEdge(rows: Range<Int>, into canvas: Canvas) {
        let line = max(scene.points(scene.look.cardEdgePoints), 1)
        let ink = scene.look.title
        func stroke(_ x: Int, _ y: Int) {
            let distance = cardDistance(Double(x) + 0.5, Double(y) + 0.5)
            let amount = coverage(abs(distance + line / 2) - line / 2)
            if amount > 0 { canvas.set(x: x, y: y, ink.over(canvas.pixel(x: x, y: y), alpha: amount)) }
        }
        let columns = Range(pixels: left - 1, right + 1).clamped(to: 0..<width)
        let band = Range(pixels: top - 1, top + max(radius, line) + 2).clamped(to: rows)
        for y in band { for x in columns { stroke(x, y) } }
        // The sides, below the corners, where the card leaves the dim beside it.
        guard left > 0 || right < Double(width) else { return }
        let sides = Range(pixels: top + max(radius, line) + 2, Double(scene.height)).clamped(to: rows)
        let leftColumns = Range(pixels: left - 1, left + line + 1).clamped(to: 0..<width)
        let rightColumns = Range(pixels: right - line - 1, right + 1).clamped(to: 0..<width)
        for y in sides {
            if left > 0 { for x in leftColumns { stroke(x, y) } }
            if right < Double(width) { for x in rightColumns { stroke(x, y) } }
        }
    }

    /// The dimmed background in pixels `x0..<x1` of row `y`.
    @inline(__always)
    func drawDim(row y: Int, from x0: Int, to x1: Int, into canvas: Canvas) {
        guard x0 < x1 else { return }
        if backdrop == nil {
            canvas.fill(row: y, from: x0, to: x1, dimmed, alpha: dimAlpha)
        } else {
            for x in x0..<x1 { canvas.set(x: x, y: y, behind(x: x, y: y)) }
        }
    }

    /// The grabber: a capsule above the card, faded with the sheet's progress.
    func drawGrabber(rows: Range<Int>, into canvas: Canvas) {
        let alpha = scene.grabberAlpha
        guard alpha > 0 else { return }
        let (x0, y0, x1, y1) = scene.grabber
        let r = (y1 - y0) / 2
        let columns = Range(pixels: x0 - 1, x1 + 1).clamped(to: 0..<width)
        for y in Range(pixels: y0 - 1, y1 + 1).clamped(to: rows) {
            let py = Double(y) + 0.5
            for x in columns {
                let px = Double(x) + 0.5
                // Distance to the segment between the two end-cap centres, minus the radius.
                let cx = min(max(px, x0 + r), x1 - r)
                let d = hypot(px - cx, py - (y0 + r)) - r
                let a = coverage(d) * alpha
                guard a > 0 else { continue }
                // Above the card, over the dim: on a see-through look, as opaque as what it covers.
                let below = baseWithAlpha(x: x, y: y)
                canvas.set(x: x, y: y, scene.look.grabber.over(below.color, alpha: a), alpha: a + below.alpha * (1 - a))
            }
        }
    }

    /// The close button: a filled circle with an × across it.
    func drawClose(rows: Range<Int>, into canvas: Canvas) {
        let (cx, cy, r) = scene.close
        let arm = r * 0.38, half = max(scene.points(1), 0.75)
        let columns = Range(pixels: cx - r - 1, cx + r + 1).clamped(to: 0..<width)
        for y in Range(pixels: cy - r - 1, cy + r + 1).clamped(to: rows) {
            let py = Double(y) + 0.5
            for x in columns {
                let px = Double(x) + 0.5
                let fill = coverage(hypot(px - cx, py - cy) - r)
                guard fill > 0 else { continue }
                var color = scene.look.closeFill.over(base(x: x, y: y), alpha: fill)
                // The × : two diagonal strokes through the centre, `arm` long each way.
                let u = px - cx, v = py - cy
                let stroke = min(Self.segmentDistance(u, v, arm, arm), Self.segmentDistance(u, v, arm, -arm)) - half
                let mark = coverage(stroke) * fill
                if mark > 0 { color = scene.look.closeMark.over(color, alpha: mark) }
                canvas.set(x: x, y: y, color)
            }
        }
    }

    /// The focus ring, over what is drawn: round the close button's disc, or just inside the
    /// focused row's box (clipped to the list, below the title bar).
    func drawFocusRing(_ ring: SheetScene.FocusRing, rows: Range<Int>, into canvas: Canvas) {
        let width = max(scene.points(scene.look.focusRingWidthPoints), 1)
        switch ring {
        case .close:
            let (cx, cy, r) = scene.close
            let outer = r + scene.points(3) + width
            let columns = Range(pixels: cx - outer - 1, cx + outer + 1).clamped(to: 0..<self.width)
            for y in Range(pixels: cy - outer - 1, cy + outer + 1).clamped(to: rows) {
                let py = Double(y) + 0.5
                for x in columns {
                    let px = Double(x) + 0.5
                    let distance = hypot(px - cx, py - cy) - (r + scene.points(3) + width / 2)
                    let ink = coverage(abs(distance) - width / 2)
                    if ink > 0 { canvas.set(x: x, y: y, scene.look.focusRing.over(canvas.pixel(x: x, y: y), alpha: ink)) }
                }
            }
        case .row(let position):
            guard let list = scene.list else { return }
            let clipTop = max(top + list.titleBarHeight, 0)
            // A list below the screen (the card still coming up): nothing of it to ring.
            guard clipTop < Double(scene.height) else { return }
            let clip = rows.clamped(to: Int(clipTop.rounded(.up))..<scene.height)
            guard !clip.isEmpty else { return }
            var found: ListScene.Row?
            list.rows(top: top, clip: Double(clip.lowerBound)..<Double(clip.upperBound)) { row in
                if row.position == position { found = row }
            }
            guard let row = found else { return }
            let inset = scene.points(scene.look.focusRingInsetPoints), side = scene.points(scene.look.focusRingSideInsetPoints)
            let (bx0, by0, bx1, by1) = box(row, list: list)
            let x0 = bx0 + side, y0 = by0 + inset, x1 = bx1 - side, y1 = by1 - inset
            let radius = min(scene.points(scene.look.liftedCornerRadiusPoints), (y1 - y0) / 2, (x1 - x0) / 2)
            let columns = Range(pixels: x0 - 1, x1 + 1).clamped(to: 0..<self.width)
            for y in Range(pixels: y0 - 1, y1 + 1).clamped(to: clip) {
                let py = Double(y) + 0.5
                for x in columns {
                    let px = Double(x) + 0.5
                    // A stroke `width` wide along the inside of the rounded box's edge.
                    let distance = Self.roundedBoxDistance(px, py, x0, y0, x1, y1, radius) + width / 2
                    let ink = coverage(abs(distance) - width / 2)
                    if ink > 0 { canvas.set(x: x, y: y, scene.look.focusRing.over(canvas.pixel(x: x, y: y), alpha: ink)) }
                }
            }
        }
    }

    /// Distance from (u, v) to the segment from (−a, −b) to (a, b).
    static func segmentDistance(_ u: Double, _ v: Double, _ a: Double, _ b: Double) -> Double {
        let t = min(max((u * a + v * b) / (a * a + b * b), -1), 1)
        return hypot(u - t * a, v - t * b)
    }

    /// The title in the console font, whole pixels magnified to the scale, left of the close
    /// button and centred on its row.
    func drawTitle(font: PSF2Font, rows: Range<Int>, into canvas: Canvas) {
        let zoom = max(1, Int(scene.scale.rounded()))
        let glyphHeight = font.height * zoom, glyphWidth = font.width * zoom
        let (closeX, closeY, closeRadius) = scene.close
        let originY = Int((closeY - Double(glyphHeight) / 2).rounded())
        let band = originY..<(originY + glyphHeight)
        let visible = band.clamped(to: rows)
        guard !visible.isEmpty else { return }
        let limit = Int(closeX - closeRadius - scene.points(8))
        var originX = Int((left + scene.points(scene.look.titleInsetPoints)).rounded())
        for scalar in scene.title.unicodeScalars {
            guard originX + glyphWidth <= limit else { break }
            if let glyph = font.glyph(for: scalar) {
                for y in visible {
                    let row = (y - originY) / zoom
                    for column in 0..<font.width where font.isSet(glyph: glyph, x: column, y: row) {
                        for dx in 0..<zoom { canvas.set(x: originX + column * zoom + dx, y: y, scene.look.title) }
                    }
                }
            }
            originX += glyphWidth
        }
    }

    // MARK: The list

    /// The list under the title bar, clipped to the card below it: the rows at rest (white on
    /// the white card, so a label and a separator), then the sliding ones, then the lifted
    /// one over its shadow. A row scaled about its centre is drawn by mapping each pixel back
    /// into the row at rest, so every scale shares one way of drawing.
    func drawList(_ list: ListScene, text: Painter.Text, icons: IconCache?, rows: Range<Int>, into canvas: Canvas) {
        let clipTop = max(top + list.titleBarHeight, 0)
        guard clipTop < Double(scene.height) else { return }
        let clip = rows.clamped(to: Int(clipTop.rounded(.up))..<scene.height)
        guard !clip.isEmpty else { return }
        if case .typeset(let typesetter) = text {
            list.headers(top: top, clip: Double(clip.lowerBound)..<Double(clip.upperBound)) { title, y0, y1 in
                drawHeader(title, y0: y0, y1: y1, typesetter: typesetter, clip: clip, into: canvas)
            }
        }
        list.rows(top: top, clip: Double(clip.lowerBound)..<Double(clip.upperBound)) { row in
            if row.isLifted { drawLifted(row, list: list, clip: clip, into: canvas) }
            if !row.isLifted, row.scale > 0 { drawSeparator(row, list: list, clip: clip, into: canvas) }
            switch text {
            case .typeset(let typesetter):
                drawRow(list.items[row.position], row: row, typesetter: typesetter, icons: icons, clip: clip, into: canvas)
            case .console(let font):
                drawLabel(list.items[row.position].label, row: row, list: list, font: font, clip: clip, into: canvas)
            case .none: break
            }
        }
    }

    /// A row's box at its scale: left, top, right, bottom (px).
    /// A row grown past 1 (the picked-up one) widens by at most 8 pt a side, so it stays over
    /// its card rather than spreading over the dim beside a narrow one; it grows in height and
    /// its content in size as the tutorial has it.
    func box(_ row: ListScene.Row, list: ListScene) -> (x0: Double, y0: Double, x1: Double, y1: Double) {
        let halfWidth = min((right - left) * row.scale / 2, (right - left) / 2 + scene.points(8))
        let halfHeight = row.height * row.scale / 2
        let middle = (left + right) / 2
        return (middle - halfWidth, row.centre - halfHeight, middle + halfWidth, row.centre + halfHeight)
    }

    /// The separator: one pixel row along the row's bottom edge, from the label's inset on.
    private func drawSeparator(_ row: ListScene.Row, list: ListScene, clip: Range<Int>, into canvas: Canvas) {
        var (x0, _, x1, y1) = box(row, list: list)
        let y = Int(y1.rounded(.down)) - 1
        guard clip.contains(y) else { return }
        // Inset on the side the label starts from.
        let inset = scene.points(scene.look.labelInsetPoints) * row.scale
        if TextDirection.of(list.items[row.position].label) == .rightToLeft { x1 -= inset } else { x0 += inset }
        canvas.fill(row: y, from: Int(max(x0, 0).rounded()), to: Int(min(x1, Double(width)).rounded()), scene.look.separator)
    }

    /// The picked-up row: a rounded box of the card's colour at the row's opacity, over a soft
    /// shadow, over what is drawn there already.
    private func drawLifted(_ row: ListScene.Row, list: ListScene, clip: Range<Int>, into canvas: Canvas) {
        let (x0, y0, x1, y1) = box(row, list: list)
        let radius = min(scene.points(scene.look.liftedCornerRadiusPoints) * row.scale, (y1 - y0) / 2, (x1 - x0) / 2)
        let blur = max(scene.points(scene.look.shadowBlurPoints), 1), drop = scene.points(scene.look.shadowDropPoints)
        let columns = Range(pixels: x0 - blur, x1 + blur).clamped(to: 0..<width)
        guard !columns.isEmpty else { return }
        for y in Range(pixels: y0 - blur, y1 + drop + blur).clamped(to: clip) {
            let py = Double(y) + 0.5
            for x in columns {
                let px = Double(x) + 0.5
                let inside = coverage(Self.roundedBoxDistance(px, py, x0, y0, x1, y1, radius)) * row.opacity
                let shadowDistance = Self.roundedBoxDistance(px, py - drop, x0, y0, x1, y1, radius)
                let fade = 1 - min(max(shadowDistance / blur, 0), 1)
                let shade = scene.look.shadowAlpha * fade * fade
                guard inside > 0 || shade > 0 else { continue }
                let below = scene.look.shadow.over(canvas.pixel(x: x, y: y), alpha: shade)
                canvas.set(x: x, y: y, card.over(below, alpha: inside))
            }
        }
    }

    /// Signed distance from a box with rounded corners (negative inside).
    static func roundedBoxDistance(_ px: Double, _ py: Double, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double,
                                   _ radius: Double) -> Double {
        let cx = (x0 + x1) / 2, cy = (y0 + y1) / 2
        let qx = abs(px - cx) - ((x1 - x0) / 2 - radius), qy = abs(py - cy) - ((y1 - y0) / 2 - radius)
        return hypot(max(qx, 0), max(qy, 0)) + min(max(qx, qy), 0) - radius
    }

    /// A label in the console font, magnified to the scale in whole pixels as the title is,
    /// 20 pt in and centred on the row, cut where the card ends; then scaled with the row
    /// (its left edge kept at the inset or right of it).
    private func drawLabel(_ label: String, row: ListScene.Row, list: ListScene, font: PSF2Font, clip: Range<Int>,
                           into canvas: Canvas) {
        guard row.scale > 0.01, row.opacity > 0 else { return }
        let zoom = max(1, Int(scene.scale.rounded()))
        let glyphWidth = Double(font.width * zoom), glyphHeight = Double(font.height * zoom)
        let inset = scene.points(scene.look.labelInsetPoints)
        let fits = max(0, Int((right - left - 2 * inset) / glyphWidth))
        var glyphs: [Int?] = []
        for scalar in label.unicodeScalars.prefix(fits) { glyphs.append(font.glyph(for: scalar)) }
        guard !glyphs.isEmpty else { return }
        // The text's box in the row at rest (x from the card's left, y from the row's top).
        let textTop = (row.height - glyphHeight) / 2
        let middle = (left + right) / 2, start = left + inset
        let s = row.scale
        // Scaled about the row's centre, but never left of the inset: a row grown past the
        // card's edges keeps its label on the screen.
        let left = max(middle + (start - middle) * s, start), right = left + Double(glyphs.count) * glyphWidth * s
        let upper = row.centre + (textTop - row.height / 2) * s, lower = upper + glyphHeight * s
        let ink = scene.look.label
        let columns = Range(pixels: left, right).clamped(to: 0..<width)
        guard !columns.isEmpty else { return }
        for y in Range(pixels: upper, lower).clamped(to: clip) {
            let v = (Double(y) + 0.5 - upper) / s
            guard v >= 0, v < glyphHeight else { continue }
            let glyphRow = Int(v) / zoom
            for x in columns {
                let u = (Double(x) + 0.5 - left) / s
                guard u >= 0 else { continue }
                let index = Int(u / glyphWidth)
                guard index < glyphs.count, let glyph = glyphs[index] else { continue }
                let column = (Int(u) - index * Int(glyphWidth)) / zoom
                if font.isSet(glyph: glyph, x: column, y: glyphRow) {
                    canvas.set(x: x, y: y, row.opacity >= 1 ? ink : ink.over(canvas.pixel(x: x, y: y), alpha: row.opacity))
                }
            }
        }
    }
}

extension Range where Bound == Int {
    /// The pixels from `lower` (rounded down) to `upper` (rounded up): empty when `upper` is
    /// not past `lower`, and held within ±2⁴⁰ so that no edge a scene computes can trap.
    init(pixels lower: Double, _ upper: Double) {
        let limit = Double(1 << 40)
        func edge(_ value: Double, _ rule: FloatingPointRoundingRule) -> Int {
            value.isNaN ? 0 : Int(Swift.min(Swift.max(value.rounded(rule), -limit), limit))
        }
        let low = edge(lower, .down)
        self = low..<Swift.max(low, edge(upper, .up))
    }
}
