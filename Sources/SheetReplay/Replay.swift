import SheetCore
import SheetProtocol
import SheetRecordings
import SheetRules

/// How a replay prints what happens.
public enum ReplayFormat: String, Sendable, CaseIterable {
    /// One JSON object per line (the replay contract).
    case json
    /// A transition log for people, libinput style.
    case text
}

public struct ReplayOptions: Sendable {
    public var engine = EngineConfiguration()
    /// Print `touch` lines.
    public var touches = false
    /// Print a `contact` line for every contact the decoder reads (moves too): the device's
    /// touches as libinput reports them, before the engine sees them.
    public var contacts = false
    /// Print a `release` line for each drag let go: the rule that chose the detent, with its
    /// numbers.
    public var explain = false
    public var format = ReplayFormat.json
    /// Print only the device and a summary.
    public var summary = false
    /// An evemu description for an `.events` file that has none.
    public var descriptionPath: String?
    /// What the sheet holds during the replay (`--content`): its events print as `event` lines.
    public var content: SheetContent?
    /// Programs' calls while it plays (`--programs`): their sheets take turns as in the daemon.
    public var programs = ProgramScript()

    public init() {}
}

/// What a replay counted.
public struct ReplaySummary: Sendable, Equatable {
    public var frames = 0
    public var touches = 0
    public var gestures: [GestureKind: Int] = [:]
    public var finalSheet: SheetSnapshot?
    public var bytesRead = 0
    /// From the first event to the last, in microseconds.
    public var durationMicroseconds: Int64 = 0
    /// With content: the list's order at the end, as indices into its items.
    public var finalOrder: [Int]?
    /// How many content events of each kind (by name).
    public var events: [String: Int] = [:]
}

public struct ReplayResult: Sendable {
    public var summary: ReplaySummary
    public var warnings: [RecordingWarning]
}

/// Runs a recording through the core and prints what happens, deterministically: the same file
/// and options give the same bytes. Times are seconds since the recording's first event.
/// After the last event the clock runs on, deadline by deadline, until the sheet rests.
public enum Replay {
    /// Most deadlines the clock runs through after the last event before giving up. A sheet
    /// rests within about a second (a few dozen frames); this bounds any mistake.
    static let maximumTrailingDeadlines = 100_000

    /// `observer`, when given, sees each sheet state in order (for pictures); what it throws
    /// ends the replay.
    public static func run(path: String, options: ReplayOptions, output: OutputBuffer,
                           observer: ((ReplayFrame) throws -> Void)? = nil) throws -> ReplayResult {
        let source = try Recording.open(path, descriptionPath: options.descriptionPath)
        return try run(source: source, options: options, output: output, observer: observer)
    }

    public static func run(source: KernelEventSource, options: ReplayOptions, output: OutputBuffer,
                           observer: ((ReplayFrame) throws -> Void)? = nil) throws -> ReplayResult {
        let recording = try RecordingDecoder(source: source, screen: options.engine.screen)
        var printer = Printer(output: output, options: options, observer: observer)
        var summary = ReplaySummary()
        var warnings: [RecordingWarning] = []

        for device in source.devices { try printer.device(device, used: true) }
        var devicesReported = 0
        for device in source.ignoredDevices {
            try printer.device(device, used: false)
            devicesReported += 1
        }

        var engine = Engine(configuration: options.engine)
        var outputs: [EngineOutput] = []
        outputs.reserveCapacity(64)
        var frame = TouchFrame(time: .zero, source: recording.touch.source)
        frame.contacts.reserveCapacity(16)
        // Keys, buttons or a knob: their presses and steps drive the focus.
        var keys: [KeyEvent] = []
        keys.reserveCapacity(16)

        if let content = options.content { engine.setContent(content, at: .zero, into: &outputs) }
        engine.start(at: .zero, into: &outputs)
        try printer.print(outputs, revision: engine.list.revision, summary: &summary)
        outputs.removeAll(keepingCapacity: true)
        var programs = Programs(options.programs)

        while try recording.next(into: &frame, keys: &keys) {
            try programs.call(upTo: frame.time, engine: &engine, outputs: &outputs, printer: &printer, summary: &summary)
            for warning in recording.takeNewAxisWarnings() {
                warnings.append(RecordingWarning(file: source.path, line: recording.lastLine, message: warning.description))
            }
            if frame.isEmpty {
                engine.advance(to: frame.time, into: &outputs)
                for key in keys { engine.key(key, into: &outputs) }
            } else {
                if options.contacts && !options.summary { try printer.contacts(frame) }
                engine.process(frame, into: &outputs)
            }
            if !outputs.isEmpty {
                try programs.print(&outputs, at: frame.time, engine: &engine, printer: &printer, summary: &summary)
            }
            try programs.settle(at: frame.time, engine: &engine, outputs: &outputs, printer: &printer, summary: &summary)
        }
        let lastTime = recording.lastTime
        warnings.append(contentsOf: recording.warnings(ended: true))
        if engine.activeTouchCount > 0 {
            warnings.append(RecordingWarning(
                file: source.path, line: nil,
                message: "the recording ends with \(engine.activeTouchCount) finger(s) down: cancelled at its end"))
            engine.cancelAllTouches(at: lastTime, into: &outputs)
        }
        // A key still held stops repeating where the recording ends.
        engine.releaseKeys(at: lastTime, into: &outputs)
        var trailing = 0
        // Until nothing moves and no program calls: the focus's deadlines (a switch scan) would
        // come for ever.
        while trailing < maximumTrailingDeadlines {
            let deadline = engine.restDeadline
            if let due = programs.nextTime, due <= deadline ?? due {
                try programs.print(&outputs, at: due, engine: &engine, printer: &printer, summary: &summary)
                try programs.call(upTo: due, engine: &engine, outputs: &outputs, printer: &printer, summary: &summary)
                continue
            }
            guard let deadline else { break }
            engine.advance(to: deadline, into: &outputs)
            trailing += 1
            if outputs.count > 1024 || programs.mayChange {
                try programs.print(&outputs, at: deadline, engine: &engine, printer: &printer, summary: &summary)
                try programs.settle(at: deadline, engine: &engine, outputs: &outputs, printer: &printer, summary: &summary)
            }
        }
        try programs.print(&outputs, at: lastTime, engine: &engine, printer: &printer, summary: &summary)

        for device in source.ignoredDevices.dropFirst(devicesReported) {
            try printer.device(device, used: false)
        }
        for device in source.ignoredDevices {
            warnings.append(RecordingWarning(file: source.path, line: nil,
                                             message: "device \"\(device.name)\" (\(device.kind.rawValue)) is not replayed: only the first touch device and the first device of keys are"))
        }

        summary.frames = recording.framesSeen
        summary.bytesRead = source.bytesRead
        summary.durationMicroseconds = lastTime.microseconds
        summary.finalSheet = printer.lastSheet
        if options.content != nil { summary.finalOrder = engine.list.order }
        try printer.finish(summary: summary)
        try output.flush()
        return ReplayResult(summary: summary, warnings: warnings)
    }
}

/// The programs of a replay (`ReplayOptions.programs`) and their sheets: the calls made at
/// their times through the daemon's own registry, the sheet shown changed as it changes it.
struct Programs {
    private var calls: ArraySlice<ProgramScript.Call>
    private let answers: [ProgramScript.Answer]
    private var sheets = SheetRegistry()
    /// Who they are: the same user, in the control group.
    private static let peer = PeerCredentials(pid: 0, uid: 1000, gid: 1000)

    init(_ script: ProgramScript) {
        calls = script.calls[...]
        answers = script.answers
    }

    var nextTime: Timestamp? { calls.first?.at }

    /// Whether a program's sheet is shown (it may come to rest at its floor and go), or the
    /// shown one is stepping aside for another.
    var mayChange: Bool { sheets.watchesTurns }

    /// Makes the calls due by `time`, each at its own time; and while the registry watches the
    /// turns (a sheet stepping aside, a program's shown), a turn at each of the engine's
    /// deadlines between them, as the daemon's loop wakes at each.
    mutating func call(upTo time: Timestamp, engine: inout Engine, outputs: inout [EngineOutput], printer: inout Printer,
                       summary: inout ReplaySummary) throws {
        while true {
            let due = calls.first.map(\.at)
            if sheets.watchesTurns, let deadline = engine.motionDeadline, deadline <= time, due.map({ deadline < $0 }) ?? true {
                engine.advance(to: deadline, into: &outputs)
                try show(at: deadline, engine: &engine, outputs: &outputs, printer: &printer, summary: &summary)
                continue
            }
            guard let next = calls.first, next.at <= time else { return }
            calls.removeFirst()
            engine.advance(to: next.at, into: &outputs)
            try make(next, engine: &engine, outputs: &outputs, printer: &printer, summary: &summary)
        }
    }

    /// Makes `next` at its time through the registry, prints its `call` line and what it did.
    private mutating func make(_ next: ProgramScript.Call, engine: inout Engine, outputs: inout [EngineOutput], printer: inout Printer,
                               summary: inout ReplaySummary, answering: Bool = true) throws {
        let result: String
        switch next.action {
        case .hangUp:
            sheets.ownerGone(next.number, shown: &engine, at: next.at, into: &outputs)
            result = "done"
        case .call(let action):
            let call = SheetCall(action, sheet: next.sheet, program: next.number, peer: Self.peer)
            result = Self.name(sheets.perform(call, shown: &engine, at: next.at, into: &outputs))
        }
        try printer.call(next, result: result, at: next.at)
        try show(at: next.at, engine: &engine, outputs: &outputs, printer: &printer, summary: &summary, answering: answering)
    }

    /// After a step: a program's sheet at rest at its floor goes beneath, or away, and a change
    /// of the sheet shown goes on (`SheetRegistry.update`).
    mutating func settle(at time: Timestamp, engine: inout Engine, outputs: inout [EngineOutput], printer: inout Printer,
                         summary: inout ReplaySummary) throws {
        guard sheets.watchesTurns else { return }
        try show(at: time, engine: &engine, outputs: &outputs, printer: &printer, summary: &summary)
    }

    private mutating func show(at time: Timestamp, engine: inout Engine, outputs: inout [EngineOutput], printer: inout Printer,
                               summary: inout ReplaySummary, answering: Bool = true) throws {
        if answering {
            try print(&outputs, at: time, engine: &engine, printer: &printer, summary: &summary)
        } else {
            try printer.print(outputs, revision: engine.list.revision, summary: &summary)
            outputs.removeAll(keepingCapacity: true)
        }
        // The sheet shown, and what it holds now (another sheet's, or new content a call set).
        _ = sheets.update(&engine, at: time, into: &outputs)
        printer.shown(sheets.shown?.description, stack: sheets.presentedNames, content: engine.content, order: engine.list.order)
        try printer.print(outputs, revision: engine.list.revision, summary: &summary)
        outputs.removeAll(keepingCapacity: true)
    }

    /// Prints `outputs` and empties them; then the programs answer the events they heard in them
    /// (`ProgramScript.Answer`), each call at `time`, the step's.
    mutating func print(_ outputs: inout [EngineOutput], at time: Timestamp, engine: inout Engine, printer: inout Printer,
                        summary: inout ReplaySummary) throws {
        var due: [ProgramScript.Call] = []
        if !answers.isEmpty, let owner = sheets.shownOwner {
            for output in outputs {
                guard case .content(let report) = output else { continue }
                var event = SheetEvent(report.event, content: engine.content, order: engine.list.order)
                event.sheet = sheets.shown?.description
                for answer in answers where answer.matches(event, heardBy: owner) { due.append(answer.call) }
            }
        }
        try printer.print(outputs, revision: engine.list.revision, summary: &summary)
        outputs.removeAll(keepingCapacity: true)
        for var call in due {
            call.at = time
            try make(call, engine: &engine, outputs: &outputs, printer: &printer, summary: &summary, answering: false)
        }
    }

    /// A call's answer as a `call` line names it: the new sheet, done, or the error's name.
    static func name(_ result: ControlResult) -> String {
        switch result {
        case .done, .content, .sheets: "done"
        case .opened(let sheet): sheet
        case .noSuchSheet: "NoSuchSheet"
        case .notOwner: "NotOwner"
        case .tooManySheets: "TooManySheets"
        case .unknownDetent: "UnknownDetent"
        case .invalidScreen: "InvalidScreen"
        case .guarded: "Guarded"
        case .cannotFocus: "CannotFocus"
        }
    }
}
