/// What a contact did in one frame.
public enum ContactPhase: UInt8, Sendable, BitwiseCopyable {
    /// The finger touched down (a new tracking id).
    case down
    /// The finger moved (or is still down with a new position).
    case move
    /// The finger lifted; the position is the last one known.
    case up
    /// The contact was taken away without a lift: a palm, a dropped device, lost events.
    /// A cancelled touch is never a tap.
    case cancel
}

/// One change of one contact within a frame.
public struct Contact: Hashable, Sendable {
    /// The kernel slot (multitouch protocol B), reused by later contacts.
    public var slot: Int
    public var phase: ContactPhase
    public var positionInPixels: Point

    public init(slot: Int, phase: ContactPhase, positionInPixels: Point) {
        self.slot = slot
        self.phase = phase
        self.positionInPixels = positionInPixels
    }
}

/// Where the contacts of a frame come from.
public enum TouchSource: UInt8, Sendable {
    /// A touchscreen: positions are on the screen, so a touch can hit the card or the dim.
    case touchscreen
    /// A touchpad's two- or three-finger motion, made into one virtual contact whose motion is
    /// the fingers' centroid motion. It has no place on the screen: it always moves the card.
    case touchpad
}

/// The contacts that changed in one hardware sample (one `SYN_REPORT`), with the sample's time.
///
/// A frame is built and reused by its producer: keep one `TouchFrame` and call
/// `removeAll()` before filling it again, so that steady-state input allocates nothing.
public struct TouchFrame: Sendable {
    public var time: Timestamp
    public var source: TouchSource
    public var contacts: [Contact]

    public init(time: Timestamp, source: TouchSource = .touchscreen, contacts: [Contact] = []) {
        self.time = time
        self.source = source
        self.contacts = contacts
    }

    /// Empties the frame, keeping its storage.
    public mutating func removeAll() {
        contacts.removeAll(keepingCapacity: true)
    }

    public var isEmpty: Bool { contacts.isEmpty }
}

/// The frames one turn of an input loop produces and the engine then takes, kept from turn to
/// turn: emptying the batch keeps every frame and its contacts' storage, so once the batch has
/// grown to the most frames a turn brings, live input allocates nothing. (An array of frames
/// does not do this: appending a frame shares its contacts, and the producer's next
/// `removeAll(keepingCapacity:)` then needs new storage.)
public struct TouchFrameBatch: Sendable, RandomAccessCollection {
    private var storage: [TouchFrame] = []
    public private(set) var endIndex = 0

    public init() {}

    public var startIndex: Int { 0 }

    public subscript(position: Int) -> TouchFrame {
        precondition(position < endIndex, "frame \(position) of \(endIndex)")
        return storage[position]
    }

    /// Adds a frame, copying its contacts into storage an earlier frame left.
    public mutating func append(time: Timestamp, source: TouchSource, contacts: some Collection<Contact>) {
        if endIndex == storage.count { storage.append(TouchFrame(time: time, source: source)) }
        storage[endIndex].time = time
        storage[endIndex].source = source
        storage[endIndex].contacts.removeAllFromTheEnd()
        storage[endIndex].contacts.append(contentsOf: contacts)
        endIndex += 1
    }

    public mutating func append(_ frame: TouchFrame) {
        append(time: frame.time, source: frame.source, contacts: frame.contacts)
    }

    /// Adds `frame` by taking its storage, and leaves in its place, emptied, the storage of a
    /// frame an earlier turn used: nothing is copied and, once both have grown, nothing
    /// allocated. For a producer that builds each frame in one `TouchFrame` of its own.
    public mutating func take(_ frame: inout TouchFrame) {
        if endIndex == storage.count {
            // A new frame's storage, as roomy as the producer's, so that it does not grow
            // again when the producer fills it next.
            var fresh = TouchFrame(time: frame.time)
            fresh.contacts.reserveCapacity(Swift.max(frame.contacts.capacity, 10))
            storage.append(fresh)
        }
        swap(&storage[endIndex], &frame)
        frame.contacts.removeAllFromTheEnd()
        endIndex += 1
    }

    /// Empties the batch, keeping the frames' storage for the next turn.
    public mutating func removeAll() {
        endIndex = 0
    }
}
