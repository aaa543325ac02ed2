/// What an operator asks of a running daemon (`GetStats`, `sheetctl stats`): how long it has
/// run, what it read and published, what its subscribers missed, and how long a frame took to
/// reach them.
public struct DaemonStats: Sendable, Equatable {
    /// The seat whose panel the daemon serves (`--seat`).
    public var seat = Seat.main.name
    public var uptimeInMicroseconds: Int64 = 0
    /// Configurations read again (SIGHUP).
    public var reloads = 0
    /// Frames each input device sent: libinput's devices in use, a recording, each device a
    /// program feeds over `io.sheetd.Input` while it is open.
    public var devices: [DeviceFrames] = []
    /// Gestures recognized or begun (a pan once, not each change).
    public var gestures = 0
    /// States published (the Monitor stream's `seq`).
    public var statesPublished: Int64 = 0
    /// States a slow subscriber never got because a newer one replaced them.
    public var statesConflated = 0
    public var subscribers = 0
    /// Subscribers dropped for taking nothing for `client-stall-timeout`.
    public var subscribersDropped = 0
    public var connections = 0
    /// Fingers the daemon holds down now (its engine's touches), and how long the first of
    /// them has been down: a finger held for minutes is a touch that never ended.
    public var fingersDown = 0
    public var fingersHeldInMicroseconds: Int64 = 0
    /// Frames of the seat's own touchscreens held back while a compositor's touches were
    /// forwarded (`SeatTouchGate`): each of those touches reached the sheet once, forwarded.
    public var framesHeldBack = 0
    /// From a touch frame's kernel (or feeder's) time to its state being handed to the
    /// subscribers' sockets.
    public var publishLatency = LatencyHistogram()

    public init() {}
}

/// Touch frames a device sent.
public struct DeviceFrames: Sendable, Equatable {
    public var node: String
    public var name: String
    public var frames: Int

    public init(node: String, name: String, frames: Int) {
        self.node = node
        self.name = name
        self.frames = frames
    }
}

/// Microsecond durations counted into fixed buckets: each bucket counts the durations up to
/// its bound and above the one before; the last has no bound. Recording allocates nothing.
public struct LatencyHistogram: Sendable, Equatable {
    /// Upper bounds in microseconds; a last bucket above them has no bound.
    public static let boundsInMicroseconds: [Int64] = [50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000]
    /// One count per bound, and the last for what is above them all.
    public private(set) var counts: [Int]
    public private(set) var sumInMicroseconds: Int64 = 0

    public init() {
        counts = [Int](repeating: 0, count: Self.boundsInMicroseconds.count + 1)
    }

    /// Counts a duration; a negative one (clocks a feeder set wrong) counts as 0.
    public mutating func record(_ microseconds: Int64) {
        let value = max(0, microseconds)
        var index = 0
        while index < Self.boundsInMicroseconds.count, value > Self.boundsInMicroseconds[index] { index += 1 }
        counts[index] += 1
        sumInMicroseconds &+= value
    }

    public var count: Int { counts.reduce(0, +) }

    /// Made from the wire: `counts` must have one more entry than the bounds.
    public init(counts: [Int], sumInMicroseconds: Int64) throws(ProtocolError) {
        guard counts.count == Self.boundsInMicroseconds.count + 1, counts.allSatisfy({ $0 >= 0 }) else {
            throw ProtocolError("field \"counts\" is not \(Self.boundsInMicroseconds.count + 1) counts")
        }
        self.counts = counts
        self.sumInMicroseconds = sumInMicroseconds
    }
}

extension DaemonStats {
    public func write(to w: inout JSONWriter) {
        w.append("{\"seat\":")
        w.appendString(seat)
        w.append(",\"uptimeUSec\":")
        w.appendInteger(uptimeInMicroseconds)
        w.append(",\"reloads\":")
        w.appendInteger(Int64(reloads))
        w.append(",\"devices\":[")
        for (index, device) in devices.enumerated() {
            if index > 0 { w.append(UInt8(ascii: ",")) }
            w.append("{\"node\":")
            w.appendString(device.node)
            w.append(",\"name\":")
            w.appendString(device.name)
            w.append(",\"frames\":")
            w.appendInteger(Int64(device.frames))
            w.append(UInt8(ascii: "}"))
        }
        w.append("],\"gestures\":")
        w.appendInteger(Int64(gestures))
        w.append(",\"statesPublished\":")
        w.appendInteger(statesPublished)
        w.append(",\"statesConflated\":")
        w.appendInteger(Int64(statesConflated))
        w.append(",\"subscribers\":")
        w.appendInteger(Int64(subscribers))
        w.append(",\"subscribersDropped\":")
        w.appendInteger(Int64(subscribersDropped))
        w.append(",\"connections\":")
        w.appendInteger(Int64(connections))
        w.append(",\"fingersDown\":")
        w.appendInteger(Int64(fingersDown))
        w.append(",\"fingersHeldUSec\":")
        w.appendInteger(fingersHeldInMicroseconds)
        w.append(",\"framesHeldBack\":")
        w.appendInteger(Int64(framesHeldBack))
        w.append(",\"publishLatency\":{\"boundsUSec\":[")
        for (index, bound) in LatencyHistogram.boundsInMicroseconds.enumerated() {
            if index > 0 { w.append(UInt8(ascii: ",")) }
            w.appendInteger(bound)
        }
        w.append("],\"counts\":[")
        for (index, count) in publishLatency.counts.enumerated() {
            if index > 0 { w.append(UInt8(ascii: ",")) }
            w.appendInteger(Int64(count))
        }
        w.append("],\"sumUSec\":")
        w.appendInteger(publishLatency.sumInMicroseconds)
        w.append("}}")
    }

    /// Read back from `GetStats`'s `stats`; a daemon whose buckets differ from these is refused.
    public init(json: JSONValue) throws(ProtocolError) {
        self.init()
        func count(_ object: JSONValue, _ key: String) throws(ProtocolError) -> Int {
            let value = try integer(object, key)
            guard value >= 0, let whole = Int(exactly: value) else { throw ProtocolError("field \"\(key)\" is not a count") }
            return whole
        }
        // A daemon from before seats serves seat0.
        if let value = json["seat"], !value.isNull {
            guard let name = value.stringValue, let named = Seat(name) else { throw ProtocolError("field \"seat\" is not \(Seat.rule)") }
            seat = named.name
        }
        uptimeInMicroseconds = try integer(json, "uptimeUSec")
        reloads = try count(json, "reloads")
        guard let list = try field(json, "devices").arrayValue else { throw ProtocolError("field \"devices\" is not a list") }
        for device in list {
            devices.append(DeviceFrames(node: try text(device, "node"), name: try text(device, "name"), frames: try count(device, "frames")))
        }
        gestures = try count(json, "gestures")
        statesPublished = try integer(json, "statesPublished")
        statesConflated = try count(json, "statesConflated")
        subscribers = try count(json, "subscribers")
        subscribersDropped = try count(json, "subscribersDropped")
        connections = try count(json, "connections")
        // A daemon from before held fingers were counted says nothing of them.
        if let value = json["fingersDown"], !value.isNull { fingersDown = try count(json, "fingersDown") }
        if let value = json["fingersHeldUSec"], !value.isNull { fingersHeldInMicroseconds = Int64(try count(json, "fingersHeldUSec")) }
        if let value = json["framesHeldBack"], !value.isNull { framesHeldBack = try count(json, "framesHeldBack") }
        let latency = try field(json, "publishLatency")
        let bounds = try field(latency, "boundsUSec").arrayValue?.compactMap { (value: JSONValue) in value.intValue.map(Int64.init) }
        guard bounds == LatencyHistogram.boundsInMicroseconds else {
            throw ProtocolError("field \"publishLatency.boundsUSec\" is not \(LatencyHistogram.boundsInMicroseconds)")
        }
        guard let counts = try field(latency, "counts").arrayValue else { throw ProtocolError("field \"publishLatency.counts\" is not a list") }
        var values: [Int] = []
        for value in counts {
            guard let whole = value.intValue, whole >= 0 else { throw ProtocolError("field \"publishLatency.counts\" holds a value that is not a count") }
            values.append(whole)
        }
        publishLatency = try LatencyHistogram(counts: values, sumInMicroseconds: try integer(latency, "sumUSec"))
    }
}
