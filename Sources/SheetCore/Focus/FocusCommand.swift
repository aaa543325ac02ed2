/// What a key, a knob's step or a switch asks of the sheet: move the focus, use what it is on,
/// or open and close the sheet. The names are the key map's (`sheetd.yaml`'s `key-map`) and
/// the wire's.
public enum FocusCommand: UInt8, Sendable, BitwiseCopyable, Named {
    /// The next element in reading order (the close button, then the items), wrapping round:
    /// a modal sheet keeps the focus, as a dialog does.
    case next
    /// The element before, wrapping round.
    case previous
    /// The element before on screen to the left: previous, or next under right-to-left content.
    case left
    /// next, or previous under right-to-left content.
    case right
    /// The row above (the close button above the first item), stopping at the top.
    case up
    /// The row below, stopping at the last item.
    case down
    /// The first item.
    case first
    /// The last item.
    case last
    /// The sheet one detent higher.
    case pageUp
    /// The sheet one detent lower, never past the lowest one it shows at.
    case pageDown
    /// What a tap on the focused element does: an item is tapped (a toggle flips), the close
    /// button dismisses. With nothing focused: the first element takes the focus.
    case activate
    /// Dismisses the sheet, as the close button does (a guarded sheet says so instead).
    case back
    /// Presents a hidden sheet where a person may open it, the focus on its first element.
    case open
    /// The focused item one place up within its section (the long press's drag, by key).
    case moveUp
    /// The focused item one place down within its section.
    case moveDown

    public var name: StaticString {
        switch self {
        case .next: return "next"
        case .previous: return "previous"
        case .left: return "left"
        case .right: return "right"
        case .up: return "up"
        case .down: return "down"
        case .first: return "first"
        case .last: return "last"
        case .pageUp: return "page-up"
        case .pageDown: return "page-down"
        case .activate: return "activate"
        case .back: return "back"
        case .open: return "open"
        case .moveUp: return "move-up"
        case .moveDown: return "move-down"
        }
    }

    /// Whether a held key does it again (`FocusConfiguration.repeatDelayMicroseconds`):
    /// movement does, using something never does (a held Enter flips a switch once).
    public var repeats: Bool {
        switch self {
        case .next, .previous, .left, .right, .up, .down, .pageUp, .pageDown, .moveUp, .moveDown: return true
        case .first, .last, .activate, .back, .open: return false
        }
    }
}

/// Why `Engine.focus(on:)` left the focus where it was.
public enum FocusRefusal: Sendable, Equatable {
    case notShown
    case fingerDown
    case closeNotShown
    case disabled
    case nothing

    public var reason: String {
        switch self {
        case .notShown: "the sheet is not shown"
        case .fingerDown: "a finger has the sheet"
        case .closeNotShown: "the close button is not shown (can-close is off)"
        case .disabled: "the item is disabled"
        case .nothing: "there is no such item"
        }
    }
}

/// What holds the focus: nothing, the close button, or an item (by its index in
/// `SheetContent.items`, which a reorder does not change).
public enum FocusTarget: Sendable, Equatable, BitwiseCopyable {
    case none
    case close
    case item(Int)
}

/// The focus as published with each state: what holds it, and whether its ring is drawn (only
/// once a key was used, until the next touch, as browsers' `:focus-visible`).
///
/// Three bytes, so that it fits in what `SheetSnapshot` had spare: every engine output is as
/// large as the largest, and each frame copies a few.
public struct FocusSnapshot: Sendable, Equatable, BitwiseCopyable {
    /// 0 nothing, 1 the close button, 2 + index an item (items are fewer than 1,024).
    private var code: UInt16 = 0
    public var visible: Bool

    public init(target: FocusTarget = .none, visible: Bool = false) {
        self.visible = visible
        self.target = target
    }

    public var target: FocusTarget {
        get {
            switch code {
            case 0: return .none
            case 1: return .close
            default: return .item(Int(code) - 2)
            }
        }
        set {
            switch newValue {
            case .none: code = 0
            case .close: code = 1
            case .item(let index): code = index >= 0 && index < Int(UInt16.max) - 2 ? UInt16(index + 2) : 0
            }
        }
    }

    /// Something holds the focus.
    @inline(__always)
    public var isSet: Bool { code != 0 }

    public static let none = FocusSnapshot()
}

/// How keys, knobs and switches drive the focus (`sheetd.yaml`'s `key-map` and `switch-scan`).
public struct FocusConfiguration: Sendable, Hashable {
    public var keyMap = KeyMap.standard
    /// One-switch scanning: while the sheet is shown the focus steps to the next element by
    /// itself every this many microseconds, and any `activate` key uses what it is on. nil: off.
    public var switchScanMicroseconds: Int64?
    /// A held key that moves the focus moves it again after this long, then every
    /// `repeatIntervalMicroseconds`: 600 ms and 25 a second, sway's defaults (sway-input(5)
    /// `repeat_delay` and `repeat_rate`). The engine repeats by its own clock, as compositors
    /// do: libinput drops the kernel's repeats, and recordings' are dropped too, so that live
    /// and replayed keys repeat alike.
    public var repeatDelayMicroseconds: Int64 = 600_000
    public var repeatIntervalMicroseconds: Int64 = 40_000
    /// Explore by touch's thresholds; whether it is on is the presentation's
    /// (`SheetPresentation.touchExploration`).
    public var exploration = TouchExplorer.Configuration()

    /// The scan's shortest step: 0.5 s, below which nobody presses a switch in time (switch
    /// access settings on phones start at about a second).
    public static let switchScanRange: ClosedRange<Int64> = 500_000...60_000_000

    public init() {}
}
