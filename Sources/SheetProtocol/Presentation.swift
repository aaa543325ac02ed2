import SheetCore

// How the sheet opens, closes and shares the screen, on the wire: in every state
// (`"presentation":{…}`, `"region":{…}`) and as `SetPresentation`'s parameters.

extension SheetPresentation {
    /// `{"gestures":["edge-swipe"],"edgeBand":24,"barHeight":64,"modal":true,"canOpen":true,"canClose":true,"touchExploration":false}`.
    public func write(to w: inout JSONWriter) {
        w.appendBounded { write(to: &$0) }
    }

    /// The same through a cursor: at most 186 bytes and 16 for each gesture.
    public func write(to c: inout JSONCursor) {
        c.append("{\"gestures\":[")
        // Case by case through the raw values, not `members` (which builds an array): this
        // runs for every state a subscriber is sent.
        var first = true
        var raw: UInt8 = 0
        while let gesture = PresentGesture(rawValue: raw) {
            raw += 1
            guard gestures.contains(gesture) else { continue }
            if !first { c.append(UInt8(ascii: ",")) }
            first = false
            c.append(UInt8(ascii: "\""))
            c.append(gesture.name)
            c.append(UInt8(ascii: "\""))
        }
        c.append("],\"edgeBand\":")
        c.append(edgeBandInPoints, decimals: 2)
        c.append(",\"barHeight\":")
        c.append(barHeightInPoints, decimals: 2)
        c.append(",\"modal\":")
        c.append(modal)
        c.append(",\"canOpen\":")
        c.append(canOpen)
        c.append(",\"canClose\":")
        c.append(canClose)
        c.append(",\"touchExploration\":")
        c.append(touchExploration)
        c.append(UInt8(ascii: "}"))
    }

    /// Reads what `write` wrote, every field held to the limits.
    public init(json: JSONValue) throws(ProtocolError) {
        do {
            self = try PresentationChange(json: json).applied(to: SheetPresentation())
        } catch {
            throw ProtocolError("presentation: \(error)")
        }
    }
}

extension PresentGestures {
    /// `["edge-swipe","bottom-bar"]`, or a name alone; `none` or an empty list is none.
    public init(names: [String]) throws(ContentProblem) {
        self = .none
        for name in names where name != "none" {
            guard let gesture = PresentGesture(name: name) else {
                throw ContentProblem(field: "gestures", index: nil,
                                     reason: "\"\(name)\" is not one of none, \(PresentGesture.names.joined(separator: ", "))")
            }
            insert(PresentGestures(gesture))
        }
    }
}

extension PresentationChange {
    /// Reads `SetPresentation`'s parameters: `gestures` (a list of names), `edgeBand`,
    /// `barHeight`, `modal`, `canOpen`, `canClose` and `touchExploration`, each absent or null
    /// when it is to stay.
    /// A wrong type or a broken limit is a `ContentProblem` naming the field.
    public init(json parameters: JSONValue) throws(ContentProblem) {
        self.init()
        guard case .object = parameters else { throw ContentProblem(field: "parameters", index: nil, reason: "not an object") }
        func flag(_ key: String) throws(ContentProblem) -> Bool? {
            guard let value = parameters[key], !value.isNull else { return nil }
            guard let flag = value.boolValue else { throw ContentProblem(field: key, index: nil, reason: "not a boolean") }
            return flag
        }
        func number(_ key: String) throws(ContentProblem) -> Double? {
            guard let value = parameters[key], !value.isNull else { return nil }
            guard let number = value.doubleValue else { throw ContentProblem(field: key, index: nil, reason: "not a number") }
            return number
        }
        if let value = parameters["gestures"], !value.isNull {
            guard case .array(let list) = value, list.count <= PresentGesture.allCases.count + 1 else {
                throw ContentProblem(field: "gestures", index: nil, reason: "not a list of at most \(PresentGesture.allCases.count) names")
            }
            var names: [String] = []
            for item in list {
                guard let name = item.stringValue else { throw ContentProblem(field: "gestures", index: nil, reason: "not a list of names") }
                names.append(name)
            }
            gestures = try PresentGestures(names: names)
        }
        edgeBandInPoints = try number("edgeBand")
        barHeightInPoints = try number("barHeight")
        modal = try flag("modal")
        canOpen = try flag("canOpen")
        canClose = try flag("canClose")
        touchExploration = try flag("touchExploration")
        if let problem = problem() { throw problem }
    }

    /// `SetPresentation`'s parameters: the fields given.
    public var parameters: [String: JSONValue] {
        var parameters: [String: JSONValue] = [:]
        if let gestures { parameters["gestures"] = .array(gestures.members.map { .string($0.name.description) }) }
        if let edgeBandInPoints { parameters["edgeBand"] = .number(edgeBandInPoints) }
        if let barHeightInPoints { parameters["barHeight"] = .number(barHeightInPoints) }
        if let modal { parameters["modal"] = .bool(modal) }
        if let canOpen { parameters["canOpen"] = .bool(canOpen) }
        if let canClose { parameters["canClose"] = .bool(canClose) }
        if let touchExploration { parameters["touchExploration"] = .bool(touchExploration) }
        return parameters
    }
}

extension ScreenRegion {
    /// `{"x":0,"y":1896,"width":1080,"height":24}`, in pixels.
    public func write(to w: inout JSONWriter) {
        w.appendBounded { write(to: &$0) }
    }

    /// The same through a cursor: at most 162 bytes.
    public func write(to c: inout JSONCursor) {
        c.append("{\"x\":")
        c.append(x, decimals: 2)
        c.append(",\"y\":")
        c.append(y, decimals: 2)
        c.append(",\"width\":")
        c.append(width, decimals: 2)
        c.append(",\"height\":")
        c.append(height, decimals: 2)
        c.append(UInt8(ascii: "}"))
    }
}
