import ArgumentParser
import SheetClient
import SheetConfig
import SheetCore
import SheetProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Where the daemon listens, and whether to wait for it.
struct SocketOption: ParsableArguments {
    @Option(help: ArgumentHelp("The daemon's socket (default: $SHEETD_SOCKET, else \(SheetClient.defaultSocketPath)).",
                               valueName: "path"))
    var socket: String?

    @Option(help: ArgumentHelp("The seat whose daemon to talk to: its socket in /run/sheetd/SEAT/ (seat0's: \(SheetClient.defaultSocketPath)); --socket wins.",
                               valueName: "name"))
    var seat: Seat?

    @Option(name: .customLong("wait"),
            help: ArgumentHelp("--wait[=SECONDS]: wait for the daemon's socket to appear and answer, for ever or up to SECONDS.",
                               valueName: "seconds"))
    var wait: WaitLimit?

    var path: String { SheetClient.socketPath(socket, seat: seat) }

    /// Connects (waiting when asked), or exits 69 saying why.
    func connect() throws -> SheetClient {
        do {
            if let wait { return try SheetClient(path: path, waitingUpTo: wait.seconds) }
            return try SheetClient(path: path)
        } catch {
            let waited = wait?.seconds.map { " (waited \(format($0, 1)) s)" } ?? ""
            printError("sheetctl: \(error)\(waited)")
            throw ExitCode(ExitStatus.unavailable)
        }
    }
}

/// How long `--wait` waits: SECONDS, or for ever (a bare `--wait`, which `SheetCtl.main`
/// hands to the parser as `--wait=forever`).
struct WaitLimit: ExpressibleByArgument {
    /// nil: for ever.
    var seconds: Double?

    static let forever = "forever"

    init?(argument: String) {
        if argument == Self.forever {
            seconds = nil
        } else if let value = Double(argument), value.isFinite, value >= 0, value <= 86_400 {
            seconds = value
        } else {
            return nil
        }
    }
}

/// Runs `body`, turning the daemon's errors into messages and exit codes.
func talking<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as ClientError {
        if case .remote(let name, let parameters) = error, name == VarlinkErrorName.notAllowed {
            let group = parameters["group"]?.stringValue ?? "of the socket"
            printError("sheetctl: not allowed: control calls need root, the daemon's user or group \(group); "
                       + "join it (usermod -aG \(group) USER) and log in again")
            throw ExitCode(ExitStatus.noPermission)
        }
        printError("sheetctl: \(error)")
        if case .remote = error { throw ExitCode(ExitStatus.dataError) }
        throw ExitCode(ExitStatus.unavailable)
    }
}

func writeLine(_ bytes: [UInt8]) throws {
    var line = bytes
    line.append(0x0A)
    var offset = 0
    while offset < line.count {
        let written = line.withUnsafeBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 {
            if errno == EINTR { continue }
            throw ExitCode(ExitStatus.ioError)
        }
        offset += written
    }
}

/// A state for people: `resting at half  top 960px  dim 0.70  (animation)`.
func describe(_ state: SheetState) -> String {
    var text: String
    switch state.state {
    case .resting: text = "resting at \(state.detent?.description ?? "?")"
    case .dragging: text = "dragging"
    case .settling: text = "settling to \(state.target?.description ?? "?")"
    }
    text += "  top \(format(state.topInPixels, 1))px  dim \(format(state.dim, 2))  velocity \(format(state.velocityInPixelsPerSecond, 0))px/s  (\(state.cause.name.description))"
    if state.reduceMotion { text += "  reduced motion" }
    return text
}

func format(_ value: Double, _ decimals: Int) -> String {
    var writer = JSONWriter(capacity: 16)
    writer.append(value, decimals: decimals)
    return String(decoding: writer.bytes, as: UTF8.self)
}

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow the sheet: the current state, then one line per change (Monitor).",
        discussion: "JSON: one object per line, {\"seq\",\"timestampUSec\",\"state\",\"gesture\"?}. A gap in seq means the daemon gave this slow reader the newest state instead of a backlog.")

    @OptionGroup var connection: SocketOption

    @Option(help: "json (one object per line) or text.")
    var format: String = "json"

    @Option(help: "Stop after this many updates.")
    var count: Int?

    @Flag(name: .customLong("until-rest"),
          help: "Stop once nothing moves: the sheet rests, no finger is down and no replayed input is to come (at once when it is so already).")
    var untilRest = false

    @Flag(name: .customLong("until-next-rest"),
          help: "Stop at the next rest after a change: for a script that starts watching, then makes something happen.")
    var untilNextRest = false

    @Option(help: ArgumentHelp("At most this many states a second, the newest each time (1 to 1000); events are never held back, and a gesture that moves nothing drawn is not sent on its own.",
                               valueName: "hertz"))
    var rate: Int?

    func validate() throws {
        guard format == "json" || format == "text" else { throw ValidationError("--format wants json or text; got `\(format)`") }
        if let count, count < 1 { throw ValidationError("--count wants 1 or more") }
        if let rate, !MonitorPacer.rates.contains(rate) {
            throw ValidationError("--rate wants \(MonitorPacer.rates.lowerBound) to \(MonitorPacer.rates.upperBound); got \(rate)")
        }
    }

    func run() throws {
        let client = try connection.connect()
        var seen = 0
        try talking {
            try client.monitor(maxRate: rate) { update, _ in
                if format == "json" {
                    var writer = JSONWriter(capacity: 640)
                    update.writeParameters(to: &writer)
                    try writeLine(writer.bytes)
                } else {
                    var line = "#\(update.sequence)  \(describe(update.state))"
                    if let gesture = update.gesture { line += "  [\(gesture.kind.name) \(gesture.phase.name)]" }
                    try writeLine(Array(line.utf8))
                    for event in update.events { try writeLine(Array("   event: \(event)".utf8)) }
                }
                seen += 1
                if let count, seen >= count { return false }
                if untilRest, update.state.isIdle { return false }
                if untilNextRest, seen > 1, update.state.isIdle { return false }
                return true
            }
        }
    }
}

struct StateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "state", abstract: "Print the sheet's state once (GetState).")

    @OptionGroup var connection: SocketOption

    @Option(help: "json or text.")
    var format: String = "json"

    func run() throws {
        let client = try connection.connect()
        let state = try talking { try client.state() }
        if format == "text" {
            try writeLine(Array(describe(state).utf8))
        } else {
            var writer = JSONWriter(capacity: 640)
            state.write(to: &writer)
            try writeLine(writer.bytes)
        }
    }
}

struct PresentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "present", abstract: "Show the sheet, at DETENT or the configured initial one (needs root or the socket's group).")

    @OptionGroup var connection: SocketOption
    @Argument(help: "The detent (half, expanded or a custom one).")
    var detent: String?

    func run() throws {
        let client = try connection.connect()
        try talking { try client.present(detent: detent) }
    }
}

struct DismissCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dismiss", abstract: "Hide the sheet (needs root or the socket's group).",
        discussion: "A guarded sheet (unsaved changes) refuses with io.sheetd.Sheet.Guarded unless --force.")

    @OptionGroup var connection: SocketOption

    @Flag(help: "Hide a guarded sheet too (after asking the user).")
    var force = false

    func run() throws {
        let client = try connection.connect()
        do {
            try client.dismiss(force: force)
        } catch .remote(let name, _) where name == VarlinkErrorName.guarded {
            printError("sheetctl: the sheet is guarded (unsaved changes); ask the user, then dismiss --force")
            throw ExitCode(ExitStatus.dataError)
        } catch {
            try talking { throw error }
        }
    }
}

struct ContentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "content", abstract: "Show what the sheet holds (GetContent), or set it.",
        subcommands: [ShowContentCommand.self, SetContentCommand.self], defaultSubcommand: ShowContentCommand.self)
}

struct ShowContentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Print the content, items in the list's order.")

    @OptionGroup var connection: SocketOption

    @Option(help: "json or text.")
    var format: String = "json"

    func run() throws {
        let client = try connection.connect()
        let content = try talking { try client.content() }
        if format == "text" {
            try writeLine(Array("title: \(content.title)\(content.guarded ? "  (guarded)" : "")".utf8))
            for (index, item) in content.items.enumerated() { try writeLine(Array("\(index)  \(item.id)  \(item.label)".utf8)) }
        } else {
            var writer = JSONWriter(capacity: 256)
            content.write(to: &writer)
            try writeLine(writer.bytes)
        }
    }
}

struct SetContentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Set the content from a file (JSON or YAML) and/or flags (needs root or the socket's group).",
        discussion: "Flags override the file; what neither gives keeps its value. New items reset the list's order.")

    @OptionGroup var connection: SocketOption
    @OptionGroup var content: ContentOptions

    func run() throws {
        let change = try content.change()
        let client = try connection.connect()
        try talking { try client.setContent(change) }
    }
}

/// A sheet's content from a file and flags, as `content set` and `open` take it.
struct ContentOptions: ParsableArguments {
    @Argument(help: "A JSON or YAML file: title, items (id, label), guarded, lang.")
    var file: String?

    @Option(help: "The title.")
    var title: String?

    @Option(name: .customLong("item"), help: ArgumentHelp("An item, ID=LABEL; repeat for each (replaces the file's items).", valueName: "id=label"))
    var items: [String] = []

    @Option(help: "true: unsaved changes (a user cannot dismiss); false: none.")
    var guarded: Bool?

    @Option(help: ArgumentHelp("The language the content's text is in, a BCP 47 tag such as ko or pt-BR (its voice when spoken).", valueName: "tag"))
    var lang: String?

    func change() throws -> ContentChange {
        var change = ContentChange()
        if let file {
            do { change = ContentChange(try ContentFile.load(path: file)) } catch { throw ValidationError("\(error)") }
        }
        if let title { change.title = title }
        if !items.isEmpty {
            change.items = try items.map { text in
                guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                    throw ValidationError("--item wants ID=LABEL; got `\(text)`")
                }
                return SheetItem(id: String(text[..<equals]), label: String(text[text.index(after: equals)...]))
            }
        }
        if let guarded { change.guarded = guarded }
        if let lang { change.language = lang }
        if let problem = change.problem() { throw ValidationError("\(problem)") }
        return change
    }
}

struct SheetsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sheets",
        abstract: "List the programs' sheets, bottom to top, with their owners (ListSheets; needs root or the socket's group).",
        discussion: "Root sees every program's sheet, any other user its own. The shared sheet, under them all, is not listed.")

    @OptionGroup var connection: SocketOption

    func run() throws {
        let client = try connection.connect()
        try talking {
            let sheets = try client.sheets()
            if sheets.isEmpty { try writeLine(Array("no program has a sheet open: the shared sheet is shown".utf8)) }
            for entry in sheets {
                let state = entry.shown ? "shown" : entry.presented ? "beneath" : "dismissed"
                try writeLine(Array("\(entry.sheet)  \(entry.layer.name)  \(state)  pid \(entry.pid) uid \(entry.uid) \(entry.command)".utf8))
            }
        }
    }
}

struct DetentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "detent", abstract: "Move the sheet to a detent (needs root or the socket's group).")

    @OptionGroup var connection: SocketOption
    @Argument(help: "The detent's name.")
    var name: String

    func run() throws {
        let client = try connection.connect()
        try talking { try client.setDetent(name) }
    }
}

struct FocusCommandLine: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focus",
        abstract: "Put the focus on an item or the close button, then do a key's command, as a person would (needs root or the socket's group).",
        discussion: """
            What an assistive technology or a remote does for a person: `sheetctl focus wifi activate` is a tap on \
            Wi-Fi, `sheetctl focus --command next` moves the focus as Tab does. Commands: \(FocusCommand.names.joined(separator: ", ")).
            """)

    @OptionGroup var connection: SocketOption
    @Argument(help: "An item's id, or close; left out, the focus stays where it is.")
    var element: String?
    @Argument(help: "A key map command to do then (activate, back, next, ...).")
    var command: String?
    @Option(name: .customLong("command"), help: "The command, when no element is given.")
    var commandOption: String?

    func validate() throws {
        if element == nil, command == nil, commandOption == nil { throw ValidationError("name an element, a command, or both") }
        if command != nil, commandOption != nil { throw ValidationError("give the command once") }
        if let name = command ?? commandOption, FocusCommand(name: name) == nil {
            throw ValidationError("`\(name)` is not one of \(FocusCommand.names.joined(separator: ", "))")
        }
    }

    func run() throws {
        let client = try connection.connect()
        try talking { try client.focus(element, command: (command ?? commandOption).flatMap { FocusCommand(name: $0) }) }
    }
}

struct ReduceMotionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reduce-motion",
        abstract: "Turn reduced motion on or off: the card placed at once, the dim cross-faded (needs root or the socket's group).")

    enum Setting: String, ExpressibleByArgument, CaseIterable {
        case on, off
    }

    @OptionGroup var connection: SocketOption
    @Argument(help: "on or off.")
    var setting: Setting

    func run() throws {
        let client = try connection.connect()
        try talking { try client.setReduceMotion(setting == .on) }
    }
}

struct AppearanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appearance",
        abstract: "Change how the sheet looks: theme, accent, font, text size, colours, corners (needs root or the socket's group).",
        discussion: "Each option given replaces the current value; the rest stay. Every renderer draws the new look from the next state. `sheetctl appearance --theme dark` at dusk, `--theme light` at dawn.")

    @OptionGroup var connection: SocketOption
    @Option(help: "light, dark, auto (each renderer's preference), high-contrast or high-contrast-dark.")
    var theme: String?
    @Option(help: "The accent colour, #rrggbb.")
    var accent: String?
    @Option(help: ArgumentHelp("A fontconfig pattern such as `Noto Sans`; an empty one is each renderer's own.", valueName: "pattern"))
    var font: String?
    @Option(name: .customLong("text-scale"), help: ArgumentHelp("Text size, 0.5 to 3, or auto: each renderer's (a desktop session's text scaling).", valueName: "factor|auto"))
    var textScale: String?
    @Option(name: .customLong("card-color"), help: "The card's colour, #rrggbb, or `theme` for the theme's.")
    var cardColor: String?
    @Option(name: .customLong("dim-color"), help: "The dim's colour, #rrggbb, or `theme` for the theme's.")
    var dimColor: String?
    @Option(name: .customLong("corner-radius"), help: "The card's top corners in points, 0 to 64.")
    var cornerRadius: Double?

    func change() throws -> AppearanceChange {
        // The same reading as the daemon's: the parameters as they would travel.
        var parameters: [String: JSONValue] = [:]
        if let theme { parameters["theme"] = .string(theme) }
        if let accent { parameters["accent"] = .string(accent) }
        if let font { parameters["font"] = .string(font) }
        if let textScale {
            guard textScale == "auto" || Double(textScale) != nil else { throw ValidationError("--text-scale wants a number from 0.5 to 3, or auto") }
            parameters["textScale"] = Double(textScale).map { .number($0) } ?? .null
        }
        if let cornerRadius { parameters["cornerRadius"] = .number(cornerRadius) }
        if let cardColor { parameters["card"] = cardColor == "theme" ? .null : .string(cardColor) }
        if let dimColor { parameters["dim"] = dimColor == "theme" ? .null : .string(dimColor) }
        guard !parameters.isEmpty else { throw ValidationError("give at least one of --theme, --accent, --font, --text-scale, --card-color, --dim-color, --corner-radius") }
        do { return try AppearanceChange(json: .object(parameters)) } catch {
            throw ValidationError("--\(Self.flag(error.field)): \(error.reason)")
        }
    }

    /// The option that sets a field of `SetAppearance`.
    static func flag(_ field: String) -> String {
        ["textScale": "text-scale", "cornerRadius": "corner-radius", "card": "card-color", "dim": "dim-color"][field] ?? field
    }

    func validate() throws { _ = try change() }

    func run() throws {
        let change = try change()
        let client = try connection.connect()
        try talking { try client.setAppearance(change) }
    }
}

struct PresentationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presentation",
        abstract: "Change how the sheet opens, closes and shares the screen (needs root or the socket's group).",
        discussion: "Each option given replaces the current value; the rest stay. `sheetctl presentation --modal false` lets a map under the sheet take the touches outside the card; `--can-close false` keeps a kiosk's menu up; `--touch-exploration true` lets a person who cannot see the screen explore it by touch.")

    @OptionGroup var connection: SocketOption
    @Option(name: .customLong("present-gesture"), help: ArgumentHelp("edge-swipe, bottom-bar, both (edge-swipe,bottom-bar) or none.", valueName: "gestures"))
    var presentGesture: String?
    @Option(name: .customLong("edge-band"), help: "The band at the bottom edge an edge swipe starts in, in points.")
    var edgeBand: Double?
    @Option(name: .customLong("bar-height"), help: "The bottom bar's height in points.")
    var barHeight: Double?
    @Option(help: ArgumentHelp("true: the dim covers the rest; false: no dim, touches outside the sheet are not its.", valueName: "true|false"))
    var modal: Bool?
    @Option(name: .customLong("can-open"), help: ArgumentHelp("Whether a person may open the sheet.", valueName: "true|false"))
    var canOpen: Bool?
    @Option(name: .customLong("can-close"), help: ArgumentHelp("Whether a person may close the sheet.", valueName: "true|false"))
    var canClose: Bool?
    @Option(name: .customLong("touch-exploration"), help: ArgumentHelp("Explore by touch: one finger moves the focus and never taps, a double tap activates, flicks step, two fingers act as one.", valueName: "true|false"))
    var touchExploration: Bool?
    @Option(help: ArgumentHelp("Speak the sheet: off, on, or headset (while headphones are plugged).", valueName: "off|on|headset"))
    var speech: String?
    @Option(name: .customLong("speech-rate"), help: ArgumentHelp("The voice's rate, -100 to 100 (0: its own).", valueName: "n"))
    var speechRate: Int?
    @Option(name: .customLong("speech-volume"), help: ArgumentHelp("The voice's volume, -100 to 100 (100: the loudest).", valueName: "n"))
    var speechVolume: Int?

    func change() throws -> PresentationChange {
        // The same reading as the daemon's: the parameters as they would travel.
        var parameters: [String: JSONValue] = [:]
        if let presentGesture {
            parameters["gestures"] = .array(presentGesture.split(separator: ",").map { .string(String($0)) })
        }
        if let edgeBand { parameters["edgeBand"] = .number(edgeBand) }
        if let barHeight { parameters["barHeight"] = .number(barHeight) }
        if let modal { parameters["modal"] = .bool(modal) }
        if let canOpen { parameters["canOpen"] = .bool(canOpen) }
        if let canClose { parameters["canClose"] = .bool(canClose) }
        if let touchExploration { parameters["touchExploration"] = .bool(touchExploration) }
        if let speech { parameters["speech"] = .string(speech) }
        if let speechRate { parameters["speechRate"] = .number(Double(speechRate)) }
        if let speechVolume { parameters["speechVolume"] = .number(Double(speechVolume)) }
        guard !parameters.isEmpty else {
            throw ValidationError("give at least one of --present-gesture, --edge-band, --bar-height, --modal, --can-open, --can-close, --touch-exploration, --speech, --speech-rate, --speech-volume")
        }
        do { return try PresentationChange(json: .object(parameters)) } catch {
            let flags = ["gestures": "present-gesture", "edgeBand": "edge-band", "barHeight": "bar-height",
                         "canOpen": "can-open", "canClose": "can-close", "touchExploration": "touch-exploration",
                         "speechRate": "speech-rate", "speechVolume": "speech-volume"]
            throw ValidationError("--\(flags[error.field] ?? error.field): \(error.reason)")
        }
    }

    func validate() throws { _ = try change() }

    func run() throws {
        let change = try change()
        let client = try connection.connect()
        try talking { try client.setPresentation(change) }
    }
}

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "List the input devices the daemon has seen (ListDevices).")

    @OptionGroup var connection: SocketOption

    @Option(help: "json or text.")
    var format: String = "text"

    func run() throws {
        let client = try connection.connect()
        let devices = try talking { try client.devices() }
        for device in devices {
            if format == "json" {
                var writer = JSONWriter(capacity: 256)
                device.write(to: &writer)
                try writeLine(writer.bytes)
            } else {
                try writeLine(Array("\(device.used ? "used   " : "unused ") \(device.kind.rawValue)  \(device.node)  \"\(device.name)\"  \(device.reason)".utf8))
            }
        }
    }
}
