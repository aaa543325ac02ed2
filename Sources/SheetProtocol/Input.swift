import SheetCore

/// `io.sheetd.Input`: processes that feed touches to the daemon, on a socket of its own.
public enum InputInterface {
    public static let name = "io.sheetd.Input"

    /// Its socket in the folder of the `io.sheetd.Sheet` socket `socket`, where the daemon makes
    /// it unless told otherwise.
    public static func socketPath(besideSocket socket: String) -> String {
        guard let slash = socket.lastIndex(of: "/") else { return name }
        return String(socket[...slash]) + name
    }

    public static let description = """
    # Touch devices that programs feed: a driver for hardware libinput does not know, a
    # recording played into a running daemon, a mouse standing in for a finger. A device
    # lives as long as the connection that opened it; its frames reach the sheet exactly as
    # a kernel device's do.
    interface io.sheetd.Input

    # One axis of a device's coordinates: positions run from min (left, top) to max.
    type Range (min: float, max: float)

    # A finger that changed in a frame. slot is 0 to slots-1, reused by later fingers;
    # phase is down, move, up or cancel (taken away without a lift: never a tap or a
    # fling); x and y are within the device's ranges, the position of a lift or a cancel
    # included.
    type Contact (slot: int, phase: string, x: float, y: float)

    # A device this connection feeds. kind is touchscreen (its range maps onto the
    # screen) or touchpad (two or three fingers pan the sheet, as libinput's two-finger
    # scroll and three-finger swipe); widthMm and heightMm, the surface's size, scale a
    # touchpad's motion (69x50 mm when left out, libinput's fallback). slots: fingers at
    # once, 1 to 16. clock: monotonic (frame times are CLOCK_MONOTONIC microseconds, the
    # default) or own (the first frame is taken as now, later ones keep their spacing).
    # At most 16 devices are open at once, over every connection. name: 1 to 256 bytes.
    # forwards: compositor, for a touchscreen whose touches a compositor read from this
    # seat's touchscreens and routed to a renderer's surface: while such a device is
    # open the daemon leaves the seat's own touchscreens alone (a finger down on them is
    # cancelled), so that each touch reaches the sheet once.
    method OpenDevice(
      name: string,
      kind: string,
      x: Range,
      y: Range,
      widthMm: ?float,
      heightMm: ?float,
      slots: int,
      clock: ?string,
      forwards: ?string
    ) -> (device: int)

    # One hardware sample: the contacts that changed, at time (microseconds on the
    # device's clock, never before the last frame's). sequence is the plugin's own number
    # for the frame, named when it is refused. A refused frame changes nothing but this: a
    # finger it lifts is cancelled (no tap, no fling), so no refusal leaves one down. The
    # device stays open. More than 1000 frames a second of the device's own time
    # (sustained; bursts of 100 pass) are refused, and more than 2048 arriving at once
    # (a backlog a stall held back is taken whole up to that).
    method SendFrame(device: int, sequence: int, time: int, contacts: []Contact) -> ()

    # A device of keys this connection feeds (a steering wheel's buttons read off a CAN
    # bus, a panel's keys read another way): its keys move the sheet's focus through the
    # daemon's key map, as a kernel key device's do. name and clock as for OpenDevice; it
    # counts among the 16 devices.
    method OpenKeys(name: string, clock: ?string) -> (device: int)

    # A key that changed: code, an evdev key code (KEY_TAB is 15, BTN_0 is 256, at most
    # 767), with value 1 for a press and 0 for a release (2, the kernel's repeat, is taken
    # and ignored: the daemon repeats held keys itself); or dial, a knob's steps (REL_DIAL,
    # positive one way), 1 to 64 either way.
    type Key (code: ?int, value: ?int, dial: ?int)

    # One report of a key device: the keys that changed (at most 16), at time, numbered
    # and limited as SendFrame's frames are. A refused report changes nothing but this: a
    # key it releases is released, so no refusal leaves a key held.
    method SendKeys(device: int, sequence: int, time: int, keys: []Key) -> ()

    # Closes a device; fingers still down are cancelled, keys held are let go.
    method CloseDevice(device: int) -> ()

    # A frame that cannot be used (a slot out of range, a move for a slot that is not
    # down, time running backwards, a position outside the range or not a number, too
    # many frames a second), with the frame's sequence number.
    error InvalidFrame (device: int, sequence: int, reason: string)

    error NoSuchDevice (device: int)

    error TooManyDevices (limit: int)

    # Input calls need root, the daemon's own user, or the input group (named here).
    error NotAllowed (method: string, group: string)
    """

    public static let invalidFrame = "io.sheetd.Input.InvalidFrame"
    public static let noSuchDevice = "io.sheetd.Input.NoSuchDevice"
    public static let tooManyDevices = "io.sheetd.Input.TooManyDevices"
    public static let notAllowed = "io.sheetd.Input.NotAllowed"
}

/// A call of `io.sheetd.Input`, for the daemon to perform, already held to the limits of
/// `PluginDevice` and `PluginFrame` as far as the wire can tell.
public enum InputRequest: Sendable, Equatable {
    case open(PluginDevice)
    case frame(device: Int, PluginFrame)
    case close(device: Int)
    /// `OpenKeys`: a device of keys, by name, on its clock.
    case openKeys(name: String, clock: PluginClock)
    case keys(device: Int, PluginKeyReport)
}

/// One key of a fed key device's report: an evdev key's press, release or repeat, or a knob's
/// steps.
public enum PluginKey: Sendable, Equatable {
    case key(code: UInt16, value: Int32)
    case dial(steps: Int32)
}

/// A `SendKeys` report: its number, its time on the device's clock, its keys.
public struct PluginKeyReport: Sendable, Equatable {
    public var sequence: Int64
    public var timeInMicroseconds: Int64
    public var keys: [PluginKey]

    /// Keys in one report, and the largest key code (KEY_MAX) and knob turn it takes.
    public static let maximumKeys = 16
    public static let maximumCode = 0x2ff
    public static let maximumDialSteps = KeyInput.maximumDialSteps

    public init(sequence: Int64, timeInMicroseconds: Int64, keys: [PluginKey]) {
        self.sequence = sequence
        self.timeInMicroseconds = timeInMicroseconds
        self.keys = keys
    }

    /// Reads `SendKeys`' parameters (the device id is the caller's to read), each key held to
    /// the limits above.
    public init(json parameters: JSONValue) throws(ParameterProblem) {
        let sequence = try PluginFrame.sequence(parameters["sequence"])
        let time = try PluginFrame.time(parameters["time"])
        guard case .array(let list) = parameters["keys"] else { throw ParameterProblem("keys", "an array") }
        guard list.count <= Self.maximumKeys else { throw ParameterProblem("keys", "more than \(Self.maximumKeys) keys") }
        var keys: [PluginKey] = []
        for (index, item) in list.enumerated() {
            if let dial = item["dial"], !dial.isNull {
                guard item["code"] == nil, let steps = dial.intValue, steps != 0, abs(steps) <= Int(Self.maximumDialSteps) else {
                    throw ParameterProblem("keys[\(index)].dial", "1 to \(Self.maximumDialSteps) steps either way, and no code")
                }
                keys.append(.dial(steps: Int32(steps)))
                continue
            }
            guard let code = item["code"]?.intValue, (1...Self.maximumCode).contains(code) else {
                throw ParameterProblem("keys[\(index)].code", "an evdev key code, 1 to \(Self.maximumCode)")
            }
            guard let value = item["value"]?.intValue, (0...2).contains(value) else {
                throw ParameterProblem("keys[\(index)].value", "0 (release), 1 (press) or 2 (repeat)")
            }
            keys.append(.key(code: UInt16(code), value: Int32(value)))
        }
        self.init(sequence: sequence, timeInMicroseconds: time, keys: keys)
    }

    /// `SendKeys`' parameters for `device`.
    public func parameters(device: Int) -> JSONValue {
        .object([
            "device": .number(Double(device)), "sequence": .number(Double(sequence)), "time": .number(Double(timeInMicroseconds)),
            "keys": .array(keys.map {
                switch $0 {
                case .key(let code, let value): .object(["code": .number(Double(code)), "value": .number(Double(value))])
                case .dial(let steps): .object(["dial": .number(Double(steps))])
                }
            }),
        ])
    }
}

/// How the daemon answered an input call.
public enum InputResult: Sendable, Equatable {
    case opened(device: Int)
    case done
    case invalidFrame(device: Int, sequence: Int64, reason: String)
    case noSuchDevice(Int)
    case tooManyDevices(limit: Int)
    case invalidParameter(String, reason: String)
}

/// A parameter that cannot be used, by name (`x.min`, `contacts[2].phase`).
public struct ParameterProblem: Error, Equatable, Sendable, CustomStringConvertible {
    public var parameter: String
    public var reason: String

    public init(_ parameter: String, _ reason: String) {
        self.parameter = parameter
        self.reason = reason
    }

    public var description: String { "\(parameter): \(reason)" }
}

extension PluginDevice {
    /// Reads `OpenDevice`'s parameters and holds them to `PluginDevice.Limits`.
    public init(json parameters: JSONValue) throws(ParameterProblem) {
        guard let name = parameters["name"]?.stringValue else { throw ParameterProblem("name", "a string") }
        guard let kind = parameters["kind"]?.stringValue.flatMap(TouchSource.init(name:)) else {
            throw ParameterProblem("kind", "touchscreen or touchpad")
        }
        func range(_ key: String) throws(ParameterProblem) -> ClosedRange<Double> {
            guard let low = parameters[key]?["min"]?.doubleValue else { throw ParameterProblem("\(key).min", "a number") }
            guard let high = parameters[key]?["max"]?.doubleValue else { throw ParameterProblem("\(key).max", "a number") }
            // doubleValue is finite; ClosedRange traps on a reversed range, so it is refused here.
            guard low < high else { throw ParameterProblem(key, "min below max") }
            return low...high
        }
        func optionalNumber(_ key: String) throws(ParameterProblem) -> Double? {
            guard let value = parameters[key], !value.isNull else { return nil }
            guard let number = value.doubleValue else { throw ParameterProblem(key, "a number") }
            return number
        }
        let x = try range("x"), y = try range("y")
        let width = try optionalNumber("widthMm"), height = try optionalNumber("heightMm")
        guard (width == nil) == (height == nil) else { throw ParameterProblem(width == nil ? "widthMm" : "heightMm", "both sizes or neither") }
        guard let slots = parameters["slots"]?.intValue else { throw ParameterProblem("slots", "an integer") }
        var clock = PluginClock.monotonic
        if let value = parameters["clock"], !value.isNull {
            guard let named = value.stringValue.flatMap(PluginClock.init(rawValue:)) else { throw ParameterProblem("clock", "monotonic or own") }
            clock = named
        }
        var forwards: PluginForwarding?
        if let value = parameters["forwards"], !value.isNull {
            guard let named = value.stringValue.flatMap(PluginForwarding.init(rawValue:)) else { throw ParameterProblem("forwards", "compositor") }
            forwards = named
        }
        self.init(name: name, kind: kind, x: x, y: y, sizeInMillimetres: width.flatMap { w in height.map { (w, $0) } },
                  slots: slots, clock: clock, forwards: forwards)
        if let refusal { throw ParameterProblem(refusal.parameter, refusal.reason) }
    }

    /// `OpenDevice`'s parameters.
    public var parameters: JSONValue {
        var members: [String: JSONValue] = [
            "name": .string(name), "kind": .string(kind.name),
            "x": .object(["min": .number(x.lowerBound), "max": .number(x.upperBound)]),
            "y": .object(["min": .number(y.lowerBound), "max": .number(y.upperBound)]),
            "slots": .number(Double(slots)), "clock": .string(clock.rawValue),
        ]
        if let size = sizeInMillimetres {
            members["widthMm"] = .number(size.width)
            members["heightMm"] = .number(size.height)
        }
        if let forwards { members["forwards"] = .string(forwards.rawValue) }
        return .object(members)
    }
}

extension PluginFrame {
    /// The largest frame number and time taken: integers a double holds exactly.
    static let largestInteger = 1 << 53

    /// Reads `SendFrame`'s parameters (the device id is the caller's to read). Contacts are
    /// read only up to `PluginContacts.capacity`: more is a refusal, not an allocation.
    public init(json parameters: JSONValue) throws(ParameterProblem) {
        let sequence = try Self.sequence(parameters["sequence"])
        let time = try Self.time(parameters["time"])
        guard case .array(let list) = parameters["contacts"] else { throw ParameterProblem("contacts", "an array") }
        guard list.count <= PluginContacts.capacity else {
            throw ParameterProblem("contacts", "more than \(PluginContacts.capacity) contacts")
        }
        var contacts = PluginContacts()
        for (index, item) in list.enumerated() {
            let phase = item["phase"]?.stringValue.flatMap(ContactPhase.init(name:))
            _ = contacts.append(try PluginContact(index: index, slot: item["slot"], phase: phase, x: item["x"], y: item["y"]))
        }
        self.init(sequence: sequence, timeInMicroseconds: time, contacts: contacts)
    }

    /// `sequence` as the wire takes it. The one rule for both readers of `SendFrame` (this
    /// one, and `SendFrameCall`'s, which reads the bytes with no tree).
    static func sequence(_ value: JSONValue?) throws(ParameterProblem) -> Int64 {
        guard let sequence = value?.intValue, sequence >= 0, sequence <= largestInteger else {
            throw ParameterProblem("sequence", "an integer from 0 to 2^53")
        }
        return Int64(sequence)
    }

    /// `time` as the wire takes it.
    static func time(_ value: JSONValue?) throws(ParameterProblem) -> Int64 {
        guard let time = value?.intValue, time <= largestInteger else {
            throw ParameterProblem("time", "an integer (microseconds) up to 2^53")
        }
        return Int64(time)
    }

    /// `SendFrame`'s parameters for `device`.
    public func parameters(device: Int) -> JSONValue {
        .object([
            "device": .number(Double(device)), "sequence": .number(Double(sequence)), "time": .number(Double(timeInMicroseconds)),
            "contacts": .array(contacts.map {
                .object(["slot": .number(Double($0.slot)), "phase": .string($0.phase.name), "x": .number($0.x), "y": .number($0.y)])
            }),
        ])
    }
}

extension PluginContact {
    /// A contact's members as read, held to what the wire takes; `index` names it in a refusal.
    init(index: Int, slot: JSONValue?, phase: ContactPhase?, x: JSONValue?, y: JSONValue?) throws(ParameterProblem) {
        guard let slot = slot?.intValue, abs(slot) <= 1 << 30 else { throw ParameterProblem("contacts[\(index)].slot", "an integer") }
        guard let phase else { throw ParameterProblem("contacts[\(index)].phase", "down, move, up or cancel") }
        guard let x = x?.doubleValue else { throw ParameterProblem("contacts[\(index)].x", "a finite number") }
        guard let y = y?.doubleValue else { throw ParameterProblem("contacts[\(index)].y", "a finite number") }
        self.init(slot: slot, phase: phase, x: x, y: y)
    }
}
