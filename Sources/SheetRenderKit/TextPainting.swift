import SheetCore

/// Typeset text on the card: lines the typesetter set once, blended into the canvas each frame.
extension Geometry {
    /// The title, semibold, centred on the close button's row: from the card's left inset up to
    /// 8 pt before the close button, or for a right-to-left title from the right inset back to
    /// 8 pt after the close button, which is then on the left. An overlong title ends in an
    /// ellipsis.
    func drawTitle(_ typesetter: Typesetter, rows: Range<Int>, into canvas: Canvas) {
        let (closeX, closeY, closeRadius) = scene.close
        let inset = scene.points(scene.look.titleInsetPoints), gap = scene.points(8)
        let rightToLeft = scene.titleDirection == .rightToLeft
        let room = rightToLeft ? right - inset - (closeX + closeRadius + gap) : closeX - closeRadius - gap - (left + inset)
        guard room >= 1 else { return }
        let style = TextStyle(sizeInPixels: scene.points(scene.look.titleSizePoints) * scene.look.textScale, weight: .semibold,
                              color: scene.look.title, maximumWidthInPixels: Int(room), direction: scene.titleDirection,
                              font: scene.look.font)
        let image = typesetter.image(scene.title, style: style)
        guard image.width > 0 else { return }
        let origin = rightToLeft ? right - inset - Double(image.width) : left + inset
        let upper = closeY - Double(image.height) / 2
        blend(image, left: origin.rounded(), top: upper.rounded(), scale: 1, opacity: 1, clip: rows, into: canvas)
    }

    /// `image` with its top-left corner at (`left`, `top`) px, magnified by `scale` (each
    /// pixel takes the image's pixel under its centre), at `opacity`, over what the canvas
    /// holds, in rows `clip` only. Premultiplied: out = text + (1 − text's alpha) · below.
    func blend(_ image: TextImage, left: Double, top: Double, scale: Double, opacity: Double, clip: Range<Int>,
               into canvas: Canvas) {
        let columns = Range(pixels: left, left + Double(image.width) * scale).clamped(to: 0..<width)
        let lines = Range(pixels: top, top + Double(image.height) * scale).clamped(to: clip)
        guard !columns.isEmpty, !lines.isEmpty, scale > 0 else { return }
        let fade = UInt32((min(max(opacity, 0), 1) * 256).rounded())
        image.pixels.withUnsafeBufferPointer { pixels in
            // At rest on whole pixels (every row that is not lifted, shrunk or sliding): the
            // image's pixel under each canvas pixel is an index away, no division per pixel.
            if scale == 1, left == left.rounded(), top == top.rounded() {
                let dx = Int(left), dy = Int(top)
                for y in lines {
                    let sourceRow = (y - dy) * image.width - dx
                    for x in columns {
                        var value = pixels[sourceRow + x]
                        if value >> 24 == 0 { continue }
                        if fade < 256 { value = Self.faded(value, fade) }
                        put(value, x: x, y: y, into: canvas)
                    }
                }
                return
            }
            for y in lines {
                let v = Int(((Double(y) + 0.5 - top) / scale).rounded(.down))
                guard v >= 0, v < image.height else { continue }
                let sourceRow = v * image.width
                for x in columns {
                    let u = Int(((Double(x) + 0.5 - left) / scale).rounded(.down))
                    guard u >= 0, u < image.width else { continue }
                    var value = pixels[sourceRow + u]
                    if fade < 256 { value = Self.faded(value, fade) }
                    put(value, x: x, y: y, into: canvas)
                }
            }
        }
    }

    /// A premultiplied ARGB pixel over what the canvas holds at (x, y).
    @inline(__always)
    private func put(_ value: UInt32, x: Int, y: Int, into canvas: Canvas) {
        let alpha = value >> 24
        if alpha == 0 { return }
        let ink = RGB(UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value))
        if alpha == 255 {
            canvas.set(x: x, y: y, ink)
        } else {
            canvas.set(x: x, y: y, Self.premultiplied(ink, alpha: alpha, over: canvas.pixel(x: x, y: y)))
        }
    }

    /// A premultiplied ARGB pixel times `fade`/256.
    @inline(__always)
    static func faded(_ value: UInt32, _ fade: UInt32) -> UInt32 {
        // Swift shifts before it multiplies: each product is bracketed before its shift.
        let a = ((value >> 24) * fade) >> 8, r = (((value >> 16) & 0xFF) * fade) >> 8
        let g = (((value >> 8) & 0xFF) * fade) >> 8, b = ((value & 0xFF) * fade) >> 8
        return a << 24 | r << 16 | g << 8 | b
    }

    /// Premultiplied `ink` of `alpha` (0…255) over `below`, rounded per channel.
    @inline(__always)
    static func premultiplied(_ ink: RGB, alpha: UInt32, over below: RGB) -> RGB {
        let keep = 255 - alpha
        func mix(_ top: UInt8, _ bottom: UInt8) -> UInt8 {
            UInt8(min(UInt32(top) + (UInt32(bottom) * keep + 127) / 255, 255))
        }
        return RGB(mix(ink.r, below.r), mix(ink.g, below.g), mix(ink.b, below.b))
    }
}
