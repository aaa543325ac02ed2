import SheetCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads evemu recordings, format versions 1.0 to 1.3: the device description (`N:`, `I:`,
/// `P:`, `B:`, `A:`, `L:`, `S:` lines) and the events (`E: SEC.USEC TYPE CODE VALUE`), in one
/// file or in a `.desc` and an `.events` file. Comments (`#`) may stand anywhere; on an `N:`
/// line `#` is part of the name.
public final class EvemuReader: KernelEventSource {
    public let path: String
    public private(set) var device: DeviceDescription
    public let ignoredDevices: [DeviceDescription] = []
    public private(set) var warnings: [RecordingWarning] = []
    public var bytesRead: Int { reader.bytesRead }
    public private(set) var lineNumber = 0
    /// The format version from the `# EVEMU x.y` header (1.0 when there is none).
    public private(set) var version = (major: 1, minor: 0)

    private let reader: LineReader
    private var pendingEvent: KernelEvent?
    private var pendingLine = 0
    private var finished = false

    init(reader: LineReader, description: DeviceDescription?, findDescription: Bool) throws {
        self.reader = reader
        self.path = reader.path
        var builder = DescriptionBuilder()
        let first = try Self.readDescription(reader, into: &builder, stopAtEvents: true, version: &version)
        pendingEvent = first
        pendingLine = reader.lineNumber
        if builder.isEmpty {
            if let description {
                device = description
            } else if findDescription, let found = Self.findDescriptionFile(for: path) {
                device = try Self.readDescription(path: found)
            } else {
                if first == nil {
                    throw RecordingError(file: path, line: max(1, reader.lineNumber), reason: "empty recording: no device and no events")
                }
                throw RecordingError(
                    file: path, line: 1,
                    reason: "events without a device description (N:, I:, B:, A: lines): pass its .desc file with --desc")
            }
        } else {
            device = try builder.build(file: path)
        }
        if first == nil && !builder.isEmpty {
            warnings.append(RecordingWarning(file: path, line: nil, message: "the recording holds no events"))
        }
    }

    /// Reads a description-only file (`.desc`, or the head of a full recording).
    public static func readDescription(path: String) throws -> DeviceDescription {
        let reader = try LineReader(path: path)
        var builder = DescriptionBuilder()
        var version = (major: 1, minor: 0)
        _ = try readDescription(reader, into: &builder, stopAtEvents: true, version: &version)
        guard !builder.isEmpty else {
            throw RecordingError(file: path, line: max(1, reader.lineNumber), reason: "no device description (N:, I:, B:, A: lines)")
        }
        return try builder.build(file: path)
    }

    /// `pad.two-finger.events` → `pad.two-finger.desc`, then `pad.desc`.
    static func findDescriptionFile(for path: String) -> String? {
        var stem = Substring(path)
        if let dot = stem.lastIndex(of: "."), !stem[dot...].contains("/") { stem = stem[..<dot] }
        while true {
            let candidate = stem + ".desc"
            if access(String(candidate), R_OK) == 0 { return String(candidate) }
            guard let dot = stem.lastIndex(of: "."), !stem[dot...].contains("/") else { return nil }
            stem = stem[..<dot]
        }
    }

    public func next() throws -> KernelEvent? {
        if let event = pendingEvent {
            pendingEvent = nil
            lineNumber = pendingLine
            return event
        }
        if finished { return nil }
        while true {
            let result: KernelEvent?? = try reader.nextLine { line -> KernelEvent? in
                try parseEventSectionLine(line)
            }
            guard let parsed = result else {
                finished = true
                return nil
            }
            if let event = parsed {
                lineNumber = reader.lineNumber
                return event
            }
            if finished { return nil }
        }
    }

    /// One line after the description: an event, a comment, a blank, or an error.
    private func parseEventSectionLine(_ line: UnsafeBufferPointer<UInt8>) throws -> KernelEvent? {
        if line.count >= 2, line[0] == UInt8(ascii: "E"), line[1] == 0x3A {
            if let event = Self.parseEvent(line) { return event }
            return try badLine(line, "expected an event `E: SEC.USEC TYPE CODE VALUE` (hex type and code, decimal value)")
        }
        let i = Bytes.skipSpaces(line, from: 0)
        if i == line.count || line[i] == Bytes.hash { return nil }
        if Bytes.containsNul(line) { return try badLine(line, "binary data: not a recording") }
        return try badLine(line, "expected an event `E: ...` after the description")
    }

    private func badLine(_ line: UnsafeBufferPointer<UInt8>, _ reason: String) throws -> KernelEvent? {
        if !reader.lastLineTerminated {
            // The file was cut in the middle of its last line: replay what came before.
            warnings.append(RecordingWarning(file: path, line: reader.lineNumber,
                                             message: "the recording ends in the middle of a line; replayed what it holds"))
            finished = true
            return nil
        }
        throw RecordingError(file: path, line: reader.lineNumber, reason: reason)
    }

    /// `E: 0.095573 0003 0039 -001`, then optionally whitespace and a comment.
    static func parseEvent(_ line: UnsafeBufferPointer<UInt8>) -> KernelEvent? {
        var i = Bytes.skipSpaces(line, from: 2)
        guard let seconds = Bytes.parseDecimal(line, &i), seconds >= 0, seconds <= Bytes.maximumSeconds,
              i < line.count, line[i] == 0x2E else { return nil }
        i += 1
        let fractionStart = i
        guard var micro = Bytes.parseDecimal(line, &i), line[fractionStart] != 0x2D, line[fractionStart] != 0x2B else {
            return nil
        }
        let digits = i - fractionStart
        guard digits <= 9 else { return nil }
        if digits < 6 { for _ in digits..<6 { micro *= 10 } }
        if digits > 6 { for _ in 6..<digits { micro /= 10 } }
        guard i < line.count, Bytes.isSpace(line[i]) else { return nil }
        i = Bytes.skipSpaces(line, from: i)
        guard let type = Bytes.parseHex(line, &i), type <= 0xFFFF, i < line.count, Bytes.isSpace(line[i]) else { return nil }
        i = Bytes.skipSpaces(line, from: i)
        guard let code = Bytes.parseHex(line, &i), code <= 0xFFFF, i < line.count, Bytes.isSpace(line[i]) else { return nil }
        i = Bytes.skipSpaces(line, from: i)
        guard let value = Bytes.parseDecimal(line, &i), value >= Int64(Int32.min), value <= Int64(Int32.max) else { return nil }
        if i < line.count {
            guard Bytes.isSpace(line[i]) else { return nil }
            i = Bytes.skipSpaces(line, from: i)
            guard i == line.count || line[i] == Bytes.hash else { return nil }
        }
        return KernelEvent(time: Timestamp(microseconds: seconds * 1_000_000 + micro),
                           type: UInt16(type), code: UInt16(code), value: Int32(value))
    }

    /// Reads description lines until the first event (returned) or the end of the file.
    static func readDescription(_ reader: LineReader, into builder: inout DescriptionBuilder, stopAtEvents: Bool,
                                version: inout (major: Int, minor: Int)) throws -> KernelEvent? {
        var firstEvent: KernelEvent?
        var done = false
        while !done, let _: Void = try reader.nextLine({ line in
            let path = reader.path, number = reader.lineNumber
            func fail(_ reason: String) -> RecordingError { RecordingError(file: path, line: number, reason: reason) }
            if Bytes.containsNul(line) { throw fail("binary data: not a recording") }
            let i = Bytes.skipSpaces(line, from: 0)
            if i == line.count { return }
            if line[i] == Bytes.hash {
                if number == 1 || builder.isEmpty, Bytes.hasPrefix(line, "# EVEMU", at: i) {
                    let text = Bytes.string(line, from: i + 7).trimmingSpaces
                    let parts = text.split(separator: ".")
                    guard parts.count == 2, let major = Int(parts[0]), let minor = Int(parts[1]) else {
                        throw fail("unreadable evemu version `\(text)`")
                    }
                    guard major == 1, minor <= 3 else {
                        throw fail("unsupported evemu format version \(text): this reader knows 1.0 to 1.3")
                    }
                    version = (major, minor)
                }
                return
            }
            guard line.count >= 2, line[1] == 0x3A, i == 0 else {
                throw fail("expected a description line (N:, I:, P:, B:, A:, L:, S:) or an event (E:)")
            }
            let body = Bytes.string(line, from: 2)
            switch line[0] {
            case UInt8(ascii: "E"):
                guard let event = parseEvent(line) else {
                    if !reader.lastLineTerminated { done = true; return }
                    throw fail("expected an event `E: SEC.USEC TYPE CODE VALUE` (hex type and code, decimal value)")
                }
                firstEvent = event
                done = true
            case UInt8(ascii: "N"):
                builder.name = body.trimmingSpaces
            case UInt8(ascii: "I"):
                let fields = body.withoutComment.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count == 4, let values = Optional(fields.compactMap { Int($0, radix: 16) }), values.count == 4 else {
                    throw fail("expected `I: BUS VENDOR PRODUCT VERSION` in hex")
                }
                builder.id = values
            case UInt8(ascii: "P"):
                let bytes = try hexBytes(body, fail)
                let offset = builder.propertyOffset
                guard offset + bytes.count * 8 <= DescriptionBuilder.maskBits(through: EventCode.INPUT_PROP_MAX) else {
                    throw fail("more property bits than the kernel has (INPUT_PROP_MAX is \(EventCode.INPUT_PROP_MAX))")
                }
                for (index, byte) in bytes.enumerated() {
                    for bit in 0..<8 where byte & (1 << bit) != 0 {
                        let property = offset + index * 8 + bit
                        guard property <= EventCode.INPUT_PROP_MAX else {
                            throw fail("property bit \(property) is beyond INPUT_PROP_MAX (\(EventCode.INPUT_PROP_MAX))")
                        }
                        builder.properties.insert(property)
                    }
                }
                builder.propertyOffset = offset + bytes.count * 8
            case UInt8(ascii: "B"):
                let bytes = try hexBytes(body, fail)
                guard let type = bytes.first else { throw fail("expected `B: TYPE BYTES…`") }
                guard let maximum = EventCode.maximumCode(ofType: Int(type)) else {
                    throw fail("event type \(type) is beyond EV_MAX (\(EventCode.EV_MAX))")
                }
                let offset = builder.codeOffsets[Int(type), default: 0]
                guard offset + (bytes.count - 1) * 8 <= DescriptionBuilder.maskBits(through: maximum) else {
                    throw fail("more code bits for event type \(type) than the kernel has (\(maximum + 1))")
                }
                for (index, byte) in bytes.dropFirst().enumerated() {
                    for bit in 0..<8 where byte & (1 << bit) != 0 {
                        let code = offset + index * 8 + bit
                        guard code <= maximum else {
                            throw fail("code \(code) of event type \(type) is beyond the kernel's highest, \(maximum)")
                        }
                        builder.codes[Int(type), default: []].insert(code)
                    }
                }
                builder.codeOffsets[Int(type)] = offset + (bytes.count - 1) * 8
            case UInt8(ascii: "A"):
                let fields = body.withoutComment.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count == 5 || fields.count == 6, let code = Int(fields[0], radix: 16) else {
                    throw fail("expected `A: CODE MIN MAX FUZZ FLAT [RESOLUTION]`")
                }
                guard code <= EventCode.maximumCode(ofType: Int(EventCode.EV_ABS))! else {
                    throw fail("axis \(code) is beyond ABS_MAX (0x3f)")
                }
                let numbers = fields.dropFirst().compactMap { Int32($0) }
                guard numbers.count == fields.count - 1 else {
                    throw fail("expected `A: CODE MIN MAX FUZZ FLAT [RESOLUTION]` with decimal numbers")
                }
                builder.absinfo[code] = AbsInfo(minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2],
                                                flat: numbers[3], resolution: numbers.count > 4 ? numbers[4] : 0)
            case UInt8(ascii: "L"), UInt8(ascii: "S"):
                break
            default:
                throw fail("expected a description line (N:, I:, P:, B:, A:, L:, S:) or an event (E:)")
            }
        }) {}
        return firstEvent
    }

    private static func hexBytes(_ text: String, _ fail: (String) -> RecordingError) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for field in text.withoutComment.split(separator: " ", omittingEmptySubsequences: true) {
            guard let byte = UInt8(field, radix: 16) else { throw fail("expected hex bytes, found `\(field)`") }
            bytes.append(byte)
        }
        return bytes
    }
}

/// Gathers an evemu description line by line.
struct DescriptionBuilder {
    var name: String?
    var id: [Int]?
    var properties: Set<Int> = []
    var propertyOffset = 0
    var codes: [Int: Set<Int>] = [:]
    var codeOffsets: [Int: Int] = [:]
    var absinfo: [Int: AbsInfo] = [:]

    var isEmpty: Bool { name == nil && id == nil && codes.isEmpty && absinfo.isEmpty }

    /// Bits a mask reaching `maximum` may span: evemu writes whole lines of 8 bytes.
    static func maskBits(through maximum: Int) -> Int { (maximum + 64) / 64 * 64 }

    func build(file: String) throws -> DeviceDescription {
        DeviceDescription(name: name ?? "unnamed device", id: id ?? [0, 0, 0, 0], properties: properties,
                          codes: codes, absinfo: absinfo)
    }
}

extension String {
    var trimmingSpaces: String {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" || last == "\r" { view = view.dropLast() }
        return String(view)
    }

    /// The text before a `#` comment.
    var withoutComment: Substring {
        if let hash = firstIndex(of: "#") { return self[..<hash] }
        return Substring(self)
    }
}
