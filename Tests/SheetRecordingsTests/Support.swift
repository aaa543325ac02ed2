import Foundation
@_exported import SheetTestSupport
@testable import SheetRecordings


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
