/// A recording that cannot be read, with the file and line to look at.
/// Printed as `FILE:LINE: reason` (or `FILE: reason` when no line applies).
public struct RecordingError: Error, Equatable, CustomStringConvertible, Sendable {
    public var file: String
    public var line: Int?
    public var reason: String

    public init(file: String, line: Int?, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String {
        if let line { return "\(file):\(line): \(reason)" }
        return "\(file): \(reason)"
    }
}

/// Something odd that did not stop the replay (a recording cut short, an ignored device).
public struct RecordingWarning: Equatable, CustomStringConvertible, Sendable {
    public var file: String
    public var line: Int?
    public var message: String

    public init(file: String, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        if let line { return "\(file):\(line): warning: \(message)" }
        return "\(file): warning: \(message)"
    }
}
