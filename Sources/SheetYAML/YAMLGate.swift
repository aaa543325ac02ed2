import CLibYAML

/// YAML as sheetd reads it: a configuration, a content file or a `libinput record` header,
/// composed into plain data (scalars, lists, maps) straight from libyaml's event stream, in one
/// pass that refuses what sheetd's files never need.
///
/// Anchors and aliases are refused: an alias used as a mapping key makes a composer hash the
/// aliased tree, and nine nested anchors of ten aliases each make that 10⁹ nodes from a 2 KB
/// file (a "billion laughs"). Nesting is bounded, so a hostile file cannot make the composer
/// recurse deeply; keys must be plain scalars, and a key set twice in one map is refused on its
/// own line. Every refusal and every syntax error names its line.
public enum PlainYAML {
    /// Deepest nesting of sequences and maps accepted; sheetd's files nest 5 deep at most.
    public static let maximumDepth = 64

    /// Why a text is not plain YAML, with the line (1-based) where it is seen.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// The text's one document, or nil when it is empty. Throws `Refusal` for anchors,
    /// aliases, deep nesting, complex and repeated keys, a second document, and what is not
    /// YAML at all (`not valid YAML: …`, libyaml's words).
    public static func compose(_ text: String) throws(Refusal) -> Node? {
        var bytes = Array(text.utf8)
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw Refusal(line: 1, reason: "out of memory") }
        defer { yaml_parser_delete(&parser) }
        return try bytes.withUnsafeMutableBufferPointer { (buffer) throws(Refusal) -> Node? in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var composer = Composer(parser: &parser)
            return try composer.document()
        }
    }

    /// Builds nodes from libyaml's events, depth first; what is open is on the Swift stack,
    /// bounded by `maximumDepth`.
    private struct Composer {
        let parser: UnsafeMutablePointer<yaml_parser_t>

        init(parser: UnsafeMutablePointer<yaml_parser_t>) { self.parser = parser }

        /// The next event; a syntax error is refused with libyaml's words and line.
        mutating func next() throws(Refusal) -> Event {
            var event = yaml_event_t()
            guard yaml_parser_parse(parser, &event) == 1 else {
                let problem = parser.pointee.problem.map { String(cString: $0) } ?? "unknown problem"
                let context = parser.pointee.context.map { String(cString: $0) + ", " } ?? ""
                throw Refusal(line: Int(parser.pointee.problem_mark.line) + 1, reason: "not valid YAML: \(context)\(problem)")
            }
            defer { yaml_event_delete(&event) }
            let mark = Mark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
            switch event.type {
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                if scalar.anchor != nil { throw Refusal(line: mark.line, reason: "anchors (&name) are not accepted") }
                let value = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                return .scalar(Scalar(string: value, isPlain: scalar.style == YAML_PLAIN_SCALAR_STYLE, mark: mark))
            case YAML_SEQUENCE_START_EVENT:
                if event.data.sequence_start.anchor != nil { throw Refusal(line: mark.line, reason: "anchors (&name) are not accepted") }
                return .sequenceStart(mark)
            case YAML_MAPPING_START_EVENT:
                if event.data.mapping_start.anchor != nil { throw Refusal(line: mark.line, reason: "anchors (&name) are not accepted") }
                return .mappingStart(mark)
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT: return .end
            case YAML_ALIAS_EVENT: throw Refusal(line: mark.line, reason: "aliases (*name) are not accepted")
            case YAML_DOCUMENT_START_EVENT: return .documentStart(mark)
            case YAML_DOCUMENT_END_EVENT: return .documentEnd
            case YAML_STREAM_END_EVENT: return .streamEnd
            default: return .other
            }
        }

        enum Event {
            case scalar(Scalar)
            case sequenceStart(Mark)
            case mappingStart(Mark)
            case end
            case documentStart(Mark)
            case documentEnd
            case streamEnd
            case other
        }

        mutating func document() throws(Refusal) -> Node? {
            var root: Node?
            while true {
                switch try next() {
                case .documentStart(let mark):
                    guard root == nil else {
                        throw Refusal(line: mark.line, reason: "not valid YAML: a second document; one is expected")
                    }
                    root = try node(try next(), depth: 0)
                case .streamEnd:
                    return root
                default:
                    continue
                }
            }
        }

        mutating func node(_ event: Event, depth: Int) throws(Refusal) -> Node {
            switch event {
            case .scalar(let scalar):
                return .scalar(scalar)
            case .sequenceStart(let mark):
                guard depth < maximumDepth else { throw Refusal(line: mark.line, reason: "nested deeper than \(maximumDepth) levels") }
                var items = Sequence(mark: mark)
                while true {
                    let event = try next()
                    if case .end = event { return .sequence(items) }
                    items.items.append(try node(event, depth: depth + 1))
                }
            case .mappingStart(let mark):
                guard depth < maximumDepth else { throw Refusal(line: mark.line, reason: "nested deeper than \(maximumDepth) levels") }
                var mapping = Mapping(mark: mark)
                var keys = Set<String>()
                while true {
                    let event = try next()
                    switch event {
                    case .end:
                        return .mapping(mapping)
                    case .scalar(let key):
                        guard keys.insert(key.string).inserted else { throw Refusal(line: key.mark.line, reason: "`\(key.string)` is set twice") }
                        let value = try node(try next(), depth: depth + 1)
                        mapping.pairs.append((Node.scalar(key), value))
                    case .sequenceStart(let at), .mappingStart(let at):
                        throw Refusal(line: at.line, reason: "a key must be a plain word, not a list or a map")
                    default:
                        throw Refusal(line: mark.line, reason: "not valid YAML: a map ends early")
                    }
                }
            case .end, .documentStart, .documentEnd, .streamEnd, .other:
                throw Refusal(line: 1, reason: "not valid YAML: a document without a node")
            }
        }
    }
}

/// Where a node begins in its text: 1-based line and column.
public struct Mark: Sendable, Equatable {
    public var line: Int
    public var column: Int
}

/// A scalar as written: its text, and whether it was plain (unquoted), which is what lets it
/// be read as a number or a flag.
public struct Scalar: Sendable, Equatable {
    public var string: String
    public var isPlain: Bool
    public var mark: Mark
}

/// A list's nodes in the file's order, and where it begins.
public struct Sequence: Sendable, RandomAccessCollection {
    public var items: [Node] = []
    public var mark: Mark

    init(mark: Mark) { self.mark = mark }

    public var startIndex: Int { items.startIndex }
    public var endIndex: Int { items.endIndex }
    public subscript(position: Int) -> Node { items[position] }
}

/// A map's pairs in the file's order, and where it begins; keys are scalars.
public struct Mapping: Sendable, Swift.Sequence {
    public var pairs: [(key: Node, value: Node)] = []
    public var mark: Mark

    init(mark: Mark) { self.mark = mark }

    public func makeIterator() -> IndexingIterator<[(key: Node, value: Node)]> { pairs.makeIterator() }

    public var count: Int { pairs.count }

    /// The value of the key written `key`.
    public subscript(key: String) -> Node? {
        pairs.first { $0.key.string == key }?.value
    }
}

/// A composed YAML node: a scalar, a list or a map, each with where it begins.
public indirect enum Node: Sendable {
    case scalar(Scalar)
    case sequence(Sequence)
    case mapping(Mapping)

    /// Where it begins.
    public var mark: Mark? {
        switch self {
        case .scalar(let scalar): scalar.mark
        case .sequence(let sequence): sequence.mark
        case .mapping(let mapping): mapping.mark
        }
    }

    /// A scalar's text; nil for a list or a map.
    public var string: String? {
        if case .scalar(let scalar) = self { return scalar.string }
        return nil
    }

    /// A plain scalar read as a whole number: decimal with an optional sign, or `0x` hex, `0o`
    /// octal; nil otherwise.
    public var int: Int? {
        guard case .scalar(let scalar) = self, scalar.isPlain else { return nil }
        return Self.integer(scalar.string)
    }

    static func integer(_ text: String) -> Int? {
        var body = Substring(text)
        var negative = false
        if let sign = body.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            body = body.dropFirst()
        }
        let value: Int?
        if body.hasPrefix("0x") {
            value = Int(body.dropFirst(2), radix: 16)
        } else if body.hasPrefix("0o") {
            value = Int(body.dropFirst(2), radix: 8)
        } else {
            value = body.allSatisfy(\.isASCII) ? Int(body) : nil
        }
        guard let value else { return nil }
        return negative ? -value : value
    }
}

extension Scalar {
    /// A plain flag as YAML writes one: true, yes, on, false, no, off (in lower, title or
    /// upper case); nil otherwise.
    public var bool: Bool? {
        guard isPlain else { return nil }
        switch string {
        case "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON": return true
        case "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF": return false
        default: return nil
        }
    }
}
