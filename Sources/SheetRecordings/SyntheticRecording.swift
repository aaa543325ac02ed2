import SheetCore

/// Builds recordings of a made-up touchscreen, written as evemu or `libinput record` YAML,
/// for tests and benchmarks: taps, drags and flicks with exact timing.
///
/// The device has 10 slots and axes of `widthInUnits` × `heightInUnits` (1080 × 1920 by
/// default), so on the default 1080x1920 screen one unit is one pixel.
/// Example: `var r = SyntheticRecording(); r.stroke(slot: 0, from: (540, 1200), to: (540, 1800), seconds: 0.1)`.
public struct SyntheticRecording: Sendable {
    public var name = "sheetd synthetic touchscreen"
    public var widthInUnits: Int32 = 1080
    public var heightInUnits: Int32 = 1920
    public var slotCount = 10
    public private(set) var events: [KernelEvent] = []
    /// The time of the last frame, in microseconds.
    public private(set) var now: Int64 = 0
    private var nextTrackingID: Int32 = 1
    private var currentSlot = 0
    private var lastPosition: [Int: (Int32, Int32)] = [:]

    /// A device of keys or a knob that the recording is of instead of the touchscreen
    /// (`keyboard`, `knob`): its events are keys and steps (`key`, `dial`).
    public var keyDevice: DeviceDescription?

    public init() {}

    /// A recording of `device`'s keys or knob.
    public init(keys device: DeviceDescription) {
        keyDevice = device
        name = device.name
    }

    /// A keyboard: the letters, the digits, Tab, Enter, Escape, Space, the arrows, Home, End,
    /// Page Up and Down, the modifiers, `KEY_MENU` and `KEY_BACK`.
    public static let keyboard = DeviceDescription(
        name: "sheetd synthetic keyboard", id: [0x11, 0x1234, 0x0001, 1],
        codes: [0: [0, 1, 4], 1: Set(1...111).union([139, 158]), 4: [4]])

    /// A rotary knob with a push, as the Griffin PowerMate reports: `REL_DIAL` and `BTN_0`.
    public static let knob = DeviceDescription(
        name: "sheetd synthetic knob", id: [0x03, 0x077d, 0x0410, 1],
        codes: [0: [0, 1, 2], 1: [Int(KeyCode.button0)], 2: [Int(EventCode.REL_DIAL)]])

    // MARK: Keys

    /// A key pressed, held `seconds` and let go, a frame each.
    public mutating func key(_ code: UInt16, holdSeconds seconds: Double = 0.08) {
        emit(EventCode.EV_KEY, code, 1)
        report()
        wait(seconds)
        emit(EventCode.EV_KEY, code, 0)
        report()
    }

    /// A key's press (1), release (0) or the kernel's repeat (2), in a frame of its own.
    public mutating func key(_ code: UInt16, value: Int32) {
        emit(EventCode.EV_KEY, code, value)
        report()
    }

    /// A knob turned `steps` (clockwise positive) in one report.
    public mutating func dial(_ steps: Int32) {
        emit(EventCode.EV_REL, EventCode.REL_DIAL, steps)
        report()
    }

    public var device: DeviceDescription {
        if let keyDevice { return keyDevice }
        return DeviceDescription(
            name: name, id: [0x18, 0x1234, 0x5678, 1], properties: [EventCode.INPUT_PROP_DIRECT],
            codes: [0: [0, 3], 1: [Int(EventCode.BTN_TOUCH)],
                    3: [0, 1, 0x2f, 0x35, 0x36, 0x37, 0x39]],
            absinfo: [0: AbsInfo(minimum: 0, maximum: widthInUnits - 1), 1: AbsInfo(minimum: 0, maximum: heightInUnits - 1),
                      0x2f: AbsInfo(minimum: 0, maximum: Int32(slotCount - 1)),
                      0x35: AbsInfo(minimum: 0, maximum: widthInUnits - 1), 0x36: AbsInfo(minimum: 0, maximum: heightInUnits - 1),
                      0x37: AbsInfo(minimum: 0, maximum: 2), 0x39: AbsInfo(minimum: 0, maximum: 65535)])
    }

    // MARK: Raw frames

    private mutating func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(KernelEvent(time: Timestamp(microseconds: now), type: type, code: code, value: value))
    }

    private mutating func select(_ slot: Int) {
        if slot != currentSlot {
            emit(EventCode.EV_ABS, EventCode.ABS_MT_SLOT, Int32(slot))
            currentSlot = slot
        }
    }

    /// Moves the clock to `seconds` (never backwards).
    public mutating func at(_ seconds: Double) {
        now = max(now, Int64((seconds * 1_000_000).rounded()))
    }

    public mutating func wait(_ seconds: Double) {
        now += Int64((seconds * 1_000_000).rounded())
    }

    public mutating func report() {
        emit(EventCode.EV_SYN, EventCode.SYN_REPORT, 0)
    }

    public mutating func down(slot: Int, x: Int32, y: Int32) {
        select(slot)
        emit(EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, nextTrackingID)
        nextTrackingID += 1
        emit(EventCode.EV_ABS, EventCode.ABS_MT_POSITION_X, x)
        emit(EventCode.EV_ABS, EventCode.ABS_MT_POSITION_Y, y)
        if lastPosition.isEmpty { emit(EventCode.EV_KEY, EventCode.BTN_TOUCH, 1) }
        lastPosition[slot] = (x, y)
    }

    public mutating func move(slot: Int, x: Int32, y: Int32) {
        select(slot)
        let last = lastPosition[slot]
        if last?.0 != x { emit(EventCode.EV_ABS, EventCode.ABS_MT_POSITION_X, x) }
        if last?.1 != y { emit(EventCode.EV_ABS, EventCode.ABS_MT_POSITION_Y, y) }
        lastPosition[slot] = (x, y)
    }

    public mutating func up(slot: Int) {
        select(slot)
        emit(EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, -1)
        lastPosition[slot] = nil
        if lastPosition.isEmpty { emit(EventCode.EV_KEY, EventCode.BTN_TOUCH, 0) }
    }

    /// The contact in `slot` turns out to be a palm (libinput cancels it).
    public mutating func palm(slot: Int) {
        select(slot)
        emit(EventCode.EV_ABS, EventCode.ABS_MT_TOOL_TYPE, EventCode.MT_TOOL_PALM)
    }

    /// The contact in `slot` is a finger (`MT_TOOL_FINGER`), as a device that reports tool
    /// types says once a palm is gone.
    public mutating func finger(slot: Int) {
        select(slot)
        emit(EventCode.EV_ABS, EventCode.ABS_MT_TOOL_TYPE, 0)
    }

    /// The kernel's buffer overflowed: `SYN_DROPPED`.
    public mutating func dropped() {
        emit(EventCode.EV_SYN, EventCode.SYN_DROPPED, 0)
    }

    /// An event the decoder does not know, which it must ignore.
    public mutating func unknown() {
        emit(EventCode.EV_ABS, 0x3e, 7)
        emit(0x14, 0x01, 1)
    }

    // MARK: Gestures

    /// A tap at (x, y): down, and up `seconds` later.
    public mutating func tap(slot: Int = 0, x: Int32, y: Int32, seconds: Double = 0.08) {
        down(slot: slot, x: x, y: y)
        report()
        wait(seconds)
        up(slot: slot)
        report()
    }

    /// A finger put down at `from`, moved in a straight line to `to` over `seconds` with frames
    /// at `hertz`, then (after `holdSeconds` still) lifted. Easing out is optional.
    public mutating func stroke(slot: Int = 0, from: (Int32, Int32), to: (Int32, Int32), seconds: Double,
                                hertz: Double = 100, holdSeconds: Double = 0, lift: Bool = true) {
        down(slot: slot, x: from.0, y: from.1)
        report()
        let frames = max(1, Int((seconds * hertz).rounded()))
        for index in 1...frames {
            wait(seconds / Double(frames))
            let fraction = Double(index) / Double(frames)
            move(slot: slot, x: from.0 + Int32((Double(to.0 - from.0) * fraction).rounded()),
                 y: from.1 + Int32((Double(to.1 - from.1) * fraction).rounded()))
            report()
        }
        wait(holdSeconds)
        if lift {
            wait(1 / hertz)
            up(slot: slot)
            report()
        }
    }

    // MARK: Writing

    /// The recording as an evemu 1.3 file.
    public func evemu() -> String {
        let device = device
        var text = "# EVEMU 1.3\n# sheetd synthetic recording\n"
        text += "N: \(device.name)\n"
        text += "I: " + device.id.map { hex($0, width: 4) }.joined(separator: " ") + "\n"
        text += "P: " + bitmask(device.properties, bytes: 8).map { hex(Int($0), width: 2) }.joined(separator: " ") + "\n"
        for (type, bytes) in [(0, 4), (1, 96), (2, 2), (3, 8), (4, 1)] where type != 2 && type != 4 || device.codes[type] != nil {
            let mask = bitmask(device.codes[type] ?? [], bytes: bytes)
            for line in stride(from: 0, to: mask.count, by: 8) {
                text += "B: " + hex(type, width: 2) + " " + mask[line..<min(line + 8, mask.count)]
                    .map { hex(Int($0), width: 2) }.joined(separator: " ") + "\n"
            }
        }
        for code in device.absinfo.keys.sorted() {
            let info = device.absinfo[code]!
            text += "A: \(hex(code, width: 2)) \(info.minimum) \(info.maximum) \(info.fuzz) \(info.flat) \(info.resolution)\n"
        }
        for event in events {
            let seconds = event.time.microseconds / 1_000_000, micro = event.time.microseconds % 1_000_000
            text += "E: \(seconds).\(pad(micro, 6)) \(hex(Int(event.type), width: 4)) \(hex(Int(event.code), width: 4)) \(value(event.value))\n"
        }
        return text
    }

    /// The recording as `libinput record` YAML, with the writer's layout; `extraDevices` are
    /// listed first (a keyboard, say), each with one key press.
    public func libinputRecord(extraDevicesFirst extra: [DeviceDescription] = []) -> String {
        var text = Self.libinputRecordHeader(devices: extra.count + 1)
        for device in extra {
            text += deviceYAML(device, node: "/dev/input/event9")
            text += "  events:\n  - evdev:\n    - [  0,      0,   1,  30,       1] # EV_KEY / KEY_A 1\n"
            text += "    - [  0,      0,   0,   0,       0] # ------------ SYN_REPORT (0) ---------- +0ms\n"
        }
        return text + deviceYAML(device, node: "/dev/input/event5") + eventsYAML()
    }

    /// Several devices recorded together (`libinput record --multiple`): a touchscreen and a
    /// keyboard, say, each with its own events on one clock, in the order given.
    public static func libinputRecord(together recordings: [SyntheticRecording]) -> String {
        var text = libinputRecordHeader(devices: recordings.count)
        for (index, recording) in recordings.enumerated() {
            text += recording.deviceYAML(recording.device, node: "/dev/input/event\(5 + index)") + recording.eventsYAML()
        }
        return text
    }

    private static func libinputRecordHeader(devices: Int) -> String {
        "# libinput record\nversion: 1\nndevices: \(devices)\nlibinput:\n  version: \"1.22.1\"\n  git: \"unknown\"\n"
            + "system:\n  os: \"debian:12\"\n  kernel: \"6.1.0\"\n  dmi: \"dmi:unknown\"\ndevices:\n"
    }

    private func eventsYAML() -> String {
        var text = "  events:\n"
        var frameOpen = false
        for event in events {
            if !frameOpen {
                text += "  - evdev:\n"
                frameOpen = true
            }
            let seconds = event.time.microseconds / 1_000_000, micro = event.time.microseconds % 1_000_000
            text += "    - [\(padLeft(String(seconds), 3)), \(padLeft(String(micro), 6)), \(padLeft(String(event.type), 3)), \(padLeft(String(event.code), 3)), \(padLeft(String(event.value), 7))]"
            if event.type == EventCode.EV_SYN && event.code == EventCode.SYN_REPORT {
                text += " # ------------ SYN_REPORT (0) ----------\n"
                frameOpen = false
            } else {
                text += "\n"
            }
        }
        return text
    }

    private func deviceYAML(_ device: DeviceDescription, node: String) -> String {
        var text = "- node: \(node)\n  evdev:\n    # Name: \(device.name)\n    name: \"\(device.name)\"\n"
        text += "    id: [\(device.id.map(String.init).joined(separator: ", "))]\n    codes:\n"
        for type in device.codes.keys.sorted() {
            text += "      \(type): [\(device.codes[type]!.sorted().map(String.init).joined(separator: ", "))]\n"
        }
        if !device.absinfo.isEmpty {
            text += "    absinfo:\n"
            for code in device.absinfo.keys.sorted() {
                let i = device.absinfo[code]!
                text += "      \(code): [\(i.minimum), \(i.maximum), \(i.fuzz), \(i.flat), \(i.resolution)]\n"
            }
        }
        text += "    properties: [\(device.properties.sorted().map(String.init).joined(separator: ", "))]\n"
        text += "  udev:\n    properties:\n    - ID_INPUT=1\n"
        switch device.kind {
        case .touchscreen: text += "    - ID_INPUT_TOUCHSCREEN=1\n"
        case .touchpad: text += "    - ID_INPUT_TOUCHPAD=1\n"
        case .keys, .other: text += "    - ID_INPUT_KEY=1\n"
        }
        text += "  quirks:\n"
        return text
    }

    private func bitmask(_ bits: Set<Int>, bytes: Int) -> [UInt8] {
        var mask = [UInt8](repeating: 0, count: bytes)
        for bit in bits where bit / 8 < bytes { mask[bit / 8] |= 1 << UInt8(bit % 8) }
        return mask
    }

    private func hex(_ value: Int, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private func padLeft(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    private func value(_ value: Int32) -> String {
        value < 0 ? "-" + pad(Int64(-value), 3) : pad(Int64(value), 4)
    }
}
