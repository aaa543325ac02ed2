#if canImport(Glibc)
import Glibc
#endif

/// Draws a `SheetScene` into a `Canvas`, row by row: rows away from the card's edge are single
/// fills (the dimmed background above, the card below), so a frame costs about what writing
/// its bytes once costs; only the rows around the edge and the decorations are worked out pixel
/// by pixel, with anti-aliasing from signed distances sampled at pixel centres.
public struct Painter: Sendable {
    public var font: PSF2Font?

    public init(font: PSF2Font? = nil) {
        self.font = font
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
        geometry.drawGrabber(rows: rows, into: canvas)
        geometry.drawClose(rows: rows, into: canvas)
        if let font { geometry.drawTitle(font: font, rows: rows, into: canvas) }
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
    let top: Double
    let radius: Double
    let dimmed: RGB
    let card: RGB
    /// The backdrop, when the look has one of the scene's size, and what the dim makes of each
    /// channel value over it (exactly `RGB.over`, looked up instead of multiplied per pixel).
    let backdrop: [UInt8]?
    let dimRed: [UInt8], dimGreen: [UInt8], dimBlue: [UInt8]

    init(_ scene: SheetScene) {
        self.scene = scene
        width = scene.width
        top = scene.top
        radius = scene.cornerRadius
        dimmed = scene.look.dim.over(scene.look.background, alpha: scene.dim)
        card = scene.look.card
        if let picture = scene.look.backdrop, picture.width == scene.width, picture.height == scene.height {
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
            if px < radius { return hypot(px - radius, py - cy) - radius }
            let right = Double(width) - radius
            if px > right { return hypot(px - right, py - cy) - radius }
        }
        return top - py
    }

    /// The card over the dimmed background at the pixel (x, y).
    @inline(__always)
    func base(x: Int, y: Int) -> RGB {
        card.over(behind(x: x, y: y), alpha: coverage(cardDistance(Double(x) + 0.5, Double(y) + 0.5)))
    }

    func drawBase(row y: Int, into canvas: Canvas) {
        let rowTop = Double(y)
        if rowTop + 1 <= top {
            if backdrop == nil {
                canvas.fill(row: y, dimmed)
            } else {
                for x in 0..<width { canvas.set(x: x, y: y, behind(x: x, y: y)) }
            }
        } else if rowTop >= top + radius {
            canvas.fill(row: y, card)
        } else {
            // The edge: the straight part shares one coverage; the corners are worked out.
            let corner = min(Int(radius.rounded(.up)) + 1, (width + 1) / 2)
            let edge = coverage(top - (rowTop + 0.5))
            if backdrop == nil {
                canvas.fill(row: y, from: corner, to: width - corner, card.over(dimmed, alpha: edge))
            } else {
                for x in corner..<max(corner, width - corner) { canvas.set(x: x, y: y, card.over(behind(x: x, y: y), alpha: edge)) }
            }
            for x in 0..<corner {
                canvas.set(x: x, y: y, base(x: x, y: y))
                canvas.set(x: width - 1 - x, y: y, base(x: width - 1 - x, y: y))
            }
        }
    }

    /// The grabber: a capsule above the card, faded with the sheet's progress.
    func drawGrabber(rows: Range<Int>, into canvas: Canvas) {
        let alpha = scene.grabberAlpha
        guard alpha > 0 else { return }
        let (x0, y0, x1, y1) = scene.grabber
        let r = (y1 - y0) / 2
        let band = Int((y0 - 1).rounded(.down))..<Int((y1 + 1).rounded(.up))
        for y in band.clamped(to: rows) {
            let py = Double(y) + 0.5
            for x in max(0, Int(x0) - 1)..<min(width, Int(x1.rounded(.up)) + 1) {
                let px = Double(x) + 0.5
                // Distance to the segment between the two end-cap centres, minus the radius.
                let cx = min(max(px, x0 + r), x1 - r)
                let d = hypot(px - cx, py - (y0 + r)) - r
                let a = coverage(d) * alpha
                if a > 0 { canvas.set(x: x, y: y, scene.look.grabber.over(base(x: x, y: y), alpha: a)) }
            }
        }
    }

    /// The close button: a filled circle with an × across it.
    func drawClose(rows: Range<Int>, into canvas: Canvas) {
        let (cx, cy, r) = scene.close
        let arm = r * 0.38, half = max(scene.points(1), 0.75)
        let band = Int((cy - r - 1).rounded(.down))..<Int((cy + r + 1).rounded(.up))
        for y in band.clamped(to: rows) {
            let py = Double(y) + 0.5
            for x in max(0, Int(cx - r) - 1)..<min(width, Int((cx + r).rounded(.up)) + 1) {
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
        var originX = Int(scene.points(scene.look.titleInsetPoints).rounded())
        for scalar in scene.look.titleText.unicodeScalars {
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
}
