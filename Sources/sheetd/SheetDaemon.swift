import ArgumentParser
import Logging
import SheetCore

/// The daemon. For now it has no input backend and no socket: it says so and exits, so that
/// nobody mistakes it for a working service. Recordings run through the same core with
/// `sheetctl replay`.
@main
struct SheetDaemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sheetd",
        abstract: "The sheetd touch-gesture daemon (input backends and the varlink socket are not built yet).",
        version: "0.1.0")

    func run() async throws {
        let logger = Logger(label: "sheetd")
        logger.error("sheetd has no input backend yet; run recordings through the core with `sheetctl replay FILE`")
        throw ExitCode(69)  // EX_UNAVAILABLE
    }
}
