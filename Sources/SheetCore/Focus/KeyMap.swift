/// A key or a knob's step as the engine takes it: an evdev key code (`KEY_*`, `BTN_*`), or a
/// step of a rotary knob's `REL_DIAL` one way or the other.
public enum KeyInput: Sendable, Hashable, BitwiseCopyable {
    /// `EV_KEY` with this code (`KEY_TAB` is 15, `BTN_0` is 256: linux/input-event-codes.h).
    case key(UInt16)
    /// One step of `REL_DIAL` up (clockwise on the Griffin PowerMate and rotary-encoder).
    case dialUp
    /// One step of `REL_DIAL` down.
    case dialDown

    /// Most steps of a knob taken from one report, each way: a turn faster than this is a
    /// broken device or a bad feeder, not a person.
    public static let maximumDialSteps: Int32 = 64
}

/// What a key did: evdev's values 0, 1 and 2 (`struct input_event.value` for `EV_KEY`). A
/// knob's step is a press. The engine ignores the kernel's repeats and repeats held keys by
/// its own clock (`FocusConfiguration.repeatDelayMicroseconds`).
public enum KeyAction: UInt8, Sendable, BitwiseCopyable {
    case release = 0
    case press = 1
    /// The kernel's autorepeat while the key is held.
    case repeated = 2
}

/// One key event, stamped with its time like a touch frame.
public struct KeyEvent: Sendable, Equatable, BitwiseCopyable {
    public var time: Timestamp
    public var input: KeyInput
    public var action: KeyAction

    public init(time: Timestamp, input: KeyInput, action: KeyAction) {
        self.time = time
        self.input = input
        self.action = action
    }
}

/// The modifier keys a binding asks to be held: Shift, Ctrl, Alt (either side's).
public struct KeyModifiers: OptionSet, Sendable, Hashable, BitwiseCopyable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let shift = KeyModifiers(rawValue: 1)
    public static let control = KeyModifiers(rawValue: 2)
    public static let alt = KeyModifiers(rawValue: 4)

    /// The modifier `code` is, if it is one (KEY_LEFTSHIFT, KEY_RIGHTCTRL …).
    public static func of(code: UInt16) -> KeyModifiers? {
        switch code {
        case KeyCode.leftShift, KeyCode.rightShift: return .shift
        case KeyCode.leftControl, KeyCode.rightControl: return .control
        case KeyCode.leftAlt, KeyCode.rightAlt: return .alt
        default: return nil
        }
    }
}

/// The evdev codes the default key map names (linux/input-event-codes.h).
public enum KeyCode {
    public static let escape: UInt16 = 1
    public static let tab: UInt16 = 15
    public static let enter: UInt16 = 28
    public static let leftControl: UInt16 = 29
    public static let leftShift: UInt16 = 42
    public static let rightShift: UInt16 = 54
    public static let leftAlt: UInt16 = 56
    public static let space: UInt16 = 57
    public static let keypadEnter: UInt16 = 96
    public static let rightControl: UInt16 = 97
    public static let rightAlt: UInt16 = 100
    public static let home: UInt16 = 102
    public static let up: UInt16 = 103
    public static let pageUp: UInt16 = 104
    public static let left: UInt16 = 105
    public static let right: UInt16 = 106
    public static let end: UInt16 = 107
    public static let down: UInt16 = 108
    public static let pageDown: UInt16 = 109
    public static let menu: UInt16 = 139
    public static let back: UInt16 = 158
    public static let ok: UInt16 = 0x160
    public static let select: UInt16 = 0x161
    /// The Griffin PowerMate's push (and the first of a panel's numbered buttons).
    public static let button0: UInt16 = 0x100
}

/// One line of a key map: a key with the modifiers held, and what it does.
public struct KeyBinding: Sendable, Hashable {
    public var input: KeyInput
    public var modifiers: KeyModifiers
    public var command: FocusCommand

    public init(_ input: KeyInput, _ modifiers: KeyModifiers = [], _ command: FocusCommand) {
        self.input = input
        self.modifiers = modifiers
        self.command = command
    }
}

/// Keys to commands, and the modifiers held now. A binding matches when its key comes with
/// exactly its modifiers held (Shift+Tab is not Tab). Modifiers are tracked from every key
/// device the engine hears, as one seat's keyboard state is.
///
/// The default needs no configuration: Tab and Shift+Tab, the arrows, Home and End, Page Up and
/// Down; Enter, keypad Enter, Space, `KEY_SELECT`, `KEY_OK` and `BTN_0` (a knob's push) activate;
/// Escape and `KEY_BACK` go back; Ctrl+Up and Ctrl+Down move the focused item; `KEY_MENU`
/// opens; a knob's step up is next, down previous.
public struct KeyMap: Sendable, Hashable {
    public private(set) var bindings: [KeyBinding]
    private var held: KeyModifiers = []
    /// Modifier keys down, counted per code: a left and a right Shift held together.
    private var shiftsDown: UInt8 = 0
    private var controlsDown: UInt8 = 0
    private var altsDown: UInt8 = 0

    /// Most bindings a map holds (the configuration refuses more).
    public static let maximumBindings = 256

    public init(_ bindings: [KeyBinding]) {
        self.bindings = Array(bindings.prefix(Self.maximumBindings))
    }

    public static let standard = KeyMap([
        KeyBinding(.key(KeyCode.tab), [], .next),
        KeyBinding(.key(KeyCode.tab), .shift, .previous),
        KeyBinding(.key(KeyCode.up), [], .up),
        KeyBinding(.key(KeyCode.down), [], .down),
        KeyBinding(.key(KeyCode.left), [], .left),
        KeyBinding(.key(KeyCode.right), [], .right),
        KeyBinding(.key(KeyCode.home), [], .first),
        KeyBinding(.key(KeyCode.end), [], .last),
        KeyBinding(.key(KeyCode.pageUp), [], .pageUp),
        KeyBinding(.key(KeyCode.pageDown), [], .pageDown),
        KeyBinding(.key(KeyCode.enter), [], .activate),
        KeyBinding(.key(KeyCode.keypadEnter), [], .activate),
        KeyBinding(.key(KeyCode.space), [], .activate),
        KeyBinding(.key(KeyCode.select), [], .activate),
        KeyBinding(.key(KeyCode.ok), [], .activate),
        KeyBinding(.key(KeyCode.button0), [], .activate),
        KeyBinding(.key(KeyCode.escape), [], .back),
        KeyBinding(.key(KeyCode.back), [], .back),
        KeyBinding(.key(KeyCode.up), .control, .moveUp),
        KeyBinding(.key(KeyCode.down), .control, .moveDown),
        KeyBinding(.key(KeyCode.menu), [], .open),
        KeyBinding(.dialUp, [], .next),
        KeyBinding(.dialDown, [], .previous),
    ])

    /// The command `event` asks for, if any, with the modifiers it leaves held. A release does
    /// nothing but let a modifier go; a repeat does nothing (the engine repeats by its clock).
    public mutating func command(for event: KeyEvent) -> FocusCommand? {
        if case .key(let code) = event.input, let modifier = KeyModifiers.of(code: code) {
            // A held modifier's repeats change nothing.
            if event.action != .repeated { track(modifier, down: event.action == .press) }
            return nil
        }
        guard event.action == .press else { return nil }
        for binding in bindings where binding.input == event.input && binding.modifiers == held {
            return binding.command
        }
        return nil
    }

    /// Whether this map binds a key of a device whose keys `hasKey` tells, or a knob's steps
    /// of one that turns (`hasDial`): what makes a device one of keys, live and recorded alike.
    public func bindsAny(hasKey: (UInt16) -> Bool, hasDial: Bool) -> Bool {
        bindings.contains { binding in
            switch binding.input {
            case .key(let code): hasKey(code)
            case .dialUp, .dialDown: hasDial
            }
        }
    }

    /// Forgets the modifiers held (a key device went away with a key down).
    public mutating func releaseModifiers() {
        held = []
        shiftsDown = 0
        controlsDown = 0
        altsDown = 0
    }

    private mutating func track(_ modifier: KeyModifiers, down: Bool) {
        func count(_ value: inout UInt8) {
            if down { value = value < 2 ? value + 1 : value } else { value = value > 0 ? value - 1 : 0 }
            if value > 0 { held.insert(modifier) } else { held.remove(modifier) }
        }
        switch modifier {
        case .shift: count(&shiftsDown)
        case .control: count(&controlsDown)
        default: count(&altsDown)
        }
    }

    public static func == (a: KeyMap, b: KeyMap) -> Bool { a.bindings == b.bindings }
    public func hash(into hasher: inout Hasher) { hasher.combine(bindings) }
}
