#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization

/// Log lines on standard error, one per call. Under systemd (`$JOURNAL_STREAM` set) each line
/// starts with its syslog priority (`<4>`), which the journal reads as the message's level.
struct DaemonLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    let label: String
    let journal: Bool
    static let lock = Mutex(())

    init(label: String, level: Logger.Level, journal: Bool) {
        self.label = label
        self.logLevel = level
        self.journal = journal
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line: String
        if journal {
            let priority = switch event.level {
            case .trace, .debug: 7
            case .info: 6
            case .notice: 5
            case .warning: 4
            case .error: 3
            case .critical: 2
            }
            line = "<\(priority)>\(event.message)"
        } else {
            line = "\(label): \(event.level): \(event.message)"
        }
        line += "\n"
        Self.lock.withLock { _ in
            line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
        }
    }
}
