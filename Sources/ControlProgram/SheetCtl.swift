import ArgumentParser
import SheetCore
import SheetRecordings
import SheetReplay
#if canImport(Glibc)
import Glibc
#endif

struct SheetCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sheetctl",
        abstract: "Control and inspect the sheetd bottom sheet.",
        version: "0.1.0",
        subcommands: [WatchCommand.self, StateCommand.self, PresentCommand.self, DismissCommand.self,
                      DetentCommand.self, FocusCommandLine.self, ReduceMotionCommand.self, AppearanceCommand.self, PresentationCommand.self, ContentCommand.self, OpenCommand.self, SheetsCommand.self, DevicesCommand.self, StatsCommand.self, FeedCommand.self, DoctorCommand.self, ReplayCommand.self])

    /// As ArgumentParser runs a command, but a first word that is no subcommand gets the
    /// nearest one suggested (`sheetctl dismis` → `dismiss`).
    static func main() async {
        // `--wait[=SECONDS]`: a bare `--wait` waits for ever.
        let arguments = CommandLine.arguments.dropFirst().map { $0 == "--wait" ? "--wait=\(WaitLimit.forever)" : $0 }
        if let word = arguments.first, !word.hasPrefix("-"), word != "help",
           let suggestion = suggestion(for: word) {
            printError("sheetctl: no command `\(word)`; did you mean `\(suggestion)`? (sheetctl --help lists them)")
            Glibc.exit(64)
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    /// The subcommand nearest to a word that is none, within two edits; nil when the word is
    /// a subcommand or nothing is near.
    static func suggestion(for word: String) -> String? {
        let names = configuration.subcommands.map { $0.configuration.commandName ?? "" }
        guard !names.contains(word) else { return nil }
        func distance(_ a: [Character], _ b: [Character]) -> Int {
            var previous = Array(0...b.count)
            for (i, x) in a.enumerated() {
                var current = [i + 1]
                for (j, y) in b.enumerated() { current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))) }
                previous = current
            }
            return previous[b.count]
        }
        let scored = names.map { ($0, distance(Array(word), Array($0))) }.filter { $0.1 <= 2 }
        return scored.min { $0.1 < $1.1 }?.0
    }
}

/// Exit codes from sysexits.h, as the replay contract names them.
enum ExitStatus {
    static let dataError: Int32 = 65      // EX_DATAERR: a malformed or missing recording
    static let ioError: Int32 = 74        // EX_IOERR: the output could not be written
    static let unavailable: Int32 = 69    // EX_UNAVAILABLE: the daemon is not there
    static let noPermission: Int32 = 77   // EX_NOPERM: the daemon refused a control call
}

func printError(_ message: String) {
    var line = message
    line += "\n"
    line.withUTF8 { bytes in
        _ = write(2, bytes.baseAddress, bytes.count)
    }
}
