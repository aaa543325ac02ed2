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
        // The programs' user reads a copy: the clone may be private (in /root, mode 700).
        let copy = try PythonClientTests.readableCopy(["Tests/SheetServerTests/python_programs_client.py", "Tests/SheetServerTests/programs_support.py", "clients/python/sheetd"])
        let script = copy.appendingPathComponent("Tests/SheetServerTests/python_programs_client.py").path
        let programs = try LineReadingProcess(URL(fileURLWithPath: "/usr/bin/setpriv"),
                                              ["--reuid=65534", "--regid=65534", "--groups=100", "/usr/bin/python3", script, daemon.socketPath],
                                              environment: ["PYTHONPATH": copy.appendingPathComponent("clients/python").path, "HOME": "/"])
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
        // Presented once shown (held for the program if its Monitor came later), then the tap;
        // each with the content's revision.
        let heard = try open.lines(2)
        #expect(heard == [#"{"event":"presented","sheet":"sheet-1","revision":1,"cause":"control"}"#,
                          #"{"event":"item-tapped","sheet":"sheet-1","revision":1,"item":"ok"}"#], "\(open.errors)")
        open.process.waitUntilExit()
        #expect(open.process.terminationStatus == 0, "\(open.errors)")
        #expect(daemon.stop() == 0)
    }

    /// Acceptance of programs that answer, over raw varlink: a program opens a sheet on one
    /// connection and taps an item of it (`Focus(activate)`) before it follows anything; its
    /// `Monitor` on a second connection starts with that tap (held for it), which carries
    /// the sheet and the content's revision; its `SetContent` on the first connection while
    /// the second streams is answered, and a state with the new revision follows.
    @Test func aProgramHearsATapOnOneConnectionAndAnswersOnAnother() throws {
        let daemon = try RunningDaemon(["--input", "none", "--screen", "540x960"])
        let caller = try VarlinkClientConnection(path: daemon.socketPath, timeoutSeconds: 30)
        func call(_ method: String, _ parameters: [String: JSONValue]) throws -> JSONValue {
            try caller.call(VarlinkCall(method: "io.sheetd.Sheet.\(method)", parameters: .object(parameters)))
        }
        let items: JSONValue = .array([.object(["id": .string("play"), "label": .string("Pause")]),
                                       .object(["id": .string("next"), "label": .string("Next track")])])
        let opened = try call("OpenSheet", ["title": .string("Track 1"), "items": items])
        let sheet = try #require(opened["sheet"]?.stringValue)
        // Shown and at rest, asked by calls alone: no Monitor of this program is open yet.
        while true {
            let state = try SheetState(json: try call("GetState", [:])["state"] ?? .null)
            if state.sheet == sheet && state.isIdle { break }
        }
        let revision = try #require(try call("GetContent", ["sheet": .string(sheet)])["revision"]?.intValue)
        _ = try call("Focus", ["element": .string("next"), "command": .string("activate"), "sheet": .string(sheet)])

        let follower = try VarlinkClientConnection(path: daemon.socketPath, timeoutSeconds: 30)
        try follower.send(SheetInterface.monitorCall(maxRate: nil))
        let first = try MonitorUpdate(json: try follower.readReply().parameters)
        let tap = try #require(first.events.first { $0.kind == .itemTapped }, "the tap made before following: \(first.events)")
        #expect(tap.item == "next" && tap.sheet == sheet && tap.revision == revision, "\(tap)")

        // The answer, on the first connection while the second streams.
        _ = try call("SetContent", ["title": .string("Track 2"), "sheet": .string(sheet)])
        let answered = try call("GetContent", ["sheet": .string(sheet)])
        #expect(answered["content"]?["title"]?.stringValue == "Track 2")
        let newRevision = try #require(answered["revision"]?.intValue)
        #expect(newRevision > revision)
        var update = first
        while !(update.state.sheet == sheet && update.state.list?.revision == newRevision) {
            update = try MonitorUpdate(json: try follower.readReply().parameters)
        }
        // A tap on the new content says so.
        _ = try call("Focus", ["element": .string("next"), "command": .string("activate"), "sheet": .string(sheet)])
        var next: SheetEvent?
        while next == nil {
            next = try MonitorUpdate(json: try follower.readReply().parameters).events.first { $0.kind == .itemTapped }
        }
        #expect(next?.revision == newRevision, "\(String(describing: next))")
        #expect(daemon.stop() == 0)
    }

    /// The Swift client's `OwnedSheet`: its events followed on a connection of their own (the
    /// tap made before following among them), each answered with its calls meanwhile.
    @Test func theSwiftClientsOwnedSheetAnswersWhileItFollows() throws {
        let daemon = try RunningDaemon(["--input", "none", "--screen", "540x960"])
        let client = try SheetClient(path: daemon.socketPath, timeoutSeconds: 30)
        let sheet = try client.open(ContentChange(title: "Track 1", items: [SheetItem(id: "next", label: "Next track")]))
        while !(try client.state().sheet == sheet.sheet && client.state().isIdle) {}
        try sheet.focus("next", command: .activate)
        var titles: [String] = []
        try sheet.events { event, _ in
            guard event.kind == .itemTapped else { return true }
            titles.append("Track \(titles.count + 2)")
            try sheet.setContent(ContentChange(title: titles.last))
            guard titles.count < 2 else { return false }
            try sheet.focus("next", command: .activate)
            return true
        }
        #expect(titles == ["Track 2", "Track 3"])
        #expect(try sheet.content().content.title == "Track 3")
        try sheet.close()
        #expect(daemon.stop() == 0)
    }

    /// `sheetctl open --on-tap`: a shell script's sheet that answers. The command runs with the
    /// item's id; the content it prints becomes the sheet's; a command that fails changes
    /// nothing and is said.
    @Test func sheetctlOpenOnTapRunsTheCommandAndShowsWhatItPrints() throws {
        let daemon = try RunningDaemon(["--input", "none", "--screen", "540x960"])
        let script = #"case "$1" in next) printf '{"title":"Track 2","items":[{"id":"next","label":"Next track"},{"id":"fail","label":"Fail"}]}' ;; fail) echo failing >&2; exit 3 ;; esac"#
        let open = try LineReadingProcess(builtExecutable("sheetctl"),
                                          ["open", "--socket", daemon.socketPath, "--title", "Track 1", "--item", "next=Next track",
                                           "--item", "fail=Fail", "--on-tap", script], environment: [:])
        let opened = try open.lines(1)
        #expect(opened == [#"{"opened":"sheet-1"}"#], "\(open.errors)")
        try Self.wait(for: daemon) { $0.sheet == "sheet-1" && $0.isIdle }
        let person = try daemon.client()
        try person.focus("next", command: .activate)
        // The tap printed, then the content the command printed shown.
        let heard = try open.lines(2)
        #expect(heard.last == #"{"event":"item-tapped","sheet":"sheet-1","revision":1,"item":"next"}"#, "\(heard) \(open.errors)")
        var answered = try person.contentOfSheet("sheet-1")
        while answered.content.title != "Track 2" { answered = try person.contentOfSheet("sheet-1") }
        #expect(answered.content.items.map(\.label) == ["Next track", "Fail"])
        try person.focus("fail", command: .activate)
        // Taps are answered in order: once the next one is printed, the failed one was said.
        try person.focus("next", command: .activate)
        let later = try open.lines(2)
        #expect(later.first?.contains(#""item":"fail""#) == true && later.last?.contains(#""item":"next""#) == true, "\(later)")
        #expect(open.errors.contains("sheetctl open: --on-tap: the command ended with status 3 on fail; the sheet is as it was"), "\(open.errors)")
        #expect(try person.contentOfSheet("sheet-1").content.title == "Track 2")
        // The test's threads block SIGTERM, and a process it starts inherits the mask.
        kill(open.process.processIdentifier, SIGKILL)
        open.process.waitUntilExit()
        #expect(daemon.stop() == 0)
    }

    /// `sheetctl open` of the README's ticket with examples/on-tap.sh answering its taps, once
    /// it said its sheet and the sheet is shown.
    static func openTicket(on daemon: RunningDaemon) throws -> LineReadingProcess {
        let script = PythonClientTests.root.appendingPathComponent("examples/on-tap.sh").path
        let open = try LineReadingProcess(builtExecutable("sheetctl"),
                                          ["open", "--socket", daemon.socketPath, "--title", "Ticket", "--item", "ok=OK", "--on-tap", script],
                                          environment: [:])
        #expect(try open.lines(1) == [#"{"opened":"sheet-1"}"#], "\(open.errors)")
        try wait(for: daemon) { $0.sheet == "sheet-1" && $0.isIdle }
        return open
    }

    /// examples/on-tap.sh, as the README runs it: a tap on OK shows the ticket printed.
    @Test func theOnTapExampleAnswersTheTicket() throws {
        let daemon = try RunningDaemon(["--input", "none", "--screen", "540x960"])
        let open = try Self.openTicket(on: daemon)
        let person = try daemon.client()
        try person.focus("ok", command: .activate)
        _ = try open.lines(2)
        var answered = try person.contentOfSheet("sheet-1").content
        while answered.title != "Ticket printed" { answered = try person.contentOfSheet("sheet-1").content }
        #expect(answered.items.map(\.id) == ["again", "done"], "\(answered)")
        kill(open.process.processIdentifier, SIGKILL)
        open.process.waitUntilExit()
        #expect(daemon.stop() == 0)
    }

    /// `sheetctl open --on-tap` left running: after a daemon restart, the sheet is
    /// opened again on the new daemon with the content the command last printed, said once,
    /// and its taps are answered there as before.
    @Test func sheetctlOpenOnTapGoesOnAfterARestart() throws {
        let arguments = ["--input", "none", "--screen", "540x960", "--client-idle-timeout", "0.3"]
        var daemon = try RunningDaemon(arguments)
        let open = try Self.openTicket(on: daemon)
        try daemon.client().focus("ok", command: .activate)
        _ = try open.lines(2)  // the presentation and the tap
        var answered = try daemon.client().contentOfSheet("sheet-1").content
        while answered.title != "Ticket printed" { answered = try daemon.client().contentOfSheet("sheet-1").content }
        // A restart (a program that holds a sheet is never idle): the sheet back with the answer
        // it last showed.
        #expect(daemon.stop() == 0)
        daemon = try RunningDaemon(arguments, socketPath: daemon.socketPath)
        #expect(try open.lines(1) == [#"{"opened":"sheet-1"}"#], "\(open.errors)")
        let back = try Self.wait(for: daemon) { $0.sheet == "sheet-1" && $0.isIdle }
        #expect(try daemon.client().contentOfSheet(back.sheet).content.title == "Ticket printed")
        #expect(open.errors.contains("the daemon went; opening the sheet again on the next one"), "\(open.errors)")
        try daemon.client().focus("again", command: .activate)
        var heard = try open.lines(1)
        while heard.last?.contains(#""item":"again""#) != true { heard += try open.lines(1) }
        answered = try daemon.client().contentOfSheet("sheet-1").content
        while answered.title != "Ticket" { answered = try daemon.client().contentOfSheet("sheet-1").content }
        #expect(answered.items.map(\.id) == ["ok"])
        kill(open.process.processIdentifier, SIGKILL)
        open.process.waitUntilExit()
        #expect(daemon.stop() == 0)
    }

    /// A sheet is its process's, not its pid's: a process given the pid of the one that opened
    /// it (which handed its connection to a child and exited) is another program; it and
    /// another user get `NotOwner` and hear nothing of it; the child holding the opener's
    /// connection still acts on it, and when it hangs up the sheet goes
    /// (python_owner_client.py, run as root: it sets the next pid).
    @Test func aReusedPidIsNotTheOwner() throws {
        guard geteuid() == 0, access("/proc/sys/kernel/ns_last_pid", W_OK) == 0 else {
            print("skipped: giving a process a chosen pid needs root and a writable /proc/sys/kernel/ns_last_pid")
            return
        }
        let daemon = try RunningDaemon(["--input", "none", "--screen", "540x960", "--socket-group", "users"])
        chmod(daemon.folder.path, 0o755)
        let copy = try PythonClientTests.readableCopy(["Tests/SheetServerTests/python_owner_client.py", "Tests/SheetServerTests/programs_support.py", "clients/python/sheetd"])
        let run = try LineReadingProcess(URL(fileURLWithPath: "/usr/bin/python3"),
                                         [copy.appendingPathComponent("Tests/SheetServerTests/python_owner_client.py").path, daemon.socketPath],
                                         environment: ["PYTHONPATH": copy.appendingPathComponent("clients/python").path])
        var said: [String] = []
        while said.last != "done" && !(said.last ?? "").hasPrefix("FAILED") {
            said += try run.lines(1)
        }
        for check in ["a-exits", "b-has-a-pid", "b-first-state-has-nothing-of-a", "b-not-owner-set-content", "b-not-owner-get-content",
                      "b-not-owner-close", "b-lists-nothing", "the-person-tapped", "b-hears-nothing-of-the-tap", "c-not-owner",
                      "g-acted", "g-content-shown", "a-gone-sheet-gone"] {
            #expect(said.contains("ok \(check)"), "\(check): \(said)\n\(run.errors)\n\(daemon.log)")
        }
        run.process.waitUntilExit()
        #expect(run.process.terminationStatus == 0, "\(run.errors)")
        #expect(daemon.stop() == 0)
    }
}
