import SheetCore

/// A parsed JSON value. Objects keep their keys in a dictionary: varlink gives key order no
/// meaning.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    /// The number, when it is a finite one (`NaN` and `Infinity` read as numbers are not).
    public var doubleValue: Double? { if case .number(let n) = self, n.isFinite { return n }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var isNull: Bool { self == .null }

    /// The number as an integer, when it is one exactly.
    public var intValue: Int? {
        guard case .number(let n) = self, n.rounded() == n, abs(n) < 9.0e15 else { return nil }
        return Int(n)
    }
}

/// Why bytes are not JSON, with the byte offset where reading stopped.
public struct JSONError: Error, Equatable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public var description: String { "byte \(offset): \(reason)" }
}

/// A strict JSON reader (RFC 8259, and `NaN`, `Infinity`, `-Infinity` as numbers) over bytes, with a depth limit so that no input can exhaust
/// the stack: `[[[[…` past `maximumDepth` is an error, not a crash.
public struct JSONReader {
    public static let maximumDepth = 64

    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(JSONError) -> JSONValue {
        var reader = JSONReader(Array(bytes))
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.offset == reader.bytes.count else { throw reader.error("unexpected bytes after the value") }
        return value
    }

    public static func parse(_ text: String) throws(JSONError) -> JSONValue { try parse(Array(text.utf8)) }

    private let bytes: [UInt8]
    private var offset = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ reason: String) -> JSONError { JSONError(offset: offset, reason: reason) }

    private var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { offset += 1 }
    }

    private mutating func expect(_ literal: StaticString, _ value: JSONValue) throws(JSONError) -> JSONValue {
        let count = literal.utf8CodeUnitCount
        guard offset + count <= bytes.count else { throw error("truncated literal") }
        for index in 0..<count where bytes[offset + index] != literal.utf8Start[index] {
            throw error("unexpected character")
        }
        offset += count
        return value
    }

    private mutating func value(depth: Int) throws(JSONError) -> JSONValue {
        guard depth < Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth) levels") }
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        // Not JSON, but what Python's and JavaScript's encoders write for non-finite floats:
        // read as numbers so that a field holding one is refused by name (`doubleValue` and
        // `intValue` give nil), not the whole message.
        case UInt8(ascii: "N"): return try expect("NaN", .number(.nan))
        case UInt8(ascii: "I"): return try expect("Infinity", .number(.infinity))
        case UInt8(ascii: "-") where offset + 1 < bytes.count && bytes[offset + 1] == UInt8(ascii: "I"):
            return try expect("-Infinity", .number(-.infinity))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character")
        }
    }

    private mutating func object(depth: Int) throws(JSONError) -> JSONValue {
        offset += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") { offset += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
            offset += 1
            skipWhitespace()
            // A member given twice is refused, not last-wins: `{"method":"…GetState",
            // "method":"…Dismiss"}` must not mean what a reader that keeps the first thinks.
            guard members.updateValue(try value(depth: depth + 1), forKey: key) == nil else {
                throw error("the member \"\(key)\" is given twice")
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "}"): offset += 1; return .object(members)
            default: throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONError) -> JSONValue {
        offset += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { offset += 1; return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth + 1))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "]"): offset += 1; return .array(elements)
            default: throw error("expected ',' or ']'")
            }
        }
    }

    private mutating func hexDigit() throws(JSONError) -> UInt32 {
        guard let byte = current else { throw error("truncated \\u escape") }
        offset += 1
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: throw error("bad hex digit in \\u escape")
        }
    }

    private mutating func unicodeEscape() throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 { value = value << 4 | (try hexDigit()) }
        return value
    }

    private mutating func string() throws(JSONError) -> String {
        offset += 1
        var scalars = String.UnicodeScalarView()
        var runStart = offset
        var escaped = false
        func run(_ reader: JSONReader, upTo end: Int) throws(JSONError) -> String {
            guard let text = String(validating: reader.bytes[runStart..<end], as: UTF8.self) else {
                throw reader.error("a string is not valid UTF-8")
            }
            return text
        }
        func flushRun(_ reader: JSONReader, upTo end: Int, into scalars: inout String.UnicodeScalarView) throws(JSONError) {
            guard runStart < end else { return }
            scalars.append(contentsOf: try run(reader, upTo: end).unicodeScalars)
        }
        while true {
            guard let byte = current else { throw error("unterminated string") }
            if byte == UInt8(ascii: "\"") {
                // Without an escape the string is its bytes, made a String once (in place, with
                // no allocation, up to 15 bytes: every key and most values of a call).
                if !escaped {
                    let text = try run(self, upTo: offset)
                    offset += 1
                    return text
                }
                try flushRun(self, upTo: offset, into: &scalars)
                offset += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("a control character inside a string") }
            if byte != UInt8(ascii: "\\") { offset += 1; continue }
            escaped = true
            try flushRun(self, upTo: offset, into: &scalars)
            offset += 1
            guard let escape = current else { throw error("unterminated escape") }
            offset += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try unicodeEscape()
                if (0xD800..<0xDC00).contains(code) {
                    guard current == UInt8(ascii: "\\") else { throw error("a lone surrogate") }
                    offset += 1
                    guard current == UInt8(ascii: "u") else { throw error("a lone surrogate") }
                    offset += 1
                    let low = try unicodeEscape()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("a lone surrogate") }
                scalars.append(scalar)
            default: throw error("unknown escape")
            }
            runStart = offset
        }
    }

    private mutating func number() throws(JSONError) -> JSONValue {
        let start = offset
        func digits(_ reader: inout JSONReader) -> Int {
            var count = 0
            while let byte = reader.current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { reader.offset += 1; count += 1 }
            return count
        }
        if current == UInt8(ascii: "-") { offset += 1 }
        if current == UInt8(ascii: "0") {
            offset += 1
        } else if digits(&self) == 0 {
            throw error("a number without digits")
        }
        if current == UInt8(ascii: ".") {
            offset += 1
            guard digits(&self) > 0 else { throw error("a number without digits after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            offset += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
            guard digits(&self) > 0 else { throw error("a number without digits in its exponent") }
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("a number out of range") }
        return .number(value)
    }
}

/// Writes JSON into a byte array, deterministically and without allocating per value: numbers
/// are rounded to a fixed number of decimals and printed without trailing zeros, so the same
/// value always gives the same bytes.
public struct JSONWriter: Sendable {
    public var bytes: [UInt8] = []

    public init(capacity: Int = 512) { bytes.reserveCapacity(capacity) }

    @inlinable
    public mutating func append(_ byte: UInt8) { bytes.append(byte) }

    @inlinable
    public mutating func append(_ string: StaticString) {
        string.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    public mutating func appendRaw(_ string: String) {
        var copy = string
        copy.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// `value` rounded to `decimals` places (0 to 15), without trailing zeros (`12.5`, `-3`,
    /// `0`); `null` when it is not finite. At most 15 significant digits are written: a value
    /// too large for `decimals` places loses the places a double does not hold
    /// (`4444444444.43` with 6 decimals is written `4444444444.43`, not `4444444444.430001`), so
    /// that what is written reads back to a value that is written the same way again.
    public mutating func append(_ value: Double, decimals: Int) {
        appendFormatted { Self.formatNumber(value, decimals: decimals, into: $0) }
    }

    public mutating func appendInteger(_ value: Int64) {
        appendFormatted { Self.formatInteger(value, into: $0) }
    }

    /// The longest number `formatNumber` and `formatInteger` write: a sign, 16 digits before
    /// the point (9e15, where numbers are held), the point and 15 places; or `null`.
    @usableFromInline static let longestNumber = 33

    /// Writes `append(_:decimals:)`'s bytes at `out` (room for `longestNumber`); returns how many.
    @usableFromInline
    static func formatNumber(_ value: Double, decimals: Int, into out: UnsafeMutablePointer<UInt8>) -> Int {
        precondition((0...15).contains(decimals), "decimals \(decimals) out of 0...15")
        guard value.isFinite else {
            for (index, byte) in "null".utf8.enumerated() { out[index] = byte }
            return 4
        }
        var places = decimals
        var power = Self.tenTo(places)
        let magnitude = abs(value)
        var scaled = magnitude * power
        // Below 10^15 (< 2^50), a number of units read back and scaled again rounds to the
        // same units: the two roundings of reading and scaling are under half a unit. (`scaled`
        // rounds, half away from zero, to 10^15 or more exactly when it is 10^15 - 0.5 or more.)
        while scaled >= 999_999_999_999_999.5, places > 0 {
            places -= 1
            power = Self.tenTo(places)
            scaled = magnitude * power
        }
        // Rounded half away from zero, as `rounded()` does, without its call into libm: the
        // part after the point is exact, as it is the difference of two nearby doubles.
        let units: UInt64
        if scaled >= 9.0e15 {
            units = 9_000_000_000_000_000
        } else {
            let whole = UInt64(scaled)
            units = scaled - Double(whole) >= 0.5 ? whole + 1 : whole
        }
        if units == 0 { out[0] = UInt8(ascii: "0"); return 1 }
        var (whole, fraction) = split(units, places: places)
        if fraction != 0 {
            while fraction % 10 == 0 { fraction /= 10; places -= 1 }
        }
        var end = 0
        if value < 0 { out[end] = UInt8(ascii: "-"); end += 1 }
        end = writeDigits(whole, to: out, at: end)
        guard fraction != 0 else { return end }
        out[end] = UInt8(ascii: ".")
        return writeDigits(fraction, to: out, at: end + 1, count: places)
    }

    /// Writes `appendInteger`'s bytes at `out` (room for 20); returns how many.
    @usableFromInline
    static func formatInteger(_ value: Int64, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var end = 0
        if value < 0 { out[end] = UInt8(ascii: "-"); end += 1 }
        return writeDigits(value.magnitude, to: out, at: end)
    }

    /// Seconds with six decimals, always (`0.095573`).
    public mutating func appendSeconds(_ microseconds: Int64) {
        appendFormatted { out in
            var end = 0
            if microseconds < 0 { out[end] = UInt8(ascii: "-"); end += 1 }
            let magnitude = microseconds.magnitude
            end = Self.writeDigits(magnitude / 1_000_000, to: out, at: end)
            out[end] = UInt8(ascii: ".")
            return Self.writeDigits(magnitude % 1_000_000, to: out, at: end + 1, count: 6)
        }
    }

    /// Appends what `format` writes into a buffer on the stack (at most 48 bytes; it returns how
    /// many), in one append: a number written a digit at a time took an append, with its
    /// uniqueness check, for every digit.
    @inline(__always)
    private mutating func appendFormatted(_ format: (UnsafeMutablePointer<UInt8>) -> Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
            guard let base = buffer.baseAddress else { return }
            bytes.append(contentsOf: UnsafeBufferPointer(start: base, count: format(base)))
        }
    }

    /// `units` split at `places` decimal places: the whole part and the fraction's digits. Each
    /// power of ten is a constant here, so the division is a multiplication and a shift rather
    /// than a hardware division (dear on small cores, and a helper call under emulation).
    @inline(__always)
    static func split(_ units: UInt64, places: Int) -> (quotient: UInt64, remainder: UInt64) {
        switch places {
        case 0: return (units, 0)
        case 1: return units.quotientAndRemainder(dividingBy: 10)
        case 2: return units.quotientAndRemainder(dividingBy: 100)
        case 3: return units.quotientAndRemainder(dividingBy: 1_000)
        case 4: return units.quotientAndRemainder(dividingBy: 10_000)
        case 5: return units.quotientAndRemainder(dividingBy: 100_000)
        case 6: return units.quotientAndRemainder(dividingBy: 1_000_000)
        case 7: return units.quotientAndRemainder(dividingBy: 10_000_000)
        case 8: return units.quotientAndRemainder(dividingBy: 100_000_000)
        case 9: return units.quotientAndRemainder(dividingBy: 1_000_000_000)
        case 10: return units.quotientAndRemainder(dividingBy: 10_000_000_000)
        case 11: return units.quotientAndRemainder(dividingBy: 100_000_000_000)
        case 12: return units.quotientAndRemainder(dividingBy: 1_000_000_000_000)
        case 13: return units.quotientAndRemainder(dividingBy: 10_000_000_000_000)
        case 14: return units.quotientAndRemainder(dividingBy: 100_000_000_000_000)
        default: return units.quotientAndRemainder(dividingBy: 1_000_000_000_000_000)
        }
    }

    /// 10 to the `exponent` (0 to 15), exactly.
    @inline(__always)
    static func tenTo(_ exponent: Int) -> Double {
        switch exponent {
        case 0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1e3
        case 4: return 1e4
        case 5: return 1e5
        case 6: return 1e6
        case 7: return 1e7
        case 8: return 1e8
        case 9: return 1e9
        case 10: return 1e10
        case 11: return 1e11
        case 12: return 1e12
        case 13: return 1e13
        case 14: return 1e14
        default: return 1e15
        }
    }

    /// Writes `value` in decimal at `start`, zero-padded to `count` digits when it has fewer;
    /// returns the index after the last digit. Its digits are counted by comparison and
    /// written in one pass of divisions by ten.
    @inline(__always)
    static func writeDigits(_ value: UInt64, to out: UnsafeMutablePointer<UInt8>, at start: Int, count: Int = 1) -> Int {
        var length = 1
        var threshold: UInt64 = 10
        while length < 20, value >= threshold {
            length += 1
            threshold = threshold &* 10
        }
        length = Swift.max(length, count)
        var remaining = value
        var index = start + length
        while index > start {
            index -= 1
            out[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
        }
        return start + length
    }

    /// A detent's name as a JSON string: its characters (letters, digits, `-`, `_`) need no
    /// escaping.
    public mutating func appendName(_ name: DetentName) {
        append(UInt8(ascii: "\""))
        name.withUTF8 { bytes.append(contentsOf: $0) }
        append(UInt8(ascii: "\""))
    }

    /// A JSON string literal. A string with nothing to escape (an id, a label) goes in whole.
    public mutating func appendString(_ string: String) {
        append(UInt8(ascii: "\""))
        var copy = string
        let plain = copy.withUTF8 { utf8 in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if plain {
            append(UInt8(ascii: "\""))
            return
        }
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": append("\\\"")
            case "\\": append("\\\\")
            case "\n": append("\\n")
            case "\r": append("\\r")
            case "\t": append("\\t")
            default:
                if scalar.value < 0x20 {
                    append("\\u00")
                    let hex: StaticString = "0123456789abcdef"
                    append(hex.utf8Start[Int(scalar.value >> 4)])
                    append(hex.utf8Start[Int(scalar.value & 0xF)])
                } else {
                    UTF8.encode(scalar) { append($0) }
                }
            }
        }
        append(UInt8(ascii: "\""))
    }

    /// A number as a parsed value's is written: an integer without places, any other with up
    /// to 6.
    public mutating func appendNumber(_ number: Double) {
        if number.rounded() == number, abs(number) < 9.0e15 { appendInteger(Int64(number)) } else { append(number, decimals: 6) }
    }

    /// Any parsed value, objects with their keys sorted (deterministic).
    public mutating func append(_ value: JSONValue) {
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .number(let number): appendNumber(number)
        case .string(let text): appendString(text)
        case .array(let elements):
            append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { append(UInt8(ascii: ",")) }
                append(element)
            }
            append(UInt8(ascii: "]"))
        case .object(let members):
            append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { append(UInt8(ascii: ",")) }
                appendString(key)
                append(UInt8(ascii: ":"))
                append(members[key]!)
            }
            append(UInt8(ascii: "}"))
        }
    }
}
