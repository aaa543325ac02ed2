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
        subcommands: [WatchCommand.self, StateCommand.self, PresentCommand.self, DismissCommand.self,
                      DetentCommand.self, ContentCommand.self, DevicesCommand.self, DoctorCommand.self, ReplayCommand.self])
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
