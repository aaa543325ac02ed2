#if canImport(Glibc)
import Glibc
#endif
import SheetProtocol
import SheetSystem

/// Follows the sheet for a renderer: subscribes with `Monitor`, and when the daemon goes away
/// (a restart, an upgrade, a crash) waits for its socket to come back and subscribes again.
///
/// It never blocks anywhere but in `next`, which waits on the socket, on the caller's own
/// descriptors (a display's page-flip events, a signalfd) and, while the daemon is away, on
/// inotify for the socket's folder with a retry timer beside it (a socket that systemd holds
/// never disappears, and a folder may not exist yet). Single-threaded; not Sendable.
public final class SheetSubscription {
    public enum Event: Equatable {
        /// Connected. Calls made now on another connection (`SetScreen`) land before the first
        /// update, which is the current state.
        case connected
        case update(MonitorUpdate)
        /// The daemon went away or cannot be reached; the subscription keeps trying. Reported
        /// once per outage.
        case disconnected(ClientError)
        /// One of the caller's descriptors is readable.
        case readable(Int32)
        case timedOut
    }

    private enum Phase {
        /// Waiting for the daemon; `reported` once `.disconnected` has been handed out.
        case away(reported: Bool)
        /// Connected, `Monitor` not yet sent.
        case connected(VarlinkClientConnection)
        case following(VarlinkClientConnection)
    }

    public let path: String
    /// How long to wait between attempts when no inotify event comes first.
    public let retryMilliseconds: Int32
    private var phase: Phase = .away(reported: false)
    private let folderWatch: SocketFolderWatch
    private var nextAttempt: Int64 = 0

    /// At most this many states a second (`Monitor(maxRate:)`); nil: every state.
    public let maxRate: Int?

    public init(path: String = SheetClient.defaultSocketPath, retryMilliseconds: Int32 = 1000, maxRate: Int? = nil) {
        precondition(retryMilliseconds > 0, "a retry interval must be positive")
        self.path = path
        self.maxRate = maxRate
        self.retryMilliseconds = retryMilliseconds
        folderWatch = SocketFolderWatch(path: path)
    }

    /// Whether a `Monitor` stream is open.
    public var isFollowing: Bool {
        if case .following = phase { return true }
        return false
    }

    /// Whether `next` can return an update without waiting (a renderer that is behind draws
    /// only the newest).
    public var hasBufferedUpdate: Bool {
        if case .following(let connection) = phase { return connection.hasBufferedReply }
        return false
    }

    /// The next thing that happens, waiting at most `timeoutMilliseconds` (-1: for ever) and
    /// watching `descriptors` as well. Throws only for a reply that is not a Monitor update (a
    /// daemon speaking another protocol), which retrying would not mend.
    public func next(watching descriptors: [Int32] = [], timeoutMilliseconds: Int32 = -1) throws(ClientError) -> Event {
        let deadline = timeoutMilliseconds < 0 ? Int64.max : VarlinkClientConnection.nowMilliseconds() + Int64(timeoutMilliseconds)
        while true {
            switch phase {
            case .connected(let connection):
                do {
                    try connection.send(SheetInterface.monitorCall(maxRate: maxRate))
                    phase = .following(connection)
                } catch {
                    return lost(error)
                }
                continue
            case .following(let connection):
                if let reply = try connection.bufferedReply() {
                    if let error = reply.error { throw .remote(name: error, parameters: reply.parameters) }
                    do {
                        return .update(try MonitorUpdate(json: reply.parameters))
                    } catch {
                        throw .badReply(path: path, reason: error.reason)
                    }
                }
            case .away(let reported):
                let now = VarlinkClientConnection.nowMilliseconds()
                if now >= nextAttempt {
                    nextAttempt = now + Int64(retryMilliseconds)
                    do {
                        let connection = try VarlinkClientConnection(path: path)
                        folderWatch.stop()
                        phase = .connected(connection)
                        return .connected
                    } catch {
                        folderWatch.start()
                        if !reported {
                            phase = .away(reported: true)
                            return .disconnected(error)
                        }
                    }
                }
            }

            // Nothing to hand out yet: wait.
            var polled = descriptors.map { pollfd.readable($0) }
            var waitUntil = deadline
            switch phase {
            case .following(let connection):
                polled.append(pollfd.readable(connection.fileDescriptor))
            case .away:
                if folderWatch.isWatching {
                    polled.append(pollfd.readable(folderWatch.descriptor))
                }
                waitUntil = min(waitUntil, nextAttempt)
            case .connected:
                continue
            }
            let remaining = waitUntil == Int64.max ? -1 : Int32(clamping: max(0, waitUntil - VarlinkClientConnection.nowMilliseconds()))
            let count = poll(&polled, nfds_t(polled.count), remaining)
            if count < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, call: "poll", reason: String(cString: strerror(errno)))
            }
            for (index, descriptor) in descriptors.enumerated() where polled[index].revents != 0 {
                return .readable(descriptor)
            }
            if let last = polled.last, last.revents != 0, polled.count > descriptors.count {
                switch phase {
                case .following(let connection):
                    do { try connection.receive() } catch { return lost(error) }
                case .away:
                    folderWatch.drain()
                    // Something happened in the folder: try now rather than at the timer.
                    nextAttempt = 0
                case .connected:
                    break
                }
                continue
            }
            if count == 0 && VarlinkClientConnection.nowMilliseconds() >= deadline { return .timedOut }
        }
    }

    /// Closes the stream and waits before the next attempt (for a caller that wants to start
    /// over, as after a display change).
    public func disconnect() {
        phase = .away(reported: true)
        nextAttempt = VarlinkClientConnection.nowMilliseconds() + Int64(retryMilliseconds)
    }

    private func lost(_ error: ClientError) -> Event {
        phase = .away(reported: true)
        // The daemon is going away right now: its socket may still be there for a moment, so
        // watch the folder and let the timer or a new socket decide the next attempt.
        nextAttempt = VarlinkClientConnection.nowMilliseconds() + Int64(retryMilliseconds)
        folderWatch.start()
        return .disconnected(error)
    }
}
