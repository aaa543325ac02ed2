import SheetCore

// The appearance on the wire: in every state (`"appearance":{…}`) and as `SetAppearance`'s
// parameters, with colours as `#rrggbb` and the theme by its name.

extension Appearance {
    /// `{"theme":"dark","accent":"#3584e4","font":"","textScale":1,"card":null,"dim":null,"cornerRadius":28}`.
    public func write(to w: inout JSONWriter) {
        w.appendBounded { writeHead(to: &$0) }
        w.appendString(font)
        w.appendBounded { writeTail(to: &$0) }
    }

    /// What comes before the font: at most 43 bytes.
    func writeHead(to c: inout JSONCursor) {
        c.append("{\"theme\":\"")
        c.append(theme.name)
        c.append("\",\"accent\":")
        c.appendColour(accent)
        c.append(",\"font\":")
    }

    /// What comes after the font: at most 129 bytes.
    func writeTail(to c: inout JSONCursor) {
        c.append(",\"textScale\":")
        if let textScale { c.append(textScale, decimals: 4) } else { c.append("null") }
        c.append(",\"card\":")
        if let card { c.appendColour(card) } else { c.append("null") }
        c.append(",\"dim\":")
        if let dim { c.appendColour(dim) } else { c.append("null") }
        c.append(",\"cornerRadius\":")
        c.append(cornerRadiusInPoints, decimals: 2)
        c.append(UInt8(ascii: "}"))
    }

    /// Reads what `write` wrote; every field held to `Appearance.Limits`.
    public init(json: JSONValue) throws(ProtocolError) {
        do {
            let change = try AppearanceChange(json: json)
            self = change.applied(to: .standard)
        } catch {
            throw ProtocolError("appearance: \(error)")
        }
    }
}

extension AppearanceChange {
    /// Reads `SetAppearance`'s parameters: `theme`, `accent`, `font`, `textScale`, `card`,
    /// `dim` and `cornerRadius`, each absent when it is to stay (`card` and `dim` null: back to
    /// the theme's; `textScale` null: the renderer's, `auto`). A wrong type or a broken limit is a `ContentProblem` naming the field.
    public init(json parameters: JSONValue) throws(ContentProblem) {
        self.init()
        guard case .object = parameters else { throw ContentProblem(field: "parameters", index: nil, reason: "not an object") }
        func text(_ key: String) throws(ContentProblem) -> String? {
            guard let value = parameters[key], !value.isNull else { return nil }
            guard let text = value.stringValue else { throw ContentProblem(field: key, index: nil, reason: "not a string") }
            return text
        }
        func number(_ key: String) throws(ContentProblem) -> Double? {
            guard let value = parameters[key], !value.isNull else { return nil }
            guard let number = value.doubleValue else { throw ContentProblem(field: key, index: nil, reason: "not a number") }
            return number
        }
        func colour(_ key: String) throws(ContentProblem) -> RGB? {
            guard let text = try text(key) else { return nil }
            guard let colour = RGB(parsing: text) else {
                throw ContentProblem(field: key, index: nil, reason: "not a colour like #3584e4")
            }
            return colour
        }
        if let name = try text("theme") {
            guard let theme = Theme(name: name) else {
                throw ContentProblem(field: "theme", index: nil, reason: "not one of \(Theme.names.joined(separator: ", "))")
            }
            self.theme = theme
        }
        accent = try colour("accent")
        font = try text("font")
        if let value = parameters["textScale"] { textScale = value.isNull ? .some(nil) : .some(try number("textScale")) }
        cornerRadiusInPoints = try number("cornerRadius")
        // Present and null: the theme's colour again.
        if let value = parameters["card"] { card = value.isNull ? .some(nil) : .some(try colour("card")) }
        if let value = parameters["dim"] { dim = value.isNull ? .some(nil) : .some(try colour("dim")) }
        if let problem = problem() { throw problem }
    }

    /// `SetAppearance`'s parameters: the fields given.
    public var parameters: [String: JSONValue] {
        var parameters: [String: JSONValue] = [:]
        if let theme { parameters["theme"] = .string(theme.name.description) }
        if let accent { parameters["accent"] = .string(accent.description) }
        if let font { parameters["font"] = .string(font) }
        if let textScale { parameters["textScale"] = textScale.map { .number($0) } ?? .null }
        if let cornerRadiusInPoints { parameters["cornerRadius"] = .number(cornerRadiusInPoints) }
        if let card { parameters["card"] = card.map { .string($0.description) } ?? .null }
        if let dim { parameters["dim"] = dim.map { .string($0.description) } ?? .null }
        return parameters
    }
}
