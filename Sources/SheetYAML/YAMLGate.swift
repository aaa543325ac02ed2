import CYaml
import Yams

/// YAML as sheetd reads it: a configuration, a content file or a `libinput record` header,
/// composed by Yams only after libyaml's event stream has shown it to be plain data.
///
/// Anchors and aliases are refused before anything is composed: an alias used as a mapping
/// key makes the composer hash the aliased tree, and nine nested anchors of ten aliases each
/// make that 10⁹ nodes from a 2 KB file (a "billion laughs"). None of sheetd's files needs
/// them. Nesting is bounded too, so a hostile file cannot make the composer recurse deeply,
/// keys must be plain scalars, and a key set twice in one map is refused on its own line
/// (Yams reports duplicates without a position).
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
    /// aliases, deep nesting, complex and repeated keys, and Yams' `YamlError` for what is
    /// not YAML at all.
    public static func compose(_ text: String) throws -> Node? {
        try check(text)
        return try Yams.compose(yaml: text)
    }

    /// Walks libyaml's events once, in constant memory per event.
    public static func check(_ text: String) throws(Refusal) {
        var bytes = Array(text.utf8)
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw Refusal(line: 1, reason: "out of memory") }
        defer { yaml_parser_delete(&parser) }
        try bytes.withUnsafeMutableBufferPointer { (buffer) throws(Refusal) in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            /// The collections open around the current event; a map's keys so far.
            var open: [(isMap: Bool, expectingKey: Bool, keys: Set<String>)] = []
            func nodeDone() {
                if let last = open.indices.last, open[last].isMap { open[last].expectingKey.toggle() }
            }
            while true {
                var event = yaml_event_t()
                // A syntax error is left for Yams to report with its own words.
                guard yaml_parser_parse(&parser, &event) == 1 else { return }
                defer { yaml_event_delete(&event) }
                let line = Int(event.start_mark.line) + 1
                switch event.type {
                case YAML_ALIAS_EVENT:
                    throw Refusal(line: line, reason: "aliases (*name) are not accepted")
                case YAML_SCALAR_EVENT:
                    let scalar = event.data.scalar
                    if scalar.anchor != nil { throw Refusal(line: line, reason: "anchors (&name) are not accepted") }
                    if let last = open.indices.last, open[last].isMap, open[last].expectingKey {
                        let key = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                        guard open[last].keys.insert(key).inserted else {
                            throw Refusal(line: line, reason: "`\(key)` is set twice")
                        }
                    }
                    nodeDone()
                case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    let isMap = event.type == YAML_MAPPING_START_EVENT
                    let anchor = isMap ? event.data.mapping_start.anchor : event.data.sequence_start.anchor
                    if anchor != nil { throw Refusal(line: line, reason: "anchors (&name) are not accepted") }
                    if let last = open.last, last.isMap, last.expectingKey {
                        throw Refusal(line: line, reason: "a key must be a plain word, not a list or a map")
                    }
                    guard open.count < maximumDepth else {
                        throw Refusal(line: line, reason: "nested deeper than \(maximumDepth) levels")
                    }
                    open.append((isMap, true, []))
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    open.removeLast()
                    nodeDone()
                case YAML_STREAM_END_EVENT:
                    return
                default:
                    break
                }
            }
        }
    }
}
