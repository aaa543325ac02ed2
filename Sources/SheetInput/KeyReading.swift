import SheetCore
import SheetProtocol

/// Which key devices the daemon reads, with the privacy line kept: a keyboard that can type
/// text (letter keys) is read only when an administrator opted in, by the udev property
/// `SHEETD_KEYS=1` on the device or by naming it in `keys:` in sheetd.yaml; keys that cannot
/// type (a panel's buttons, a steering wheel's, a remote, a knob's push) are read when the
/// key map binds one of them. A key read is never logged.
public struct KeyReading: Sendable, Equatable {
    /// The key map whose keys a device must have to be opened.
    public var keyMap: KeyMap
    /// `keys:`: keyboards that can type, by name or node, that an administrator lets sheetd read.
    public var optedIn: [String]

    /// The udev property that lets sheetd read a keyboard that can type.
    public static let udevProperty = "SHEETD_KEYS"

    public init(keyMap: KeyMap = .standard, optedIn: [String] = []) {
        self.keyMap = keyMap
        self.optedIn = optedIn
    }

    /// Whether a device of `kind` with keys `keyBits` (a knob when `isKnob`) is read, and why
    /// (for the log, `ListDevices` and doctor). `udevOptIn`: the device carries `SHEETD_KEYS=1`.
    /// A device the classifier calls other is read as keys when this key map binds one of its
    /// keys: the classifier knows only the standard map.
    public func decide(name: String, node: String, kind: InputDeviceKind, keyBits: DeviceClassifier.Bitmap,
                       isKnob: Bool = false, udevOptIn: Bool) -> (read: Bool, reason: String) {
        let bound = keyMap.bindsAny(hasKey: { keyBits[Int($0)] }, hasDial: isKnob)
        switch kind {
        case .keyboard:
            if udevOptIn { return (true, "a keyboard that can type: read for the focus, as its udev property \(Self.udevProperty)=1 says") }
            if optedIn.contains(name) || optedIn.contains(node) {
                return (true, "a keyboard that can type: read for the focus, as keys: in the configuration says")
            }
            return (false, "a keyboard that can type: not read (an administrator lets sheetd read it with the udev property \(Self.udevProperty)=1 or keys: in sheetd.yaml)")
        case .keys:
            return bound ? (true, "keys that cannot type: read for the focus")
                         : (false, "keys, none of which the key map binds: not opened")
        case .other where bound:
            return (true, "keys that cannot type: read for the focus")
        case .other:
            return (false, "neither a touch device nor keys the key map binds: never opened")
        case .touchscreen, .touchpad, .pointer, .tablet:
            return (false, "a \(kind.rawValue): never opened")
        }
    }
}
