import SheetCore
import SheetProtocol
import SheetRules

/// Programs that open, change and close sheets while a recording plays
/// (`sheetctl replay --programs FILE`), so that a replay shows several programs sharing the
/// screen as the daemon would: the same registry (`SheetRegistry`) decides. One call a line,
/// JSON, in time order:
///
///     {"at": 1.5, "program": "media", "call": "OpenSheet", "parameters": {"title": "Media", "detent": "half"}}
///     {"at": 3, "program": "media", "call": "HangUp"}
///
/// `at` in seconds of the recording; `program` names a program (each name its own);
/// `call` is OpenSheet (title, items, guarded, lang, layer, detent), CloseSheet, Present
/// (detent), Dismiss (force), SetDetent (detent), SetContent (title, items, guarded, lang),
/// Focus (element, command), each with an optional `sheet`, or HangUp (the program's last
/// connection closes). Empty lines and lines starting with `#` are skipped.
///
/// A line with `on` instead of `at` is a program's answer: its call is made each time the
/// program hears an event of one of its sheets that matches (`event`, and `item` and `sheet`
/// when given), in the step that made the event, after it is printed, in the order the lines
/// come; the calls an answer makes are heard by no answer (a program that answers its own
/// answers would never end):
///
///     {"on": {"event": "item-tapped", "item": "next"}, "program": "media", "call": "SetContent", "parameters": {"title": "Track 2"}}
public struct ProgramScript: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        case call(SheetCall.Action)
        /// The program's connection closes: its sheets close.
        case hangUp
    }

    public struct Call: Sendable, Equatable {
        public var at: Timestamp
        public var program: String
        /// The program's number (`SheetCall.program`): 1 for the first program named, 2 for
        /// the next…
        public var number: UInt64
        public var action: Action
        public var sheet: String?
        /// The call as written (`OpenSheet`), for the replay's `call` lines.
        public var name: String
    }

    /// What a program answers: an event it hears, matched by kind, and item and sheet when
    /// given.
    public struct Answer: Sendable, Equatable {
        public var kind: ContentEvent.Kind
        public var item: String?
        public var onSheet: String?
        public var call: Call

        /// Whether `event`, heard by the program numbered `program`, is this answer's.
        func matches(_ event: SheetEvent, heardBy program: UInt64) -> Bool {
            program == call.number && event.kind == kind && (item == nil || event.item == item)
                && (onSheet == nil || event.sheet == onSheet)
        }
    }

    public private(set) var calls: [Call] = []
    public private(set) var answers: [Answer] = []
    /// At most this many lines: a script is a scenario, not a stream.
    public static let maximumCalls = 10_000
    /// At most this many bytes, read before a line is: room for calls that set full contents.
    public static let maximumBytes = 16 << 20

    public init() {}

    /// The script in `text`, read from `path` (for errors: `PATH:LINE: reason`).
    public init(text: String, path: String) throws(ProtocolError) {
        var programs: [String: UInt64] = [:]
        var last = Timestamp.zero
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            func refuse(_ reason: String) -> ProtocolError { ProtocolError("\(path):\(index + 1): \(reason)") }
            guard calls.count + answers.count < Self.maximumCalls else { throw refuse("more than \(Self.maximumCalls) calls") }
            let json: JSONValue
            do { json = try JSONReader.parse(String(trimmed)) } catch { throw refuse("not JSON (\(error))") }
            var pattern: (kind: ContentEvent.Kind, item: String?, sheet: String?)?
            var at = last
            if let on = json["on"] {
                guard json["at"] == nil else { throw refuse("a line has `at` or `on`, not both") }
                guard case .object = on, let name = on["event"]?.stringValue, let kind = ContentEvent.Kind(name: name) else {
                    throw refuse("`on` wants {\"event\": NAME} with an event's name (\(ContentEvent.Kind.names.joined(separator: ", ")))")
                }
                for key in ["item", "sheet"] {
                    if let value = on[key], value.stringValue == nil { throw refuse("`on.\(key)` is not a string") }
                }
                pattern = (kind, on["item"]?.stringValue, on["sheet"]?.stringValue)
            } else {
                guard let seconds = json["at"]?.doubleValue, seconds >= 0, seconds <= 86_400 else {
                    throw refuse("`at` wants seconds from 0 to 86400 (or `on`, an event)")
                }
                at = Timestamp(microseconds: Int64((seconds * 1_000_000).rounded()))
                guard at >= last else { throw refuse("calls must come in time order") }
                last = at
            }
            guard let program = json["program"]?.stringValue, (1...64).contains(program.utf8.count) else {
                throw refuse("`program` wants a name of 1 to 64 bytes")
            }
            let connection = programs[program] ?? UInt64(programs.count + 1)
            programs[program] = connection
            let parameters = json["parameters"] ?? .object([:])
            var sheet: String?
            if let value = parameters["sheet"], !value.isNull {
                guard let name = value.stringValue else { throw refuse("`sheet` is not a string") }
                sheet = name
            }
            guard let name = json["call"]?.stringValue else { throw refuse("`call` wants a method's name") }
            let action: Action
            do {
                action = try Self.action(name, parameters)
            } catch {
                throw refuse(error.reason)
            }
            let call = Call(at: at, program: program, number: connection, action: action, sheet: sheet, name: name)
            if let pattern {
                answers.append(Answer(kind: pattern.kind, item: pattern.item, onSheet: pattern.sheet, call: call))
            } else {
                calls.append(call)
            }
        }
    }

    private static func action(_ name: String, _ parameters: JSONValue) throws(ProtocolError) -> Action {
        func detent() throws(ProtocolError) -> String? {
            guard let value = parameters["detent"], !value.isNull else { return nil }
            guard let text = value.stringValue else { throw ProtocolError("`detent` is not a string") }
            return text
        }
        func content() throws(ProtocolError) -> ContentChange {
            do { return try ContentChange(json: parameters) } catch { throw ProtocolError("`\(error.path)`: \(error)") }
        }
        switch name {
        case "OpenSheet":
            var layer = SheetStack.Layer.app
            if let value = parameters["layer"], !value.isNull {
                guard let text = value.stringValue, let named = SheetStack.Layer(name: text) else { throw ProtocolError("`layer` wants app or system") }
                layer = named
            }
            return .call(.open(try content(), layer: layer, detent: try detent()))
        case "CloseSheet": return .call(.close)
        case "Present": return .call(.control(.present(detent: try detent())))
        case "Dismiss": return .call(.control(.dismiss(force: parameters["force"]?.boolValue ?? false)))
        case "SetDetent":
            guard let detent = try detent() else { throw ProtocolError("SetDetent wants a `detent`") }
            return .call(.control(.setDetent(detent)))
        case "SetContent": return .call(.control(.setContent(try content())))
        case "Focus":
            var command: FocusCommand?
            if let value = parameters["command"], !value.isNull {
                guard let text = value.stringValue, let named = FocusCommand(name: text) else { throw ProtocolError("`command` is not a key map command") }
                command = named
            }
            return .call(.control(.focus(element: parameters["element"]?.stringValue, command: command)))
        case "HangUp": return .hangUp
        default:
            throw ProtocolError("`call` wants OpenSheet, CloseSheet, Present, Dismiss, SetDetent, SetContent, Focus or HangUp; got `\(name)`")
        }
    }
}
