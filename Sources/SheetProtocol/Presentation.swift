import SheetCore

// How the sheet opens, closes and shares the screen, on the wire: in every state
// (`"presentation":{…}`, `"region":{…}`) and as `SetPresentation`'s parameters.

extension SheetPresentation {
    /// `{"gestures":["edge-swipe"],"edgeBand":24,"barHeight":64,"modal":true,"canOpen":true,"canClose":true,
    /// "touchExploration":false,"speech":"off","speaking":false,"speechRate":0,"speechVolume":100}`:
    /// `touchExploration` as it is now (set, or following `speaking`).
    public func write(to w: inout JSONWriter) {
        w.appendBounded { write(to: &$0) }
    }

    /// As set, for a file that keeps it: `touchExploration` null while it follows speech, and
    /// nothing of what the headphones say (`speaking`), which is the device's, not a choice.
    public func writeSetting(to w: inout JSONWriter) {
        w.appendBounded { write(to: &$0, asSetting: true) }
    }

    /// The same through a cursor: at most 270 bytes and 16 for each gesture.
    public func write(to c: inout JSONCursor, asSetting: Bool = false) {
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
        switch (asSetting, touchExploration) {
        case (true, nil): c.append("null")
        case (true, let set?): c.append(set)
        case (false, _): c.append(exploresByTouch)
        }
        c.append(",\"speech\":\"")
        c.append(speech.name)
        c.append(UInt8(ascii: "\""))
        if !asSetting {
            c.append(",\"speaking\":")
            c.append(speaking)
        }
        c.append(",\"speechRate\":")
        c.append(Double(speechRate), decimals: 0)
        c.append(",\"speechVolume\":")
        c.append(Double(speechVolume), decimals: 0)
        c.append(UInt8(ascii: "}"))
    }

    /// Reads what `write` wrote, every field held to the limits.
    public init(json: JSONValue) throws(ProtocolError) {
        do {
            self = try PresentationChange(json: json).applied(to: SheetPresentation())
        } catch {
            throw ProtocolError("presentation: \(error)")
        }
        // Spoken while headphones are in: what the daemon's switch says, as `speaking` tells it.
        if speech == .headset, json["speaking"]?.boolValue == true { headphonesPlugged = true }
        // The wire says whether touches explore now; one that does as speech would is following it.
        if touchExploration == speaking { touchExploration = nil }
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
        if let value = parameters["speech"], !value.isNull {
            guard let name = value.stringValue, let mode = SpeechMode(name: name) else {
                throw ContentProblem(field: "speech", index: nil, reason: "not one of \(SpeechMode.names.joined(separator: ", "))")
            }
            speech = mode
        }
        for key in ["speechRate", "speechVolume"] {
            guard let value = parameters[key], !value.isNull else { continue }
            guard let number = value.intValue else { throw ContentProblem(field: key, index: nil, reason: "not a whole number") }
            if key == "speechRate" { speechRate = number } else { speechVolume = number }
        }
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
        if let speech { parameters["speech"] = .string(speech.name.description) }
        if let speechRate { parameters["speechRate"] = .number(Double(speechRate)) }
        if let speechVolume { parameters["speechVolume"] = .number(Double(speechVolume)) }
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
