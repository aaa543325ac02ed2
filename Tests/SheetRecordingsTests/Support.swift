import Foundation
@testable import SheetRecordings

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

func trace(_ name: String) -> String { fixtures.appendingPathComponent("traces/\(name)").path }

func temporaryFile(_ name: String, _ contents: [UInt8]) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sheetd-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent(name)
    try Data(contents).write(to: url)
    return url.path
}

func temporaryFile(_ name: String, _ text: String) throws -> String { try temporaryFile(name, Array(text.utf8)) }

/// Reads every event; returns them with the source's warnings.
func readAll(_ path: String) throws -> (events: [KernelEvent], source: KernelEventSource) {
    let source = try Recording.open(path)
    var events: [KernelEvent] = []
    while let event = try source.next() { events.append(event) }
    return (events, source)
}

/// The error that reading `path` to its end throws, if any.
func readError(_ path: String) -> RecordingError? {
    do {
        _ = try readAll(path)
        return nil
    } catch let error as RecordingError {
        return error
    } catch {
        return RecordingError(file: "?", line: nil, reason: "unexpected \(error)")
    }
}
