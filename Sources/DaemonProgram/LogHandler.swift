#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization

/// Log lines on standard error, one per call. Under systemd (`$JOURNAL_STREAM` set) each line
/// starts with its syslog priority (`<4>`), which the journal reads as the message's level.
/// One level for every logger of the process, so that a reload changes it everywhere.
struct DaemonLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    let label: String
    let journal: Bool
    static let lock = Mutex(())
    /// Index of the level in `Logger.Level.allCases`.
    private static let level = Atomic<Int>(Logger.Level.allCases.firstIndex(of: .info)!)

    init(label: String, journal: Bool) {
        self.label = label
        self.journal = journal
    }

    static func setLevel(_ level: Logger.Level) {
        Self.level.store(Logger.Level.allCases.firstIndex(of: level)!, ordering: .relaxed)
    }

    var logLevel: Logger.Level {
        get { Logger.Level.allCases[Self.level.load(ordering: .relaxed)] }
        set { Self.setLevel(newValue) }
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
