import Foundation
@_exported import SheetTestSupport
import SheetCore
import SheetRecordings
@testable import SheetReplay


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

func options(policy: ReleaseRuleSet = .projection, initial: DetentName = "half", touches: Bool = true,
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

