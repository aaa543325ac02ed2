import SheetCore

/// The range of one absolute axis (`struct input_absinfo`).
public struct AbsInfo: Hashable, Sendable {
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    /// Units per millimetre; 0 when the device does not say.
    public var resolution: Int32

    public init(minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }
}

/// What kind of device a recording holds, as libinput would class it.
public enum DeviceKind: String, Sendable {
    case touchscreen
    case touchpad
    /// Keys, buttons or a rotary knob with no position: a keyboard, a panel's buttons, a
    /// steering wheel's, a knob (`REL_DIAL`). What moves the focus.
    case keys
    /// Anything else (a mouse, a joystick): reported, never used.
    case other

    /// A touchscreen or a touchpad: what moves the sheet by touch.
    public var isTouch: Bool { self == .touchscreen || self == .touchpad }
}

/// A recorded device: its name, ids, supported codes, axis ranges and properties.
public struct DeviceDescription: Hashable, Sendable {
    public var name: String
    /// bustype, vendor, product, version.
    public var id: [Int]
    /// INPUT_PROP_* bits that are set.
    public var properties: Set<Int>
    /// Supported codes per event type.
    public var codes: [Int: Set<Int>]
    public var absinfo: [Int: AbsInfo]
    /// `ID_INPUT_TOUCHSCREEN` / `ID_INPUT_TOUCHPAD` from udev, when the recording has them.
    public var udevKind: DeviceKind?
    /// The device's node when it was recorded (`libinput record` only).
    public var node: String?

    public init(name: String, id: [Int] = [0, 0, 0, 0], properties: Set<Int> = [], codes: [Int: Set<Int>] = [:],
                absinfo: [Int: AbsInfo] = [:], udevKind: DeviceKind? = nil, node: String? = nil) {
        self.name = name
        self.id = id
        self.properties = properties
        self.codes = codes
        self.absinfo = absinfo
        self.udevKind = udevKind
        self.node = node
    }

    public func supports(type: UInt16, code: UInt16) -> Bool {
        codes[Int(type)]?.contains(Int(code)) ?? false
    }

    /// Keys the standard key map binds, or a knob's `REL_DIAL`: a device whose input moves
    /// the focus, by the rule the daemon's classifier uses for a live one.
    public var hasKeys: Bool {
        KeyMap.standard.bindsAny(hasKey: { supports(type: EventCode.EV_KEY, code: $0) },
                                 hasDial: supports(type: EventCode.EV_REL, code: EventCode.REL_DIAL))
    }

    public var hasMultitouch: Bool {
        absinfo[Int(EventCode.ABS_MT_POSITION_X)] != nil && absinfo[Int(EventCode.ABS_MT_POSITION_Y)] != nil
    }

    /// Multitouch protocol A: MT positions without `ABS_MT_SLOT` (libinput's `evdev_need_mtdev`).
    /// Such a device is read through libmtdev.
    public var speaksProtocolA: Bool {
        hasMultitouch && absinfo[Int(EventCode.ABS_MT_SLOT)] == nil
    }

    /// Slots of multitouch protocol B: `ABS_MT_SLOT` max + 1; libinput's 10 for protocol A;
    /// 1 for a single-touch device.
    public var slotCount: Int {
        if let slot = absinfo[Int(EventCode.ABS_MT_SLOT)] { return Int(max(0, slot.maximum)) + 1 }
        if speaksProtocolA { return ProtocolATranslator.slotCount }
        return 1
    }

    /// Only the bounding box of the contacts is reported (`INPUT_PROP_SEMI_MT`).
    public var isSemiMultitouch: Bool { properties.contains(EventCode.INPUT_PROP_SEMI_MT) }

    /// The axis ranges of the touch position: the MT axes, or ABS_X/ABS_Y for single-touch.
    public var positionAxes: (x: AbsInfo, y: AbsInfo)? {
        if let x = absinfo[Int(EventCode.ABS_MT_POSITION_X)], let y = absinfo[Int(EventCode.ABS_MT_POSITION_Y)] {
            return (x, y)
        }
        if let x = absinfo[Int(EventCode.ABS_X)], let y = absinfo[Int(EventCode.ABS_Y)] { return (x, y) }
        return nil
    }

    /// Why the device cannot place a touch, or nil when it can: no position axes (neither
    /// ABS_X and ABS_Y nor ABS_MT_POSITION_X and _Y, as udev's `input_id` requires), or an axis
    /// whose range has no width (libinput refuses such a device: "min == max").
    public var positionProblem: String? {
        guard let axes = positionAxes else {
            let declared = [EventCode.ABS_X, EventCode.ABS_Y, EventCode.ABS_MT_POSITION_X, EventCode.ABS_MT_POSITION_Y]
                .filter { absinfo[Int($0)] != nil }.map(EventCode.absName)
            return "no position axes: it declares neither ABS_X and ABS_Y nor ABS_MT_POSITION_X and ABS_MT_POSITION_Y"
                + (declared.isEmpty ? "" : " (only \(declared.joined(separator: " and ")))")
        }
        let names = hasMultitouch ? (EventCode.ABS_MT_POSITION_X, EventCode.ABS_MT_POSITION_Y) : (EventCode.ABS_X, EventCode.ABS_Y)
        for (axis, code) in [(axes.x, names.0), (axes.y, names.1)] where axis.maximum <= axis.minimum {
            return "\(EventCode.absName(code))'s range \(axis.minimum)…\(axis.maximum) has no width"
        }
        return nil
    }

    /// Touchscreen, touchpad or other: no position (`positionProblem`) is other; then udev's word if the recording has it, else the kernel's
    /// properties (DIRECT → touchscreen; POINTER or BUTTONPAD → touchpad), else the legacy rule
    /// (BTN_TOOL_FINGER with BTN_TOUCH → touchpad; BTN_TOUCH alone → touchscreen).
    public var kind: DeviceKind {
        guard positionProblem == nil else { return hasKeys ? .keys : .other }
        if let udevKind { return udevKind }
        if properties.contains(EventCode.INPUT_PROP_DIRECT) { return .touchscreen }
        if properties.contains(EventCode.INPUT_PROP_POINTER) || properties.contains(EventCode.INPUT_PROP_BUTTONPAD) {
            return .touchpad
        }
        let touch = supports(type: EventCode.EV_KEY, code: EventCode.BTN_TOUCH)
        let finger = supports(type: EventCode.EV_KEY, code: EventCode.BTN_TOOL_FINGER)
        if touch && finger { return .touchpad }
        if touch || hasMultitouch { return .touchscreen }
        return .other
    }
}
