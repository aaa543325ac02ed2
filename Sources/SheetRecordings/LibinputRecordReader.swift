import SheetCore
import SheetYAML

/// Reads `libinput record` YAML (file format version 1) as a stream.
///
/// The small parts that vary (the top-level header and each device's description) are parsed
/// with a real YAML parser; the events, which are nearly all of a recording, are read line by
/// line by a scanner that knows their one shape, `- [SEC, USEC, TYPE, CODE, VALUE]`, in the
/// block style the writer uses at any indentation. Keys the format does not define are
/// ignored, as its man page asks. Entries of the events list without `evdev` (`libinput:`,
/// `hid:`) are skipped.
///
/// The first touch device (touchscreen or touchpad) is the one read, or with `.keys` the first
/// device of keys (a keyboard, buttons, a knob); the others are reported in `ignoredDevices`.
/// A recording that holds both is read by two readers at once (`MergedRecording`).
public final class LibinputRecordReader: KernelEventSource {
    /// Which device a reader reads.
    public enum Wanted: Sendable {
        case touch
        case keys

        func matches(_ kind: DeviceKind) -> Bool { self == .touch ? kind.isTouch : kind == .keys }
    }

    /// The recording holds no device of the kind wanted (with events).
    public struct NoDevice: Error {
        public let error: RecordingError
    }

    public let path: String
    public let wanted: Wanted
    public private(set) var device: DeviceDescription
    public private(set) var ignoredDevices: [DeviceDescription] = []
    /// Where each of `ignoredDevices` stands in the file's list, and where `device` does.
    public private(set) var ignoredIndices: [Int] = []
    public private(set) var deviceIndex = -1
    public private(set) var warnings: [RecordingWarning] = []
    public var bytesRead: Int { reader.bytesRead }
    public private(set) var lineNumber = 0
    /// `ndevices` from the header.
    public private(set) var declaredDeviceCount: Int?

    private let reader: LineReader

    /// Largest header, and largest description of one device, in bytes. Real ones are under
    /// 8 KiB (a keyboard lists every key); more is not a recording, and YAML costs memory by
    /// the node.
    public static let maximumSectionBytes = 256 * 1024
    /// Most devices in one file: a machine with every kind of input has a few dozen.
    public static let maximumDevices = 256

    private enum Phase {
        /// Gathering a device's lines up to its `events:` key.
        case deviceHeader
        /// Streaming the events of the chosen device.
        case events
        /// Skipping the events (or trailing keys) of a device that is not used.
        case skipping
        case done
    }

    private enum Entry { case evdev, other }

    private var phase: Phase = .deviceHeader
    private var entry: Entry = .other
    /// Column of the `-` of the device list items.
    private var itemIndent = -1
    /// Column of a device's keys (`node:`, `evdev:`, `events:`).
    private var keyIndent = -1
    /// Column of the `-` of the events list items (`- evdev:`), once seen.
    private var frameIndent = -1
    private var deviceText = ""
    private var deviceFirstLine = 0
    private var devicesSeen = 0
    private var chosen = false

    init(reader: LineReader, wanting wanted: Wanted = .touch) throws {
        self.reader = reader
        self.path = reader.path
        self.wanted = wanted
        device = DeviceDescription(name: "")
        try readHeader()
        // Read devices until the first wanted device's events begin.
        while !chosen {
            guard case .end = try step() else { continue }
            if !chosen {
                if devicesSeen == 0 {
                    throw RecordingError(file: path, line: max(1, reader.lineNumber), reason: "the recording has no devices")
                }
                let what = wanted == .touch ? "touchscreen or touchpad" : "keyboard, buttons or knob"
                throw NoDevice(error: RecordingError(file: path, line: max(1, reader.lineNumber),
                                                     reason: "no \(what) among the \(devicesSeen) recorded device(s)"))
            }
        }
    }

    public func next() throws -> KernelEvent? {
        while true {
            switch try step() {
            case .event(let event): return event
            case .line: continue
            case .end: return nil
            }
        }
    }

    private enum Step {
        case event(KernelEvent)
        case line
        case end
    }

    // MARK: Header

    private func readHeader() throws {
        var text = ""
        var sawDevices = false
        while !sawDevices, let _: Void = try reader.nextLine({ line in
            try checkText(line)
            if Bytes.hasPrefix(line, "devices:") {
                sawDevices = true
                let rest = Bytes.string(line, from: 8).withoutComment.trimmingSpaces
                if !rest.isEmpty && rest != "[]" {
                    throw RecordingError(file: path, line: reader.lineNumber,
                                         reason: "`devices` must be a list of devices in block style")
                }
                if rest == "[]" { phase = .done }
                return
            }
            text += Bytes.string(line)
            text += "\n"
            if text.utf8.count > Self.maximumSectionBytes {
                throw RecordingError(file: path, line: reader.lineNumber,
                                     reason: "the header is longer than \(Self.maximumSectionBytes / 1024) KiB: not a recording")
            }
        }) {}
        let root = try compose(text, firstLine: 1)
        guard let root, case .mapping(let mapping) = root else {
            throw RecordingError(file: path, line: root?.mark?.line ?? 1,
                                 reason: "expected a `libinput record` header map (version: 1, ndevices, devices)")
        }
        guard let versionNode = mapping["version"] else {
            throw RecordingError(file: path, line: 1, reason: "no `version` key: not a `libinput record` file")
        }
        guard let version = versionNode.int, version == 1 else {
            throw RecordingError(file: path, line: versionNode.mark?.line ?? 1,
                                 reason: "unsupported libinput record version `\(versionNode.string ?? "?")`: this reader knows version 1")
        }
        if let count = mapping["ndevices"] {
            guard let value = count.int, value >= 0 else {
                throw RecordingError(file: path, line: count.mark?.line ?? 1, reason: "`ndevices` must be a whole number")
            }
            declaredDeviceCount = value
        }
        if !sawDevices {
            throw RecordingError(file: path, line: max(1, reader.lineNumber), reason: "the recording has no `devices` list")
        }
    }

    // MARK: The line machine

    /// Reads one line; returns an event when the line was one of the chosen device.
    private func step() throws -> Step {
        if phase == .done { return .end }
        let result: KernelEvent?? = try reader.nextLine { line -> KernelEvent? in
            try handle(line)
        }
        guard let event = result else {
            try finishFile()
            return .end
        }
        return event.map(Step.event) ?? .line
    }

    private func handle(_ line: UnsafeBufferPointer<UInt8>) throws -> KernelEvent? {
        let indent = Bytes.skipSpaces(line, from: 0)
        if indent == line.count || line[indent] == Bytes.hash {    // blank or comment
            // A device's text keeps one line per line of the file, so YAML's lines map back.
            if phase == .deviceHeader, !deviceText.isEmpty { deviceText += "\n" }
            return nil
        }
        if phase == .events, indent > frameIndent, frameIndent >= 0, entry == .evdev {
            // The hot path: one event of the chosen device.
            if let event = parseEventItem(line, from: indent) {
                lineNumber = reader.lineNumber
                return event
            }
            try checkText(line)
            if !reader.lastLineTerminated {
                cutShort()
                return nil
            }
            throw RecordingError(file: path, line: reader.lineNumber,
                                 reason: "expected an event `- [SEC, USEC, TYPE, CODE, VALUE]`")
        }
        try checkText(line)
        let isItem = line[indent] == 0x2D && (indent + 1 == line.count || Bytes.isSpace(line[indent + 1]))

        // A new device?
        // Frames and events sit deeper than the device items, so an item at the devices'
        // column is always a new device.
        if isItem && (itemIndent < 0 || indent == itemIndent) {
            try beginDevice(line, indent: indent)
            return nil
        }
        if itemIndent >= 0 && indent <= itemIndent && !isItem {
            // A top-level key after the devices: not ours to read.
            try endDevice()
            phase = .skipping
            itemIndent = Int.max
            return nil
        }

        switch phase {
        case .deviceHeader:
            if indent == keyIndent, Bytes.hasPrefix(line, "events:", at: indent) {
                let rest = Bytes.string(line, from: indent + 7).withoutComment.trimmingSpaces
                guard rest.isEmpty || rest == "[]" || rest == "null" || rest == "~" else {
                    throw RecordingError(file: path, line: reader.lineNumber,
                                         reason: "`events` must be a list of frames in block style")
                }
                try parseDeviceText()
                return nil
            }
            deviceText += Bytes.string(line)
            deviceText += "\n"
            if deviceText.utf8.count > Self.maximumSectionBytes {
                throw RecordingError(file: path, line: reader.lineNumber,
                                     reason: "a device description longer than \(Self.maximumSectionBytes / 1024) KiB: not a recording")
            }
            return nil
        case .events, .skipping:
            if phase == .events && isItem && (frameIndent < 0 || indent == frameIndent) && indent >= keyIndent {
                frameIndent = indent
                let key = indent + 2 <= line.count ? Bytes.skipSpaces(line, from: indent + 1) : line.count
                if Bytes.hasPrefix(line, "evdev:", at: key) {
                    let rest = Bytes.string(line, from: key + 6).withoutComment.trimmingSpaces
                    guard rest.isEmpty || rest == "[]" else {
                        throw RecordingError(file: path, line: reader.lineNumber,
                                             reason: "`evdev` must be a list of events in block style")
                    }
                    entry = .evdev
                } else {
                    entry = .other
                }
                return nil
            }
            if phase == .events && indent <= keyIndent && !isItem {
                phase = .skipping  // a device key after `events`: ignored
                return nil
            }
            if phase == .events && frameIndent >= 0 && indent > frameIndent && entry == .other { return nil }
            if phase == .skipping { return nil }
            throw RecordingError(file: path, line: reader.lineNumber,
                                 reason: "expected a frame `- evdev:` in the events list")
        case .done:
            return nil
        }
    }

    private func beginDevice(_ line: UnsafeBufferPointer<UInt8>, indent: Int) throws {
        try endDevice()
        itemIndent = indent
        let key = Bytes.skipSpaces(line, from: indent + 1)
        keyIndent = key
        frameIndent = -1
        entry = .other
        phase = .deviceHeader
        deviceFirstLine = reader.lineNumber
        // Re-indent the item so that the YAML parser sees a one-element list.
        deviceText = String(repeating: " ", count: indent) + Bytes.string(line, from: indent) + "\n"
    }

    /// Called when a device's lines end (a new device, a top-level key or the end of the file).
    private func endDevice() throws {
        if phase == .deviceHeader, !deviceText.isEmpty {
            // A device without `events`: describe it, it has nothing to replay.
            try parseDeviceText(hasEvents: false)
        }
        if phase == .events { phase = .done }
    }

    private func parseDeviceText(hasEvents: Bool = true) throws {
        let text = deviceText
        deviceText = ""
        devicesSeen += 1
        guard devicesSeen <= Self.maximumDevices else {
            throw RecordingError(file: path, line: deviceFirstLine, reason: "more than \(Self.maximumDevices) devices: not a recording")
        }
        let description = try describeDevice(text)
        if !chosen, wanted.matches(description.kind), hasEvents {
            chosen = true
            device = description
            deviceIndex = devicesSeen - 1
            phase = .events
        } else {
            ignoredDevices.append(description)
            ignoredIndices.append(devicesSeen - 1)
            phase = .skipping
        }
    }

    private func finishFile() throws {
        if phase == .deviceHeader, !deviceText.isEmpty { try parseDeviceText(hasEvents: false) }
        // A last frame without SYN_REPORT is the replay's to report: it knows what was applied.
        if let declared = declaredDeviceCount, declared != devicesSeen {
            warnings.append(RecordingWarning(
                file: path, line: nil,
                message: "the header declares \(declared) device(s) but the file holds \(devicesSeen): truncated?"))
        }
        phase = .done
    }

    private func cutShort() {
        warnings.append(RecordingWarning(file: path, line: reader.lineNumber,
                                         message: "the recording ends in the middle of a line; replayed what it holds"))
        phase = .done
    }

    private func checkText(_ line: UnsafeBufferPointer<UInt8>) throws {
        if Bytes.containsNul(line) || !Bytes.isValidUTF8(line) {
            throw RecordingError(file: path, line: reader.lineNumber, reason: "binary data: not a recording")
        }
        if let tab = line.firstIndex(of: Bytes.tab), line[..<tab].allSatisfy({ $0 == Bytes.space }) {
            throw RecordingError(file: path, line: reader.lineNumber, reason: "a tab in the indentation: YAML allows only spaces")
        }
    }

    /// `- [  0,  12345,   3,  53,     481] # comment`
    private func parseEventItem(_ line: UnsafeBufferPointer<UInt8>, from indent: Int) -> KernelEvent? {
        var i = indent
        guard line[i] == 0x2D else { return nil }
        i = Bytes.skipSpaces(line, from: i + 1)
        guard i < line.count, line[i] == 0x5B else { return nil }  // [
        i += 1
        var values = (Int64(0), Int64(0), Int64(0), Int64(0), Int64(0))
        for index in 0..<5 {
            i = Bytes.skipSpaces(line, from: i)
            guard let value = Bytes.parseDecimal(line, &i) else { return nil }
            switch index {
            case 0: values.0 = value
            case 1: values.1 = value
            case 2: values.2 = value
            case 3: values.3 = value
            default: values.4 = value
            }
            i = Bytes.skipSpaces(line, from: i)
            guard i < line.count else { return nil }
            if index < 4 {
                guard line[i] == 0x2C else { return nil }  // ,
                i += 1
            } else {
                guard line[i] == 0x5D else { return nil }  // ]
                i += 1
            }
        }
        i = Bytes.skipSpaces(line, from: i)
        guard i == line.count || line[i] == Bytes.hash else { return nil }
        let (seconds, micro, type, code, value) = values
        guard seconds >= 0, seconds <= Bytes.maximumSeconds, micro >= 0, micro < 1_000_000, type >= 0, type <= 0xFFFF, code >= 0, code <= 0xFFFF,
              value >= Int64(Int32.min), value <= Int64(Int32.max) else { return nil }
        return KernelEvent(time: Timestamp(microseconds: seconds * 1_000_000 + micro),
                           type: UInt16(type), code: UInt16(code), value: Int32(value))
    }

    // MARK: Device descriptions

    private func compose(_ text: String, firstLine: Int) throws -> Node? {
        do {
            return try PlainYAML.compose(text)
        } catch {
            throw RecordingError(file: path, line: firstLine + error.line - 1, reason: error.reason)
        }
    }

    private func describeDevice(_ text: String) throws -> DeviceDescription {
        let first = deviceFirstLine
        func fail(_ node: Node?, _ reason: String) -> RecordingError {
            RecordingError(file: path, line: first + (node?.mark?.line ?? 1) - 1, reason: reason)
        }
        guard let root = try compose(text, firstLine: first), case .sequence(let items) = root,
              let item = items.first else {
            throw RecordingError(file: path, line: first, reason: "expected a device")
        }
        guard case .mapping(let map) = item else { throw fail(item, "a device must be a map (node, evdev, udev, events)") }
        guard let evdev = map["evdev"] else { throw fail(item, "the device has no `evdev` description") }
        guard case .mapping(let evdevMap) = evdev else { throw fail(evdev, "`evdev` must be a map (name, id, codes, absinfo, properties)") }

        var description = DeviceDescription(name: evdevMap["name"]?.string ?? "unnamed device")
        if let node = map["node"] {
            guard case .scalar = node else { throw fail(node, "`node` must be a path") }
            description.node = node.string
        }
        if let id = evdevMap["id"] {
            guard case .sequence(let values) = id else { throw fail(id, "`evdev.id` must be a list [bus, vendor, product, version]") }
            let numbers = values.compactMap(\.int)
            guard numbers.count == 4, values.count == 4 else { throw fail(id, "`evdev.id` must hold 4 numbers") }
            description.id = numbers
        }
        if let codes = evdevMap["codes"] {
            guard case .mapping(let codeMap) = codes else { throw fail(codes, "`evdev.codes` must be a map {type: [codes]}") }
            for (key, value) in codeMap {
                guard let type = key.int, let maximum = EventCode.maximumCode(ofType: type) else {
                    throw fail(key, "an event type must be a number from 0 to EV_MAX (\(EventCode.EV_MAX))")
                }
                guard case .sequence(let list) = value else { throw fail(value, "`evdev.codes.\(type)` must be a list of codes") }
                var set = Set<Int>()
                for code in list {
                    guard let number = code.int, (0...maximum).contains(number) else {
                        throw fail(code, "a code of event type \(type) must be a number from 0 to \(maximum)")
                    }
                    set.insert(number)
                }
                description.codes[type] = set
            }
        }
        if let absinfo = evdevMap["absinfo"] {
            guard case .mapping(let absMap) = absinfo else {
                throw fail(absinfo, "`evdev.absinfo` must be a map {code: [min, max, fuzz, flat, resolution]}")
            }
            for (key, value) in absMap {
                guard let code = key.int, (0...0x3f).contains(code) else {
                    throw fail(key, "an axis code must be a number from 0 to ABS_MAX (63)")
                }
                guard case .sequence(let list) = value else { throw fail(value, "`evdev.absinfo.\(code)` must be a list") }
                let numbers = list.compactMap { $0.int.flatMap { Int32(exactly: $0) } }
                guard numbers.count == list.count, numbers.count >= 2 else {
                    throw fail(value, "`evdev.absinfo.\(code)` must be [min, max, fuzz, flat, resolution]")
                }
                description.absinfo[code] = AbsInfo(
                    minimum: numbers[0], maximum: numbers[1], fuzz: numbers.count > 2 ? numbers[2] : 0,
                    flat: numbers.count > 3 ? numbers[3] : 0, resolution: numbers.count > 4 ? numbers[4] : 0)
            }
        }
        if let properties = evdevMap["properties"] {
            switch properties {
            case .sequence(let list):
                for property in list {
                    guard let number = property.int, (0...EventCode.INPUT_PROP_MAX).contains(number) else {
                        throw fail(property, "a property must be a number from 0 to INPUT_PROP_MAX (\(EventCode.INPUT_PROP_MAX))")
                    }
                    description.properties.insert(number)
                }
            case .scalar where properties.string == "" || properties.string == nil || properties.string == "null" || properties.string == "~":
                break
            default:
                throw fail(properties, "`evdev.properties` must be a list of numbers")
            }
        }
        if let udev = map["udev"], case .mapping(let udevMap) = udev, let properties = udevMap["properties"],
           case .sequence(let list) = properties {
            for entry in list {
                switch entry.string {
                case "ID_INPUT_TOUCHSCREEN=1": description.udevKind = .touchscreen
                case "ID_INPUT_TOUCHPAD=1": description.udevKind = .touchpad
                default: break
                }
            }
        }
        return description
    }
}

extension Substring {
    var trimmingSpaces: String { String(self).trimmingSpaces }
}
