/// A varlink method call: `{"method":"io.sheetd.Sheet.Monitor","parameters":{},"more":true}`.
///
/// Framing is the transport's: each message is one JSON object followed by a NUL byte.
public struct VarlinkCall: Sendable, Equatable {
    /// Fully qualified: the interface, a dot, the method (`io.sheetd.Sheet.GetState`).
    public var method: String
    public var parameters: JSONValue
    /// The caller wants several replies (`continues: true` on all but the last).
    public var more: Bool
    /// The caller wants no reply at all.
    public var oneway: Bool

    public init(method: String, parameters: JSONValue = .object([:]), more: Bool = false, oneway: Bool = false) {
        self.method = method
        self.parameters = parameters
        self.more = more
        self.oneway = oneway
    }

    /// The interface part of `method` (`io.sheetd.Sheet`).
    public var interface: String {
        guard let dot = method.lastIndex(of: ".") else { return "" }
        return String(method[..<dot])
    }

    /// The method's own name (`GetState`).
    public var name: String {
        guard let dot = method.lastIndex(of: ".") else { return method }
        return String(method[method.index(after: dot)...])
    }

    /// Reads a call from one message's bytes (without its NUL).
    public init<Bytes: Collection<UInt8>>(message: Bytes) throws(ProtocolError) {
        let value: JSONValue
        do { value = try JSONReader.parse(message) } catch { throw ProtocolError("not JSON (\(error))") }
        guard case .object = value else { throw ProtocolError("a call must be a JSON object") }
        guard let method = value["method"]?.stringValue, !method.isEmpty else {
            throw ProtocolError("a call needs a \"method\" string")
        }
        let parameters = value["parameters"] ?? .object([:])
        switch parameters {
        case .object: break
        case .null: break
        default: throw ProtocolError("\"parameters\" must be an object")
        }
        for flag in ["more", "oneway", "upgrade"] {
            if let raw = value[flag], raw.boolValue == nil, !raw.isNull {
                throw ProtocolError("\"\(flag)\" must be a boolean")
            }
        }
        self.init(method: method, parameters: parameters.isNull ? .object([:]) : parameters,
                  more: value["more"]?.boolValue ?? false, oneway: value["oneway"]?.boolValue ?? false)
    }

    /// The call as bytes, NUL included.
    public func encoded() -> [UInt8] {
        var w = JSONWriter(capacity: 128)
        w.append("{\"method\":")
        w.appendString(method)
        w.append(",\"parameters\":")
        w.append(parameters)
        if more { w.append(",\"more\":true") }
        if oneway { w.append(",\"oneway\":true") }
        w.append("}")
        w.append(0)
        return w.bytes
    }
}

/// A varlink reply: parameters, or an error name with its parameters.
public struct VarlinkReply: Sendable, Equatable {
    public var parameters: JSONValue
    /// More replies follow this one.
    public var continues: Bool
    /// A fully qualified error name (`io.sheetd.Sheet.NotAllowed`), or nil on success.
    public var error: String?

    public init(parameters: JSONValue = .object([:]), continues: Bool = false, error: String? = nil) {
        self.parameters = parameters
        self.continues = continues
        self.error = error
    }

    public init<Bytes: Collection<UInt8>>(message: Bytes) throws(ProtocolError) {
        let value: JSONValue
        do { value = try JSONReader.parse(message) } catch { throw ProtocolError("a reply is not JSON (\(error))") }
        guard case .object = value else { throw ProtocolError("a reply must be a JSON object") }
        self.init(parameters: value["parameters"] ?? .object([:]), continues: value["continues"]?.boolValue ?? false,
                  error: value["error"]?.stringValue)
    }

    /// A reply, NUL included, whose parameters object `parameters` writes into the same buffer.
    public static func encode(continues: Bool, capacity: Int = 256, parameters: (inout JSONWriter) -> Void) -> [UInt8] {
        var w = JSONWriter(capacity: capacity)
        encode(continues: continues, into: &w, parameters: parameters)
        return w.bytes
    }

    /// The same into `writer`, whose storage is reused (its bytes are replaced).
    public static func encode(continues: Bool, into w: inout JSONWriter, parameters: (inout JSONWriter) -> Void) {
        w.bytes.removeAll(keepingCapacity: true)
        w.append(continues ? "{\"continues\":true,\"parameters\":" : "{\"parameters\":")
        parameters(&w)
        w.append("}")
        w.append(0)
    }

    /// An error reply, NUL included.
    public static func error(_ name: String, _ parameters: JSONValue = .object([:])) -> [UInt8] {
        var w = JSONWriter(capacity: 128)
        w.append("{\"error\":")
        w.appendString(name)
        w.append(",\"parameters\":")
        w.append(parameters)
        w.append("}")
        w.append(0)
        return w.bytes
    }
}

/// Error names of `org.varlink.service` and `io.sheetd.Sheet`.
public enum VarlinkErrorName {
    public static let interfaceNotFound = "org.varlink.service.InterfaceNotFound"
    public static let methodNotFound = "org.varlink.service.MethodNotFound"
    public static let methodNotImplemented = "org.varlink.service.MethodNotImplemented"
    public static let invalidParameter = "org.varlink.service.InvalidParameter"
    public static let permissionDenied = "org.varlink.service.PermissionDenied"
    public static let expectedMore = "org.varlink.service.ExpectedMore"

    public static let notAllowed = "io.sheetd.Sheet.NotAllowed"
    public static let unknownDetent = "io.sheetd.Sheet.UnknownDetent"
    public static let guarded = "io.sheetd.Sheet.Guarded"
    public static let cannotFocus = "io.sheetd.Sheet.CannotFocus"
    public static let invalidScreen = "io.sheetd.Sheet.InvalidScreen"
    public static let invalidMessage = "io.sheetd.Sheet.InvalidMessage"
    public static let tooManyConnections = "io.sheetd.Sheet.TooManyConnections"
    public static let shuttingDown = "io.sheetd.Sheet.ShuttingDown"
    public static let noSuchSheet = "io.sheetd.Sheet.NoSuchSheet"
    public static let notOwner = "io.sheetd.Sheet.NotOwner"
    public static let tooManySheets = "io.sheetd.Sheet.TooManySheets"
}

/// What an interface description (varlink's IDL) says each method takes: the names of its
/// parameters, read from the text the server serves, so that the check of a call's parameters
/// and the description a client reads cannot drift apart.
public enum VarlinkMethods {
    /// Method name → its parameters' names, from `description`'s `method Name(a: T, b: ?U) -> (…)`
    /// lines (a signature may span lines; types may hold parentheses, as enums do).
    /// Where `word` (ASCII) first occurs in `text`, by the standard library alone: the
    /// `firstRange(of:)` of _StringProcessing would page in its 0.4 MB of code at every start.
    static func firstRange(of word: String, in text: Substring) -> Range<Substring.Index>? {
        let bytes = text.utf8, needle = word.utf8
        var start = bytes.startIndex
        while start != bytes.endIndex {
            if bytes[start...].starts(with: needle) { return start..<bytes.index(start, offsetBy: needle.count) }
            bytes.formIndex(after: &start)
        }
        return nil
    }

    public static func parameters(in description: String) -> [String: Set<String>] {
        var methods: [String: Set<String>] = [:]
        // Comments end at their line; the rest is read as one text.
        let text = description.split(separator: "\n").map { line in line.split(separator: "#", maxSplits: 1,
                                                                                  omittingEmptySubsequences: false)[0] }
            .joined(separator: " ")
        var rest = Substring(text)
        while let found = firstRange(of: "method ", in: rest) {
            rest = rest[found.upperBound...]
            guard let open = rest.firstIndex(of: "(") else { break }
            let name = rest[..<open].filter { $0 != " " }
            var depth = 0, field = "", names: Set<String> = []
            var index = open
            while index < rest.endIndex {
                let character = rest[index]
                index = rest.index(after: index)
                switch character {
                case "(":
                    depth += 1
                    if depth == 1 { continue }
                case ")":
                    depth -= 1
                case "," where depth == 1:
                    if let parameter = parameterName(field) { names.insert(parameter) }
                    field = ""
                    continue
                default:
                    break
                }
                if depth == 0 {
                    if let parameter = parameterName(field) { names.insert(parameter) }
                    break
                }
                field.append(character)
            }
            methods[String(name)] = names
            rest = rest[index...]
        }
        return methods
    }

    private static func parameterName(_ field: String) -> String? {
        guard let colon = field.firstIndex(of: ":") else { return nil }
        let name = field[..<colon].filter { $0 != " " }
        return name.isEmpty ? nil : String(name)
    }

    /// A parameter of `call` that its method does not take, the first by name, or nil.
    public static func unknownParameter(of call: VarlinkCall, known: [String: Set<String>]) -> String? {
        guard let taken = known[call.name], case .object(let fields) = call.parameters else { return nil }
        return fields.keys.filter { !taken.contains($0) }.min()
    }
}
