import Foundation
import Glibc
import SheetClient
import SheetCore
import SheetProtocol
import SheetTestSupport
import Testing

/// Several programs on one panel (`OpenSheet`): each owns its sheets, a stack decides which is
/// shown, and what a person does reaches only the owner. The programs are real connections of
/// the Python client (python_programs_client.py) run as an unprivileged user in the socket's
/// group, as programs are; the person is a root connection, as a renderer passing a screen
/// reader's click is.
@Suite(.serialized) struct ProgramsTests {
    @Test func programsOwnTheirSheetsAndHearOnlyTheirOwnEvents() throws {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            print("skipped: running the programs as another user needs root and setpriv")
            return
        }
        let daemon = try RunningDaemon(["--input", "none", "--screen", "540x960", "--socket-group", "users"])
        chmod(daemon.folder.path, 0o755)
        let script = PythonClientTests.root.appendingPathComponent("Tests/SheetServerTests/python_programs_client.py").path
        let programs = try LineReadingProcess(URL(fileURLWithPath: "/usr/bin/setpriv"),
                                              ["--reuid=65534", "--regid=65534", "--groups=100", "/usr/bin/python3", script, daemon.socketPath],
                                              environment: ["PYTHONPATH": PythonClientTests.pythonPath, "HOME": "/"])
        var said: [String] = []
        while said.last != "person" && !(said.last ?? "").hasPrefix("FAILED") {
            said += try programs.lines(1)
        }
        #expect(said.last == "person", "\(said)\n\(programs.errors)\n\(daemon.log)")
        // A person taps B's item through a screen reader: a renderer's Focus, on the sheet shown.
        try daemon.client().focus("play", command: .activate)
        while said.last != "done" && !(said.last ?? "").hasPrefix("FAILED") {
            said += try programs.lines(1)
        }
        #expect(!said.contains { $0.hasPrefix("FAILED") }, "\(said)\n\(programs.errors)\n\(daemon.log)")
        for check in ["a-lists-its-own", "tap-reaches-b", "a-hears-nothing-of-b", "a-back", "a-never-read-Media", "system-over-app", "app-after-system"] {
            #expect(said.contains("ok \(check)"), "\(check): \(said)")
        }
        programs.process.waitUntilExit()
        #expect(programs.process.terminationStatus == 0, "\(programs.errors)")
        // Every program gone, its sheets with it: the shared sheet is shown again, at rest.
        let state = try Self.wait(for: daemon) { $0.sheet == nil && $0.stack.isEmpty && $0.isIdle }
        #expect(state.detent == .half, "the shared sheet where it rested: \(state)")
        #expect(daemon.stop() == 0)
    }

    /// A reload while a program's sheet is shown reaches the shared sheet waiting beneath: it
    /// comes back with the new detents.
    @Test func aReloadReachesTheSheetsThatWait() throws {
        let file = try temporaryFile("sheetd.yaml", "log-level: info\n")
        let daemon = try RunningDaemon(["--input", "none", "--screen", "540x960", "--config", file])
        let program = try daemon.client()
        let sheet = try program.openSheet(ContentChange(title: "Media"))
        try Self.wait(for: daemon) { $0.sheet == sheet && $0.isIdle }
        try "detents: [peek=85%]\nlog-level: info\n".write(toFile: file, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        try daemon.waitForStatus { $0.hasPrefix("STATUS=reloaded") || $0 == "READY=1" }
        try program.closeSheet(sheet)
        let shared = try Self.wait(for: daemon) { $0.sheet == nil && $0.isIdle }
        #expect(shared.detents.contains { $0.name == "peek" }, "\(shared.detents)")
        #expect(daemon.stop() == 0)
    }

    /// `sheetctl replay --programs`: a file read up to its limit, a missing one named.
    @Test func aProgramsFileIsHeldToItsLimit() throws {
        let recording = PythonClientTests.root.appendingPathComponent("examples/reorder.evemu").path
        let endless = try runTool("sheetctl", ["replay", recording, "--programs", "/dev/zero"])
        #expect(endless.status == 64 && endless.stderr.contains("--programs: /dev/zero: cannot be read (/dev/zero: larger than 16 MiB"), "\(endless)")
        let missing = try runTool("sheetctl", ["replay", recording, "--programs", "/nonexistent/programs.jsonl"])
        #expect(missing.status == 64 && missing.stderr.contains("--programs: /nonexistent/programs.jsonl: no such file"), "\(missing)")
    }

    /// Reads the daemon's states until one meets `condition`, and returns it.
    @discardableResult
    static func wait(for daemon: RunningDaemon, until condition: (SheetState) -> Bool) throws -> SheetState {
        let watching = SheetSubscription(path: daemon.socketPath)
        defer { watching.disconnect() }
        while true {
            guard case .update(let update) = try watching.next(timeoutMilliseconds: 10_000) else { continue }
            if condition(update.state) { return update.state }
        }
    }

    /// `sheetctl open`: a shell script's sheet, held while the command runs, its events printed;
    /// `--until-tapped` ends it at the first tap, and the sheet goes with it.
    @Test func sheetctlOpenHoldsASheetAndPrintsItsTap() throws {
        let daemon = try RunningDaemon(["--input", "none", "--screen", "540x960"])
        let open = try LineReadingProcess(builtExecutable("sheetctl"),
                                          ["open", "--socket", daemon.socketPath, "--title", "Ticket", "--item", "ok=OK", "--item", "no=Cancel",
                                           "--layer", "system", "--until-tapped"], environment: [:])
        let opened = try open.lines(1)
        #expect(opened == [#"{"opened":"sheet-1"}"#], "\(open.errors)")
        // The shared sheet goes down first; then the new one is shown.
        try Self.wait(for: daemon) { $0.sheet == "sheet-1" }
        let listed = try runProcess(builtExecutable("sheetctl"), ["sheets", "--socket", daemon.socketPath])
        #expect(listed.stdout.hasPrefix("sheet-1  system  shown  pid ") && listed.stdout.contains(" sheetctl\n"), "\(listed)")
        try daemon.client().focus("ok", command: .activate)
        // Presented once shown (heard when its Monitor was in by then: it is, but for a loaded
        // machine), then the tap.
        var heard = try open.lines(1)
        if heard == [#"{"event":"presented","sheet":"sheet-1","cause":"control"}"#] { heard = try open.lines(1) }
        #expect(heard == [#"{"event":"item-tapped","sheet":"sheet-1","item":"ok"}"#], "\(open.errors)")
        open.process.waitUntilExit()
        #expect(open.process.terminationStatus == 0, "\(open.errors)")
        #expect(daemon.stop() == 0)
    }
}
