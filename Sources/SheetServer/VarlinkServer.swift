#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SheetProtocol
import SheetSystem
import Synchronization

/// Errors that stop the server from starting, naming the call and the path.
public enum ServerError: Error, CustomStringConvertible {
    case bind(path: String, reason: String)
    case adopt(descriptor: CInt, reason: String)
    case socketSetup(path: String, call: String, errno: Int32)
    /// Another process answers on the socket.
    case inUse(path: String, pid: pid_t)
    case notASocket(path: String)

    public var description: String {
        switch self {
        case .inUse(let path, let pid): "\(path) is in use: process \(pid) answers on it (another sheetd?); stop it or choose another --socket"
        case .notASocket(let path): "\(path) exists and is not a socket; it is left alone"
        case .bind(let path, let reason): "cannot listen on \(path): \(reason)"
        case .adopt(let descriptor, let reason): "cannot use the socket passed as fd \(descriptor): \(reason)"
        case .socketSetup(let path, let call, let code): "\(call) on \(path): \(String(cString: strerror(code)))"
        }
    }
}

/// The varlink server of `io.sheetd.Sheet` on a Unix stream socket, and of `io.sheetd.Input`
/// on another.
///
/// One event loop serves every client. `publish(_:)` is called by one thread at a time (the
/// engine's): it encodes the update once and writes it to each subscriber whose socket has
/// room itself; only a subscriber whose socket is full goes through the loop, which keeps its
/// gestures and content events, conflates its states and drops it when it has taken nothing
/// for `stallTimeout` (`MonitorRoutes`). Input never waits for a client.
public final class VarlinkServer: @unchecked Sendable {
    /// Read and changed (`update(limits:)`) on the event loop only, after `start`.
    public private(set) var configuration: ServerConfiguration
    let logger: Logger
    let delegate: SheetServiceDelegate
    let group: MultiThreadedEventLoopGroup
    let eventLoop: EventLoop

    // Touched on the event loop only.
    private var listeners: [Channel] = []
    private var connections: [ObjectIdentifier: VarlinkConnection] = [:]
    private var connectionsByUser: [uid_t: Int] = [:]
    /// The sockets this server bound, by device and inode: removed at stop only if each is
    /// still that socket (another daemon may have replaced it since).
    private var createdSockets: [(path: String, device: UInt64, inode: UInt64)] = []
    private(set) var controlGroup: gid_t = 0
    private(set) var controlGroupName = ""
    /// The group whose members read every sheet (`mayReadEverything`): the configuration's,
    /// else `sheetd-render` where the system has it.
    private(set) var renderGroup: gid_t?
    private(set) var inputGroup: gid_t = 0
    private(set) var inputGroupName = ""
    /// Numbers connections, for the devices they own.
    private var nextConnectionNumber: UInt64 = 0
    /// The programs connected, each one process's connections: the owners of sheets.
    var programs = ProgramTable()
    /// `GetInterfaceDescription` replies, encoded once.
    let descriptionReplies: [String: ByteBuffer]
    /// Each interface's methods and the parameters they take, read from the descriptions
    /// served: a call with another parameter is answered `InvalidParameter` naming it.
    let methodParameters: [String: [String: Set<String>]]
    /// `{"parameters":{}}`, encoded once: writing it shares its storage.
    let emptyReply: ByteBuffer

    /// The subscribers as the publishing thread reaches them, and the newest update.
    let routes = NIOLockedValueBox(MonitorRoutes())
    /// `routes.routes.count` as last set under its lock, for the publishing thread to skip
    /// the encoding when nobody subscribes without taking the lock on every update.
    let routeCount = Atomic<Int>(0)
    /// `routes.routes.count { $0.pacer != nil }` as last set under its lock: with none, the
    /// publishing thread asks nothing of pacing, and takes no lock for it, frame after frame.
    let pacedRouteCount = Atomic<Int>(0)
    /// States a slow subscriber's queue replaced with a newer one, in all.
    private let conflatedStates = Atomic<Int>(0)
    /// The publishing thread's encoder: a writer whose storage every update reuses, and the
    /// bytes of the settled part of the last state written (`SettledBytes`).
    let encoder = NIOLockedValueBox(Encoder())

    struct Encoder {
        var writer = JSONWriter(capacity: 2048)
        var settled = SettledBytes()
    }
    private let counts = NIOLockedValueBox<(connections: Int, subscribers: Int, dropped: Int)>((0, 0, 0))

    public init(configuration: ServerConfiguration, delegate: SheetServiceDelegate, logger: Logger) {
        self.configuration = configuration
        self.delegate = delegate
        self.logger = logger
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.eventLoop = group.next()
        var replies: [String: ByteBuffer] = [:]
        var parameters: [String: [String: Set<String>]] = [:]
        for (name, text) in [(SheetInterface.name, SheetInterface.description), (SheetInterface.serviceName, SheetInterface.serviceDescription),
                             (InputInterface.name, InputInterface.description)] {
            let bytes = VarlinkReply.encode(continues: false, capacity: text.utf8.count + 64) { $0.append(.object(["description": .string(text)])) }
            var buffer = ByteBufferAllocator().buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            replies[name] = buffer
            parameters[name] = VarlinkMethods.parameters(in: text)
        }
        descriptionReplies = replies
        methodParameters = parameters
        let empty = VarlinkReply.encode(continues: false, capacity: 24) { $0.append(.object([:])) }
        var buffer = ByteBufferAllocator().buffer(capacity: empty.count)
        buffer.writeBytes(empty)
        emptyReply = buffer
    }

    /// Serves a channel that is not one of the socket's (an `EmbeddedChannel` in tests and
    /// fuzzing) as a connection from `peer`. Call on the channel's event loop, before it is active.
    public func serve(_ channel: Channel, as peer: PeerCredentials, endpoint: Endpoint = .sheet) throws {
        try channel.pipeline.syncOperations.addHandler(VarlinkConnection(server: self, channel: channel, endpoint: endpoint, peer: peer))
    }

    /// The socket a connection came on, which says what it may call.
    public enum Endpoint: Sendable {
        /// `io.sheetd.Sheet`: the state, Monitor, control calls.
        case sheet
        /// `io.sheetd.Input`: devices that programs feed.
        case input

        /// The interfaces served on it, `GetInfo`'s list.
        var interfaces: [String] {
            switch self {
            case .sheet: [SheetInterface.serviceName, SheetInterface.name]
            case .input: [SheetInterface.serviceName, InputInterface.name]
            }
        }
    }

    /// Applies new limits (a reload) to connections from now on; those over a new limit stay.
    public func update(limits: ServerConfiguration) {
        eventLoop.execute { [self] in
            configuration.maximumConnections = limits.maximumConnections
            configuration.maximumConnectionsPerUser = limits.maximumConnectionsPerUser
            configuration.stallTimeout = limits.stallTimeout
            configuration.idleTimeout = limits.idleTimeout
        }
    }

    /// Connections and subscribers now, and subscribers dropped for stalling so far.
    public var statistics: (connections: Int, subscribers: Int, dropped: Int) { counts.withLockedValue { $0 } }

    /// Binds (or adopts) the sockets and starts accepting. Each socket's file is set up, and
    /// the group its calls are checked against is known, before its first connection is taken:
    /// a client waiting for the daemon (a renderer following a restart) connects the instant
    /// the socket exists.
    public func start() async throws {
        let sheet = try openSocket(path: configuration.socketPath, inherited: configuration.inheritedDescriptor,
                                   group: configuration.socketGroup)
        (controlGroup, controlGroupName) = Self.group(configuration.controlGroup, ofSocket: sheet.path)
        renderGroup = configuration.renderGroup ?? getgrnam("sheetd-render").map { $0.pointee.gr_gid }
        try await accept(on: sheet, endpoint: .sheet)
        if configuration.inputInheritedDescriptor != nil || configuration.inputSocketPath != nil {
            // The sheet works without plugins: an input socket that cannot be had is an error
            // in the log, not a daemon that does not start.
            do {
                let input = try openSocket(path: configuration.inputSocketPath ?? "",
                                           inherited: configuration.inputInheritedDescriptor, group: configuration.inputSocketGroup)
                (inputGroup, inputGroupName) = Self.group(configuration.inputGroup, ofSocket: input.path)
                try await accept(on: input, endpoint: .input)
            } catch {
                logger.error("io.sheetd.Input is not served: \(error)")
            }
        }
    }

    /// The group named, or else the socket file's, or else the process's; with its name.
    private static func group(_ configured: gid_t?, ofSocket path: String) -> (gid_t, String) {
        var info = stat()
        let group = configured ?? (stat(path, &info) == 0 ? info.st_gid : getegid())
        return (group, getgrgid(group).map { String(cString: $0.pointee.gr_name) } ?? "\(group)")
    }

    /// A listening socket, not yet accepting: the descriptor the service manager passed
    /// (with the path it is bound to), or a new one bound at `path`, given its group and mode.
    private struct Listening {
        var descriptor: CInt
        var path: String
        var inherited: Bool
    }

    private func openSocket(path: String, inherited: CInt?, group: gid_t?) throws -> Listening {
        if let descriptor = inherited {
            return Listening(descriptor: descriptor, path: Self.boundPath(of: descriptor) ?? path, inherited: true)
        }
        try Self.prepareDirectory(of: path)
        try Self.claim(path)
        // Bound here rather than by NIO, which removes a path it bound when it closes,
        // whoever's socket the path names by then.
        let descriptor = try Self.listen(at: path)
        var info = stat()
        if stat(path, &info) == 0 { createdSockets.append((path, UInt64(info.st_dev), UInt64(info.st_ino))) }
        if let group, chown(path, uid_t.max, group) != 0 {
            let code = errno
            close(descriptor)
            throw ServerError.socketSetup(path: path, call: "chown", errno: code)
        }
        if chmod(path, configuration.socketMode) != 0 {
            let code = errno
            close(descriptor)
            throw ServerError.socketSetup(path: path, call: "chmod", errno: code)
        }
        return Listening(descriptor: descriptor, path: path, inherited: false)
    }

    /// The path a listening Unix socket is bound to; nil for an unnamed or abstract one.
    private static func boundPath(of descriptor: CInt) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let path = withUnsafeBytes(of: address.sun_path) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return path.isEmpty ? nil : path
    }

    /// Starts accepting connections for `endpoint` on a socket `openSocket` made ready.
    private func accept(on socket: Listening, endpoint: Endpoint) async throws {
        let bootstrap = ServerBootstrap(group: self.group)
            .serverChannelOption(.backlog, value: 128)
            .childChannelOption(.writeBufferWaterMark,
                                value: .init(low: configuration.writeBufferHighWaterMark / 2,
                                             high: configuration.writeBufferHighWaterMark))
            // One read of at most 8 KiB a loop turn: a client's backlog stays in the kernel,
            // so one that floods is answered a read's worth of calls and then the loop polls
            // everyone else (calls queued from one read are answered within the same turn).
            .childChannelOption(.maxMessagesPerRead, value: 1)
            // A client may shut its side down after its calls (`printf CALL | socat`): the
            // calls it sent are still answered (VarlinkConnection closes once they are).
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 8192))
            .childChannelInitializer { [unowned self] channel in
                channel.eventLoop.makeCompletedFuture {
                    let connection = VarlinkConnection(server: self, channel: channel, endpoint: endpoint)
                    try channel.pipeline.syncOperations.addHandler(connection)
                }
            }
        do {
            listeners.append(try await bootstrap.withBoundSocket(socket.descriptor).get())
        } catch {
            if socket.inherited { throw ServerError.adopt(descriptor: socket.descriptor, reason: "\(error)") }
            close(socket.descriptor)
            throw ServerError.bind(path: socket.path, reason: "\(error)")
        }
    }

    /// A listening socket bound to `path`.
    static func listen(at path: String) throws -> CInt {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw ServerError.socketSetup(path: path, call: "socket", errno: errno) }
        var address = try socketAddress(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(descriptor, 128) == 0 else {
            let code = errno
            close(descriptor)
            throw ServerError.bind(path: path, reason: String(cString: strerror(code)))
        }
        return descriptor
    }

    static func socketAddress(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { throw ServerError.bind(path: path, reason: "longer than \(capacity - 1) bytes") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        return address
    }

    /// Makes way for a new socket at `path`: refuses when a process answers on the socket
    /// there (naming it, through SO_PEERCRED), removes one nobody answers on (left by a
    /// daemon that was killed), and leaves anything that is not a socket alone.
    static func claim(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw ServerError.notASocket(path: path) }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { throw ServerError.socketSetup(path: path, call: "socket", errno: errno) }
        defer { close(probe) }
        var address = try socketAddress(path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if connected == 0 {
            var credentials = KernelPeerCredentials()
            var length = socklen_t(MemoryLayout<KernelPeerCredentials>.size)
            _ = getsockopt(probe, SOL_SOCKET, SO_PEERCRED, &credentials, &length)
            throw ServerError.inUse(path: path, pid: credentials.pid)
        }
        guard errno == ECONNREFUSED else { throw ServerError.socketSetup(path: path, call: "connect", errno: errno) }
        if unlink(path) != 0 && errno != ENOENT { throw ServerError.socketSetup(path: path, call: "unlink", errno: errno) }
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
            for listener in listeners { futures.append(listener.close().recover { _ in }) }
            for connection in connections.values { futures.append(connection.channel.close().recover { _ in }) }
            return EventLoopFuture.andAllComplete(futures, on: eventLoop)
        }
        try? await closed.get()
        for created in createdSockets {
            var info = stat()
            if stat(created.path, &info) == 0, UInt64(info.st_dev) == created.device, UInt64(info.st_ino) == created.inode {
                unlink(created.path)
            }
        }
        try? await group.shutdownGracefully()
    }

    // MARK: Bookkeeping (event loop)

    /// Admits a connection, or says why not and which limit it met.
    func connectionOpened(_ connection: VarlinkConnection) -> (reason: String, limit: Int)? {
        guard connections.count < configuration.maximumConnections else {
            return ("\(configuration.maximumConnections) connections already open", configuration.maximumConnections)
        }
        let uid = connection.peer?.uid ?? uid_t.max
        let perUser = configuration.connectionsPerUser
        guard connectionsByUser[uid, default: 0] < perUser else {
            return ("uid \(uid) holds \(perUser) connections already, its share", perUser)
        }
        connectionsByUser[uid, default: 0] += 1
        connections[ObjectIdentifier(connection)] = connection
        counts.withLockedValue { $0.connections = connections.count }
        return nil
    }

    /// A number for a new connection, never reused.
    func connectionNumber() -> UInt64 {
        nextConnectionNumber += 1
        return nextConnectionNumber
    }

    /// The last connection of `program`, which held sheets, has closed: its sheets close, and
    /// the events held for it go.
    func programGone(_ program: UInt64) {
        routes.withLockedValue { $0.held.forget(program) }
        delegate.programGone(program)
    }

    func connectionClosed(_ connection: VarlinkConnection) {
        let uid = connection.peer?.uid ?? uid_t.max
        if let held = connectionsByUser[uid] { connectionsByUser[uid] = held > 1 ? held - 1 : nil }
        connections[ObjectIdentifier(connection)] = nil
        let subscribers = routes.withLockedValue { routes in
            routes.remove(connection)
            routeCount.store(routes.routes.count, ordering: .relaxed)
            pacedRouteCount.store(routes.routes.count { $0.pacer != nil }, ordering: .relaxed)
            return routes.routes.count
        }
        counts.withLockedValue { $0.connections = connections.count; $0.subscribers = subscribers }
    }

    /// Adds a subscriber, routed through the loop until its first reply (the newest state,
    /// without the gesture and content events that happened before it subscribed: offered
    /// again, a tap would be acted on twice; but with the events of its program's sheets that
    /// no connection of its program has heard, `HeldEvents`) is written. When the states published before it
    /// came were skipped (`skip`), the newest kept is stale: the daemon is asked for the state
    /// as it is now, which reaches the subscriber as its first reply.
    func subscribe(_ connection: VarlinkConnection, pacer: MonitorPacer? = nil) {
        let descriptor = connection.socketCookie.map(MonitorRoutes.duplicateSocket(cookie:)) ?? -1
        let (subscribers, reply, refresh, dropped) = routes.withLockedValue { routes -> (Int, ByteBuffer?, Bool, Int) in
            let held: ([SheetEvent], Int) = routes.follows(connection.program) ? ([], 0) : routes.held.take(connection.program)
            let newest = routes.newest()
            routes.routes.append(MonitorRoutes.Route(connection: connection, descriptor: descriptor,
                                                     from: (newest?.sequence ?? 0) + 1, pacer: pacer))
            routeCount.store(routes.routes.count, ordering: .relaxed)
            pacedRouteCount.store(routes.routes.count { $0.pacer != nil }, ordering: .relaxed)
            // Held events go at once, with the newest state known (a newer follows when states
            // were skipped): each carries the sheet and content revision it happened on.
            if routes.skipped && held.0.isEmpty { return (routes.routes.count, nil, true, 0) }
            guard var update = newest else { return (routes.routes.count, nil, false, held.1) }
            var buffer = ByteBufferAllocator().buffer(capacity: routes.latestBytes.count)
            if routes.latestEncoded, update.gesture == nil, update.events.isEmpty, held.0.isEmpty {
                buffer.writeBytes(routes.latestBytes)
            } else {
                update.gesture = nil
                update.events = held.0
                buffer.writeBytes(VarlinkReply.encode(continues: true, capacity: 1280) { update.writeParameters(to: &$0) })
            }
            return (routes.routes.count, buffer, routes.skipped, held.1)
        }
        if dropped > 0 {
            logger.warning("\(connection.who): \(dropped) event(s) of its sheets dropped while it followed none (\(HeldEvents.perSheet) a sheet held)")
        }
        counts.withLockedValue { $0.subscribers = subscribers }
        if let reply { connection.offer(reply) }
        if refresh { delegate.refreshState {} }
    }

    func stateConflated() {
        conflatedStates.add(1, ordering: .relaxed)
    }

    /// What the server counts, into the daemon's `GetStats`.
    public func addServerStats(to stats: inout DaemonStats) {
        let (connections, subscribers, dropped) = statistics
        stats.connections = connections
        stats.subscribers = subscribers
        stats.subscribersDropped = dropped
        stats.statesConflated = conflatedStates.load(ordering: .relaxed)
    }

    func subscriberDropped() {
        counts.withLockedValue { $0.dropped += 1 }
    }

    var currentUpdate: MonitorUpdate? { routes.withLockedValue { $0.newest() } }

    /// Root, the daemon's own user, and the control group may change the sheet: the group as
    /// the peer's primary or supplementary group when it connected.
    func mayControl(_ peer: PeerCredentials?) -> Bool {
        guard let peer else { return false }
        return peer.uid == 0 || peer.uid == geteuid() || peer.gid == controlGroup || peer.groups.contains(controlGroup)
    }

    /// Root, the daemon's own user, and the render group (`sheetd-render`, the group the
    /// renderer units run in) read every program's sheet: its events, as they draw whatever
    /// is shown. Any other connection hears the events of its own sheets alone.
    func mayReadEverything(_ peer: PeerCredentials?) -> Bool {
        guard let peer else { return false }
        return peer.uid == 0 || peer.uid == geteuid()
            || renderGroup.map { peer.gid == $0 || peer.groups.contains($0) } ?? false
    }

    /// Root, the daemon's own user, and the input group may feed touches.
    func mayFeed(_ peer: PeerCredentials?) -> Bool {
        guard let peer else { return false }
        return peer.uid == 0 || peer.uid == geteuid() || peer.gid == inputGroup || peer.groups.contains(inputGroup)
    }
}
