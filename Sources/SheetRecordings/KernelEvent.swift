import SheetCore

/// One `struct input_event` from a recording: time, type, code, value.
public struct KernelEvent: Hashable, Sendable {
    public var time: Timestamp
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(time: Timestamp, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }
}

/// The kernel's event codes that the decoder reads (linux/input-event-codes.h).
public enum EventCode {
    public static let EV_SYN: UInt16 = 0x00
    public static let EV_KEY: UInt16 = 0x01
    public static let EV_REL: UInt16 = 0x02
    /// A rotary knob's turn (the Griffin PowerMate, rotary-encoder).
    public static let REL_DIAL: UInt16 = 0x07
    public static let EV_ABS: UInt16 = 0x03
    public static let EV_MSC: UInt16 = 0x04

    public static let SYN_REPORT: UInt16 = 0
    public static let SYN_MT_REPORT: UInt16 = 2
    public static let SYN_DROPPED: UInt16 = 3

    public static let BTN_TOOL_FINGER: UInt16 = 0x145
    public static let BTN_TOOL_QUINTTAP: UInt16 = 0x148
    public static let BTN_TOUCH: UInt16 = 0x14a
    public static let BTN_TOOL_DOUBLETAP: UInt16 = 0x14d
    public static let BTN_TOOL_TRIPLETAP: UInt16 = 0x14e
    public static let BTN_TOOL_QUADTAP: UInt16 = 0x14f

    public static let ABS_X: UInt16 = 0x00
    public static let ABS_Y: UInt16 = 0x01
    public static let ABS_PRESSURE: UInt16 = 0x18
    public static let ABS_MT_SLOT: UInt16 = 0x2f
    public static let ABS_MT_POSITION_X: UInt16 = 0x35
    public static let ABS_MT_POSITION_Y: UInt16 = 0x36
    public static let ABS_MT_TOOL_TYPE: UInt16 = 0x37
    public static let ABS_MT_TRACKING_ID: UInt16 = 0x39
    public static let ABS_MT_PRESSURE: UInt16 = 0x3a

    public static let MT_TOOL_PALM: Int32 = 2

    /// The kernel's name of an absolute axis (`ABS_Z`), or its number (`ABS_0x21`).
    public static func absName(_ code: UInt16) -> String {
        let names = ["ABS_X", "ABS_Y", "ABS_Z", "ABS_RX", "ABS_RY", "ABS_RZ", "ABS_THROTTLE", "ABS_RUDDER", "ABS_WHEEL",
                     "ABS_GAS", "ABS_BRAKE"]
        switch code {
        case 0..<UInt16(names.count): return names[Int(code)]
        case 0x18: return "ABS_PRESSURE"
        case 0x19: return "ABS_DISTANCE"
        case 0x1a: return "ABS_TILT_X"
        case 0x1b: return "ABS_TILT_Y"
        case 0x28: return "ABS_MISC"
        case 0x2f: return "ABS_MT_SLOT"
        case 0x30: return "ABS_MT_TOUCH_MAJOR"
        case 0x31: return "ABS_MT_TOUCH_MINOR"
        case 0x32: return "ABS_MT_WIDTH_MAJOR"
        case 0x33: return "ABS_MT_WIDTH_MINOR"
        case 0x34: return "ABS_MT_ORIENTATION"
        case 0x35: return "ABS_MT_POSITION_X"
        case 0x36: return "ABS_MT_POSITION_Y"
        case 0x37: return "ABS_MT_TOOL_TYPE"
        case 0x38: return "ABS_MT_BLOB_ID"
        case 0x39: return "ABS_MT_TRACKING_ID"
        case 0x3a: return "ABS_MT_PRESSURE"
        case 0x3b: return "ABS_MT_DISTANCE"
        default: return "ABS_0x" + String(code, radix: 16)
        }
    }

    public static let INPUT_PROP_POINTER = 0
    public static let INPUT_PROP_DIRECT = 1
    public static let INPUT_PROP_BUTTONPAD = 2
    public static let INPUT_PROP_SEMI_MT = 3

    /// The highest event type and input property the kernel defines.
    public static let EV_MAX = 0x1f
    public static let INPUT_PROP_MAX = 0x1f

    /// The highest code of an event type (SYN_MAX, KEY_MAX, REL_MAX, ABS_MAX, MSC_MAX, SW_MAX,
    /// LED_MAX, SND_MAX, REP_MAX, FF_MAX), nil for a type beyond EV_MAX. Type 0 goes to EV_MAX,
    /// since evemu's `B: 00` mask lists the event types; types without codes of their own
    /// (EV_PWR, EV_FF_STATUS, unassigned) are held to KEY_MAX, the largest there is. A
    /// description can hold no more than this, whatever its file says.
    public static func maximumCode(ofType type: Int) -> Int? {
        switch type {
        case 0: EV_MAX
        case 0x01: 0x2ff
        case 0x02: 0x0f
        case 0x03: 0x3f
        case 0x04: 0x07
        case 0x05: 0x10
        case 0x11: 0x0f
        case 0x12: 0x07
        case 0x14: 0x01
        case 0x15: 0x7f
        case 0...EV_MAX: 0x2ff
        default: nil
        }
    }
}
