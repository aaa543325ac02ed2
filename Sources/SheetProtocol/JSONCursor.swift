import SheetCore

/// A stretch of JSON no longer than `capacity` bytes, written through a pointer into a buffer
/// on the stack and added to a `JSONWriter` in one piece (`JSONWriter.appendBounded`). Each
/// piece (a literal, a number, a name) is checked once against the room left; a writer's
/// array checks its capacity and uniqueness for every append instead. The states subscribers
/// are sent, many a second, are written this way; a piece that would overflow the stretch
/// traps rather than write past it, so each user keeps its stretch's longest case well under.
public struct JSONCursor {
    /// Bytes in a stretch.
    public static let capacity = 1024

    @usableFromInline let base: UnsafeMutablePointer<UInt8>
    /// Bytes written.
    public private(set) var count = 0

    @usableFromInline
    init(base: UnsafeMutablePointer<UInt8>) { self.base = base }

    /// Where the next `bytes` bytes go; traps if the stretch has no room for them.
    @inline(__always)
    private func room(_ bytes: Int) -> UnsafeMutablePointer<UInt8> {
        precondition(bytes <= Self.capacity - count, "a JSON stretch outgrew its \(Self.capacity) bytes")
        return base + count
    }

    public mutating func append(_ byte: UInt8) {
        room(1).pointee = byte
        count += 1
    }

    /// A literal of the source (text, not a single scalar). Inlined, its length is known where
    /// it is written and the copy is a few moves: a state is two dozen literals.
    @inline(__always)
    public mutating func append(_ literal: StaticString) {
        guard literal.hasPointerRepresentation else {
            literal.withUTF8Buffer { utf8 in
                room(utf8.count).update(from: utf8.baseAddress!, count: utf8.count)
                count += utf8.count
            }
            return
        }
        let length = literal.utf8CodeUnitCount
        room(length).update(from: literal.utf8Start, count: length)
        count += length
    }

    /// As `JSONWriter.append(_:decimals:)`.
    public mutating func append(_ value: Double, decimals: Int) {
        count += JSONWriter.formatNumber(value, decimals: decimals, into: room(JSONWriter.longestNumber))
    }

    /// As `JSONWriter.appendInteger`.
    public mutating func appendInteger(_ value: Int64) {
        count += JSONWriter.formatInteger(value, into: room(20))
    }

    /// `true` or `false`.
    @inline(__always)
    public mutating func append(_ flag: Bool) {
        append(flag ? "true" : "false")
    }

    /// As `JSONWriter.appendName`: at most 17 bytes.
    public mutating func appendName(_ name: DetentName) {
        let out = room(DetentName.maximumBytes + 2)
        out[0] = UInt8(ascii: "\"")
        // The name's storage goes whole (16 bytes, its count last), then the quote over the rest.
        let length = name.store(to: UnsafeMutableRawPointer(out + 1))
        out[length + 1] = UInt8(ascii: "\"")
        count += length + 2
    }

    /// `"#3584e4"`, as `RGB.description` spells it: 9 bytes.
    public mutating func appendColour(_ colour: RGB) {
        let digits: StaticString = "0123456789abcdef"
        let out = room(9)
        out[0] = UInt8(ascii: "\"")
        out[1] = UInt8(ascii: "#")
        let value = UInt32(colour.r) << 16 | UInt32(colour.g) << 8 | UInt32(colour.b)
        for index in 0..<6 {
            out[2 + index] = digits.utf8Start[Int(value >> UInt32(20 - 4 * index) & 0xF)]
        }
        out[8] = UInt8(ascii: "\"")
        count += 9
    }
}

extension JSONWriter {
    /// Appends what `body` writes through a cursor, at most `JSONCursor.capacity` bytes, in one
    /// piece.
    public mutating func appendBounded(_ body: (inout JSONCursor) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: JSONCursor.capacity) { buffer in
            guard let base = buffer.baseAddress else { return }
            var cursor = JSONCursor(base: base)
            body(&cursor)
            bytes.append(contentsOf: UnsafeBufferPointer(start: base, count: cursor.count))
        }
    }
}
