import SheetCore

// MARK: - Decoding, for clients

/// A reply that does not have the shape `io.sheetd.Sheet` promises.
public struct ProtocolError: Error, Equatable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

func field(_ object: JSONValue, _ key: String) throws(ProtocolError) -> JSONValue {
    guard let value = object[key] else { throw ProtocolError("missing field \"\(key)\"") }
    return value
}

/// A finite number within `range` (a daemon never sends more; a broken one must not make a
/// client trap or allocate by it).
private func number(_ object: JSONValue, _ key: String, in range: ClosedRange<Double> = -1e9...1e9) throws(ProtocolError) -> Double {
    guard let value = try field(object, key).doubleValue, value.isFinite else { throw ProtocolError("field \"\(key)\" is not a number") }
    guard range.contains(value) else { throw ProtocolError("field \"\(key)\" is \(value), outside \(range.lowerBound)...\(range.upperBound)") }
    return value
}

/// A whole number that fits in 64 bits.
func integer(_ object: JSONValue, _ key: String) throws(ProtocolError) -> Int64 {
    guard let value = try field(object, key).doubleValue, let whole = Int64(exactly: value) else {
        throw ProtocolError("field \"\(key)\" is not a 64-bit whole number")
    }
    return whole
}

/// A screen side: a whole number of pixels in `ScreenSize.pixelRange`, as the daemon accepts.
private func side(_ object: JSONValue, _ key: String) throws(ProtocolError) -> Int {
    let value = try number(object, key)
    let sides = ScreenSize.pixelRange
    guard let pixels = Int(exactly: value), sides.contains(pixels) else {
        throw ProtocolError("field \"\(key)\" is not \(sides.lowerBound) to \(sides.upperBound) pixels")
    }
    return pixels
}

func text(_ object: JSONValue, _ key: String) throws(ProtocolError) -> String {
    guard let value = try field(object, key).stringValue else { throw ProtocolError("field \"\(key)\" is not a string") }
    return value
}

private func name(_ object: JSONValue, _ key: String) throws(ProtocolError) -> DetentName {
    let value = try text(object, key)
    guard let name = DetentName(value) else { throw ProtocolError("field \"\(key)\" is not a detent name (\(DetentName.rule))") }
    return name
}

private func optionalName(_ object: JSONValue, _ key: String) throws(ProtocolError) -> DetentName? {
    guard let value = object[key], !value.isNull else { return nil }
    return try name(object, key)
}

/// A field naming a case of one of the core's enums.
func named<Value: Named>(_ object: JSONValue, _ key: String) throws(ProtocolError) -> Value {
    guard let value = Value(name: try text(object, key)) else {
        throw ProtocolError("field \"\(key)\" is not one of \(Value.names.joined(separator: ", "))")
    }
    return value
}

extension SheetState {
    public init(json: JSONValue) throws(ProtocolError) {
        let state: SheetMachine.StateKind = try named(json, "state")
        let cause: SheetCause = try named(json, "cause")
        guard let inputActive = try field(json, "inputActive").boolValue else { throw ProtocolError("field \"inputActive\" is not a boolean") }
        guard let reduceMotion = try field(json, "reduceMotion").boolValue else { throw ProtocolError("field \"reduceMotion\" is not a boolean") }
        let screen = try field(json, "screen")
        let size = ScreenSize(widthInPixels: try side(screen, "width"), heightInPixels: try side(screen, "height"),
                              scale: try number(screen, "scale", in: ScreenSize.scaleRange))
        // The card lies on the screen, at least a pixel wide; a daemon before it sent none.
        var card: CardSpan?
        if let value = json["card"], !value.isNull {
            let width = Double(size.widthInPixels)
            let left = try number(value, "x", in: 0...(width - 1))
            card = CardSpan(left: left, width: try number(value, "width", in: 1...(width - left)))
        }
        var appearance = Appearance.standard
        if let value = json["appearance"], !value.isNull { appearance = try Appearance(json: value) }
        var presentation = SheetPresentation()
        if let value = json["presentation"], !value.isNull { presentation = try SheetPresentation(json: value) }
        // The region lies on the screen; empty is allowed (nothing to take). Each side is
        // rounded on the wire on its own, so one that ends past the screen's edge by that
        // rounding is cut at the edge, not refused.
        var region: ScreenRegion?
        if let value = json["region"], !value.isNull {
            let width = Double(size.widthInPixels), height = Double(size.heightInPixels)
            let x = try number(value, "x", in: 0...width), y = try number(value, "y", in: 0...height)
            region = ScreenRegion(x: x, y: y, width: min(try number(value, "width", in: 0...width), width - x),
                                  height: min(try number(value, "height", in: 0...height), height - y))
        }
        var focus: FocusedElement?
        if let value = json["focus"], !value.isNull {
            let id = try text(json, "focus")
            guard (1...SheetContent.Limits.idBytes).contains(id.utf8.count) else {
                throw ProtocolError("field \"focus\" is not an item's id (1 to \(SheetContent.Limits.idBytes) bytes) nor \"close\"")
            }
            focus = id == "close" ? .close : .item(id)
        }
        var focusVisible = false
        if let value = json["focusVisible"], !value.isNull {
            guard let visible = value.boolValue else { throw ProtocolError("field \"focusVisible\" is not a boolean") }
            focusVisible = visible
        }
        var detents: [DetentPosition] = []
        if case .array(let list)? = json["detents"] {
            guard list.count <= SheetConfiguration.maximumDetents else { throw ProtocolError("more than \(SheetConfiguration.maximumDetents) detents") }
            for item in list {
                detents.append(DetentPosition(name: try name(item, "name"), topInPixels: try number(item, "top")))
            }
        }
        self.init(state: state, detent: try optionalName(json, "detent"), target: try optionalName(json, "target"),
                  topInPixels: try number(json, "top"), progress: try number(json, "progress"),
                  dim: try number(json, "dim", in: 0...1), velocityInPixelsPerSecond: try number(json, "velocity"),
                  screen: size, cause: cause, detents: detents,
                  list: try json["list"].flatMap { value throws(ProtocolError) in value.isNull ? nil : try ListState(json: value) },
                  inputActive: inputActive, reduceMotion: reduceMotion, cardInPixels: card, appearance: appearance,
                  presentation: presentation, regionInPixels: region, focus: focus, focusVisible: focusVisible)
        if json["sheet"] != nil || json["stack"] != nil {
            var stacked = StackedSheets(sheet: nil, stack: [])
            if let value = json["sheet"], !value.isNull { stacked.sheet = try Self.sheetName(value, "sheet") }
            if case .array(let names)? = json["stack"] {
                guard names.count <= Self.maximumStack else { throw ProtocolError("field \"stack\" names more than \(Self.maximumStack) sheets") }
                stacked.stack = try names.map { value throws(ProtocolError) in try Self.sheetName(value, "stack") }
            }
            self.stacked = stacked
        }
    }

    /// At most this many sheets in a state's `stack` (the daemon's limit in all is 64).
    public static let maximumStack = 256

    /// A sheet's name as a state carries it: 1 to 64 bytes.
    static func sheetName(_ value: JSONValue, _ field: String) throws(ProtocolError) -> String {
        guard let name = value.stringValue, (1...64).contains(name.utf8.count) else {
            throw ProtocolError("field \"\(field)\" is not a sheet's name (1 to 64 bytes)")
        }
        return name
    }
}

extension GestureReport {
    public init(json: JSONValue) throws(ProtocolError) {
        var velocity: (x: Double, y: Double)?
        if let vx = json["vx"]?.doubleValue, let vy = json["vy"]?.doubleValue { velocity = (vx, vy) }
        var direction: SwipeDirection?
        if let value = json["direction"], !value.isNull { direction = try named(json, "direction") }
        self.init(kind: try named(json, "kind"), phase: try named(json, "phase"),
                  xInPixels: try number(json, "x"), yInPixels: try number(json, "y"),
                  velocityInPixelsPerSecond: velocity, direction: direction)
    }
}

extension InputDevice {
    public init(json: JSONValue) throws(ProtocolError) {
        guard let used = try field(json, "used").boolValue else { throw ProtocolError("field \"used\" is not a boolean") }
        var pid: Int32?, uid: UInt32?
        if let value = json["pid"], !value.isNull {
            guard let number = value.intValue.flatMap(Int32.init(exactly:)) else { throw ProtocolError("field \"pid\" is not a pid") }
            pid = number
        }
        if let value = json["uid"], !value.isNull {
            guard let number = value.intValue.flatMap(UInt32.init(exactly:)) else { throw ProtocolError("field \"uid\" is not a uid") }
            uid = number
        }
        let type = try text(json, "type")
        guard let kind = InputDeviceKind(rawValue: type) else {
            throw ProtocolError("field \"type\" is not one of \(InputDeviceKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.init(node: try text(json, "node"), name: try text(json, "name"), kind: kind,
                  used: used, reason: try text(json, "reason"), pid: pid, uid: uid)
    }
}

extension MonitorUpdate {
    public init(json parameters: JSONValue) throws(ProtocolError) {
        var gesture: GestureReport?
        if let value = parameters["gesture"], !value.isNull { gesture = try GestureReport(json: value) }
        var events: [SheetEvent] = []
        if case .array(let list)? = parameters["events"] {
            for value in list { events.append(try SheetEvent(json: value)) }
        }
        self.init(sequence: try integer(parameters, "seq"),
                  timestampInMicroseconds: try integer(parameters, "timestampUSec"),
                  state: try SheetState(json: try field(parameters, "state")), gesture: gesture, events: events)
    }
}
