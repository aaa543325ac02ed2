import CZlib

/// What is wrong with a PNG this kit was asked to read.
public struct PNGError: Error, Equatable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}

/// PNG files of canvases: 8-bit RGB, every row unfiltered, deflated by zlib. The same pixels
/// give the same bytes. `decode` reads back 8-bit RGB and RGBA files with any row filter (the
/// golden images, and pictures a person passes as a background).
public enum PNG {
    static let signature: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]

    public static func encode(_ canvas: Canvas) -> [UInt8] {
        encode(width: canvas.width, height: canvas.height, rgb: canvas.rgbBytes())
    }

    public static func encode(width: Int, height: Int, rgb: [UInt8]) -> [UInt8] {
        precondition(rgb.count == width * height * 3, "\(rgb.count) bytes are not \(width)x\(height) RGB")
        var file = signature
        appendChunk("IHDR", header(width: width, height: height), to: &file)
        appendChunk("IDAT", deflate(rows: 0..<height, width: width, rgb: rgb), to: &file)
        appendChunk("IEND", [], to: &file)
        return file
    }

    static func header(width: Int, height: Int) -> [UInt8] {
        var header = [UInt8]()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header += [8, 2, 0, 0, 0]  // 8 bits, RGB, deflate, adaptive filtering, no interlace
        return header
    }

    /// Rows `rows` of an RGB picture `width` wide, each with filter byte 0, deflated.
    static func deflate(rows: Range<Int>, width: Int, rgb: [UInt8]) -> [UInt8] {
        var raw = [UInt8]()
        raw.reserveCapacity((width * 3 + 1) * rows.count)
        for y in rows {
            raw.append(0)
            raw.append(contentsOf: rgb[(y * width * 3)..<((y + 1) * width * 3)])
        }
        var compressedSize = compressBound(uLong(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedSize))
        let status = compressed.withUnsafeMutableBytes { out in
            raw.withUnsafeBytes { input in
                compress2(out.baseAddress!.assumingMemoryBound(to: Bytef.self), &compressedSize,
                          input.baseAddress!.assumingMemoryBound(to: Bytef.self), uLong(raw.count), 6)
            }
        }
        precondition(status == Z_OK, "zlib compress2 failed: \(status)")
        compressed.removeSubrange(Int(compressedSize)...)
        return compressed
    }

    static func appendChunk(_ type: String, _ data: [UInt8], to file: inout [UInt8]) {
        file.appendBigEndian(UInt32(data.count))
        let typed = Array(type.utf8) + data
        file += typed
        let crc = typed.withUnsafeBytes { crc32(0, $0.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt($0.count)) }
        file.appendBigEndian(UInt32(crc))
    }

    /// Largest side of a picture read, in pixels.
    public static let maximumSide = 8192

    /// A picture's size from its IHDR chunk, without inflating anything: what a caller checks
    /// before it lets `decode` allocate.
    public static func size(of bytes: [UInt8]) throws(PNGError) -> (width: Int, height: Int) {
        var size: (Int, Int)?
        try walkChunks(bytes) { type, body throws(PNGError) in
            guard type == "IHDR" else { throw PNGError(reason: "the first chunk is \(type), not IHDR") }
            size = try header(body).size
            return false
        }
        guard let size else { throw PNGError(reason: "no IHDR chunk") }
        return size
    }

    /// Calls `visit` with each chunk's type and body, CRC checked, until it returns false or
    /// IEND comes.
    private static func walkChunks(_ bytes: [UInt8],
                                   _ visit: (String, ArraySlice<UInt8>) throws(PNGError) -> Bool) throws(PNGError) {
        guard bytes.count > 8, Array(bytes[0..<8]) == signature else { throw PNGError(reason: "not a PNG file") }
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = Int(bytes.bigEndian(at: offset))
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard length <= bytes.count - offset - 12 else { throw PNGError(reason: "chunk \(type) runs past the end") }
            let crc = bytes[(offset + 4)..<(offset + 8 + length)].withUnsafeBytes {
                crc32(0, $0.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt($0.count))
            }
            guard UInt32(crc) == bytes.bigEndian(at: offset + 8 + length) else {
                throw PNGError(reason: "chunk \(type) at byte \(offset) has a bad CRC")
            }
            if type == "IEND" { return }
            guard try visit(type, bytes[(offset + 8)..<(offset + 8 + length)]) else { return }
            offset += 12 + length
        }
    }

    /// IHDR: the size (1 to `maximumSide` a side) and the channels of the formats read.
    private static func header(_ body: ArraySlice<UInt8>) throws(PNGError) -> (size: (width: Int, height: Int), channels: Int) {
        guard body.count == 13 else { throw PNGError(reason: "IHDR of \(body.count) bytes") }
        let bytes = Array(body)
        let width = Int(bytes.bigEndian(at: 0)), height = Int(bytes.bigEndian(at: 4))
        let depth = bytes[8], colour = bytes[9], interlace = bytes[12]
        guard depth == 8, colour == 2 || colour == 6, interlace == 0 else {
            throw PNGError(reason: "only 8-bit RGB or RGBA without interlacing is read (depth \(depth), colour type \(colour))")
        }
        guard width > 0, height > 0, width <= maximumSide, height <= maximumSide else {
            throw PNGError(reason: "a \(width)x\(height) picture; at most \(maximumSide) pixels a side is read")
        }
        return ((width, height), colour == 2 ? 3 : 4)
    }

    /// Width, height and RGB bytes of an 8-bit RGB or RGBA PNG (alpha dropped). Pictures over
    /// `maximumSide` a side or `maximumPixels` in all are refused before anything is allocated
    /// for them; every chunk's CRC is checked.
    public static func decode(_ bytes: [UInt8], maximumPixels: Int = maximumSide * maximumSide)
        throws(PNGError) -> (width: Int, height: Int, rgb: [UInt8]) {
        var width = 0, height = 0, channels = 0
        var data = [UInt8]()
        try walkChunks(bytes) { type, body throws(PNGError) in
            switch type {
            case "IHDR":
                let found = try header(body)
                (width, height, channels) = (found.size.width, found.size.height, found.channels)
                guard width * height <= maximumPixels else {
                    throw PNGError(reason: "a \(width)x\(height) picture; at most \(maximumPixels) pixels are read here")
                }
            case "IDAT":
                data += body
            default:
                break
            }
            return true
        }
        guard channels > 0 else { throw PNGError(reason: "no IHDR chunk") }
        let rowBytes = width * channels
        var rawSize = uLong((rowBytes + 1) * height)
        var raw = [UInt8](repeating: 0, count: Int(rawSize))
        let status = raw.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { input in
                uncompress(out.baseAddress!.assumingMemoryBound(to: Bytef.self), &rawSize,
                           input.baseAddress?.assumingMemoryBound(to: Bytef.self), uLong(input.count))
            }
        }
        guard status == Z_OK, Int(rawSize) == raw.count else { throw PNGError(reason: "the image data does not inflate to \(width)x\(height)") }
        var pixels = [UInt8](repeating: 0, count: rowBytes * height)
        for y in 0..<height {
            let filter = raw[y * (rowBytes + 1)]
            if filter == 0 {
                pixels.replaceSubrange((y * rowBytes)..<((y + 1) * rowBytes),
                                       with: raw[(y * (rowBytes + 1) + 1)..<((y + 1) * (rowBytes + 1))])
                continue
            }
            for i in 0..<rowBytes {
                let x = raw[y * (rowBytes + 1) + 1 + i]
                let a = i >= channels ? Int(pixels[y * rowBytes + i - channels]) : 0
                let b = y > 0 ? Int(pixels[(y - 1) * rowBytes + i]) : 0
                let c = i >= channels && y > 0 ? Int(pixels[(y - 1) * rowBytes + i - channels]) : 0
                let predicted: Int
                switch filter {
                case 0: predicted = 0
                case 1: predicted = a
                case 2: predicted = b
                case 3: predicted = (a + b) / 2
                case 4:
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                default: throw PNGError(reason: "row \(y) has filter type \(filter)")
                }
                pixels[y * rowBytes + i] = UInt8(truncatingIfNeeded: Int(x) + predicted)
            }
        }
        if channels == 3 { return (width, height, pixels) }
        var rgb = [UInt8]()
        rgb.reserveCapacity(width * height * 3)
        for index in stride(from: 0, to: pixels.count, by: 4) { rgb += pixels[index..<(index + 3)] }
        return (width, height, rgb)
    }
}

extension Array where Element == UInt8 {
    mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(value >> 24))
        append(UInt8(value >> 16 & 0xFF))
        append(UInt8(value >> 8 & 0xFF))
        append(UInt8(value & 0xFF))
    }

    func bigEndian(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8 | UInt32(self[offset + 3])
    }
}
