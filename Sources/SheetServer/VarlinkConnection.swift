#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import SheetCore
import SheetProtocol
import SheetSystem
import Synchronization

/// SO_PEERPIDFD (asm-generic/socket.h, Linux 6.5): a pidfd of the process that connected.
let SO_PEERPIDFD: Int32 = 77

/// SO_PEERGROUPS (asm-generic/socket.h): the peer's supplementary groups as they were when
/// it connected, sorted ascending by the kernel.
let SO_PEERGROUPS: Int32 = 59
/// Room for this many groups; a peer in more gets none counted (NGROUPS_MAX is 65536, a
/// desktop user has a dozen).
typealias KernelPeerGroups = InlineArray<256, gid_t>

/// One client: splits its bytes into NUL-terminated calls, answers them in order, and, once it
/// called `Monitor`, streams updates to it.
///
/// Varlink pipelines but does not multiplex: replies leave in the order the calls came. A
/// control call waits for the daemon, so calls behind it wait in `queued`.
final class VarlinkConnection: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    unowned let server: VarlinkServer
    let channel: Channel
    let endpoint: VarlinkServer.Endpoint
    /// Unique for the server's life: the owner of the input devices this connection opens.
    var number: UInt64 = 0
    /// The program it is (`ProgramTable`): the owner of the sheets it opens, shared by every
    /// connection of the same process.
    private(set) var program: UInt64 = 0
    /// Input devices this connection has open; while it has any it is never idle (a finger
    /// resting on a device sends nothing).
    var openDevices = 0
    private(set) var handlerContext: ChannelHandlerContext?
    private var inbound = ByteBuffer()
    /// Calls read but not yet answered: at most `maximumQueuedCalls` and about
    /// `maximumMessageBytes` in all; beyond, the connection is not read until they are.
    private var queued = CircularBuffer<[UInt8]>(initialCapacity: 4)
    private var queuedBytes = 0
    /// Arrays of calls answered, whose storage the next calls reuse.
    private var spareMessages: [[UInt8]] = []
    static let spareMessageCount = 4
    static let spareMessageBytes = 4096
    var waitingForDaemon = false
    /// The input call the daemon has (at most one: the connection reads no further call
    /// until it is answered), and whether it closes a device.
    var inputWaiting: (call: VarlinkCall, closes: Bool)?
    /// The daemon's answer to it, set on the daemon's thread, taken on the connection's loop.
    let inputResult = Mutex<InputResult?>(nil)
    private var drainScheduled = false
    /// Whether the socket is being read (`autoRead`).
    private var reading = true
    private(set) var peer: PeerCredentials?
    var isSubscriber = false
    /// It opened a sheet (`OpenSheet`): it is waited for, never idle, while it is open.
    var ownsSheets = false
    /// A renderer (root, the daemon's user, the render group): it hears every sheet's events.
    private(set) var readsEverything = false

    /// Whether it hears the events of the sheets the program `audience` owns.
    func hears(_ audience: UInt64) -> Bool { readsEverything || program == audience }
    private var closing = false
    /// The client shut its side down: answer what it sent, then close.
    private var inputClosed = false
    /// Counted in the server's connections (and its user's share).
    private(set) var admitted = false
    /// When the last call came (or the connection did), for the idle timeout.
    private var lastCall = NIODeadline.now()
    var idleTimer: Scheduled<Void>?
    /// Updates waiting for the socket: those with content events are all kept (a client
    /// never loses an event); of the others only the newest is.
    private var pendingUpdates: [ByteBuffer] = []
    private var lastPendingConflatable = false
    /// Event-carrying updates a subscriber may fall behind by before it is dropped.
    static let maximumPendingEventUpdates = 1024
    private var stallTimer: Scheduled<Void>?
    private var conflated = 0
    /// Updates the loop has handed to the channel and the socket has not taken yet.
    private var updatesInFlight = 0

    /// `peer`: who is on the other end when the channel is not a socket that can say so.
    init(server: VarlinkServer, channel: Channel, endpoint: VarlinkServer.Endpoint, peer: PeerCredentials? = nil) {
        self.server = server
        self.channel = channel
        self.endpoint = endpoint
        self.peer = peer
    }

    var logger: Logger { server.logger }
    var who: String { peer.map { "client \($0)" } ?? "client (credentials unknown)" }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) { handlerContext = context }
    func handlerRemoved(context: ChannelHandlerContext) { handlerContext = nil }

    func channelActive(context: ChannelHandlerContext) {
        var process: ProgramTable.Process?
        var pidfd: CInt = -1
        if let credentials = Self.credentials(of: channel) {
            peer = credentials
            pidfd = Self.socketOption(SO_PEERPIDFD, of: channel) ?? -1
            process = ProgramTable.process(credentials.pid, pidfd: pidfd)
        }
        if let refusal = server.connectionOpened(self) {
            if pidfd >= 0 { close(pidfd) }
            logger.warning("\(who): refused, \(refusal.reason)")
            finish(with: VarlinkReply.error(VarlinkErrorName.tooManyConnections, .object(["limit": .number(Double(refusal.limit))])),
                   context: context)
            return
        }
        admitted = true
        number = server.connectionNumber()
        program = server.programs.join(process, pidfd: pidfd)
        readsEverything = server.mayReadEverything(peer)
        logger.debug("\(who): connected")
        armIdleTimer()
        context.fireChannelActive()
    }

    /// Who connected, with the groups it had then: taken once, never looked up by pid later
    /// (a pid can be reused by another process before a call comes).
    static func credentials(of channel: Channel) -> PeerCredentials? {
        guard let credentials: KernelPeerCredentials = socketOption(SO_PEERCRED, of: channel) else { return nil }
        var peer = PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid, groups: [])
        if let groups: KernelPeerGroups = socketOption(SO_PEERGROUPS, of: channel) {
            // The list is sorted and the buffer zero-filled past it: the groups are the
            // non-zero entries (the root group, 0, is not told apart from the filling).
            for index in groups.indices where groups[index] != 0 { peer.groups.append(groups[index]) }
        }
        return peer
    }

    /// The SOL_SOCKET option `name` of the channel's socket; nil when the channel is not a
    /// socket or the kernel refuses. Call on the channel's loop, where the option is read at
    /// once and the future is complete.
    static func socketOption<Value: Sendable>(_ name: Int32, of channel: Channel) -> Value? {
        guard let provider = channel as? SocketOptionProvider else { return nil }
        var value: Value?
        provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(name))
            .assumeIsolated().whenSuccess { (read: Value) in value = read }
        return value
    }

    func channelInactive(context: ChannelHandlerContext) {
        if idleTimer != nil || stallTimer != nil {
            // swift-nio's epoll selector arms its timerfd for the earliest deadline it was asked
            // for and never disarms it when that task is cancelled: the timers cancelled here
            // would still wake the event loop once, at their old deadline (a daemon at rest
            // woke 10 s after each client's last call). A task a millisecond away takes the
            // timerfd over (one already due would not: the loop polls for it instead), so that
            // the loop's last wake for this client is now, and the timerfd is left armed only
            // for what is still pending.
            context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(1)) {}
        }
        stallTimer?.cancel()
        idleTimer?.cancel()
        if admitted {
            server.connectionClosed(self)
            if server.programs.leave(program) {
                logger.notice("\(who): its program's last connection gone; its sheets close")
                server.programGone(program)
            }
        }
        ownsSheets = false
        if openDevices > 0 {
            logger.notice("\(who): gone with \(openDevices) input device(s) open; closing them")
            server.delegate.inputConnectionClosed(number)
            openDevices = 0
        }
        logger.debug("\(who): disconnected")
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case .some(.inputClosed) = event as? ChannelEvent else {
            return context.fireUserInboundEventTriggered(event)
        }
        inputClosed = true
        // A subscriber that hangs up is gone (nothing more can come from it, and its slot
        // would stay taken until the next update failed to reach it).
        if isSubscriber {
            closing = true
            return context.close(promise: nil)
        }
        closeIfAnswered(context: context)
    }

    /// After the client shut its side down: closes once every call it sent has its reply
    /// (written in order, so the close waits for the last of them).
    private func closeIfAnswered(context: ChannelHandlerContext) {
        guard inputClosed, !closing, !isSubscriber, !waitingForDaemon, queued.isEmpty else { return }
        closing = true
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(capacity: 0))).whenComplete { _ in channel.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        logger.debug("\(who): \(error); closing")
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        guard !closing else { return }
        if isSubscriber { return }  // a Monitor call is the last on its connection; the rest is ignored
        inbound.writeBuffer(&bytes)
        guard takeCalls(context: context) else { return }
        drain(context: context)
    }

    /// Moves whole calls from the bytes read into the queue while it has room. False when the
    /// client sent a message longer than the limit (it is answered and closed).
    private func takeCalls(context: ChannelHandlerContext) -> Bool {
        let limit = server.configuration.maximumMessageBytes
        while queued.count < server.configuration.maximumQueuedCalls, queuedBytes < limit,
              let nul = inbound.readableBytesView.firstIndex(of: 0) {
            let length = nul - inbound.readerIndex
            guard length <= limit else { break }
            var message = spareMessages.popLast() ?? []
            inbound.readWithUnsafeReadableBytes { bytes in
                message.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[..<length]))
                return length
            }
            queued.append(message)
            queuedBytes += length
            inbound.moveReaderIndex(forwardBy: 1)
        }
        if inbound.readableBytes > limit, inbound.readableBytesView.prefix(limit + 1).firstIndex(of: 0) == nil {
            logger.warning("\(who): a message longer than \(limit) bytes; closing")
            finish(with: VarlinkReply.error(VarlinkErrorName.invalidMessage,
                                            .object(["reason": .string("a message longer than \(limit) bytes")])),
                   context: context)
            return false
        }
        inbound.discardReadBytes()
        return true
    }

    /// Reads the socket only while this client takes its replies and its queue has room:
    /// what it sends beyond waits in the kernel, not in the daemon.
    private func updateReading() {
        let wanted = isSubscriber
            || (channel.isWritable && queued.count < server.configuration.maximumQueuedCalls
                && queuedBytes < server.configuration.maximumMessageBytes)
        guard wanted != reading, !closing else { return }
        reading = wanted
        channel.setOption(.autoRead, value: wanted).whenFailure { _ in }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if channel.isWritable {
            stallTimer?.cancel()
            stallTimer = nil
            if !pendingUpdates.isEmpty {
                for pending in pendingUpdates { send(pending) }
                pendingUpdates.removeAll(keepingCapacity: true)
                context.flush()
            }
            if isSubscriber { server.subscriberBlocked(self, false) }
            drain(context: context)
        } else {
            startStallTimer()
            if isSubscriber { server.subscriberBlocked(self, true) }
        }
        updateReading()
        context.fireChannelWritabilityChanged()
    }

    // MARK: Subscribers

    /// Sends an update, or queues it while the socket is full. `keep`: it carries content
    /// events, so a newer update must not replace it.
    func offer(_ update: ByteBuffer, keep: Bool = false) {
        guard !closing else { return }
        if channel.isWritable, pendingUpdates.isEmpty {
            send(update)
            channel.flush()
            return
        }
        if lastPendingConflatable, !pendingUpdates.isEmpty {
            pendingUpdates[pendingUpdates.count - 1] = update
            conflated += 1
            server.stateConflated()
        } else if pendingUpdates.count >= Self.maximumPendingEventUpdates {
            logger.warning("\(who): fell \(pendingUpdates.count) updates with events behind; dropped")
            server.subscriberDropped()
            closing = true
            channel.close(promise: nil)
            return
        } else {
            pendingUpdates.append(update)
        }
        lastPendingConflatable = !keep
        startStallTimer()
        server.subscriberBlocked(self, true)
    }

    /// Writes an update (flushed by the caller). Once the loop has written every update it held
    /// for this subscriber, the publishing thread writes to it again (`MonitorRoutes`).
    private func send(_ update: ByteBuffer) {
        updatesInFlight += 1
        let written = channel.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { [self] result in
            updatesInFlight -= 1
            guard case .success = result, updatesInFlight == 0, pendingUpdates.isEmpty, !closing else { return }
            server.resumeDirect(self)
        }
        channel.write(update, promise: written)
    }

    /// The kernel's number for this connection's socket (SO_COOKIE); nil when the channel is
    /// not a socket.
    var socketCookie: UInt64? { Self.socketOption(MonitorRoutes.socketCookie, of: channel) }

    private func startStallTimer() {
        guard stallTimer == nil else { return }
        let timeout = server.configuration.stallTimeout
        stallTimer = channel.eventLoop.scheduleTask(in: timeout) { [self] in
            stallTimer = nil
            guard !channel.isWritable else { return }
            logger.warning("\(who): took no bytes for \(timeout.nanoseconds / 1_000_000) ms (\(conflated) updates conflated); dropped")
            server.subscriberDropped()
            closing = true
            channel.close(promise: nil)
        }
    }

    // MARK: Calls

    /// Answers queued calls in order while the client takes replies, at most `callsPerTurn`
    /// before the loop turns to other clients (a fair share: one flooding client delays the
    /// others by a few calls, not by its backlog).
    func drain(context: ChannelHandlerContext) {
        var answered = 0
        while !waitingForDaemon, !closing, !isSubscriber, channel.isWritable, var message = queued.popFirst() {
            queuedBytes -= message.count
            handle(message, context: context)
            if spareMessages.count < Self.spareMessageCount, message.capacity <= Self.spareMessageBytes {
                message.removeAll(keepingCapacity: true)
                spareMessages.append(message)
            }
            answered += 1
            if queued.isEmpty, !closing, !takeCalls(context: context) { return }
            if answered == server.configuration.callsPerTurn, !queued.isEmpty {
                scheduleDrain()
                break
            }
        }
        updateReading()
        closeIfAnswered(context: context)
    }

    private func scheduleDrain() {
        guard !drainScheduled else { return }
        drainScheduled = true
        channel.eventLoop.execute { [self] in
            drainScheduled = false
            guard let context = handlerContext else { return }
            drain(context: context)
        }
    }

    /// Closes a connection that has made no call for `idleTimeout`: a slot held by a client
    /// that does nothing is a slot another cannot have. Subscribers and calls in progress
    /// are not idle.
    private func armIdleTimer() {
        let timeout = server.configuration.idleTimeout
        idleTimer = channel.eventLoop.scheduleTask(deadline: lastCall + timeout) { [self] in
            idleTimer = nil
            guard !closing, !isSubscriber, !ownsSheets else { return }
            if openDevices > 0 { lastCall = .now() }
            if waitingForDaemon || !queued.isEmpty || NIODeadline.now() < lastCall + timeout {
                if waitingForDaemon || !queued.isEmpty { lastCall = .now() }
                return armIdleTimer()
            }
            logger.info("\(who): made no call for \(Double(timeout.nanoseconds / 1_000_000) / 1000) s; closed")
            closing = true
            channel.close(promise: nil)
        }
    }

    func reply(_ parameters: JSONValue, to call: VarlinkCall, context: ChannelHandlerContext) {
        guard !call.oneway else { return }
        write(VarlinkReply.encode(continues: false) { $0.append(parameters) }, context: context)
    }

    /// `{"parameters":{}}`, the reply of most calls, encoded once by the server.
    func replyEmpty(to call: VarlinkCall, context: ChannelHandlerContext) {
        guard !call.oneway else { return }
        context.writeAndFlush(wrapOutboundOut(server.emptyReply), promise: nil)
    }

    func replyError(_ name: String, _ parameters: JSONValue = .object([:]), to call: VarlinkCall,
                            context: ChannelHandlerContext) {
        guard !call.oneway else { return }
        write(VarlinkReply.error(name, parameters), context: context)
    }

    func write(_ bytes: [UInt8], context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }

    /// Answers with an error and closes: the stream can no longer be trusted.
    private func finish(with bytes: [UInt8], context: ChannelHandlerContext) {
        closing = true
        var buffer = context.channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in channel.close(promise: nil) }
    }

    private func handle(_ message: [UInt8], context: ChannelHandlerContext) {
        lastCall = .now()
        if endpoint == .input, let frame = message.withUnsafeBytes({ SendFrameCall(message: $0) }) {
            return inputFrame(frame, context: context)
        }
        let call: VarlinkCall
        do {
            call = try VarlinkCall(message: message)
        } catch {
            logger.warning("\(who): not a varlink call (\(error.reason)); closing")
            finish(with: VarlinkReply.error(VarlinkErrorName.invalidMessage, .object(["reason": .string(error.reason)])),
                   context: context)
            return
        }
        // A parameter the method does not take (a misspelt name, fields wrapped in an object)
        // is refused by name, as systemd's varlink services do, rather than ignored.
        if let known = server.methodParameters[call.interface], endpoint.interfaces.contains(call.interface),
           let unknown = VarlinkMethods.unknownParameter(of: call, known: known) {
            logger.notice("\(who): \(call.method) refused: it takes no parameter \(unknown)")
            return invalidParameter(unknown, call, context: context)
        }
        switch (call.interface, endpoint) {
        case (SheetInterface.serviceName, _): serviceCall(call, context: context)
        case (SheetInterface.name, .sheet): sheetCall(call, context: context)
        case (InputInterface.name, .input): inputCall(call, context: context)
        default: replyError(VarlinkErrorName.interfaceNotFound, .object(["interface": .string(call.interface)]),
                            to: call, context: context)
        }
    }

    func methodNotFound(_ call: VarlinkCall, context: ChannelHandlerContext) {
        replyError(VarlinkErrorName.methodNotFound, .object(["method": .string(call.method)]), to: call, context: context)
    }

    func invalidParameter(_ name: String, _ call: VarlinkCall, context: ChannelHandlerContext) {
        replyError(VarlinkErrorName.invalidParameter, .object(["parameter": .string(name)]), to: call, context: context)
    }

    private func serviceCall(_ call: VarlinkCall, context: ChannelHandlerContext) {
        let configuration = server.configuration
        switch call.name {
        case "GetInfo":
            reply(.object([
                "vendor": .string(configuration.vendor), "product": .string(configuration.product),
                "version": .string(configuration.version), "url": .string(configuration.url),
                "interfaces": .array(endpoint.interfaces.map { .string($0) }),
            ]), to: call, context: context)
        case "GetInterfaceDescription":
            guard let interface = call.parameters["interface"]?.stringValue else {
                invalidParameter("interface", call, context: context)
                return
            }
            if endpoint.interfaces.contains(interface), let description = server.descriptionReplies[interface] {
                // Encoded once when the server was made: the largest reply is the cheapest.
                if !call.oneway { context.writeAndFlush(wrapOutboundOut(description), promise: nil) }
            } else {
                replyError(VarlinkErrorName.interfaceNotFound, .object(["interface": .string(interface)]),
                           to: call, context: context)
            }
        default:
            methodNotFound(call, context: context)
        }
    }

}
