import Foundation
import Testing

/// `sheetctl replay` as a user runs it: exit codes and messages.
@Suite struct CommandLineTests {
    static let sheetctl: URL = {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("sheetctl")
    }()

    struct Outcome { var status: Int32; var stdout: String; var stderr: String }

    func run(_ arguments: [String]) throws -> Outcome {
        let process = Process()
        process.executableURL = Self.sheetctl
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                       stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CommandLineTests.sheetctl.path)))
    func replayPrintsTheContractAndTheSameBytesTwice() throws {
        let file = trace("ts-atmel-maxtouch.1-finger-fast-taps.evemu")
        let first = try run(["replay", file, "--touches"])
        let second = try run(["replay", file, "--touches"])
        #expect(first.status == 0)
        #expect(first.stdout == second.stdout)
        #expect(first.stdout.hasPrefix("{\"kind\":\"device\",\"name\":\"Atmel maXTouch Touchscreen\",\"type\":\"touchscreen\",\"slots\":10"))
        #expect(first.stderr.isEmpty)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CommandLineTests.sheetctl.path)))
    func badRecordingsExitSixtyFiveWithFileAndLine() throws {
        let missing = try run(["replay", "/nonexistent/recording.yml"])
        #expect(missing.status == 65)
        #expect(missing.stderr == "/nonexistent/recording.yml: cannot open: No such file or directory\n")

        let garbage = try temporaryFile("garbage.evemu", "# EVEMU 1.3\nN: x\nI: 0018 0000 0000 0000\nA: 35 0 10 0 0 0\nA: 36 0 10 0 0 0\nE: what\n")
        let result = try run(["replay", garbage])
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("\(garbage):6: expected an event"))

        let binary = try temporaryFile("binary.yml", [0, 1, 2, 3, 0xff])
        let binaryResult = try run(["replay", binary])
        #expect(binaryResult.status == 65)
        #expect(binaryResult.stderr.hasPrefix("\(binary):1: binary data"))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CommandLineTests.sheetctl.path)))
    func badFlagsExitSixtyFour() throws {
        let file = trace("ts-atmel-maxtouch.1-finger-fast-taps.evemu")
        #expect(try run(["replay", file, "--policy", "magic"]).status == 64)
        #expect(try run(["replay", file, "--screen", "big"]).status == 64)
        #expect(try run(["replay", file, "--initial", "nowhere"]).status == 64)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CommandLineTests.sheetctl.path)))
    func summaryIsOneLineAfterTheDevice() throws {
        let result = try run(["replay", trace("ts-atmel-maxtouch.1-finger-fast-taps.evemu"), "--summary"])
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[1].hasPrefix("{\"kind\":\"summary\",\"frames\":18,\"touches\":9,\"gestures\":{\"tap\":9,"))
    }
}
