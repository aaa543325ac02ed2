/// What the arena reports: recognised gestures, and the primary finger's own life, which the
/// sheet needs to catch a settling card and to release a held one.
public enum ArenaOutput: Sendable, Equatable {
    case gesture(GestureEvent)
    case primaryDown(Point, Timestamp)
    case primaryUp(Point, Timestamp, velocity: Vector)
    case primaryCancelled(Timestamp)
}

/// The one place where gestures compete for the fingers. Its rules, in order
/// (docs/behaviour.md says the same with examples):
///
/// 1. A touch sequence starts when a finger touches down while no finger is down. That first
///    finger is the **primary**; only the primary drives the recognizers.
/// 2. Another finger joining makes tap and long press fail (they are one-finger gestures);
///    pan and swipe ignore it, so a second finger never hijacks a drag in progress.
/// 3. When the pan begins (the primary passed the slop), tap and long press are rejected.
/// 4. When the long press is recognised (its deadline passed), pan and swipe are rejected.
/// 5. At the primary's lift, in this order: tap recognised if still possible, pan ended with the
///    release velocity, swipe judged, long press ended.
/// 6. A cancelled primary (palm, device gone, lost events) cancels what had begun and
///    recognises nothing: a cancel is never a tap.
/// 7. Once the primary has lifted or been cancelled, the remaining fingers start nothing until
///    every finger is up.
public struct GestureArena: Sendable {
    public private(set) var tap: TapRecognizer
    public private(set) var longPress: LongPressRecognizer
    public private(set) var pan: PanRecognizer
    public private(set) var swipe: SwipeRecognizer

    /// The slot of the primary finger while it is down.
    public private(set) var primarySlot: Int?
    /// How many fingers of this sequence are down (the primary included).
    public private(set) var fingersDown = 0
    private var primaryStart = Point.zero

    public init(configuration: GestureConfiguration, scale: Double) {
        let slop = configuration.slopInPoints * scale
        tap = TapRecognizer(slop: slop)
        longPress = LongPressRecognizer(slop: slop, holdSeconds: configuration.longPressSeconds)
        pan = PanRecognizer(slop: slop)
        swipe = SwipeRecognizer(configuration: configuration, scale: scale)
    }

    /// When the arena wants `timeout(at:into:)`.
    public var deadline: Timestamp? { longPress.deadline }

    public mutating func touchDown(slot: Int, at point: Point, time: Timestamp, into out: inout [ArenaOutput]) {
        fingersDown += 1
        if fingersDown == 1 {
            primarySlot = slot
            primaryStart = point
            out.append(.primaryDown(point, time))
            dispatch(.down(point, time), into: &out)
        } else if primarySlot != nil {
            dispatch(.extraFinger(time), into: &out)
        }
    }

    public mutating func touchMoved(slot: Int, to point: Point, time: Timestamp, into out: inout [ArenaOutput]) {
        guard slot == primarySlot else { return }
        dispatch(.move(point, time), into: &out)
    }

    public mutating func touchUp(
        slot: Int, at point: Point, time: Timestamp, velocity: VelocityEstimate, into out: inout [ArenaOutput]
    ) {
        fingersDown = max(0, fingersDown - 1)
        guard slot == primarySlot else { return }
        primarySlot = nil
        dispatch(.up(point, time, velocity), into: &out)
        out.append(.primaryUp(point, time, velocity: velocity.pixelsPerSecond))
    }

    public mutating func touchCancelled(slot: Int, time: Timestamp, into out: inout [ArenaOutput]) {
        fingersDown = max(0, fingersDown - 1)
        guard slot == primarySlot else { return }
        primarySlot = nil
        dispatch(.cancel(time), into: &out)
        out.append(.primaryCancelled(time))
    }

    /// Call when `deadline` has passed.
    public mutating func timeout(at time: Timestamp, into out: inout [ArenaOutput]) {
        dispatch(.timeout(time), into: &out)
    }

    /// Hands one event to every recognizer in rule order and settles their competition.
    private mutating func dispatch(_ event: PointerEvent, into out: inout [ArenaOutput]) {
        // Tap first: at a lift it is recognised before the pan ends (rule 5).
        switch tap.handle(event) {
        case .recognized(let point, let time):
            out.append(.gesture(GestureEvent(kind: .tap, phase: .recognized, time: time,
                                             positionInPixels: point, startInPixels: point)))
        case .none, .failed:
            break
        }

        switch pan.handle(event) {
        case .began(let start, let point, let time):
            out.append(.gesture(GestureEvent(kind: .pan, phase: .began, time: time,
                                             positionInPixels: point, startInPixels: start)))
            // Rule 3: the pan has the sequence now.
            _ = tap.handle(.rejected(time))
            _ = longPress.handle(.rejected(time))
        case .changed(let start, let point, let time):
            out.append(.gesture(GestureEvent(kind: .pan, phase: .changed, time: time,
                                             positionInPixels: point, startInPixels: start)))
        case .ended(let start, let point, let time, let velocity):
            out.append(.gesture(GestureEvent(kind: .pan, phase: .ended, time: time,
                                             positionInPixels: point, startInPixels: start,
                                             velocityInPixelsPerSecond: velocity)))
        case .cancelled(let start, let point, let time):
            out.append(.gesture(GestureEvent(kind: .pan, phase: .cancelled, time: time,
                                             positionInPixels: point, startInPixels: start)))
        case .none:
            break
        }

        switch swipe.handle(event) {
        case .recognized(let direction, let start, let point, let time, let velocity):
            out.append(.gesture(GestureEvent(kind: .swipe, phase: .recognized, time: time,
                                             positionInPixels: point, startInPixels: start,
                                             velocityInPixelsPerSecond: velocity, direction: direction)))
        case .none, .failed:
            break
        }

        switch longPress.handle(event) {
        case .recognized(let point, let time):
            out.append(.gesture(GestureEvent(kind: .longPress, phase: .recognized, time: time,
                                             positionInPixels: point, startInPixels: point)))
            // Rule 4: the long press has the sequence now.
            _ = tap.handle(.rejected(time))
            _ = pan.handle(.rejected(time))
            _ = swipe.handle(.rejected(time))
        case .changed(let point, let time):
            out.append(.gesture(GestureEvent(kind: .longPress, phase: .changed, time: time,
                                             positionInPixels: point, startInPixels: primaryStart)))
        case .ended(let point, let time):
            out.append(.gesture(GestureEvent(kind: .longPress, phase: .ended, time: time,
                                             positionInPixels: point, startInPixels: primaryStart)))
        case .cancelled(let point, let time):
            out.append(.gesture(GestureEvent(kind: .longPress, phase: .cancelled, time: time,
                                             positionInPixels: point, startInPixels: primaryStart)))
        case .none, .failed:
            break
        }
    }
}
