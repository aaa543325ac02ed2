import ArgumentParser
import SheetConfig
import SheetRecordings
import SheetReplay

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Run a recording (libinput record YAML or evemu) through the gesture and sheet core.",
        discussion: """
            Prints one JSON object per line: `device`, `touch` (with --touches), `gesture` and `sheet`. \
            After the last event the clock runs on until the sheet rests, so the last `sheet` line is \
            where it ends. The same file and flags always print the same bytes.

            Exit status: 0 on success, 64 for bad flags, 65 for a malformed or missing recording \
            (reported as FILE:LINE: reason), 74 when the output cannot be written.
            """)

    @Argument(help: "The recording: a `libinput record` YAML file, or an evemu file (.evemu, .events).")
    var file: String

    @Option(help: "The screen size in pixels, WIDTHxHEIGHT (default: the configuration's, else 1080x1920).")
    var screen: String?

    @Option(help: "Pixels per point.")
    var scale: String?

    @Option(help: "The release rules: tutorial, half-drag or projection (default projection).")
    var policy: String?

    @Option(help: "The detent the sheet starts at: hidden, half, expanded or a custom one (default half).")
    var initial: String?

    @Option(name: .customLong("detent"), help: "A custom detent, NAME=N% of the height or NAME=Npt from the top (repeatable).")
    var detents: [String] = []

    @Option(name: .customLong("long-press"), help: "Seconds a still finger takes to become a long press.")
    var longPressSeconds: String?

    @Option(help: "The configuration file whose engine settings apply (default \(Settings.defaultPath), if it exists).")
    var config: String?

    @Flag(help: "Print a `touch` line for every finger down, up and cancel.")
    var touches = false

    @Flag(help: "Print only the device and one summary line.")
    var summary = false

    @Option(help: "Output: json (one object per line) or text (a transition log).")
    var format: String = ReplayFormat.json.rawValue

    @Option(help: "The evemu description (.desc) for an .events file that has none.")
    var desc: String?

    func validate() throws {
        _ = try options()
    }

    func options() throws -> ReplayOptions {
        var options = ReplayOptions()
        let settings = try EngineSettingsOptions.settings(
            config: config,
            flags: [("screen", screen), ("scale", scale), ("policy", policy), ("initial", initial),
                    ("long-press", longPressSeconds)] + detents.map { ("detents", $0) })
        options.engine = settings.engine
        guard let outputFormat = ReplayFormat(rawValue: format) else {
            throw ValidationError("--format wants json or text; got `\(format)`")
        }
        options.format = outputFormat
        options.touches = touches
        options.summary = summary
        options.descriptionPath = desc
        return options
    }

    func run() async throws {
        let output = OutputBuffer.standardOutput()
        do {
            let result = try Replay.run(path: file, options: try options(), output: output)
            for warning in result.warnings { printError("\(warning)") }
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

