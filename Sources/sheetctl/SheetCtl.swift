import ArgumentParser
import SheetCore
import SheetRecordings
import SheetReplay
#if canImport(Glibc)
import Glibc
#endif

@main
struct SheetCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sheetctl",
        abstract: "Control and inspect the sheetd bottom sheet.",
        version: "0.1.0",
        subcommands: [ReplayCommand.self])
}

/// Exit codes from sysexits.h, as the replay contract names them.
enum ExitStatus {
    static let dataError: Int32 = 65      // EX_DATAERR: a malformed or missing recording
    static let ioError: Int32 = 74        // EX_IOERR: the output could not be written
}

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

    @Option(help: "The screen size in pixels, WIDTHxHEIGHT.")
    var screen: String = "1080x1920"

    @Option(help: "Pixels per point.")
    var scale: Double = 1

    @Option(help: "The release rules: tutorial, half-drag or projection.")
    var policy: String = ReleaseRuleSet.projection.rawValue

    @Option(help: "The detent the sheet starts at (hidden, half, expanded or a custom one).")
    var initial: String = "half"

    @Option(name: .customLong("detent"), help: "A custom detent, NAME=N% of the height or NAME=Npt from the top (repeatable).")
    var detents: [String] = []

    @Option(name: .customLong("long-press"), help: "Seconds a still finger takes to become a long press.")
    var longPressSeconds: Double = 0.5

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
        let parts = screen.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (1...32768).contains(width), (1...32768).contains(height) else {
            throw ValidationError("--screen wants WIDTHxHEIGHT in pixels, like 1080x1920; got `\(screen)`")
        }
        guard scale > 0, scale <= 16, scale.isFinite else { throw ValidationError("--scale wants a number above 0 and at most 16") }
        options.engine.screen = ScreenSize(widthInPixels: width, heightInPixels: height, scale: scale)
        guard let rules = ReleaseRuleSet(rawValue: policy) else {
            throw ValidationError("--policy wants tutorial, half-drag or projection; got `\(policy)`")
        }
        options.engine.sheet.ruleSet = rules
        for text in detents {
            guard let spec = DetentSpec(parsing: text) else {
                throw ValidationError("--detent wants NAME=N% or NAME=Npt, like peek=85%; got `\(text)`")
            }
            options.engine.sheet.detents.append(spec)
        }
        let names = Set(options.engine.sheet.detents.map(\.name)).union(["hidden"])
        guard names.contains(initial) else {
            throw ValidationError("--initial wants one of \(names.sorted().joined(separator: ", ")); got `\(initial)`")
        }
        options.engine.initialDetent = initial
        guard longPressSeconds > 0, longPressSeconds <= 10 else {
            throw ValidationError("--long-press wants seconds above 0 and at most 10")
        }
        options.engine.gestures.longPressSeconds = longPressSeconds
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

func printError(_ message: String) {
    var line = message
    line += "\n"
    line.withUTF8 { bytes in
        _ = write(2, bytes.baseAddress, bytes.count)
    }
}
