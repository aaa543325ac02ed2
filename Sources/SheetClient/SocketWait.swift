#if canImport(Glibc)
import Glibc
import SheetSystem
#endif

/// Watches the folder of a socket for the socket appearing (created, moved in, or its mode or
/// owner changed), so a client waiting for a daemon tries again at once instead of at its next
/// retry. A folder that does not exist yet cannot be watched: `start` then does nothing and
/// the caller's retry timer covers it. Single-threaded.
final class SocketFolderWatch {
    let path: String
    /// The inotify descriptor to poll while watching, else -1.
    private(set) var descriptor: Int32 = -1
    private(set) var isWatching = false

    init(path: String) { self.path = path }

    deinit { stop() }

    /// The folder the socket is in: `/run/sheetd` for `/run/sheetd/io.sheetd.Sheet`.
    var folder: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return path[..<slash].isEmpty ? "/" : String(path[..<slash])
    }

    func start() {
        if descriptor < 0 {
            descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            if descriptor < 0 { return }
        }
        if isWatching { return }
        isWatching = inotify_add_watch(descriptor, folder, UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB)) >= 0
    }

    func stop() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        isWatching = false
    }

    /// Reads the pending notifications; what they name does not matter, only that something
    /// happened in the folder.
    func drain() {
        guard descriptor >= 0 else { return }
        var scratch = [UInt8](repeating: 0, count: 4096)
        while scratch.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }
}

extension VarlinkClientConnection {
    /// Connects to `path`, waiting up to `seconds` (nil: for ever) while the socket does not
    /// exist yet or nobody listens on it yet (a daemon that is starting). Any other failure,
    /// such as a permission the caller lacks, is thrown at once; after the wait, the last
    /// failure. Waits on inotify for the socket's folder with a retry every
    /// `retryMilliseconds` beside it, since a socket is bound before it listens.
    public static func waitingConnection(path: String, waitingUpTo seconds: Double?, retryMilliseconds: Int32 = 50,
                               timeoutSeconds: Double? = nil) throws(ClientError) -> VarlinkClientConnection {
        let start = Self.nowMilliseconds()
        let deadline = seconds.map { start + Int64(min(max($0, 0), 86_400 * 365) * 1000) } ?? Int64.max
        let watch = SocketFolderWatch(path: path)
        while true {
            var failure: Int32 = 0
            do {
                return try VarlinkClientConnection(path: path, timeoutSeconds: timeoutSeconds, failure: &failure)
            } catch {
                // No socket yet, or one bound and not yet listening (or left by a daemon that
                // is gone): waiting can mend these, and nothing else.
                guard failure == ENOENT || failure == ECONNREFUSED else { throw error }
                let now = Self.nowMilliseconds()
                if now >= deadline { throw error }
                watch.start()
                var polled = [pollfd.readable(watch.descriptor)]
                let wait = Int32(clamping: min(Int64(retryMilliseconds), deadline - now))
                if poll(&polled, watch.isWatching ? 1 : 0, wait) > 0 { watch.drain() }
            }
        }
    }

    static func nowMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}
