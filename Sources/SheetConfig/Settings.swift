#if canImport(Glibc)
import Glibc
#endif
import SheetCore
import SheetProtocol
import SheetService
import SheetYAML

/// Everything a person can configure, in one place: the file `/etc/sheetd/sheetd.yaml` sets
/// it, command-line flags override it. Each key is documented in `docs/configuration.md`.
public struct Settings: Sendable {
    public var engine = EngineConfiguration()
    /// `udev:SEAT`, `path:DEV[,DEV…]`, `replay:FILE[@SPEED]` or `none`.
    public var input = "udev:seat0"
    /// The seat whose devices the daemon reads (`seat`, `--seat`); `input` is `udev:SEAT` then.
    public var seat = Seat.main
    /// The display connector the sheet lives on (`output`, `--output`: `HDMI-A-1`): only the
    /// touchscreens on it are read (udev `WL_OUTPUT`; those without on the first connected
    /// display). nil: every touchscreen of the seat.
    public var output: String?
    /// The socket: the seat's (`Seat.socketPath`) unless `socket` names one.
    public var socketPath = Seat.main.socketPath
    private var socketNamed = false
    public var socketMode: UInt32 = 0o660
    public var socketGroup: String?
    /// The renderers' group, whose members read every program's sheet (a name, or a number);
    /// nil: `sheetd-render` where the system has it.
    public var renderGroup: String?
    /// `input-socket` as set: a path, `none`, or nil for the default, `io.sheetd.Input` beside
    /// `socket` (so a daemon on a socket of its own has an input socket of its own).
    public var inputSocket: String?
    /// The socket of `io.sheetd.Input`, where programs feed touches; nil: none.
    public var inputSocketPath: String? {
        if let inputSocket { return inputSocket == "none" ? nil : inputSocket }
        return InputInterface.socketPath(besideSocket: socketPath)
    }
    /// The group of the input socket a daemon creates, whose members may feed touches.
    public var inputGroup: String?
    public var maximumConnections = 256
    /// Connections one uid may hold; nil: half of `maximumConnections`.
    public var maximumConnectionsPerUser: Int?
    public var clientStallSeconds = 10.0
    public var clientIdleSeconds = 10.0
    public var logLevel = "info"
    /// What the sheet holds when no client has said (a kiosk's menu): `content:`.
    public var content: SheetContent?
    /// Where the daemon keeps what survives a restart (`state-directory`); none when nil.
    public var stateDirectory: String?
    /// `keys:`: keyboards that can type, by name or node, that sheetd may read for the focus
    /// (an administrator's choice; the udev property `SHEETD_KEYS=1` is the other way).
    public var keyDevices: [String] = []

    public init() {}

    /// The configuration file the daemon and `sheetctl replay` read when none is named.
    public static let defaultPath = "/etc/sheetd/sheetd.yaml"

    /// The keys, in the order the documentation lists them.
    public static let keys = [
        "screen", "scale", "policy", "initial", "detents", "long-press", "slop", "swipe-velocity",
        "reduce-motion", "reduce-motion-fade-in", "reduce-motion-fade-out",
        "present-gesture", "edge-band", "bar-height", "modal", "can-open", "can-close",
        "max-width", "align", "theme", "accent", "font", "text-scale", "card-color", "dim-color", "corner-radius",
        "item-height", "item-long-press", "content",
        "key-map", "keys", "switch-scan", "touch-exploration", "key-repeat-delay", "key-repeat-rate",
        "input", "seat", "output", "socket", "socket-mode", "socket-group", "render-group", "input-socket", "input-group", "max-connections", "max-connections-per-user", "client-stall-timeout",
        "client-idle-timeout", "log-level",
        "state-directory",
    ]

    /// Sets one key from its text form; the error is the reason only (the caller adds where).
    public mutating func set(_ key: String, _ value: String) throws(SettingError) {
        func number(_ range: ClosedRange<Double>, _ unit: String) throws(SettingError) -> Double {
            guard let number = Double(value), number.isFinite, range.contains(number) else {
                throw SettingError("`\(key)` wants \(unit) from \(range.lowerBound.formatted) to \(range.upperBound.formatted); got `\(value)`")
            }
            return number
        }
        switch key {
        case "screen":
            let parts = value.lowercased().split(separator: "x")
            let sides = ScreenSize.pixelRange
            guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
                  sides.contains(width), sides.contains(height) else {
                throw SettingError("`screen` wants WIDTHxHEIGHT, each \(sides.lowerBound) to \(sides.upperBound) pixels, like 1080x1920; got `\(value)`")
            }
            engine.screen.widthInPixels = width
            engine.screen.heightInPixels = height
        case "scale":
            engine.screen.scale = try number(ScreenSize.scaleRange, "pixels per point")
        case "policy":
            guard let rules = ReleaseRuleSet(rawValue: value) else {
                throw SettingError("`policy` wants tutorial, half-drag or projection; got `\(value)`")
            }
            engine.sheet.ruleSet = rules
        case "initial":
            guard let name = DetentName(value) else {
                throw SettingError("`initial` wants a detent's name (\(DetentName.rule)); got `\(value)`")
            }
            engine.initialDetent = name
        case "detent", "detents":
            guard let spec = DetentSpec(parsing: value) else {
                throw SettingError("`detents` wants NAME=N% of the height or NAME=Npt from the top, like peek=85%, NAME \(DetentName.rule); got `\(value)`")
            }
            guard spec.name != .collapsed else {
                throw SettingError("`detents`: `collapsed` is the bottom bar's detent (`present-gesture: bottom-bar`, `bar-height`); give yours another name")
            }
            engine.sheet.detents.removeAll { $0.name == spec.name }
            guard engine.sheet.detents.count < SheetConfiguration.maximumDetents else {
                throw SettingError("`detents` holds at most \(SheetConfiguration.maximumDetents) detents; `\(spec.name)` is one more")
            }
            engine.sheet.detents.append(spec)
        case "long-press":
            engine.gestures.longPressSeconds = try number(0.05...10, "seconds")
        case "slop":
            engine.gestures.slopInPoints = try number(1...200, "points")
        case "swipe-velocity":
            engine.gestures.swipeMinimumPointsPerSecond = try number(50...20000, "points per second")
        case "reduce-motion":
            guard let enabled = ["true": true, "false": false][value] else {
                throw SettingError("`reduce-motion` wants true or false; got `\(value)`")
            }
            engine.sheet.reduceMotion = enabled
        case "reduce-motion-fade-in":
            engine.sheet.reducedMotionFadeInSeconds = try number(0...1, "seconds")
        case "reduce-motion-fade-out":
            engine.sheet.reducedMotionFadeOutSeconds = try number(0...1, "seconds")
        case "present-gesture":
            do {
                engine.sheet.presentation.gestures = try PresentGestures(
                    names: value.split(separator: ",").map(\.withoutBlanks))
            } catch {
                throw SettingError("`present-gesture` wants none, edge-swipe, bottom-bar, or both as a list; got `\(value)`")
            }
        case "edge-band":
            engine.sheet.presentation.edgeBandInPoints = try number(SheetPresentation.edgeBandRange, "points")
        case "bar-height":
            engine.sheet.presentation.barHeightInPoints = try number(SheetPresentation.barHeightRange, "points")
        case "modal", "can-open", "can-close":
            guard let enabled = ["true": true, "false": false][value] else {
                throw SettingError("`\(key)` wants true or false; got `\(value)`")
            }
            switch key {
            case "modal": engine.sheet.presentation.modal = enabled
            case "can-open": engine.sheet.presentation.canOpen = enabled
            default: engine.sheet.presentation.canClose = enabled
            }
        case "max-width":
            engine.layout.maximumWidth = try number(SheetLayout.maximumWidthRange, "points")
        case "align":
            guard let alignment = CardAlignment(name: value) else {
                throw SettingError("`align` wants \(CardAlignment.names.joined(separator: ", ")); got `\(value)`")
            }
            engine.layout.alignment = alignment
        case "theme":
            guard let theme = Theme(name: value) else {
                throw SettingError("`theme` wants \(Theme.names.joined(separator: ", ")); got `\(value)`")
            }
            engine.appearance.theme = theme
        case "card-color" where value == "theme":
            engine.appearance.card = nil
        case "dim-color" where value == "theme":
            engine.appearance.dim = nil
        case "accent", "card-color", "dim-color":
            guard let colour = RGB(parsing: value) else {
                throw SettingError("`\(key)` wants a colour like #3584e4 (quote it in YAML: \"#3584e4\")\(key == "accent" ? "" : ", or theme"); got `\(value)`")
            }
            switch key {
            case "accent": engine.appearance.accent = colour
            case "card-color": engine.appearance.card = colour
            default: engine.appearance.dim = colour
            }
        case "font":
            var appearance = engine.appearance
            appearance.font = value
            if let problem = appearance.problem() { throw SettingError("`font` wants a fontconfig pattern like Noto Sans: \(problem.reason)") }
            engine.appearance.font = value
        case "text-scale":
            if value == "auto" {
                engine.appearance.textScale = nil
            } else {
                let range = Appearance.Limits.textScale
                guard let factor = Double(value), factor.isFinite, range.contains(factor) else {
                    throw SettingError("`text-scale` wants a factor from \(range.lowerBound.formatted) to \(range.upperBound.formatted), or auto; got `\(value)`")
                }
                engine.appearance.textScale = factor
            }
        case "corner-radius":
            engine.appearance.cornerRadiusInPoints = try number(Appearance.Limits.cornerRadiusInPoints, "points")
        case "item-height":
            engine.list.itemHeightInPoints = try number(16...512, "points")
        case "item-long-press":
            engine.gestures.itemLongPressSeconds = try number(0.05...10, "seconds")
        case "switch-scan":
            if value == "off" {
                engine.focus.switchScanMicroseconds = nil
            } else {
                let range = FocusConfiguration.switchScanRange
                let seconds = try number(Double(range.lowerBound) / 1e6...Double(range.upperBound) / 1e6, "seconds, or off")
                engine.focus.switchScanMicroseconds = Int64((seconds * 1e6).rounded())
            }
        case "touch-exploration":
            guard let enabled = ["true": true, "false": false, "auto": Optional<Bool>.none][value] else {
                throw SettingError("`touch-exploration` wants true, false or auto (while the sheet is spoken); got `\(value)`")
            }
            engine.sheet.presentation.touchExploration = enabled
        case "speech":
            guard let mode = SpeechMode(name: value) else {
                throw SettingError("`speech` wants off, on or headset (while headphones are plugged); got `\(value)`")
            }
            engine.sheet.presentation.speech = mode
        case "speech-rate", "speech-volume":
            guard let number = Int(value), SheetPresentation.speechRange.contains(number) else {
                throw SettingError("`\(key)` wants a whole number from -100 to 100; got `\(value)`")
            }
            if key == "speech-rate" { engine.sheet.presentation.speechRate = Int8(number) } else { engine.sheet.presentation.speechVolume = Int8(number) }
        case "key-repeat-delay":
            engine.focus.repeatDelayMicroseconds = Int64((try number(0.1...2, "seconds") * 1e6).rounded())
        case "key-repeat-rate":
            engine.focus.repeatIntervalMicroseconds = Int64((1e6 / (try number(1...100, "a second"))).rounded())
        case "keys":
            // One device (a list in the file names more); a name may hold spaces and commas.
            guard !value.isEmpty, value.utf8.count <= 256 else { throw SettingError("`keys` wants a device's name or node, 1 to 256 bytes") }
            keyDevices = [value]
        case "content":
            content = try ContentFile.contentOrReason(text: value)

        case "input":
            guard value.hasPrefix("udev:") || value == "udev" || value.hasPrefix("path:") || value.hasPrefix("replay:") || value == "none" else {
                throw SettingError("`input` wants udev[:SEAT], path:DEV[,DEV...], replay:FILE[@SPEED] or none; got `\(value)`")
            }
            _ = try InputSpec(parsing: value)
            input = value
        case "seat":
            guard let named = Seat(value) else { throw SettingError("`seat` wants \(Seat.rule); got `\(value)`") }
            seat = named
            input = "udev:\(value)"
            // The seat's own sockets (/run/sheetd/NAME/), unless `socket` names one.
            if !socketNamed { socketPath = named.socketPath }
        case "output":
            guard (1...32).contains(value.utf8.count), value.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0)
                    || (0x41...0x5a).contains($0) || (0x61...0x7a).contains($0) }) else {
                throw SettingError("`output` wants a connector's name as the kernel gives it (HDMI-A-1, DSI-1: letters, digits and -); got `\(value)`")
            }
            output = value
        case "socket":
            guard value.hasPrefix("/"), value.utf8.count < 108 else {
                throw SettingError("`socket` wants an absolute path shorter than 108 bytes; got `\(value)`")
            }
            socketPath = value
            socketNamed = true
        case "state-directory":
            guard value.hasPrefix("/"), value.utf8.count < 4000 else {
                throw SettingError("`state-directory` wants an absolute path; got `\(value)`")
            }
            stateDirectory = value
        case "input-socket":
            guard value == "none" || (value.hasPrefix("/") && value.utf8.count < 108) else {
                throw SettingError("`input-socket` wants an absolute path shorter than 108 bytes, or none; got `\(value)`")
            }
            inputSocket = value
        case "input-group":
            guard !value.isEmpty else { throw SettingError("`input-group` wants a group name") }
            inputGroup = value
        case "socket-mode":
            guard let mode = UInt32(value, radix: 8), mode <= 0o777 else {
                throw SettingError("`socket-mode` wants an octal mode like 0660; got `\(value)`")
            }
            socketMode = mode
        case "socket-group":
            guard !value.isEmpty else { throw SettingError("`socket-group` wants a group name") }
            socketGroup = value
        case "render-group":
            guard !value.isEmpty else { throw SettingError("`render-group` wants a group name or number") }
            renderGroup = value
        case "max-connections":
            maximumConnections = Int(try number(1...65536, "a count"))
        case "max-connections-per-user":
            maximumConnectionsPerUser = Int(try number(1...65536, "a count"))
        case "client-stall-timeout":
            clientStallSeconds = try number(0.05...3600, "seconds")
        case "client-idle-timeout":
            clientIdleSeconds = try number(0.05...86400, "seconds")
        case "log-level":
            let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
            guard levels.contains(value) else {
                throw SettingError("`log-level` wants one of \(levels.joined(separator: ", ")); got `\(value)`")
            }
            logLevel = value
        default:
            throw SettingError("unknown key `\(key)`; the keys are \(Self.keys.joined(separator: ", "))")
        }
    }

    /// Checks what only makes sense with everything set (the initial detent must exist).
    public func validate() throws(SettingError) {
        let names = Set(engine.sheet.detents.map(\.name)).union([.hidden])
            .union(engine.sheet.presentation.gestures.contains(.bottomBar) ? [.collapsed] : [])
        guard names.contains(engine.initialDetent) else {
            throw SettingError("`initial` wants one of \(names.map(\.description).sorted().joined(separator: ", ")); got `\(engine.initialDetent)`")
        }
    }

    /// Reads a YAML configuration file over these settings. Errors say `FILE:LINE: reason`.
    public mutating func load(path: String) throws(ConfigurationError) {
        let text: String
        do { text = try Self.readFile(path) } catch { throw ConfigurationError(file: path, line: nil, reason: error.reason) }
        try load(text: text, path: path)
    }

    public mutating func load(text: String, path: String) throws(ConfigurationError) {
        let root = try Self.compose(text, path: path)
        guard let root else { return }  // an empty file changes nothing
        guard case .mapping(let mapping) = root else {
            throw ConfigurationError(file: path, line: root.mark?.line, reason: "the file must be a map of `key: value` lines")
        }
        // Keys are plain and given once: `PlainYAML` refused the rest on their lines. Every
        // key is tried, so that one start reports every bad line.
        var problems: [ConfigurationError] = []
        for (keyNode, valueNode) in mapping {
            do { try load(key: keyNode, value: valueNode, path: path) } catch { problems.append(error) }
        }
        if problems.isEmpty {
            do { try validate() } catch { problems.append(ConfigurationError(file: path, line: nil, reason: error.reason)) }
        }
        guard var first = problems.first else { return }
        first.others = Array(problems.dropFirst())
        throw first
    }

    /// One `key: value` of the file.
    mutating func load(key keyNode: Node, value valueNode: Node, path: String) throws(ConfigurationError) {
        let line = keyNode.mark?.line
        guard case .scalar(let keyScalar) = keyNode else {
            throw ConfigurationError(file: path, line: line, reason: "a key must be a plain word")
        }
        let key = keyScalar.string
        do {
            switch valueNode {
            case .scalar(let scalar) where key == "detents":
                try set(key, scalar.string)
            case .mapping where key == "content":
                content = try ContentFile.content(from: valueNode, path: path)
            case .mapping(let mapping) where key == "key-map":
                var lines: [(key: String, command: String)] = []
                for (name, command) in mapping {
                    guard case .scalar(let nameScalar) = name, case .scalar(let commandScalar) = command else {
                        throw ConfigurationError(file: path, line: name.mark?.line ?? line, reason: "`key-map` maps a key's name to a command")
                    }
                    lines.append((nameScalar.string, commandScalar.string))
                    do { _ = try KeyMapFile.applying([(nameScalar.string, commandScalar.string)], to: KeyMap([])) } catch {
                        throw ConfigurationError(file: path, line: name.mark?.line ?? line, reason: error.reason)
                    }
                }
                engine.focus.keyMap = try KeyMapFile.applying(lines, to: .standard)
            case .sequence(let items) where key == "keys":
                var names: [String] = []
                for item in items {
                    guard case .scalar(let scalar) = item else {
                        throw ConfigurationError(file: path, line: item.mark?.line ?? line, reason: "a key device is named by its name or node")
                    }
                    names.append(scalar.string)
                }
                guard names.count <= 64 else { throw SettingError("`keys` names at most 64 devices") }
                keyDevices = names
            case .scalar(let scalar):
                try set(key, scalar.string)
            case .sequence(let items) where key == "present-gesture":
                var names: [String] = []
                for item in items {
                    guard case .scalar(let scalar) = item else {
                        throw ConfigurationError(file: path, line: item.mark?.line ?? line, reason: "a present gesture is a name")
                    }
                    names.append(scalar.string)
                }
                try set(key, names.joined(separator: ","))
            case .sequence(let items) where key == "detents":
                for item in items {
                    guard case .scalar(let scalar) = item else {
                        throw ConfigurationError(file: path, line: item.mark?.line, reason: "a detent must be NAME=N% or NAME=Npt")
                    }
                    do { try set(key, scalar.string) } catch {
                        throw ConfigurationError(file: path, line: item.mark?.line ?? line, reason: error.reason)
                    }
                }
            default:
                throw SettingError("`\(key)` wants a single value")
            }
        } catch let error as SettingError {
            throw ConfigurationError(file: path, line: valueNode.mark?.line ?? line, reason: error.reason)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(file: path, line: line, reason: "\(error)")
        }
    }

    /// YAML text composed into nodes; what is not YAML is `FILE:LINE: reason`.
    static func compose(_ text: String, path: String) throws(ConfigurationError) -> Node? {
        let root: Node?
        do {
            root = try PlainYAML.compose(text)
        } catch {
            throw ConfigurationError(file: path, line: error.line, reason: error.reason)
        }
        return root
    }

    static func readFile(_ path: String) throws(SettingError) -> String {
        let read: [UInt8]?
        do { read = try AtomicFile.read(path, limit: 1 << 20) } catch { throw SettingError(error.reason) }
        guard let bytes = read else { throw SettingError(String(cString: strerror(ENOENT))) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw SettingError("not UTF-8 text") }
        return text
    }
}

/// Why a value is refused, without where (the caller knows: a flag or a file line).
public struct SettingError: Error, Equatable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// A configuration file that cannot be used: `FILE:LINE: reason`.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var reason: String
    /// More bad lines of the same file, after this one, each said on a line of its own.
    public var others: [ConfigurationError] = []

    public init(file: String, line: Int?, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String {
        let this = line.map { "\(file):\($0): \(reason)" } ?? "\(file): \(reason)"
        return ([this] + others.map(\.description)).joined(separator: "\n")
    }
}

/// `--input`, parsed.
public enum InputSpec: Sendable, Equatable {
    case udev(seat: String)
    case paths([String])
    /// `speed` nil: as fast as possible (`@max`).
    case replay(path: String, speed: Double?)
    /// No device of the daemon's own: only what programs feed over `io.sheetd.Input`.
    case none

    public init(parsing text: String) throws(SettingError) {
        if text == "udev" { self = .udev(seat: "seat0"); return }
        if text == "none" { self = .none; return }
        if text.hasPrefix("udev:") {
            let seat = String(text.dropFirst(5))
            guard seat.hasPrefix("seat") else { throw SettingError("a seat name starts with `seat` (udev:seat0); got `\(seat)`") }
            self = .udev(seat: seat)
            return
        }
        if text.hasPrefix("path:") {
            let nodes = text.dropFirst(5).split(separator: ",").map(String.init)
            guard !nodes.isEmpty, nodes.allSatisfy({ $0.hasPrefix("/") }) else {
                throw SettingError("path: wants absolute device nodes, like path:/dev/input/event5; got `\(text)`")
            }
            self = .paths(nodes)
            return
        }
        if text.hasPrefix("replay:") {
            var file = String(text.dropFirst(7))
            var speed: Double? = 1
            if let at = file.lastIndex(of: "@") {
                let suffix = String(file[file.index(after: at)...])
                if suffix == "max" {
                    speed = nil
                } else if let value = Double(suffix), value > 0, value <= 1000 {
                    speed = value
                } else {
                    throw SettingError("replay:FILE@SPEED wants a speed above 0 and at most 1000, or max; got `\(suffix)`")
                }
                file = String(file[..<at])
            }
            guard !file.isEmpty else { throw SettingError("replay: wants a file, like replay:tap.yml@max") }
            self = .replay(path: file, speed: speed)
            return
        }
        throw SettingError("`input` wants udev[:SEAT], path:DEV[,DEV...], replay:FILE[@SPEED] or none; got `\(text)`")
    }
}

extension Double {
    var formatted: String {
        self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}

extension Settings {
    /// Why settings could not be put together: the file, or a flag.
    public enum ResolveError: Error, CustomStringConvertible {
        case file(ConfigurationError)
        case flag(String)

        public var description: String {
            switch self {
            case .file(let error): "\(error)"
            case .flag(let reason): reason
            }
        }
    }

    /// The configuration file (`configPath`, or the default one when it exists), then the flags
    /// over it, as `(key, value)` pairs; nil values are flags left out.
    public static func resolve(configPath: String?, flags: [(String, String?)]) throws(ResolveError) -> Settings {
        var settings = Settings()
        let path = configPath ?? defaultPath
        if configPath != nil || access(path, F_OK) == 0 {
            do { try settings.load(path: path) } catch { throw .file(error) }
        }
        for (key, value) in flags {
            guard let value else { continue }
            do { try settings.set(key, value) } catch {
                throw .flag("--\(key == "detents" ? "detent" : key): \(error.reason)")
            }
        }
        do { try settings.validate() } catch { throw .flag(error.reason) }
        return settings
    }
}

extension StringProtocol {
    /// Without spaces and tabs at either end.
    var withoutBlanks: String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else { return "" }
        return String(self[first...last])
    }
}
