import SheetCore

/// `io.sheetd.Input.SendFrame`, read straight from a message's bytes: the call each frame of a
/// forwarded touch makes, read with no JSON tree and no allocation.
///
/// It reads only what it is sure of: the call's five members and the frame's, strings without
/// an escape, numbers of at most 15 bytes, at most `PluginContacts.capacity` contacts, and
/// values the wire takes. Anything else gives nil, and the general readers (`VarlinkCall`,
/// `PluginFrame(json:)`) read the message and say what is wrong with it, so a refusal reads
/// the same whichever way a call came. The fuzz target `sendframe` holds the two to the same
/// result for any bytes.
public struct SendFrameCall: Sendable, Equatable {
    public var device: Int
    public var frame: PluginFrame
    public var more: Bool
    public var oneway: Bool

    public init(device: Int, frame: PluginFrame, more: Bool = false, oneway: Bool = false) {
        self.device = device
        self.frame = frame
        self.more = more
        self.oneway = oneway
    }

    /// The method's full name, as a call names it.
    public static let method = "io.sheetd.Input.SendFrame"

    /// Reads one message's bytes (without its NUL); nil when it is not a `SendFrame` call this
    /// reader is sure of.
    public init?(message: UnsafeRawBufferPointer) {
        var scanner = FrameScanner(bytes: message)
        guard let call = scanner.call() else { return nil }
        self = call
    }
}

extension SendFrameCall {
    /// The call as bytes, NUL included, into `writer` (its bytes replaced, its storage kept):
    /// the bytes `VarlinkCall.encoded()` writes for it, with no tree and no allocation.
    public func write(into writer: inout JSONWriter) {
        writer.bytes.removeAll(keepingCapacity: true)
        writer.append(#"{"method":"io.sheetd.Input.SendFrame","parameters":{"contacts":["#)
        for (index, contact) in frame.contacts.enumerated() {
            if index > 0 { writer.append(UInt8(ascii: ",")) }
            writer.append(#"{"phase":""#)
            switch contact.phase {
            case .down: writer.append("down")
            case .move: writer.append("move")
            case .up: writer.append("up")
            case .cancel: writer.append("cancel")
            }
            writer.append(#"","slot":"#)
            writer.appendNumber(Double(contact.slot))
            writer.append(#","x":"#)
            writer.appendNumber(contact.x)
            writer.append(#","y":"#)
            writer.appendNumber(contact.y)
            writer.append(UInt8(ascii: "}"))
        }
        writer.append(#"],"device":"#)
        writer.appendNumber(Double(device))
        writer.append(#","sequence":"#)
        writer.appendNumber(Double(frame.sequence))
        writer.append(#","time":"#)
        writer.appendNumber(Double(frame.timeInMicroseconds))
        writer.append(UInt8(ascii: "}"))
        if more { writer.append(#","more":true"#) }
        if oneway { writer.append(#","oneway":true"#) }
        writer.append(UInt8(ascii: "}"))
        writer.append(0)
    }
}

/// The members a `SendFrame` call may have, one bit each within its object (the call, its
/// parameters, a contact: each object keeps its own set, so the three share bits), so that a
/// member given twice is noticed (the general reader refuses it).
private struct Members: OptionSet {
    let rawValue: UInt8
    static let method = Members(rawValue: 1 << 0)
    static let parameters = Members(rawValue: 1 << 1)
    static let more = Members(rawValue: 1 << 2)
    static let oneway = Members(rawValue: 1 << 3)
    static let upgrade = Members(rawValue: 1 << 4)
    static let device = Members(rawValue: 1 << 0)
    static let sequence = Members(rawValue: 1 << 1)
    static let time = Members(rawValue: 1 << 2)
    static let contacts = Members(rawValue: 1 << 3)
    static let slot = Members(rawValue: 1 << 0)
    static let phase = Members(rawValue: 1 << 1)
    static let x = Members(rawValue: 1 << 2)
    static let y = Members(rawValue: 1 << 3)

    /// Adds `member`; false when it was there already.
    mutating func take(_ member: Members) -> Bool { insert(member).inserted }
}

private struct FrameScanner {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { offset += 1 }
    }

    /// Whitespace, then `byte`, taken.
    mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard current == byte else { return false }
        offset += 1
        return true
    }

    /// A string with no escape and no byte outside printable ASCII, as its range of bytes.
    /// Every name and value this reader takes is one; anything else is the general reader's.
    mutating func plainString() -> Range<Int>? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = offset
        while let byte = current {
            if byte == UInt8(ascii: "\"") {
                offset += 1
                return start..<(offset - 1)
            }
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
            offset += 1
        }
        return nil
    }

    func equals(_ range: Range<Int>, _ text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        for index in 0..<range.count where bytes[range.lowerBound + index] != text.utf8Start[index] { return false }
        return true
    }

    /// A name, then its `:`.
    mutating func name() -> Range<Int>? {
        guard let name = plainString(), take(UInt8(ascii: ":")) else { return nil }
        return name
    }

    /// `,` (true, another member follows) or `}`/`]` `close` (false); nil for anything else.
    mutating func next(closing close: UInt8) -> Bool? {
        skipWhitespace()
        switch current {
        case UInt8(ascii: ","): offset += 1; return true
        case close: offset += 1; return false
        default: return nil
        }
    }

    mutating func boolean() -> Bool? {
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    /// Whitespace, then `text`, taken.
    mutating func literal(_ text: StaticString) -> Bool {
        skipWhitespace()
        let end = offset + text.utf8CodeUnitCount
        guard end <= bytes.count, equals(offset..<end, text) else { return false }
        offset = end
        return true
    }

    /// A number in JSON's grammar, read as the general reader reads it (the same text given
    /// to `Double`), when it is at most 15 bytes (a String of that size is made in place).
    mutating func number() -> JSONValue? {
        skipWhitespace()
        let start = offset
        var integer = 0
        var digitCount = 0
        var plainInteger = true
        func digits(_ scanner: inout FrameScanner, into value: inout Int) -> Int {
            var count = 0
            while let byte = scanner.current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                if count < 18 { value = value &* 10 &+ Int(byte - UInt8(ascii: "0")) }
                scanner.offset += 1
                count += 1
            }
            return count
        }
        let negative = current == UInt8(ascii: "-")
        if negative { offset += 1 }
        if current == UInt8(ascii: "0") {
            offset += 1
            digitCount = 1
        } else {
            digitCount = digits(&self, into: &integer)
            guard digitCount > 0 else { return nil }
        }
        var ignored = 0
        if current == UInt8(ascii: ".") {
            offset += 1
            plainInteger = false
            guard digits(&self, into: &ignored) > 0 else { return nil }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            offset += 1
            plainInteger = false
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
            guard digits(&self, into: &ignored) > 0 else { return nil }
        }
        guard offset - start <= 15 else { return nil }
        if plainInteger {
            // At most 15 digits: below 2^53, where a double holds every integer, so this is
            // the value `Double` gives for the text (a minus zero included).
            let magnitude = Double(integer)
            return .number(negative ? -magnitude : magnitude)
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { return nil }
        return .number(value)
    }

    /// The whole call, or nil.
    mutating func call() -> SendFrameCall? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var seen = Members()
        var frame: (device: Int, frame: PluginFrame)?
        var more = false, oneway = false
        while true {
            guard let name = name() else { return nil }
            if equals(name, "method") {
                guard seen.take(.method), let method = plainString(), equals(method, "io.sheetd.Input.SendFrame") else { return nil }
            } else if equals(name, "parameters") {
                guard seen.take(.parameters), let read = parameters() else { return nil }
                frame = read
            } else if equals(name, "more") {
                guard seen.take(.more), let value = boolean() else { return nil }
                more = value
            } else if equals(name, "oneway") {
                guard seen.take(.oneway), let value = boolean() else { return nil }
                oneway = value
            } else if equals(name, "upgrade") {
                guard seen.take(.upgrade), boolean() != nil else { return nil }
            } else {
                return nil
            }
            guard let another = next(closing: UInt8(ascii: "}")) else { return nil }
            if !another { break }
        }
        skipWhitespace()
        guard offset == bytes.count, seen.contains(.method), let frame else { return nil }
        return SendFrameCall(device: frame.device, frame: frame.frame, more: more, oneway: oneway)
    }

    /// `{"device":…,"sequence":…,"time":…,"contacts":[…]}`, every member given, each value one
    /// the wire takes.
    mutating func parameters() -> (device: Int, frame: PluginFrame)? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var seen = Members()
        var device: Int?
        var sequence: Int64?, time: Int64?
        var contacts = PluginContacts()
        while true {
            guard let name = name() else { return nil }
            if equals(name, "device") {
                guard seen.take(.device), let value = number()?.intValue else { return nil }
                device = value
            } else if equals(name, "sequence") {
                guard seen.take(.sequence), let value = number() else { return nil }
                sequence = try? PluginFrame.sequence(value)
            } else if equals(name, "time") {
                guard seen.take(.time), let value = number() else { return nil }
                time = try? PluginFrame.time(value)
            } else if equals(name, "contacts") {
                guard seen.take(.contacts), contactList(into: &contacts) else { return nil }
            } else {
                return nil
            }
            guard let another = next(closing: UInt8(ascii: "}")) else { return nil }
            if !another { break }
        }
        guard let device, let sequence, let time, seen.contains(.contacts) else { return nil }
        return (device, PluginFrame(sequence: sequence, timeInMicroseconds: time, contacts: contacts))
    }

    /// `[{…}, …]`, at most `PluginContacts.capacity`.
    mutating func contactList(into contacts: inout PluginContacts) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            offset += 1
            return true
        }
        while true {
            guard let contact = contact(index: contacts.count), contacts.append(contact) else { return false }
            guard let another = next(closing: UInt8(ascii: "]")) else { return false }
            if !another { return true }
        }
    }

    mutating func contact(index: Int) -> PluginContact? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var seen = Members()
        var slot: JSONValue?, x: JSONValue?, y: JSONValue?
        var phase: ContactPhase?
        while true {
            guard let name = name() else { return nil }
            if equals(name, "slot") {
                guard seen.take(.slot), let value = number() else { return nil }
                slot = value
            } else if equals(name, "phase") {
                guard seen.take(.phase), let value = plainString() else { return nil }
                phase = equals(value, "down") ? .down : equals(value, "move") ? .move : equals(value, "up") ? .up
                    : equals(value, "cancel") ? .cancel : nil
            } else if equals(name, "x") {
                guard seen.take(.x), let value = number() else { return nil }
                x = value
            } else if equals(name, "y") {
                guard seen.take(.y), let value = number() else { return nil }
                y = value
            } else {
                return nil
            }
            guard let another = next(closing: UInt8(ascii: "}")) else { return nil }
            if !another { break }
        }
        return try? PluginContact(index: index, slot: slot, phase: phase, x: x, y: y)
    }
}
