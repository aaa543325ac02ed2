import SheetCore
#if canImport(Glibc)
import Glibc
#endif

/// A settings row as phones and GNOME draw it: an icon at the leading edge, the label and a
/// second line, and at the trailing edge a switch, a check mark, a chevron or a short value.
/// Everything is laid out at rest from the card's edges (mirrored for a right-to-left label),
/// then scaled with the row about its centre; a disabled row is drawn faded.
extension Geometry {
    /// The sizes of a row's parts (points), Material 3 and libadwaita's: a 24 pt icon with
    /// 16 pt after it; a 17 pt label over a 14 pt second line; a 44 × 26 pt switch, a 20 pt
    /// check, a 14 pt chevron, 16 pt between the text and what trails it.
    enum RowMetrics {
        static let icon = 24.0
        static let iconGap = 16.0
        static let subtitleSize = 14.0
        static let lineGap = 2.0
        static let switchWidth = 44.0
        static let switchHeight = 26.0
        static let switchMargin = 3.0
        static let check = 20.0
        static let chevronHeight = 14.0
        static let trailingGap = 16.0
        static let headerSize = 14.0
        /// A disabled row's opacity: libadwaita's `.dim-label` and insensitive widgets (0.5,
        /// a little less so it reads as unavailable on both themes).
        static let disabledOpacity = 0.45
    }

    /// Where a row's parts go: x at rest for a distance from the leading edge, and how the
    /// row's scale maps a point at rest to where it is drawn.
    struct RowFrame {
        var rightToLeft: Bool
        var left: Double
        var right: Double
        var middle: Double
        var centre: Double
        var scale: Double
        /// Keeps the leading inset on the screen when the row grows past the card.
        var shift: Double

        /// The x at rest `distance` px in from the leading edge.
        func leading(_ distance: Double) -> Double { rightToLeft ? right - distance : left + distance }
        /// The x at rest `distance` px in from the trailing edge.
        func trailing(_ distance: Double) -> Double { rightToLeft ? left + distance : right - distance }
        /// Where x at rest is drawn.
        func x(_ rest: Double) -> Double { middle + (rest - middle) * scale + shift }
        /// Where a height `dy` px below the row's centre at rest is drawn.
        func y(_ dy: Double) -> Double { centre + dy * scale }
    }

    func frame(_ row: ListScene.Row, rightToLeft: Bool) -> RowFrame {
        let middle = (left + right) / 2, inset = scene.points(scene.look.labelInsetPoints)
        var frame = RowFrame(rightToLeft: rightToLeft, left: left, right: right, middle: middle, centre: row.centre,
                             scale: row.scale, shift: 0)
        let start = frame.leading(inset)
        let drawn = frame.x(start)
        frame.shift = rightToLeft ? min(0, start - drawn) : max(0, start - drawn)
        return frame
    }

    /// The row's icon, texts and accessory.
    func drawRow(_ item: SheetItem, row: ListScene.Row, typesetter: Typesetter, icons: IconCache?, clip: Range<Int>,
                 into canvas: Canvas) {
        guard row.scale > 0.01, row.opacity > 0 else { return }
        let direction = TextDirection.of(item.label.isEmpty ? item.subtitle : item.label)
        let frame = frame(row, rightToLeft: direction == .rightToLeft)
        let look = scene.look, inset = scene.points(look.labelInsetPoints)
        let opacity = row.opacity * (item.disabled ? RowMetrics.disabledOpacity : 1)
        var start = inset, end = inset

        // The icon, centred on the row at the leading edge.
        if !item.icon.isEmpty, let icons {
            let size = Int(scene.points(RowMetrics.icon).rounded())
            if let image = icons.image(item.icon, size: size, colour: look.label) {
                let x = frame.rightToLeft ? frame.leading(start) - Double(size) : frame.leading(start)
                blend(image, left: frame.x(x), top: frame.y(-Double(size) / 2), scale: row.scale, opacity: opacity, clip: clip, into: canvas)
            }
            // The text starts where it would beside an icon even when the icon is missing, so
            // the labels of a list stay aligned.
            start += scene.points(RowMetrics.icon + RowMetrics.iconGap)
        }

        // The accessory at the trailing edge; the text ends before it.
        if let accessory = item.accessory {
            end += drawAccessory(accessory, frame: frame, trailingInset: inset, opacity: opacity, typesetter: typesetter,
                                 clip: clip, into: canvas) + scene.points(RowMetrics.trailingGap)
        }

        // The label, and under it the second line.
        let room = Int(right - left - start - end)
        guard room > 0 else { return }
        let label = item.label.isEmpty ? nil : typesetter.image(item.label, style: TextStyle(
            sizeInPixels: scene.points(look.labelSizePoints) * look.textScale, color: look.label, maximumWidthInPixels: room,
            direction: direction, font: look.font))
        let subtitle = item.subtitle.isEmpty ? nil : typesetter.image(item.subtitle, style: TextStyle(
            sizeInPixels: scene.points(RowMetrics.subtitleSize) * look.textScale, color: look.secondaryLabel,
            maximumWidthInPixels: room, direction: direction, font: look.font))
        let gap = subtitle == nil ? 0 : scene.points(RowMetrics.lineGap)
        let total = Double(label?.height ?? 0) + gap + Double(subtitle?.height ?? 0)
        var y = -total / 2
        for image in [label, subtitle].compactMap({ $0 }) where image.width > 0 {
            let x = frame.rightToLeft ? frame.leading(start) - Double(image.width) : frame.leading(start)
            let exact = row.scale == 1
            let drawnX = frame.x(x), drawnY = frame.y(y)
            blend(image, left: exact ? drawnX.rounded() : drawnX, top: exact ? drawnY.rounded() : drawnY, scale: row.scale,
                  opacity: opacity, clip: clip, into: canvas)
            y += Double(image.height) + gap
        }
    }

    /// Draws `accessory` against the trailing edge and returns the width it takes (px at rest).
    private func drawAccessory(_ accessory: ItemAccessory, frame: RowFrame, trailingInset inset: Double, opacity: Double,
                               typesetter: Typesetter, clip: Range<Int>, into canvas: Canvas) -> Double {
        let look = scene.look, s = frame.scale
        switch accessory {
        case .toggle(let isOn):
            let width = scene.points(RowMetrics.switchWidth), height = scene.points(RowMetrics.switchHeight)
            let outer = frame.trailing(inset), inner = frame.rightToLeft ? outer + width : outer - width
            let x0 = frame.x(min(outer, inner)), x1 = frame.x(max(outer, inner))
            let track = isOn ? look.accent : look.grabber
            fill(x0: x0, y0: frame.y(-height / 2), x1: x1, y1: frame.y(height / 2), colour: track, opacity: opacity, clip: clip,
                 into: canvas) { px, py in
                Self.roundedBoxDistance(px, py, x0, frame.y(-height / 2), x1, frame.y(height / 2), height * s / 2)
            }
            // The knob: white, at the end that says on or off (on is the trailing end).
            let margin = scene.points(RowMetrics.switchMargin), radius = (height / 2 - margin) * s
            let knobX = isOn ? frame.x(outer + (frame.rightToLeft ? 1 : -1) * (margin + height / 2 - margin))
                : frame.x(inner + (frame.rightToLeft ? -1 : 1) * (margin + height / 2 - margin))
            let knobY = frame.centre
            fill(x0: knobX - radius, y0: knobY - radius, x1: knobX + radius, y1: knobY + radius, colour: .white, opacity: opacity,
                 clip: clip, into: canvas) { px, py in
                hypot(px - knobX, py - knobY) - radius
            }
            return width
        case .check(let isChecked):
            let size = scene.points(RowMetrics.check)
            if isChecked {
                // A tick: two strokes through three points of a square `size` wide.
                let cx = frame.x(frame.trailing(inset + size / 2)), cy = frame.centre, half = size * s / 2
                let mirror = frame.rightToLeft ? -1.0 : 1.0
                let a = (cx - 0.75 * half * mirror, cy + 0.05 * half), b = (cx - 0.2 * half * mirror, cy + 0.6 * half)
                let c = (cx + 0.8 * half * mirror, cy - 0.6 * half)
                stroke([a, b, c], width: scene.points(2.5) * s, colour: look.accent, opacity: opacity, clip: clip, into: canvas)
            }
            return size
        case .chevron:
            let height = scene.points(RowMetrics.chevronHeight), width = height / 2
            let tip = frame.x(frame.trailing(inset + 2)), cy = frame.centre
            let back = tip + (frame.rightToLeft ? width : -width) * s
            stroke([(back, cy - height * s / 2), (tip, cy), (back, cy + height * s / 2)], width: scene.points(2) * s,
                   colour: look.secondaryLabel, opacity: opacity, clip: clip, into: canvas)
            return width + 2
        case .value(let text):
            guard !text.isEmpty else { return 0 }
            let room = Int((right - left) * 0.4)
            let image = typesetter.image(text, style: TextStyle(
                sizeInPixels: scene.points(scene.look.labelSizePoints) * look.textScale, color: look.secondaryLabel,
                maximumWidthInPixels: max(room, 1), direction: TextDirection.of(text), font: look.font))
            guard image.width > 0 else { return 0 }
            let x = frame.rightToLeft ? frame.trailing(inset) : frame.trailing(inset) - Double(image.width)
            let exact = s == 1
            let drawnX = frame.x(x), drawnY = frame.y(-Double(image.height) / 2)
            blend(image, left: exact ? drawnX.rounded() : drawnX, top: exact ? drawnY.rounded() : drawnY, scale: s,
                  opacity: opacity, clip: clip, into: canvas)
            return Double(image.width)
        }
    }

    /// A section's header: its title, semibold in the second line's colour, on the header's
    /// lower half, from the leading inset.
    func drawHeader(_ title: String, y0: Double, y1: Double, typesetter: Typesetter, clip: Range<Int>, into canvas: Canvas) {
        guard !title.isEmpty else { return }
        let look = scene.look, inset = scene.points(look.labelInsetPoints)
        let direction = TextDirection.of(title)
        let image = typesetter.image(title, style: TextStyle(
            sizeInPixels: scene.points(RowMetrics.headerSize) * look.textScale, weight: .semibold, color: look.secondaryLabel,
            maximumWidthInPixels: max(Int(right - left - 2 * inset), 1), direction: direction, font: look.font))
        guard image.width > 0 else { return }
        let x = direction == .rightToLeft ? right - inset - Double(image.width) : left + inset
        let y = y1 - scene.points(8) - Double(image.height)
        blend(image, left: x.rounded(), top: max(y, y0).rounded(), scale: 1, opacity: 1, clip: clip, into: canvas)
    }

    /// Fills the pixels of the box (x0, y0)–(x1, y1) that `distance` (signed, px, negative
    /// inside) says a shape covers, anti-aliased, at `opacity`, over what the canvas holds.
    func fill(x0: Double, y0: Double, x1: Double, y1: Double, colour: RGB, opacity: Double, clip: Range<Int>, into canvas: Canvas,
              distance: (Double, Double) -> Double) {
        let columns = Range(pixels: x0 - 1, x1 + 1).clamped(to: 0..<width)
        for y in Range(pixels: y0 - 1, y1 + 1).clamped(to: clip) {
            let py = Double(y) + 0.5
            for x in columns {
                let covered = coverage(distance(Double(x) + 0.5, py)) * opacity
                guard covered > 0 else { continue }
                canvas.set(x: x, y: y, colour.over(canvas.pixel(x: x, y: y), alpha: covered))
            }
        }
    }

    /// A polyline through `points`, `width` px wide with round ends.
    func stroke(_ points: [(Double, Double)], width: Double, colour: RGB, opacity: Double, clip: Range<Int>, into canvas: Canvas) {
        guard let first = points.first else { return }
        var x0 = first.0, y0 = first.1, x1 = first.0, y1 = first.1
        for point in points {
            x0 = min(x0, point.0); y0 = min(y0, point.1); x1 = max(x1, point.0); y1 = max(y1, point.1)
        }
        let half = width / 2
        fill(x0: x0 - half, y0: y0 - half, x1: x1 + half, y1: y1 + half, colour: colour, opacity: opacity, clip: clip, into: canvas) { px, py in
            var nearest = Double.infinity
            for index in 1..<points.count {
                let (ax, ay) = points[index - 1], (bx, by) = points[index]
                let dx = bx - ax, dy = by - ay
                let t = min(max(((px - ax) * dx + (py - ay) * dy) / max(dx * dx + dy * dy, 1e-9), 0), 1)
                nearest = min(nearest, hypot(px - (ax + t * dx), py - (ay + t * dy)))
            }
            return nearest - half
        }
    }
}
