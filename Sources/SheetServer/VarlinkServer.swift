#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SheetProtocol

/// Errors that stop the server from starting, naming the call and the path.
public enum ServerError: Error, CustomStringConvertible {
    case bind(path: String, reason: String)
    case adopt(descriptor: CInt, reason: String)
    case socketSetup(path: String, call: String, errno: Int32)

    public var description: String {
        switch self {
        case .bind(let path, let reason): "cannot listen on \(path): \(reason)"
        case .adopt(let descriptor, let reason): "cannot use the socket passed as fd \(descriptor): \(reason)"
        case .socketSetup(let path, let call, let code): "\(call) on \(path): \(String(cString: strerror(code)))"
        }
    }
}

/// The varlink server of `io.sheetd.Sheet` on a Unix stream socket.
///
/// One event loop serves every client. `publish(_:)` may be called from any thread: it encodes
/// the update once and hands it to the loop; a state the loop has not taken yet is replaced by
/// a newer one, unless it carries a gesture (a tap, a pan's end or cancel is an event, not a
/// state), so a burst of states never queues more than one hop plus its gestures. Each subscriber gets the same bytes; one whose socket is full keeps only
/// the newest update (conflation) and is dropped when it has taken nothing for
/// `stallTimeout`. Input never waits for a client.
public final class VarlinkServer: @unchecked Sendable {
    public let configuration: ServerConfiguration
    let logger: Logger
    let delegate: SheetServiceDelegate
    let group: MultiThreadedEventLoopGroup
    let eventLoop: EventLoop

    // Touched on the event loop only.
    private var listener: Channel?
    private var connections: [ObjectIdentifier: VarlinkConnection] = [:]
    private var subscribers: [ObjectIdentifier: VarlinkConnection] = [:]
    private var latestUpdate: MonitorUpdate?
    private var latestReply: ByteBuffer?
    private var createdSocketPath: String?
    private(set) var controlGroup: gid_t = 0

    /// Updates not yet taken by the loop (the newest, and older ones that carry a gesture), and
    /// whether a hop to take them is scheduled.
    private let handoff = NIOLockedValueBox<(updates: [(MonitorUpdate, [UInt8])], scheduled: Bool)>(([], false))
    /// Gestures kept across a hop the loop has not taken, at most; beyond, the oldest go.
    static let handoffLimit = 64
    private let counts = NIOLockedValueBox<(connections: Int, subscribers: Int, dropped: Int)>((0, 0, 0))

    public init(configuration: ServerConfiguration, delegate: SheetServiceDelegate, logger: Logger) {
        self.configuration = configuration
        self.delegate = delegate
        self.logger = logger
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.eventLoop = group.next()
    }

    /// Connections and subscribers now, and subscribers dropped for stalling so far.
    public var statistics: (connections: Int, subscribers: Int, dropped: Int) { counts.withLockedValue { $0 } }

    /// Binds (or adopts) the socket and starts accepting.
    public func start() async throws {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 128)
            .childChannelOption(.writeBufferWaterMark,
                                value: .init(low: configuration.writeBufferHighWaterMark / 2,
                                             high: configuration.writeBufferHighWaterMark))
            .childChannelOption(.maxMessagesPerRead, value: 4)
            .childChannelInitializer { [unowned self] channel in
                channel.eventLoop.makeCompletedFuture {
                    let connection = VarlinkConnection(server: self, channel: channel)
                    try channel.pipeline.syncOperations.addHandler(connection)
                }
            }
        let path = configuration.socketPath
        if let descriptor = configuration.inheritedDescriptor {
            do {
                listener = try await bootstrap.withBoundSocket(descriptor).get()
            } catch {
                throw ServerError.adopt(descriptor: descriptor, reason: "\(error)")
            }
        } else {
            try Self.prepareDirectory(of: path)
            do {
                listener = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).get()
            } catch {
                throw ServerError.bind(path: path, reason: "\(error)")
            }
            createdSocketPath = path
            if let group = configuration.socketGroup, chown(path, uid_t.max, group) != 0 {
                throw ServerError.socketSetup(path: path, call: "chown", errno: errno)
            }
            if chmod(path, configuration.socketMode) != 0 {
                throw ServerError.socketSetup(path: path, call: "chmod", errno: errno)
            }
        }
        var info = stat()
        if let group = configuration.controlGroup {
            controlGroup = group
        } else if stat(path, &info) == 0 {
            controlGroup = info.st_gid
        } else {
            controlGroup = getegid()
        }
    }

    /// Creates the socket's folder if it is missing (0755, as `RuntimeDirectory=` would).
    static func prepareDirectory(of path: String) throws {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let folder = String(path[..<slash])
        var info = stat()
        if stat(folder, &info) == 0 { return }
        if mkdir(folder, 0o755) != 0 && errno != EEXIST {
            throw ServerError.socketSetup(path: folder, call: "mkdir", errno: errno)
        }
    }

    /// Stops accepting, closes every connection, removes a socket it created.
    public func shutdown() async {
        let closed: EventLoopFuture<Void> = eventLoop.flatSubmit { [self] in
            var futures: [EventLoopFuture<Void>] = []
            if let listener { futures.append(listener.close().recover { _ in }) }
            for connection in connections.values { futures.append(connection.channel.close().recover { _ in }) }
            return EventLoopFuture.andAllComplete(futures, on: eventLoop)
        }
        try? await closed.get()
        if let path = createdSocketPath { unlink(path) }
        try? await group.shutdownGracefully()
    }

    // MARK: Publishing (any thread)

    /// Makes `update` the state that `GetState` returns and sends it to every subscriber.
    public func publish(_ update: MonitorUpdate) {
        // A state is about 600 bytes; a list's moving parts and events add to it.
        let capacity = 640 + (update.state.list == nil ? 0 : 640) + update.events.count * 256
        let bytes = VarlinkReply.encode(continues: true, capacity: capacity) { update.writeParameters(to: &$0) }
        let mustHop = handoff.withLockedValue { box -> Bool in
            if let last = box.updates.last, last.0.gesture == nil, last.0.events.isEmpty {
                box.updates[box.updates.count - 1] = (update, bytes)
            } else {
                if box.updates.count == Self.handoffLimit {
                    // Far behind: drop the oldest state that carries no content event.
                    box.updates.remove(at: box.updates.firstIndex { $0.0.events.isEmpty } ?? 0)
                }
                box.updates.append((update, bytes))
            }
            defer { box.scheduled = true }
            return !box.scheduled
        }
        if mustHop { eventLoop.execute { self.takeHandoff() } }
    }

    private func takeHandoff() {
        let updates = handoff.withLockedValue { box -> [(MonitorUpdate, [UInt8])] in
            box.scheduled = false
            defer { box.updates.removeAll(keepingCapacity: true) }
            return box.updates
        }
        for (update, bytes) in updates {
            latestUpdate = update
            var buffer = ByteBufferAllocator().buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            latestReply = buffer
            let keep = !update.events.isEmpty
            for subscriber in subscribers.values { subscriber.offer(buffer, keep: keep) }
        }
    }

    // MARK: Bookkeeping (event loop)

    func connectionOpened(_ connection: VarlinkConnection) -> Bool {
        guard connections.count < configuration.maximumConnections else { return false }
        connections[ObjectIdentifier(connection)] = connection
        counts.withLockedValue { $0.connections = connections.count }
        return true
    }

    func connectionClosed(_ connection: VarlinkConnection) {
        connections[ObjectIdentifier(connection)] = nil
        subscribers[ObjectIdentifier(connection)] = nil
        counts.withLockedValue { $0.connections = connections.count; $0.subscribers = subscribers.count }
    }

    func subscribe(_ connection: VarlinkConnection) {
        subscribers[ObjectIdentifier(connection)] = connection
        counts.withLockedValue { $0.subscribers = subscribers.count }
        if let latestReply { connection.offer(latestReply) }
    }

    func subscriberDropped() {
        counts.withLockedValue { $0.dropped += 1 }
    }

    var currentUpdate: MonitorUpdate? { latestUpdate }

    /// Root, the daemon's own user, and the control group may change the sheet.
    func mayControl(_ peer: PeerCredentials?) -> Bool {
        guard let peer else { return false }
        if peer.uid == 0 || peer.uid == geteuid() || peer.gid == controlGroup { return true }
        if Self.supplementaryGroups(of: peer.pid).contains(controlGroup) { return true }
        // /proc of another user is hidden under ProtectProc=invisible: fall back to the group
        // database's member list.
        return Self.isListedMember(uid: peer.uid, of: controlGroup)
    }

    static func isListedMember(uid: uid_t, of gid: gid_t) -> Bool {
        guard let user = getpwuid(uid), let group = getgrgid(gid), var member = group.pointee.gr_mem else { return false }
        let name = String(cString: user.pointee.pw_name)
        while let entry = member.pointee {
            if String(cString: entry) == name { return true }
            member += 1
        }
        return false
    }

    /// The `Groups:` line of /proc/PID/status: the peer's supplementary groups.
    static func supplementaryGroups(of pid: pid_t) -> [gid_t] {
        let descriptor = open("/proc/\(pid)/status", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 8192)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return [] }
        let text = String(decoding: bytes[..<count], as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("Groups:") {
            return line.dropFirst("Groups:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { gid_t($0) }
        }
        return []
    }
}
