import CZlib

/// What is wrong with a font file, naming it.
public struct FontError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}

/// A Linux console font in PC Screen Font version 2 (`.psf`, or gzipped `.psf.gz` as Debian's
/// console-setup ships them in /usr/share/consolefonts): fixed-size bitmaps, one bit a pixel,
/// rows padded to whole bytes, and an optional table from Unicode to glyphs.
public struct PSF2Font: Sendable {
    public let width: Int
    public let height: Int
    let bytesPerRow: Int
    let bytesPerGlyph: Int
    let bitmaps: [UInt8]
    let glyphCount: Int
    /// Unicode scalar → glyph; empty when the font has no table (glyph = code point).
    let table: [UInt32: Int]

    /// Where the console fonts are looked for, best first: Terminus 16x32, then smaller.
    public static let searchPaths = [
        "/usr/share/consolefonts/Lat15-Terminus32x16.psf.gz",
        "/usr/share/consolefonts/Lat15-Terminus16.psf.gz",
        "/usr/share/consolefonts/Lat15-Fixed16.psf.gz",
    ]

    /// The first font of `searchPaths` that loads, or nil.
    public static func system() -> PSF2Font? {
        for path in searchPaths {
            if let font = try? PSF2Font(path: path) { return font }
        }
        return nil
    }

    /// Reads `path`, gzipped or not.
    public init(path: String) throws(FontError) {
        guard let file = gzopen(path, "rb") else { throw FontError(path: path, reason: "cannot be opened") }
        defer { gzclose(file) }
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { gzread(file, $0.baseAddress, UInt32($0.count)) }
            if count < 0 { throw FontError(path: path, reason: "cannot be read (not gzip or a damaged file)") }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<Int(count)])
            if bytes.count > 16 << 20 { throw FontError(path: path, reason: "larger than any console font (16 MiB)") }
        }
        try self.init(bytes: bytes, name: path)
    }

    /// Parses a PSF2 file's bytes; `name` is for errors.
    public init(bytes: [UInt8], name: String) throws(FontError) {
        func word(_ offset: Int) -> Int {
            Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
        }
        guard bytes.count >= 32, word(0) == 0x864A_B572 else {
            throw FontError(path: name, reason: "not a PSF2 font (no 72 b5 4a 86 magic)")
        }
        let headerSize = word(8), flags = word(12), count = word(16), glyphBytes = word(20)
        let height = word(24), width = word(28)
        guard width > 0, width <= 64, height > 0, height <= 128, count > 0, count <= 65536,
              glyphBytes == height * ((width + 7) / 8) else {
            throw FontError(path: name, reason: "a header that does not add up (\(count) glyphs of \(width)x\(height), \(glyphBytes) bytes each)")
        }
        let end = headerSize + count * glyphBytes
        guard headerSize >= 32, end <= bytes.count else {
            throw FontError(path: name, reason: "cut short: \(count) glyphs need \(end) bytes, the file has \(bytes.count)")
        }
        self.width = width
        self.height = height
        bytesPerRow = (width + 7) / 8
        bytesPerGlyph = glyphBytes
        glyphCount = count
        bitmaps = Array(bytes[headerSize..<end])
        table = flags & 1 != 0 ? Self.unicodeTable(bytes[end...], glyphs: count) : [:]
    }

    /// The table after the glyphs: per glyph, UTF-8 scalars, then sequences after 0xFE (not
    /// used here), ended by 0xFF.
    static func unicodeTable(_ bytes: ArraySlice<UInt8>, glyphs: Int) -> [UInt32: Int] {
        var table: [UInt32: Int] = [:]
        var glyph = 0
        var index = bytes.startIndex
        var inSequences = false
        while index < bytes.endIndex, glyph < glyphs {
            let byte = bytes[index]
            if byte == 0xFF {
                glyph += 1
                inSequences = false
                index += 1
                continue
            }
            if byte == 0xFE {
                inSequences = true
                index += 1
                continue
            }
            let length = byte < 0x80 ? 1 : byte >> 5 == 0b110 ? 2 : byte >> 4 == 0b1110 ? 3 : byte >> 3 == 0b11110 ? 4 : 1
            guard index + length <= bytes.endIndex else { break }
            var scalar = length == 1 ? UInt32(byte) : UInt32(byte) & (0xFF >> (length + 1))
            for offset in 1..<max(length, 1) { scalar = scalar << 6 | UInt32(bytes[index + offset] & 0x3F) }
            if !inSequences, table[scalar] == nil { table[scalar] = glyph }
            index += length
        }
        return table
    }

    /// The glyph that draws `scalar`, or nil.
    public func glyph(for scalar: Unicode.Scalar) -> Int? {
        if table.isEmpty { return Int(scalar.value) < glyphCount ? Int(scalar.value) : nil }
        return table[scalar.value]
    }

    /// Whether pixel (x, y) of `glyph` is set.
    @inline(__always)
    public func isSet(glyph: Int, x: Int, y: Int) -> Bool {
        guard x >= 0, x < width, y >= 0, y < height else { return false }
        let byte = bitmaps[glyph * bytesPerGlyph + y * bytesPerRow + x / 8]
        return byte & (0x80 >> UInt8(x % 8)) != 0
    }
}
