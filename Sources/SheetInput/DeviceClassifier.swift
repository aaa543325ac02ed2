#if canImport(Glibc)
import Glibc
#endif
import SheetCore
import SheetProtocol
import SheetSystem

/// Classifies `/dev/input/eventN` from `/sys/class/input/eventN/device/{name,properties,
/// capabilities/*}`, the same bits udev's `input_id` builtin reads, so that keyboards are
/// recognised (and never opened) before anything touches the node.
public struct DeviceClassifier: Sendable {
    /// Where sysfs is (tests point it at a folder of fake devices).
    public var sysfsRoot: String

    public init(sysfsRoot: String = "/sys") { self.sysfsRoot = sysfsRoot }

    // Event codes from linux/input-event-codes.h.
    static let ABS_X = 0x00, ABS_Y = 0x01, ABS_MT_POSITION_X = 0x35, ABS_MT_POSITION_Y = 0x36
    static let BTN_TOOL_PEN = 0x140, BTN_TOOL_FINGER = 0x145, BTN_TOUCH = 0x14a, BTN_LEFT = 0x110
    static let KEY_A = 30, KEY_Z = 44
    static let INPUT_PROP_POINTER = 0, INPUT_PROP_DIRECT = 1
    static let REL_X = 0, REL_DIAL = 7

    /// The sysfs folder of a node's device (`/sys/class/input/event5/device`).
    public func deviceFolder(ofNode node: String) -> String {
        let sysname = node.split(separator: "/").last.map(String.init) ?? node
        return "\(sysfsRoot)/class/input/\(sysname)/device"
    }

    /// The name and kind of `node`, or nil when sysfs does not know it.
    public func classify(node: String) -> (name: String, kind: InputDeviceKind)? {
        let folder = deviceFolder(ofNode: node)
        guard let name = Self.readText("\(folder)/name") else { return nil }
        let properties = Self.bitmap(Self.readText("\(folder)/properties"))
        let abs = Self.bitmap(Self.readText("\(folder)/capabilities/abs"))
        let key = Self.bitmap(Self.readText("\(folder)/capabilities/key"))
        let rel = Self.bitmap(Self.readText("\(folder)/capabilities/rel"))
        return (name.trimmingNewline, Self.kind(properties: properties, abs: abs, key: key, rel: rel))
    }

    /// The classification itself, on decoded bitmaps.
    /// A device places a touch only with both of a pair of position axes (input_id's
    /// `has_abs_coordinates` or `has_mt_coordinates`); without, it is no touchscreen or touchpad.
    public static func kind(properties: Bitmap, abs: Bitmap, key: Bitmap, rel: Bitmap) -> InputDeviceKind {
        let positions = (abs[ABS_MT_POSITION_X] && abs[ABS_MT_POSITION_Y]) || (abs[ABS_X] && abs[ABS_Y])
        if positions && key[BTN_TOOL_PEN] && !abs[ABS_MT_POSITION_X] { return .tablet }
        if positions && properties[INPUT_PROP_DIRECT] && (key[BTN_TOUCH] || abs[ABS_MT_POSITION_X]) { return .touchscreen }
        if positions && key[BTN_TOOL_FINGER] && key[BTN_TOUCH] && !properties[INPUT_PROP_DIRECT] { return .touchpad }
        if (KEY_A...KEY_Z).contains(where: { key[$0] }) { return .keyboard }
        if rel[REL_X] || key[BTN_LEFT] { return .pointer }
        if KeyMap.standard.bindsAny(hasKey: { key[Int($0)] }, hasDial: rel[REL_DIAL]) { return .keys }
        return .other
    }

    /// Whether `node` turns as a knob does (`REL_DIAL`): libinput does not read that; sheetd
    /// reads such a device with libevdev.
    public func isKnob(node: String) -> Bool {
        Self.bitmap(Self.readText("\(deviceFolder(ofNode: node))/capabilities/rel"))[Self.REL_DIAL]
    }

    /// Whether `node` says when headphones are plugged (`SW_HEADPHONE_INSERT`, bit 2 of
    /// `capabilities/sw`): a sound card's jack or a kiosk's headset socket.
    public func hasHeadphoneSwitch(node: String) -> Bool {
        Self.bitmap(Self.readText("\(deviceFolder(ofNode: node))/capabilities/sw"))[2]
    }

    /// The keys `node` has (`capabilities/key`), for the key map's say on whether it is read.
    public func keyBits(ofNode node: String) -> Bitmap {
        Self.bitmap(Self.readText("\(deviceFolder(ofNode: node))/capabilities/key"))
    }

    /// A sysfs capability bitmap: hex words, most significant first, each one `long` wide.
    public struct Bitmap: Sendable, Equatable {
        public var words: [UInt64]  // least significant first
        public subscript(bit: Int) -> Bool {
            let index = bit / 64
            return index < words.count && words[index] & (1 << UInt64(bit % 64)) != 0
        }
    }

    public static func bitmap(_ text: String?) -> Bitmap {
        guard let text else { return Bitmap(words: []) }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).reversed().map { UInt64($0, radix: 16) ?? 0 }
        return Bitmap(words: Array(words))
    }

    static func readText(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count >= 0 else { return nil }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }

    /// Every `eventN` node sysfs lists, in number order.
    public func eventNodes() -> [String] {
        let numbers = (directoryNames("\(sysfsRoot)/class/input") ?? []).compactMap { name in
            name.hasPrefix("event") ? Int(name.dropFirst(5)) : nil
        }
        return numbers.sorted().map { "/dev/input/event\($0)" }
    }
}

extension String {
    var trimmingNewline: String {
        var text = self
        while text.last == "\n" || text.last == " " { text.removeLast() }
        return text
    }
}
