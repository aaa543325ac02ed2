/// Input that a process feeds over the `io.sheetd.Input` socket: a device it declares and the
/// frames it sends, in the device's own coordinates. The daemon checks both and turns them into
/// `TouchFrame`s the way it turns a kernel device's events into them.

/// A device a plugin opens: what it is, its coordinate range, and how many fingers it tracks.
public struct PluginDevice: Sendable, Equatable {
    public var name: String
    /// A touchscreen (positions map onto the screen) or a touchpad (two or three fingers pan
    /// the sheet, as libinput's two-finger scroll and three-finger swipe).
    public var kind: TouchSource
    /// Positions run from `lowerBound` (left, top) to `upperBound` (right, bottom).
    public var x: ClosedRange<Double>
    public var y: ClosedRange<Double>
    /// The surface's size in millimetres, when the device knows it: a touchpad's motion is
    /// scaled by it (libinput's 69×50 mm fallback otherwise). A touchscreen maps its range onto
    /// the screen whatever its size.
    public var sizeInMillimetres: (width: Double, height: Double)?
    /// Fingers tracked at once: slots 0 to `slots - 1`.
    public var slots: Int
    public var clock: PluginClock
    /// What the device's touches are, when they are another reader's of the seat's own
    /// touchscreens (`SeatTouchGate`); nil: a device of its own.
    public var forwards: PluginForwarding?

    public init(name: String, kind: TouchSource, x: ClosedRange<Double>, y: ClosedRange<Double>,
                sizeInMillimetres: (width: Double, height: Double)? = nil, slots: Int, clock: PluginClock = .monotonic,
                forwards: PluginForwarding? = nil) {
        self.name = name
        self.kind = kind
        self.x = x
        self.y = y
        self.sizeInMillimetres = sizeInMillimetres
        self.slots = slots
        self.clock = clock
        self.forwards = forwards
    }

    public static func == (a: PluginDevice, b: PluginDevice) -> Bool {
        a.name == b.name && a.kind == b.kind && a.x == b.x && a.y == b.y && a.slots == b.slots && a.clock == b.clock
            && a.sizeInMillimetres?.width == b.sizeInMillimetres?.width && a.sizeInMillimetres?.height == b.sizeInMillimetres?.height
            && a.forwards == b.forwards
    }

    /// The limits a declaration is held to.
    public enum Limits {
        /// A name of 1 to this many bytes.
        public static let nameBytes = 256
        /// Slots, as many as the engine tracks beside a seat's own touches (libinput's seat
        /// slots start at 0; plugin touches take the engine's upper slots).
        public static let slots = 1...PluginContacts.capacity
        /// Coordinates: finite, with `min < max`, within ±1e9 (a 32-bit evdev axis fits).
        public static let coordinateMagnitude = 1e9
        /// A surface from 1 mm to 10 m a side.
        public static let millimetres = 1.0...10_000.0
        /// Devices open at once, over every plugin.
        public static let devices = 16
        /// Frames a device may make per second of its own time (the frames' `time`), sustained;
        /// a burst of `frameBurst` is taken. Touch hardware reports at 60 to 240 Hz, gaming
        /// panels up to 1 kHz. Counted by the device's time, not by arrival: a plugin held back
        /// (a stall, a busy machine) sends what it held at once, as far apart as it was made,
        /// and every frame is taken.
        public static let framesPerSecond = 1000
        public static let frameBurst = 100
        /// However its frames' times are spaced, at most this many arrive at once: a backlog is
        /// taken whole up to it (8.5 s of a 240 Hz panel), refilled at `arrivalsPerSecond`. A
        /// device past it is flooding the daemon, whatever times it claims.
        public static let backlogFrames = 2048
        public static let arrivalsPerSecond = 2000
        /// On a plugin's own clock a frame is taken at its time plus the least delay seen
        /// lately, never further than this behind now: frames a stall held back keep their
        /// spacing for this long. Below the long press's 500 ms, so that a late touch alone
        /// never makes one.
        public static let clockLagMicroseconds: Int64 = 300_000
        /// A CLOCK_MONOTONIC frame may be stamped this far in the future (clocks read on two
        /// CPUs), no further: a frame from the future would pull the engine's clock ahead.
        public static let futureMicroseconds: Int64 = 50_000
    }

    /// Why the declaration cannot be used, naming the parameter; nil when it can.
    public var refusal: (parameter: String, reason: String)? {
        if name.isEmpty || name.utf8.count > Limits.nameBytes {
            return ("name", "1 to \(Limits.nameBytes) bytes")
        }
        for (axis, range) in [("x", x), ("y", y)] {
            guard range.lowerBound.isFinite, range.upperBound.isFinite,
                  abs(range.lowerBound) <= Limits.coordinateMagnitude, abs(range.upperBound) <= Limits.coordinateMagnitude else {
                return (axis, "finite, within ±\(Limits.coordinateMagnitude)")
            }
            guard range.lowerBound < range.upperBound else { return (axis, "min below max") }
        }
        if let size = sizeInMillimetres {
            if !Limits.millimetres.contains(size.width) { return ("widthMm", "from 1 to 10000 mm") }
            if !Limits.millimetres.contains(size.height) { return ("heightMm", "from 1 to 10000 mm") }
        }
        if !Limits.slots.contains(slots) { return ("slots", "from \(Limits.slots.lowerBound) to \(Limits.slots.upperBound)") }
        if forwards == .compositor, kind != .touchscreen { return ("forwards", "compositor is for a touchscreen") }
        return nil
    }
}

/// Whose touches a plugin device carries, when they are not its own.
public enum PluginForwarding: String, Sendable, Equatable {
    /// A compositor's: it reads the seat's touchscreens and routes each touch to the surface
    /// under it, and a renderer forwards those that reach the sheet's (`sheet-render --backend
    /// wayland`, the web renderer's page under cage). Read by the daemon as well, each such
    /// touch would reach the recogniser twice: while a device forwards them, the daemon leaves
    /// the seat's own touchscreens alone (`SeatTouchGate`).
    case compositor
}

/// The clock of a plugin's frame times.
public enum PluginClock: String, Sendable, Equatable {
    /// CLOCK_MONOTONIC microseconds, the clock of the kernel's event times.
    case monotonic
    /// The plugin's own: its first frame is taken as now and later ones keep their spacing.
    case own
}

/// One finger in a plugin's frame, in the device's coordinates.
public struct PluginContact: Sendable, Equatable {
    public var slot: Int
    public var phase: ContactPhase
    public var x: Double
    public var y: Double

    public init(slot: Int, phase: ContactPhase, x: Double, y: Double) {
        self.slot = slot
        self.phase = phase
        self.x = x
        self.y = y
    }
}

/// One hardware sample from a plugin: the contacts that changed, numbered by the plugin (the
/// number is named in a refusal) and stamped in microseconds on the device's clock.
public struct PluginFrame: Sendable, Equatable {
    public var sequence: Int64
    public var timeInMicroseconds: Int64
    public var contacts: PluginContacts

    public init(sequence: Int64, timeInMicroseconds: Int64, contacts: PluginContacts) {
        self.sequence = sequence
        self.timeInMicroseconds = timeInMicroseconds
        self.contacts = contacts
    }
}

/// The contacts of one frame: at most `capacity`, a device's most slots (a frame names each
/// slot once), held in the frame itself, so that a frame costs no allocation on its way from
/// the socket to the engine.
public struct PluginContacts: RandomAccessCollection, MutableCollection, Sendable, Equatable, ExpressibleByArrayLiteral {
    public static let capacity = 16
    private var storage = InlineArray<16, PluginContact>(repeating: PluginContact(slot: 0, phase: .up, x: 0, y: 0))
    public private(set) var count = 0

    public init() {}

    /// nil when there are more than `capacity`.
    public init?(_ contacts: some Sequence<PluginContact>) {
        // Built in a value of its own, then taken whole: appended to `self` in this failable
        // initializer, the contacts were lost when optimised (-O, Swift 6.2.3 and 6.3.1: `count`
        // read 0 after, InlineArray's stores dropped); the arm64 suite, built optimised, caught it.
        var built = PluginContacts()
        for contact in contacts {
            guard built.append(contact) else { return nil }
        }
        self = built
    }

    /// One contact.
    public init(one contact: PluginContact) {
        storage[0] = contact
        count = 1
    }

    /// A literal in code; more than `capacity` is a programming error.
    public init(arrayLiteral contacts: PluginContact...) {
        precondition(contacts.count <= Self.capacity, "a frame holds at most \(Self.capacity) contacts")
        for contact in contacts { _ = append(contact) }
    }

    /// Adds a contact; false (and nothing added) when the frame is full.
    public mutating func append(_ contact: PluginContact) -> Bool {
        guard count < Self.capacity else { return false }
        storage[count] = contact
        count += 1
        return true
    }

    public mutating func removeAll() { count = 0 }

    /// Takes out the contact at `index`; those after it move up.
    public mutating func remove(at index: Int) {
        precondition(index >= 0 && index < count, "contact index out of range")
        for later in (index + 1)..<count { storage[later - 1] = storage[later] }
        count -= 1
    }

    /// Keeps the contacts for which `keep` holds, in their order.
    public mutating func keep(where keep: (PluginContact) -> Bool) {
        var kept = 0
        for index in 0..<count where keep(storage[index]) {
            storage[kept] = storage[index]
            kept += 1
        }
        count = kept
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(index: Int) -> PluginContact {
        get {
            precondition(index >= 0 && index < count, "contact index out of range")
            return storage[index]
        }
        set {
            precondition(index >= 0 && index < count, "contact index out of range")
            storage[index] = newValue
        }
    }

    public static func == (a: PluginContacts, b: PluginContacts) -> Bool { a.elementsEqual(b) }
}

extension ContactPhase {
    /// The phase's name on the wire and in files.
    public var name: String {
        switch self {
        case .down: "down"
        case .move: "move"
        case .up: "up"
        case .cancel: "cancel"
        }
    }

    public init?(name: String) {
        switch name {
        case "down": self = .down
        case "move": self = .move
        case "up": self = .up
        case "cancel": self = .cancel
        default: return nil
        }
    }
}

extension TouchSource {
    /// The source's name on the wire and in files.
    public var name: String { self == .touchscreen ? "touchscreen" : "touchpad" }

    public init?(name: String) {
        switch name {
        case "touchscreen": self = .touchscreen
        case "touchpad": self = .touchpad
        default: return nil
        }
    }
}
