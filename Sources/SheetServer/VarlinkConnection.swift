#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import SheetCore
import SheetProtocol

/// `struct ucred` as SO_PEERCRED fills it (Glibc hides the type behind _GNU_SOURCE).
struct KernelPeerCredentials: Sendable {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0
}

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
    private var inbound = ByteBuffer()
    private var queued: [[UInt8]] = []
    private var waitingForDaemon = false
    private var peer: PeerCredentials?
    private var isSubscriber = false
    private var closing = false
    /// Updates waiting for the socket: those with content events are all kept (a client
    /// never loses an event); of the others only the newest is.
    private var pendingUpdates: [ByteBuffer] = []
    private var lastPendingConflatable = false
    /// Event-carrying updates a subscriber may fall behind by before it is dropped.
    static let maximumPendingEventUpdates = 1024
    private var stallTimer: Scheduled<Void>?
    private var conflated = 0

    init(server: VarlinkServer, channel: Channel) {
        self.server = server
        self.channel = channel
    }

    private var logger: Logger { server.logger }
    private var who: String { peer.map { "client \($0)" } ?? "client (credentials unknown)" }

    // MARK: Channel events

    func channelActive(context: ChannelHandlerContext) {
        if let provider = channel as? SocketOptionProvider {
            let future: EventLoopFuture<KernelPeerCredentials> = provider.unsafeGetSocketOption(
                level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
            future.whenSuccess { credentials in
                self.peer = PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
            }
        }
        guard server.connectionOpened(self) else {
            logger.warning("\(who): refused, \(server.configuration.maximumConnections) connections already open")
            finish(with: VarlinkReply.error(VarlinkErrorName.tooManyConnections,
                                            .object(["limit": .number(Double(server.configuration.maximumConnections))])),
                   context: context)
            return
        }
        logger.debug("\(who): connected")
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stallTimer?.cancel()
        server.connectionClosed(self)
        logger.debug("\(who): disconnected")
        context.fireChannelInactive()
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
        while let nul = inbound.readableBytesView.firstIndex(of: 0) {
            let length = nul - inbound.readerIndex
            guard length <= server.configuration.maximumMessageBytes else { break }
            let message = inbound.readBytes(length: length)!
            inbound.moveReaderIndex(forwardBy: 1)
            queued.append(message)
        }
        if inbound.readableBytes > server.configuration.maximumMessageBytes {
            logger.warning("\(who): a message longer than \(server.configuration.maximumMessageBytes) bytes; closing")
            finish(with: VarlinkReply.error(VarlinkErrorName.invalidMessage,
                                            .object(["reason": .string("a message longer than \(server.configuration.maximumMessageBytes) bytes")])),
                   context: context)
            return
        }
        inbound.discardReadBytes()
        drain(context: context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if channel.isWritable {
            stallTimer?.cancel()
            stallTimer = nil
            if !pendingUpdates.isEmpty {
                for pending in pendingUpdates { context.write(wrapOutboundOut(pending), promise: nil) }
                pendingUpdates.removeAll(keepingCapacity: true)
                context.flush()
            }
            if !isSubscriber { channel.setOption(.autoRead, value: true).whenFailure { _ in } }
        } else {
            // Backpressure: read no more calls from a client that does not read its replies.
            channel.setOption(.autoRead, value: false).whenFailure { _ in }
            startStallTimer()
        }
        context.fireChannelWritabilityChanged()
    }

    // MARK: Subscribers

    /// Sends an update, or queues it while the socket is full. `keep`: it carries content
    /// events, so a newer update must not replace it.
    func offer(_ update: ByteBuffer, keep: Bool = false) {
        guard !closing else { return }
        if channel.isWritable, pendingUpdates.isEmpty {
            channel.writeAndFlush(update, promise: nil)
            return
        }
        if lastPendingConflatable, !pendingUpdates.isEmpty {
            pendingUpdates[pendingUpdates.count - 1] = update
            conflated += 1
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
    }

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

    private func drain(context: ChannelHandlerContext) {
        while !waitingForDaemon, !closing, !isSubscriber, !queued.isEmpty {
            let message = queued.removeFirst()
            handle(message, context: context)
        }
    }

    private func reply(_ parameters: JSONValue, to call: VarlinkCall, context: ChannelHandlerContext) {
        guard !call.oneway else { return }
        write(VarlinkReply.encode(continues: false) { $0.append(parameters) }, context: context)
    }

    private func replyError(_ name: String, _ parameters: JSONValue = .object([:]), to call: VarlinkCall,
                            context: ChannelHandlerContext) {
        guard !call.oneway else { return }
        write(VarlinkReply.error(name, parameters), context: context)
    }

    private func write(_ bytes: [UInt8], context: ChannelHandlerContext) {
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
        let call: VarlinkCall
        do {
            call = try VarlinkCall(message: message)
        } catch {
            logger.warning("\(who): not a varlink call (\(error.reason)); closing")
            finish(with: VarlinkReply.error(VarlinkErrorName.invalidMessage, .object(["reason": .string(error.reason)])),
                   context: context)
            return
        }
        switch call.interface {
        case SheetInterface.serviceName: serviceCall(call, context: context)
        case SheetInterface.name: sheetCall(call, context: context)
        default: replyError(VarlinkErrorName.interfaceNotFound, .object(["interface": .string(call.interface)]),
                            to: call, context: context)
        }
    }

    private func methodNotFound(_ call: VarlinkCall, context: ChannelHandlerContext) {
        replyError(VarlinkErrorName.methodNotFound, .object(["method": .string(call.method)]), to: call, context: context)
    }

    private func invalidParameter(_ name: String, _ call: VarlinkCall, context: ChannelHandlerContext) {
        replyError(VarlinkErrorName.invalidParameter, .object(["parameter": .string(name)]), to: call, context: context)
    }

    private func serviceCall(_ call: VarlinkCall, context: ChannelHandlerContext) {
        let configuration = server.configuration
        switch call.name {
        case "GetInfo":
            reply(.object([
                "vendor": .string(configuration.vendor), "product": .string(configuration.product),
                "version": .string(configuration.version), "url": .string(configuration.url),
                "interfaces": .array([.string(SheetInterface.serviceName), .string(SheetInterface.name)]),
            ]), to: call, context: context)
        case "GetInterfaceDescription":
            guard let interface = call.parameters["interface"]?.stringValue else {
                invalidParameter("interface", call, context: context)
                return
            }
            switch interface {
            case SheetInterface.name:
                reply(.object(["description": .string(SheetInterface.description)]), to: call, context: context)
            case SheetInterface.serviceName:
                reply(.object(["description": .string(SheetInterface.serviceDescription)]), to: call, context: context)
            default:
                replyError(VarlinkErrorName.interfaceNotFound, .object(["interface": .string(interface)]),
                           to: call, context: context)
            }
        default:
            methodNotFound(call, context: context)
        }
    }

    private func sheetCall(_ call: VarlinkCall, context: ChannelHandlerContext) {
        let parameters = call.parameters
        switch call.name {
        case "GetState":
            guard !call.oneway else { return }
            let update = server.currentUpdate
            write(VarlinkReply.encode(continues: false, capacity: 640) { body in
                body.append("{\"state\":")
                if let update { update.state.write(to: &body) } else { body.append("null") }
                body.append("}")
            }, context: context)
        case "Monitor":
            guard call.more else {
                replyError(VarlinkErrorName.expectedMore, to: call, context: context)
                return
            }
            isSubscriber = true
            logger.debug("\(who): subscribed")
            server.subscribe(self)
        case "ListDevices":
            guard !call.oneway else { return }
            let devices = server.delegate.devices()
            write(VarlinkReply.encode(continues: false, capacity: 512) { body in
                body.append("{\"devices\":[")
                for (index, device) in devices.enumerated() {
                    if index > 0 { body.append(UInt8(ascii: ",")) }
                    device.write(to: &body)
                }
                body.append("]}")
            }, context: context)
        case "Present":
            let detent = parameters["detent"]
            if let detent, !detent.isNull, detent.stringValue == nil { return invalidParameter("detent", call, context: context) }
            control(.present(detent: detent?.stringValue), call, context: context)
        case "Dismiss":
            let force = parameters["force"]
            if let force, !force.isNull, force.boolValue == nil { return invalidParameter("force", call, context: context) }
            control(.dismiss(force: force?.boolValue ?? false), call, context: context)
        case "SetContent":
            let change: ContentChange
            do {
                change = try ContentChange(json: parameters)
            } catch {
                logger.notice("\(who): SetContent refused: \(error)")
                return invalidParameter(error.path, call, context: context)
            }
            control(.setContent(change), call, context: context)
        case "GetContent":
            guard !call.oneway else { return }
            let shared = server.delegate.content()
            write(VarlinkReply.encode(continues: false, capacity: 256 + shared.content.items.count * 48) { body in
                body.append("{\"content\":")
                shared.content.write(to: &body, order: shared.order)
                body.append(",\"revision\":")
                body.appendInteger(Int64(shared.revision))
                body.append("}")
            }, context: context)
        case "SetDetent":
            guard let detent = parameters["detent"]?.stringValue else { return invalidParameter("detent", call, context: context) }
            control(.setDetent(detent), call, context: context)
        case "SetScreen":
            guard let width = parameters["width"]?.intValue else { return invalidParameter("width", call, context: context) }
            guard let height = parameters["height"]?.intValue else { return invalidParameter("height", call, context: context) }
            var scale: Double?
            if let raw = parameters["scale"], !raw.isNull {
                guard let value = raw.doubleValue else { return invalidParameter("scale", call, context: context) }
                scale = value
            }
            control(.setScreen(width: width, height: height, scale: scale), call, context: context)
        default:
            methodNotFound(call, context: context)
        }
    }

    private func control(_ request: ControlRequest, _ call: VarlinkCall, context: ChannelHandlerContext) {
        guard server.mayControl(peer) else {
            logger.notice("\(who): \(request.methodName) refused (not root, the daemon's user or in group \(server.controlGroup))")
            replyError(VarlinkErrorName.notAllowed, .object(["method": .string(call.method)]), to: call, context: context)
            return
        }
        logger.info("\(who): \(request)")
        waitingForDaemon = true
        let loop = context.eventLoop
        let contextBox = NIOLoopBound(context, eventLoop: loop)
        server.delegate.control(request, from: peer!) { result in
            loop.execute { [self] in
                let context = contextBox.value
                waitingForDaemon = false
                guard channel.isActive else { return }
                switch result {
                case .done:
                    reply(.object([:]), to: call, context: context)
                case .unknownDetent(let detent, let known):
                    replyError(VarlinkErrorName.unknownDetent,
                               .object(["detent": .string(detent), "known": .array(known.map { .string($0) })]),
                               to: call, context: context)
                case .invalidScreen(let reason):
                    replyError(VarlinkErrorName.invalidScreen, .object(["reason": .string(reason)]), to: call, context: context)
                case .guarded:
                    replyError(VarlinkErrorName.guarded, to: call, context: context)
                }
                drain(context: context)
            }
        }
    }
}
