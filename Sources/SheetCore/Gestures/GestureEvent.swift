/// The gestures the core recognises.
public enum GestureKind: UInt8, Sendable, BitwiseCopyable, Named {
    case tap, longPress, pan, swipe

    /// The name used in replay output and on the socket.
    public var name: StaticString {
        switch self {
        case .tap: return "tap"
        case .longPress: return "long-press"
        case .pan: return "pan"
        case .swipe: return "swipe"
        }
    }
}

/// Where a gesture is in its life. Discrete gestures (tap, swipe) are only `recognized`;
/// continuous ones (pan, long press) go `began`/`recognized` → `changed`… → `ended`/`cancelled`.
public enum GesturePhase: UInt8, Sendable, BitwiseCopyable, Named {
    case began, changed, ended, cancelled, recognized

    public var name: StaticString {
        switch self {
        case .began: return "began"
        case .changed: return "changed"
        case .ended: return "ended"
        case .cancelled: return "cancelled"
        case .recognized: return "recognized"
        }
    }
}

public enum SwipeDirection: UInt8, Sendable, BitwiseCopyable, Named {
    case up, down, left, right

    public var name: StaticString {
        switch self {
        case .up: return "up"
        case .down: return "down"
        case .left: return "left"
        case .right: return "right"
        }
    }
}

/// One step of a recognised gesture, in pixels.
public struct GestureEvent: Hashable, Sendable, BitwiseCopyable {
    public var kind: GestureKind
    public var phase: GesturePhase
    public var time: Timestamp
    /// Where the finger is now (for a tap: where it went down).
    public var positionInPixels: Point
    /// Where the finger went down.
    public var startInPixels: Point
    /// For a pan: the velocity at its end; for a swipe: the velocity at the lift.
    public var velocityInPixelsPerSecond: Vector?
    public var direction: SwipeDirection?

    public init(
        kind: GestureKind, phase: GesturePhase, time: Timestamp, positionInPixels: Point,
        startInPixels: Point, velocityInPixelsPerSecond: Vector? = nil, direction: SwipeDirection? = nil
    ) {
        self.kind = kind
        self.phase = phase
        self.time = time
        self.positionInPixels = positionInPixels
        self.startInPixels = startInPixels
        self.velocityInPixelsPerSecond = velocityInPixelsPerSecond
        self.direction = direction
    }

    /// How far the finger is from where it went down.
    public var translationInPixels: Vector { positionInPixels - startInPixels }
}

/// What the arena tells each recognizer about the primary finger of a touch sequence.
public enum PointerEvent: Sendable {
    case down(Point, Timestamp)
    case move(Point, Timestamp)
    case up(Point, Timestamp, VelocityEstimate)
    case cancel(Timestamp)
    /// Another finger joined the sequence.
    case extraFinger(Timestamp)
    /// The recognizer's own deadline passed.
    case timeout(Timestamp)
    /// The arena gave the sequence to another recognizer.
    case rejected(Timestamp)

    /// The event's name in the state × event tables.
    public var name: String {
        switch self {
        case .down: return "down"
        case .move: return "move"
        case .up: return "up"
        case .cancel: return "cancel"
        case .extraFinger: return "extraFinger"
        case .timeout: return "timeout"
        case .rejected: return "rejected"
        }
    }
}

/// Thresholds of the recognizers, in points and seconds, each with its source.
public struct GestureConfiguration: Sendable, Hashable {
    /// Travel before a touch is a pan and no longer a tap or long press.
    /// 16 pt: libadwaita `DRAG_THRESHOLD_DISTANCE` 16 px, phoc's accept distance 16 px
    /// (Android uses 8 dp, Flutter 18 px).
    public var slopInPoints: Double = 16
    /// Hold time before a still touch is a long press. 0.5 s: Android
    /// `ViewConfiguration.getLongPressTimeout()` (500 ms).
    public var longPressSeconds: Double = 0.5
    /// Hold time before a still touch on an item picks it up for reordering. 0.2 s: the
    /// reorder tutorial's `minimumPressDuration` (`item-long-press`).
    public var itemLongPressSeconds: Double = 0.2
    /// A swipe is a flick: the lift comes at most this long after the touch-down.
    /// Same as the long press, so that a touch is a flick or a hold, never both.
    public var swipeMaximumSeconds: Double = 0.5
    /// Speed along the swipe's axis at the lift. 700 pt/s: Flutter Material bottom sheet
    /// `_minFlingVelocity` (700 px/s).
    public var swipeMinimumPointsPerSecond: Double = 700
    /// "Mostly straight": the main axis beats the other at least this much, in both velocity
    /// and displacement (2 ≈ within 26.6° of the axis).
    public var swipeAxisRatio: Double = 2
    /// Net displacement over path length at least this (1 is a perfectly straight line).
    public var swipeStraightness: Double = 0.8

    public init() {}
}
