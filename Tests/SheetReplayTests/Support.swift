import Foundation
import SheetCore
import SheetRecordings
@testable import SheetReplay

/// The project's fixtures folder (tests run from a clone with no sibling folders).
let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

func trace(_ name: String) -> String { fixtures.appendingPathComponent("traces/\(name)").path }

/// One replayed line, decoded.
typealias Line = [String: Any]

struct ReplayRun {
    var text: String
    var lines: [Line]
    var warnings: [RecordingWarning]

    func kind(_ kind: String) -> [Line] { lines.filter { $0["kind"] as? String == kind } }
    func gestures(_ gesture: String, _ phase: String? = nil) -> [Line] {
        kind("gesture").filter { $0["gesture"] as? String == gesture && (phase == nil || $0["phase"] as? String == phase) }
    }
    var lastSheet: Line? { kind("sheet").last }
}

func options(policy: ReleaseRuleSet = .projection, initial: String = "half", touches: Bool = true,
             format: ReplayFormat = .json) -> ReplayOptions {
    var options = ReplayOptions()
    options.engine.sheet.ruleSet = policy
    options.engine.initialDetent = initial
    options.touches = touches
    options.format = format
    return options
}

func replay(path: String, _ options: ReplayOptions = options()) throws -> ReplayRun {
    let output = OutputBuffer()
    let result = try Replay.run(path: path, options: options, output: output)
    return decode(output, result.warnings)
}

func replay(_ recording: SyntheticRecording, yaml: Bool = false, _ options: ReplayOptions = options()) throws -> ReplayRun {
    let text = yaml ? recording.libinputRecord() : recording.evemu()
    let source = try Recording.open(bytes: Array(text.utf8), name: yaml ? "synthetic.yml" : "synthetic.evemu")
    let output = OutputBuffer()
    let result = try Replay.run(source: source, options: options, output: output)
    return decode(output, result.warnings)
}

private func decode(_ output: OutputBuffer, _ warnings: [RecordingWarning]) -> ReplayRun {
    let text = output.text
    let lines = text.split(separator: "\n").compactMap { line -> Line? in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? Line
    }
    return ReplayRun(text: text, lines: lines, warnings: warnings)
}

/// Writes `text` to a new file in a temporary folder and returns its path.
func temporaryFile(_ name: String, _ contents: [UInt8]) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sheetd-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent(name)
    try Data(contents).write(to: url)
    return url.path
}

func temporaryFile(_ name: String, _ text: String) throws -> String {
    try temporaryFile(name, Array(text.utf8))
}
