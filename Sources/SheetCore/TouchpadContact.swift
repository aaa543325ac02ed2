/// What a touchpad gives the sheet, in libinput's terms: two-finger scrolling and three-finger
/// swipes, each delta in libinput's unaccelerated touchpad units (taken as points).
public enum TouchpadMotion: Equatable, Sendable {
    /// A two-finger scroll delta (`LIBINPUT_EVENT_POINTER_SCROLL_FINGER`), natural scrolling off.
    case scroll(Vector)
    /// The zero scroll event libinput sends when the fingers lift or the scroll ends.
    case scrollStop
    /// A swipe update's unaccelerated delta, with the gesture's finger count.
    case swipe(fingers: Int, Vector)
    /// The end of a swipe; cancelled when the finger count changed under it.
    case swipeEnd(fingers: Int, cancelled: Bool)
}

/// The one contact a touchpad drives: it comes down at the screen's centre with the first scroll
/// or three-finger swipe delta, moves by each delta (points, times the screen's scale), lifts at
/// the scroll stop or the swipe's end, and is cancelled when a swipe is. Live input (libinput's
/// own events) and replayed or plugin touchpads (libinput's rules applied to the kernel's
/// events) both go through `apply`, so they cannot diverge here.
public struct TouchpadContact: Sendable {
    /// The slot the contact uses: the last the engine keeps, far from any touchscreen's fingers.
    public static let slot = 31
    /// The finger count of the swipes that move the card: three (four-finger swipes are left to
    /// the desktop).
    public static let swipeFingers = 3

    /// Where the contact is, while it is down.
    public private(set) var position: Point?

    public init() {}

    public var isDown: Bool { position != nil }

    /// Adds the contacts `motion` makes to `contacts`.
    public mutating func apply(_ motion: TouchpadMotion, screen: ScreenSize, into contacts: inout [Contact]) {
        switch motion {
        case .scroll(let delta):
            move(by: delta, screen: screen, into: &contacts)
        case .swipe(let fingers, let delta):
            guard fingers == Self.swipeFingers else { return }
            move(by: delta, screen: screen, into: &contacts)
        case .scrollStop:
            end(cancelled: false, into: &contacts)
        case .swipeEnd(let fingers, let cancelled):
            guard fingers == Self.swipeFingers else { return }
            end(cancelled: cancelled, into: &contacts)
        }
    }

    /// Ends a contact that is down as a cancel (its device went away, events were lost).
    public mutating func cancel(into contacts: inout [Contact]) {
        end(cancelled: true, into: &contacts)
    }

    private mutating func move(by delta: Vector, screen: ScreenSize, into contacts: inout [Contact]) {
        var point: Point
        if let position {
            point = position
        } else {
            point = Point(x: Double(screen.widthInPixels) / 2, y: Double(screen.heightInPixels) / 2)
            contacts.append(Contact(slot: Self.slot, phase: .down, positionInPixels: point))
        }
        point.x += delta.dx * screen.scale
        point.y += delta.dy * screen.scale
        position = point
        contacts.append(Contact(slot: Self.slot, phase: .move, positionInPixels: point))
    }

    private mutating func end(cancelled: Bool, into contacts: inout [Contact]) {
        guard let position else { return }
        self.position = nil
        contacts.append(Contact(slot: Self.slot, phase: cancelled ? .cancel : .up, positionInPixels: position))
    }
}
