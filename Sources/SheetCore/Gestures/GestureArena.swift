/// What the arena reports: recognised gestures, and the primary finger's own life, which the
/// sheet needs to catch a settling card and to release a held one.
public enum ArenaOutput: Sendable, Equatable {
    case gesture(GestureEvent)
    case primaryDown(Point, Timestamp)
    case primaryUp(Point, Timestamp, velocity: Vector)
    case primaryCancelled(Timestamp)
    /// The primary finger was held still for the item long-press time (0.2 s): the engine
    /// answers with `claimHold` (an item was picked up) or `declineHold`.
    case primaryHeld(Point, Timestamp)
    /// A claimed hold: the finger moved, lifted or was cancelled.
    case heldMoved(Point, Timestamp)
    case heldEnded(Point, Timestamp)
    case heldCancelled(Timestamp)
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
/// 8. With items in the sheet, a still primary held for the item long-press time is offered to
///    the engine (`primaryHeld`). Claimed (it was on an item), the hold has the sequence: tap,
///    pan, swipe and long press are rejected, and the finger's moves, lift or cancel come as
///    `heldMoved`, `heldEnded`, `heldCancelled`. Declined, nothing else changes.
public struct GestureArena: Sendable {
    public private(set) var tap: TapRecognizer
    public private(set) var longPress: LongPressRecognizer
    public private(set) var pan: PanRecognizer
    public private(set) var swipe: SwipeRecognizer
    /// The item hold: a long press with the item long-press time, offered to the engine.
    public private(set) var itemHold: LongPressRecognizer
    /// Whether the item hold runs (the sheet has items).
    public private(set) var itemHoldEnabled = false
    /// The engine took the hold: it has the sequence.
    public private(set) var holdClaimed = false

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
        itemHold = LongPressRecognizer(slop: slop, holdSeconds: configuration.itemLongPressSeconds)
    }

    /// When the arena wants `timeout(at:into:)`.
    @inlinable @inline(__always)
    public var deadline: Timestamp? { longPress.deadline.earliest(itemHold.deadline) }

    /// Turns the item hold on or off; takes effect from the next touch sequence.
    public mutating func enableItemHold(_ enabled: Bool) { itemHoldEnabled = enabled }

    /// The engine picked an item up: the hold has the sequence now (rule 8).
    public mutating func claimHold(at time: Timestamp) {
        holdClaimed = true
        _ = tap.handle(.rejected(time))
        _ = pan.handle(.rejected(time))
        _ = swipe.handle(.rejected(time))
        _ = longPress.handle(.rejected(time))
    }

    /// The hold was not on an item: it ends, and the other recognizers go on.
    public mutating func declineHold(at time: Timestamp) {
        _ = itemHold.handle(.rejected(time))
    }

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
            _ = itemHold.handle(.rejected(time))
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
            _ = itemHold.handle(.rejected(time))
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

        // Off (no items), an idle hold never starts; one under way finishes its sequence.
        guard itemHoldEnabled || itemHold.state != .idle else { return }
        switch itemHold.handle(event) {
        case .recognized(let point, let time):
            out.append(.primaryHeld(point, time))
        case .changed(let point, let time):
            if holdClaimed { out.append(.heldMoved(point, time)) }
        case .ended(let point, let time):
            if holdClaimed { out.append(.heldEnded(point, time)) }
            holdClaimed = false
        case .cancelled(_, let time):
            if holdClaimed { out.append(.heldCancelled(time)) }
            holdClaimed = false
        case .none, .failed:
            break
        }
    }
}
