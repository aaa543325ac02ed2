import ArgumentParser
import SheetConfig
import SheetCore
import SheetRecordings
import SheetRenderKit
import SheetProtocol
import SheetReplay
import SheetService

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Run a recording (libinput record YAML or evemu) through the gesture and sheet core.",
        discussion: """
            Prints one JSON object per line: `device`, `contact` (with --contacts), `touch` (with --touches), `gesture` and `sheet`. \
            After the last event the clock runs on until the sheet rests, so the last `sheet` line is \
            where it ends. The same file and flags always print the same bytes.

            With --png DIR, each sheet state is also drawn (in the configuration's appearance: \
            --theme, --accent, --font…, at the screen's size) \
            into DIR/frame-000001.png, frame-000002.png…; the last picture shows where the sheet rests. \
            With --apng FILE, the replay becomes one animated PNG, timed as recorded.

            Exit status: 0 on success, 64 for bad flags, 65 for a malformed or missing recording \
            (reported as FILE:LINE: reason), 74 when the output or a picture cannot be written.
            """)

    @Argument(help: "The recording: a `libinput record` YAML file, or an evemu file (.evemu, .events).")
    var file: String

    @OptionGroup var engine: EngineFlags

    @Flag(help: "Print a `touch` line for every finger down, up and cancel.")
    var touches = false

    @Flag(help: "Print a `contact` line for every contact the decoder reads from the device, moves included: what libinput would report for it (`libinput debug-events`), before any gesture.")
    var contacts = false

    @Flag(help: "Print a `release` line for every drag let go: the rule that chose the detent, with its numbers (in points).")
    var explain = false

    @Flag(help: "Print only the device and one summary line.")
    var summary = false

    @Option(help: "Output: json (one object per line) or text (a transition log).")
    var format: String = ReplayFormat.json.rawValue

    @Option(help: "The evemu description (.desc) for an .events file that has none.")
    var desc: String?

    @Option(help: ArgumentHelp("Also draw every sheet state as a PNG into this folder.", valueName: "folder"))
    var png: String?

    @Option(help: "With --png: a picture of every Nth state (and always of the last).")
    var pngEvery = 1

    @Option(help: "Draw the replay as an animated PNG (APNG) into this file, at most --apng-fps frames a second of recording time.")
    var apng: String?

    @Option(name: .customLong("apng-fps"), help: "With --apng: frames per second.")
    var apngFPS = 30

    @Option(help: ArgumentHelp("Run the recording over this content (JSON or YAML: title, items of id and label, guarded); its events print as `event` lines.", valueName: "file"))
    var content: String?

    @Option(help: ArgumentHelp("Programs' calls while the recording plays (JSON lines: at, program, call, parameters): their sheets take turns as in the daemon; `call` lines print each call and its answer.", valueName: "file"))
    var programs: String?

    func validate() throws {
        _ = try options()
        if pngEvery < 1 { throw ValidationError("--png-every wants 1 or more") }
        if apngFPS < 1 || apngFPS > 100 { throw ValidationError("--apng-fps wants 1 to 100") }
    }

    func options() throws -> ReplayOptions {
        var options = ReplayOptions()
        options.engine = try engine.settings().engine
        guard let outputFormat = ReplayFormat(rawValue: format) else {
            throw ValidationError("--format wants json or text; got `\(format)`")
        }
        options.format = outputFormat
        options.touches = touches
        options.contacts = contacts
        options.explain = explain
        options.summary = summary
        options.descriptionPath = desc
        if let content {
            do { options.content = try ContentFile.load(path: content) } catch {
                throw ValidationError("--content: \(error)")
            }
        }
        if let programs {
            let text: String
            do {
                guard let bytes = try AtomicFile.read(programs, limit: ProgramScript.maximumBytes) else {
                    throw ValidationError("--programs: \(programs): no such file")
                }
                guard let read = String(validating: bytes, as: UTF8.self) else { throw ValidationError("--programs: \(programs): not UTF-8 text") }
                text = read
            } catch let error as ValidationError {
                throw error
            } catch {
                throw ValidationError("--programs: \(programs): cannot be read (\(error))")
            }
            do { options.programs = try ProgramScript(text: text, path: programs) } catch {
                throw ValidationError("--programs: \(error)")
            }
        }
        return options
    }

    func run() async throws {
        let output = OutputBuffer.standardOutput()
        do {
            let options = try options()
            var pictures: PNGFrameWriter?
            var painter = Painter()
            if png != nil || apng != nil {
                let standard = Painter.standard(font: options.engine.appearance.font)
                painter = standard.painter
                if let fallback = standard.fallback { printError("sheetctl: \(fallback)") }
            }
            if let png {
                pictures = try PNGFrameWriter(folder: png, every: pngEvery, painter: painter)
            }
            let animation = apng.map { AnimatedPNGWriter(path: $0, painter: painter, framesPerSecond: apngFPS) }
            let screen = options.engine.screen
            // The configuration's appearance, `auto` taken as light (a replay has no display
            // whose preference it could follow).
            let look = Look(options.engine.appearance)
            let result = try Replay.run(path: file, options: options, output: output) { frame in
                // What the sheet shown holds: the replay's content, or a program's sheet's.
                let content: SheetContent? = frame.content.items.isEmpty && frame.content.title.isEmpty ? nil : frame.content
                // The state a daemon would publish, drawn as every renderer draws one (its focus
                // ring too), with the items in the list's order as GetContent gives them.
                let state = SheetState(frame.sheet, list: content == nil ? nil : frame.list, screen: screen,
                                       layout: options.engine.list, content: content ?? SheetContent(), detents: [],
                                       inputActive: false, appearance: options.engine.appearance,
                                       presentation: options.engine.sheet.presentation)
                let shown = content.map { content in
                    var shown = content
                    shown.items = frame.order.compactMap { content.items.indices.contains($0) ? content.items[$0] : nil }
                    return shown
                }
                let scene = SheetScene(state, content: shown, look: look)
                try pictures?.frame(scene)
                animation?.frame(scene, at: frame.sheet.time.microseconds)
            }
            try pictures?.finish()
            try animation?.finish()
            for warning in result.warnings { printError("\(warning)") }
        } catch let error as PictureError {
            try? output.flush()
            printError("sheetctl: \(error)")
            throw ExitCode(ExitStatus.ioError)
        } catch let error as RecordingError {
            try? output.flush()
            printError("\(error)")
            throw ExitCode(ExitStatus.dataError)
        } catch let error as OutputError {
            printError("sheetctl: \(error)")
            throw ExitCode(ExitStatus.ioError)
        }
    }
}

