import SheetCore

/// How a canvas stores a pixel: 32-bit XRGB (`0x00RRGGBB`, little-endian in memory) or 16-bit
/// RGB 5-6-5, the two formats of DRM dumb buffers and framebuffers that panels use; or 32-bit
/// ARGB with premultiplied alpha (`0xAARRGGBB`), what a compositor blends over what lies below
/// (wl_shm's ARGB8888). Colours are opaque on every format unless drawn with an alpha.
public enum PixelFormat: String, Sendable, CaseIterable {
    case xrgb8888
    case rgb565
    case argb8888

    public var bytesPerPixel: Int { self == .rgb565 ? 2 : 4 }
}

/// Pixels in memory: the canvas's own, or a mapped buffer (a dumb buffer, `/dev/fbN`) whose rows
/// are `stride` bytes apart. Drawing writes whole rows or spans; nothing is read back while
/// composing, so a write-combined mapping stays fast.
public final class Canvas {
    public let width: Int
    public let height: Int
    /// Bytes from one row to the next (at least `width` pixels).
    public let stride: Int
    public let format: PixelFormat
    public let base: UnsafeMutableRawPointer
    private let owned: Bool

    /// A canvas of its own, black.
    public init(width: Int, height: Int, format: PixelFormat) {
        precondition(width > 0 && height > 0, "a canvas needs at least one pixel")
        self.width = width
        self.height = height
        self.format = format
        stride = width * format.bytesPerPixel
        base = UnsafeMutableRawPointer.allocate(byteCount: stride * height, alignment: 64)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: stride * height)
        owned = true
    }

    /// A canvas over memory someone else owns and keeps alive (a mapped display buffer).
    public init(wrapping base: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int, format: PixelFormat) {
        precondition(stride >= width * format.bytesPerPixel, "stride \(stride) is shorter than a row of \(width) pixels")
        self.base = base
        self.width = width
        self.height = height
        self.stride = stride
        self.format = format
        owned = false
    }

    deinit {
        if owned { base.deallocate() }
    }

    /// `color` as this canvas stores it, opaque.
    @inline(__always)
    public func packed(_ color: RGB) -> UInt32 {
        switch format {
        case .xrgb8888:
            return UInt32(color.r) << 16 | UInt32(color.g) << 8 | UInt32(color.b)
        case .argb8888:
            return 0xFF00_0000 | UInt32(color.r) << 16 | UInt32(color.g) << 8 | UInt32(color.b)
        case .rgb565:
            return UInt32(color.r >> 3) << 11 | UInt32(color.g >> 2) << 5 | UInt32(color.b >> 3)
        }
    }

    /// `color`, already multiplied by `alpha` (0…1), with that alpha: a translucent pixel on
    /// argb8888. The opaque formats have no alpha and store the colour as it is (which is the
    /// colour over black).
    @inline(__always)
    public func packed(_ color: RGB, alpha: Double) -> UInt32 {
        guard format == .argb8888 else { return packed(color) }
        let a = UInt32((min(max(alpha, 0), 1) * 255).rounded())
        return a << 24 | UInt32(color.r) << 16 | UInt32(color.g) << 8 | UInt32(color.b)
    }

    /// A stored pixel as a colour (RGB 5-6-5 widened by repeating the high bits).
    public func unpacked(_ value: UInt32) -> RGB {
        switch format {
        case .xrgb8888, .argb8888:
            return RGB(hex: value & 0xFF_FFFF)
        case .rgb565:
            let r5 = UInt8(value >> 11 & 0x1F), g6 = UInt8(value >> 5 & 0x3F), b5 = UInt8(value & 0x1F)
            return RGB(r5 << 3 | r5 >> 2, g6 << 2 | g6 >> 4, b5 << 3 | b5 >> 2)
        }
    }

    /// Pixels `x0..<x1` of row `y` set to `color` (clipped to the canvas).
    @inline(__always)
    public func fill(row y: Int, from x0: Int = 0, to x1: Int? = nil, _ color: RGB) {
        fill(row: y, from: x0, to: x1, value: packed(color))
    }

    /// Pixels `x0..<x1` of row `y` set to `color` premultiplied by `alpha` (see `packed(_:alpha:)`).
    @inline(__always)
    public func fill(row y: Int, from x0: Int = 0, to x1: Int? = nil, _ color: RGB, alpha: Double) {
        fill(row: y, from: x0, to: x1, value: packed(color, alpha: alpha))
    }

    @inline(__always)
    private func fill(row y: Int, from x0: Int, to x1: Int?, value: UInt32) {
        let start = max(0, x0), end = min(width, x1 ?? width)
        guard y >= 0, y < height, start < end else { return }
        let row = base + y * stride
        switch format {
        case .xrgb8888, .argb8888:
            (row + start * 4).assumingMemoryBound(to: UInt32.self).update(repeating: value, count: end - start)
        case .rgb565:
            (row + start * 2).assumingMemoryBound(to: UInt16.self).update(repeating: UInt16(value), count: end - start)
        }
    }

    /// One pixel (clipped).
    @inline(__always)
    public func set(x: Int, y: Int, _ color: RGB) {
        set(x: x, y: y, value: packed(color))
    }

    /// One pixel, `color` premultiplied by `alpha` (clipped).
    @inline(__always)
    public func set(x: Int, y: Int, _ color: RGB, alpha: Double) {
        set(x: x, y: y, value: packed(color, alpha: alpha))
    }

    @inline(__always)
    private func set(x: Int, y: Int, value: UInt32) {
        guard x >= 0, x < width, y >= 0, y < height else { return }
        let row = base + y * stride
        switch format {
        case .xrgb8888, .argb8888: (row + x * 4).assumingMemoryBound(to: UInt32.self).pointee = value
        case .rgb565: (row + x * 2).assumingMemoryBound(to: UInt16.self).pointee = UInt16(value)
        }
    }

    /// The alpha of a pixel (1 on the opaque formats).
    public func alpha(x: Int, y: Int) -> Double {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "(\(x), \(y)) is outside \(width)x\(height)")
        guard format == .argb8888 else { return 1 }
        return Double((base + y * stride + x * 4).assumingMemoryBound(to: UInt32.self).pointee >> 24) / 255
    }

    /// Rows `rows` of `source`, a canvas of the same size and format, copied into this one (a
    /// shadow buffer's damage onto a framebuffer).
    public func copy(rows: Range<Int>, from source: Canvas) {
        precondition(source.width == width && source.height == height && source.format == format,
                     "copying \(source.width)x\(source.height) \(source.format) onto \(width)x\(height) \(format)")
        let bytes = width * format.bytesPerPixel
        for y in rows.clamped(to: 0..<height) {
            (base + y * stride).copyMemory(from: source.base + y * source.stride, byteCount: bytes)
        }
    }

    /// The colour at a pixel, as stored (premultiplied on argb8888: the colour over black).
    public func pixel(x: Int, y: Int) -> RGB {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "(\(x), \(y)) is outside \(width)x\(height)")
        let row = base + y * stride
        switch format {
        case .xrgb8888, .argb8888: return unpacked((row + x * 4).assumingMemoryBound(to: UInt32.self).pointee)
        case .rgb565: return unpacked(UInt32((row + x * 2).assumingMemoryBound(to: UInt16.self).pointee))
        }
    }

    /// The pixels of `rows` (every row when nil) as R, G, B bytes, row after row (what a PNG
    /// holds).
    public func rgbBytes(rows: Range<Int>? = nil) -> [UInt8] {
        let rows = (rows ?? 0..<height).clamped(to: 0..<height)
        return [UInt8](unsafeUninitializedCapacity: width * rows.count * 3) { out, count in
            var index = 0
            for y in rows {
                let row = base + y * stride
                switch format {
                case .xrgb8888, .argb8888:
                    let pixels = row.assumingMemoryBound(to: UInt32.self)
                    for x in 0..<width {
                        let value = pixels[x]
                        out[index] = UInt8(truncatingIfNeeded: value >> 16)
                        out[index + 1] = UInt8(truncatingIfNeeded: value >> 8)
                        out[index + 2] = UInt8(truncatingIfNeeded: value)
                        index += 3
                    }
                case .rgb565:
                    let pixels = row.assumingMemoryBound(to: UInt16.self)
                    for x in 0..<width {
                        let color = unpacked(UInt32(pixels[x]))
                        out[index] = color.r
                        out[index + 1] = color.g
                        out[index + 2] = color.b
                        index += 3
                    }
                }
            }
            count = index
        }
    }
}
