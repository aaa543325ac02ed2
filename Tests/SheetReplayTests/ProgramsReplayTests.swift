import Foundation
import SheetCore
import SheetProtocol
import SheetRecordings
@testable import SheetReplay

import Testing

/// `sheetctl replay --programs`: programs' calls made at their times through the daemon's
/// registry while a recording plays; the same script and recording, the same bytes.
@Suite struct ProgramsReplayTests {
    static let script = """
        # The navigation at expanded, the media player over it, a tap on Play, the media player gone.
        {"at": 0.2, "program": "navigation", "call": "OpenSheet", "parameters": {"title": "Navigation", "items": [{"id": "route", "label": "Route home"}], "detent": "expanded"}}
        {"at": 1.0, "program": "media", "call": "OpenSheet", "parameters": {"title": "Media", "items": [{"id": "play", "label": "Play"}]}}
        {"at": 1.2, "program": "navigation", "call": "SetContent", "parameters": {"title": "Mine", "sheet": "sheet-2"}}
        {"at": 2.5, "program": "media", "call": "HangUp"}
        """

    func run() throws -> ReplayRun {
        var replayOptions = options()
        replayOptions.programs = try ProgramScript(text: Self.script, path: "programs.jsonl")
        var recording = SyntheticRecording()
        // An empty report at 0 (the recording's clock starts at its first event), a tap on the
        // media player's first row (the card at half on 1080x1920: its list from 1016, rows 56
        // tall), then the clock runs on to 4 s.
        recording.report()
        recording.at(2.2)
        recording.tap(x: 300, y: 1040)
        recording.at(4.0)
        recording.report()
        return try replay(recording, replayOptions)
    }

    @Test func programsSheetsTakeTurnsAndTheTapReachesTheShownOne() throws {
        let run = try run()
        let calls = run.kind("call").map { "\($0["program"] as? String ?? "") \($0["call"] as? String ?? "") \($0["result"] as? String ?? "")" }
        #expect(calls == ["navigation OpenSheet sheet-1", "media OpenSheet sheet-2", "navigation SetContent NotOwner", "media HangUp done"])
        let taps = run.kind("event").filter { $0["event"] as? String == "item-tapped" }
        #expect(taps.count == 1 && taps.first?["item"] as? String == "play" && taps.first?["sheet"] as? String == "sheet-2", "\(taps)")
        let shown = run.kind("sheet").map { $0["sheet"] as? String ?? "shared" }
        var turns: [String] = []
        for sheet in shown where turns.last != sheet { turns.append(sheet) }
        #expect(turns == ["shared", "sheet-1", "sheet-2", "sheet-1"], "\(turns)")
        let last = try #require(run.lastSheet)
        #expect(last["detent"] as? String == "expanded" && last["stack"] as? [String] == ["sheet-1"], "the navigation's back where it rested")
    }

    /// A program that answers: its `on` line runs when it hears a person's tap on its sheet,
    /// and the tap on the new content says its revision; another program's line of the same
    /// event hears nothing.
    @Test func aProgramAnswersATapOnItsSheet() throws {
        var replayOptions = options()
        replayOptions.programs = try ProgramScript(text: """
            {"at": 1.0, "program": "media", "call": "OpenSheet", "parameters": {"title": "Track 1", "items": [{"id": "next", "label": "Next track"}]}}
            {"on": {"event": "item-tapped", "item": "next"}, "program": "media", "call": "SetContent", "parameters": {"title": "Track 2", "items": [{"id": "next", "label": "Next track"}, {"id": "back", "label": "Previous track"}]}}
            {"on": {"event": "item-tapped"}, "program": "navigation", "call": "Dismiss", "parameters": {"force": true}}
            {"at": 3.5, "program": "navigation", "call": "OpenSheet", "parameters": {"title": "Navigation"}}
            """, path: "answers.jsonl")
        var recording = SyntheticRecording()
        recording.report()
        recording.at(2.2)
        recording.tap(x: 300, y: 1040)
        recording.at(3.0)
        recording.tap(x: 300, y: 1040)
        recording.at(4.0)
        recording.report()
        let run = try replay(recording, replayOptions)
        let calls = run.kind("call").map { "\($0["program"] as? String ?? "") \($0["call"] as? String ?? "") \($0["result"] as? String ?? "")" }
        #expect(calls == ["media OpenSheet sheet-1", "media SetContent done", "media SetContent done", "navigation OpenSheet sheet-2"], "\(calls)")
        let taps = run.kind("event").filter { $0["event"] as? String == "item-tapped" }
        #expect(taps.map { $0["revision"] as? Int } == [1, 2], "\(taps)")
        #expect(taps.allSatisfy { $0["item"] as? String == "next" && $0["sheet"] as? String == "sheet-1" }, "\(taps)")
        let answered = run.kind("call").filter { $0["call"] as? String == "SetContent" }.map { $0["t"] as? Double }
        let tapped = taps.map { $0["t"] as? Double }
        #expect(answered.count == 2 && zip(answered, tapped).allSatisfy { ($0 ?? 0) >= ($1 ?? 1) }, "each answer after its tap: \(answered) \(tapped)")
        #expect(try replay(recording, replayOptions).text == run.text, "the same bytes each run")
    }

    @Test func theSameScriptAndRecordingGiveTheSameBytes() throws {
        #expect(try run().text == (try run().text))
    }

    @Test func aBadLineIsNamedByItsFileAndLine() {
        for (text, reason) in [("{\"at\": 1, \"program\": \"a\", \"call\": \"Launch\"}", "programs.jsonl:1: `call` wants OpenSheet"),
                               ("\n{\"at\": 2, \"program\": \"a\", \"call\": \"HangUp\"}\n{\"at\": 1, \"program\": \"a\", \"call\": \"HangUp\"}",
                                "programs.jsonl:3: calls must come in time order"),
                               ("{\"at\": -1}", "programs.jsonl:1: `at` wants seconds"),
                               ("{\"at\": 1, \"program\": \"a\", \"call\": \"OpenSheet\", \"parameters\": {\"layer\": \"top\"}}", "programs.jsonl:1: `layer` wants app or system"),
                               ("not json", "programs.jsonl:1: not JSON"),
                               ("{\"on\": {\"event\": \"tapped\"}, \"program\": \"a\", \"call\": \"HangUp\"}", "programs.jsonl:1: `on` wants"),
                               ("{\"on\": {\"event\": \"item-tapped\"}, \"at\": 1, \"program\": \"a\", \"call\": \"HangUp\"}",
                                "programs.jsonl:1: a line has `at` or `on`")] {
            #expect(throws: ProtocolError.self) { _ = try ProgramScript(text: text, path: "programs.jsonl") }
            do {
                _ = try ProgramScript(text: text, path: "programs.jsonl")
            } catch {
                #expect(error.reason.hasPrefix(reason), "\(error.reason)")
            }
        }
    }
}
