#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import SheetCore
import SheetProtocol

/// `io.sheetd.Sheet`: the sheet's calls (queries, subscriptions, control), each answered or
/// handed to the daemon's loop and answered when it has.
extension VarlinkConnection {
    func sheetCall(_ call: VarlinkCall, context: ChannelHandlerContext) {
        let parameters = call.parameters
        switch call.name {
        case "GetState":
            guard !call.oneway else { return }
            guard server.statesSkipped else {
                answerState(context: context)
                return
            }
            // The states published while no one watched were not kept: the daemon publishes
            // the newest first.
            waitForDaemon(context: context, { [server] done in server.delegate.refreshState { done(()) } }) { [self] _, context in
                answerState(context: context)
            }
        case "Monitor":
            // Oneway asks for no reply at all: a stream is nothing but replies.
            guard !call.oneway else { return }
            guard call.more else {
                replyError(VarlinkErrorName.expectedMore, to: call, context: context)
                return
            }
            var pacer: MonitorPacer?
            if let rate = call.parameters["maxRate"], !rate.isNull {
                guard let hertz = rate.intValue, MonitorPacer.rates.contains(hertz) else {
                    invalidParameter("maxRate", call, context: context)
                    return
                }
                pacer = MonitorPacer(maxRate: hertz)
            }
            idleTimer?.cancel()
            idleTimer = nil
            isSubscriber = true
            logger.debug("\(who): subscribed\(pacer.map { ", at most one state every \($0.intervalInMicroseconds) µs" } ?? "")")
            server.subscribe(self, pacer: pacer)
        case "GetStats":
            guard !call.oneway else { return }
            stats(call, context: context)
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
        case "OpenSheet":
            let change: ContentChange
            do {
                change = try ContentChange(json: parameters)
            } catch {
                logger.notice("\(who): OpenSheet refused: \(error)")
                return invalidParameter(error.path, call, context: context)
            }
            var layer = SheetStack.Layer.app
            if let raw = parameters["layer"], !raw.isNull {
                guard let name = raw.stringValue, let value = SheetStack.Layer(name: name) else {
                    return invalidParameter("layer", call, context: context)
                }
                layer = value
            }
            let detent = parameters["detent"]
            if let detent, !detent.isNull, detent.stringValue == nil { return invalidParameter("detent", call, context: context) }
            control(.open(change, layer: layer, detent: detent?.stringValue), call, context: context)
        case "ListSheets":
            guard !call.oneway else { return }
            control(.list, call, context: context)
        case "CloseSheet":
            guard let sheet = parameters["sheet"]?.stringValue else { return invalidParameter("sheet", call, context: context) }
            control(.close, sheet: sheet, call, context: context)
        case "Present":
            let detent = parameters["detent"]
            if let detent, !detent.isNull, detent.stringValue == nil { return invalidParameter("detent", call, context: context) }
            control(.control(.present(detent: detent?.stringValue)), call, context: context)
        case "Dismiss":
            let force = parameters["force"]
            if let force, !force.isNull, force.boolValue == nil { return invalidParameter("force", call, context: context) }
            control(.control(.dismiss(force: force?.boolValue ?? false)), call, context: context)
        case "SetContent":
            let change: ContentChange
            do {
                change = try ContentChange(json: parameters)
            } catch {
                logger.notice("\(who): SetContent refused: \(error)")
                return invalidParameter(error.path, call, context: context)
            }
            control(.control(.setContent(change)), call, context: context)
        case "GetContent":
            guard !call.oneway else { return }
            guard server.programs.holdsSheets(program) || parameters["sheet"].map({ !$0.isNull }) == true else {
                // As the loop last handed it over, no wait: the shared sheet's, or to a
                // renderer the shown one's.
                return answerContent(server.delegate.content(shown: readsEverything), context: context)
            }
            control(.content, call, context: context)
        case "Focus":
            var element: String?
            if let raw = parameters["element"], !raw.isNull {
                guard let value = raw.stringValue, !value.isEmpty, value.utf8.count <= SheetContent.Limits.idBytes else {
                    return invalidParameter("element", call, context: context)
                }
                element = value
            }
            var command: FocusCommand?
            if let raw = parameters["command"], !raw.isNull {
                guard let name = raw.stringValue, let value = FocusCommand(name: name) else {
                    return invalidParameter("command", call, context: context)
                }
                command = value
            }
            control(.control(.focus(element: element, command: command)), call, context: context)
        case "SetDetent":
            guard let detent = parameters["detent"]?.stringValue else { return invalidParameter("detent", call, context: context) }
            control(.control(.setDetent(detent)), call, context: context)
        case "SetScreen":
            // Held to what every renderer can draw, before it reaches the engine.
            guard let width = parameters["width"]?.intValue, ScreenSize.pixelRange.contains(width) else {
                return invalidParameter("width", call, context: context)
            }
            guard let height = parameters["height"]?.intValue, ScreenSize.pixelRange.contains(height) else {
                return invalidParameter("height", call, context: context)
            }
            var scale: Double?
            if let raw = parameters["scale"], !raw.isNull {
                guard let value = raw.doubleValue, ScreenSize.scaleRange.contains(value) else {
                    return invalidParameter("scale", call, context: context)
                }
                scale = value
            }
            control(.control(.setScreen(width: width, height: height, scale: scale)), call, context: context)
        case "SetAppearance":
            let change: AppearanceChange
            do {
                change = try AppearanceChange(json: parameters)
            } catch {
                logger.notice("\(who): SetAppearance refused: \(error)")
                return invalidParameter(error.path, call, context: context)
            }
            control(.control(.setAppearance(change)), call, context: context)
        case "SetPresentation":
            let change: PresentationChange
            do {
                change = try PresentationChange(json: parameters)
            } catch {
                logger.notice("\(who): SetPresentation refused: \(error)")
                return invalidParameter(error.path, call, context: context)
            }
            control(.control(.setPresentation(change)), call, context: context)
        case "SetReduceMotion":
            guard let enabled = parameters["enabled"]?.boolValue else { return invalidParameter("enabled", call, context: context) }
            control(.control(.setReduceMotion(enabled)), call, context: context)
        default:
            methodNotFound(call, context: context)
        }
    }

    /// `GetState`'s reply: the newest state the server has.
    func answerState(context: ChannelHandlerContext) {
        let update = server.currentUpdate
        write(VarlinkReply.encode(continues: false, capacity: 640) { body in
            body.append("{\"state\":")
            if let update { update.state.write(to: &body) } else { body.append("null") }
            body.append("}")
        }, context: context)
    }

    /// Reads nothing more until the daemon has answered: `ask` hands the daemon a function to
    /// call, from any thread, with its answer; `answer` then writes the reply on the event
    /// loop (if the channel is still open), and the connection goes on with what it has read.
    func waitForDaemon<Answer: Sendable>(context: ChannelHandlerContext,
                                                 _ ask: (@escaping @Sendable (Answer) -> Void) -> Void,
                                                 then answer: @escaping (Answer, ChannelHandlerContext) -> Void) {
        waitingForDaemon = true
        let loop = context.eventLoop
        let contextBox = NIOLoopBound(context, eventLoop: loop)
        let answerBox = NIOLoopBound(answer, eventLoop: loop)
        ask { value in
            loop.execute { [self] in
                let context = contextBox.value
                waitingForDaemon = false
                guard channel.isActive else { return }
                answerBox.value(value, context)
                drain(context: context)
            }
        }
    }

    /// `GetStats`: the daemon's loop counts what it read and published; the server adds its
    /// connections, subscribers and what they missed. Anyone who may connect may ask.
    func stats(_ call: VarlinkCall, context: ChannelHandlerContext) {
        waitForDaemon(context: context, { [server] done in
            server.delegate.stats { daemon in
                var counted = daemon
                server.addServerStats(to: &counted)
                done(counted)
            }
        }) { [self] stats, context in
            write(VarlinkReply.encode(continues: false, capacity: 512) { body in
                body.append("{\"stats\":")
                stats.write(to: &body)
                body.append("}")
            }, context: context)
        }
    }

    /// The command name of process `pid` (`/proc/PID/comm`, at most 15 bytes), as it is when
    /// it opens a sheet; empty when it cannot be read (gone already, another namespace).
    static func command(of pid: pid_t) -> String {
        let descriptor = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return "" }
        return String(decoding: bytes[..<count].prefix { $0 != 10 && $0 != 0 }, as: UTF8.self)
    }

    /// `GetContent`'s reply.
    func answerContent(_ shared: SharedContent, context: ChannelHandlerContext) {
        write(VarlinkReply.encode(continues: false, capacity: 256 + shared.content.items.count * 48) { body in
            body.append("{\"content\":")
            shared.content.write(to: &body, order: shared.order)
            body.append(",\"revision\":")
            body.appendInteger(Int64(shared.revision))
            if let sheet = shared.sheet {
                body.append(",\"sheet\":")
                body.appendString(sheet)
            }
            body.append("}")
        }, context: context)
    }

    /// A call about a sheet, handed to the daemon with the sheet it names (`sheet`, or `named`)
    /// and answered when the daemon has. The control group decides, as for every control call;
    /// ownership the daemon decides.
    func control(_ action: SheetCall.Action, sheet named: String? = nil, _ call: VarlinkCall, context: ChannelHandlerContext) {
        var sheet = named
        if sheet == nil, let raw = call.parameters["sheet"], !raw.isNull {
            guard let value = raw.stringValue, !value.isEmpty, value.utf8.count <= 64 else {
                return invalidParameter("sheet", call, context: context)
            }
            sheet = value
        }
        guard let peer, server.mayControl(peer) else {
            let group = server.controlGroupName
            logger.notice("\(who): \(call.method) refused (not root, the daemon's user or in group \(group))")
            replyError(VarlinkErrorName.notAllowed, .object(["method": .string(call.method), "group": .string(group)]),
                       to: call, context: context)
            return
        }
        var request = SheetCall(action, sheet: sheet, program: program, peer: peer, fromRenderer: readsEverything)
        if case .open = action { request.command = Self.command(of: peer.pid) }
        if case .content = action {} else { logger.info("\(who): \(request)") }
        waitForDaemon(context: context, { [server] done in server.delegate.control(request, completion: done) }) { [self] result, context in
            switch result {
            case .done:
                replyEmpty(to: call, context: context)
            case .opened(let sheet):
                // A program that holds a sheet is not idle: it is waited for, as a subscriber is.
                ownsSheets = true
                server.programs.ownsSheets(program)
                idleTimer?.cancel()
                idleTimer = nil
                write(VarlinkReply.encode(continues: false, capacity: 48) { $0.append(.object(["sheet": .string(sheet)])) }, context: context)
            case .content(let shared):
                answerContent(shared, context: context)
            case .sheets(let listed):
                write(VarlinkReply.encode(continues: false, capacity: 64 + listed.count * 128) { body in
                    body.append("{\"sheets\":[")
                    for (index, entry) in listed.enumerated() {
                        if index > 0 { body.append(UInt8(ascii: ",")) }
                        entry.write(to: &body)
                    }
                    body.append("]}")
                }, context: context)
            case .unknownDetent(let detent, let known):
                replyError(VarlinkErrorName.unknownDetent,
                           .object(["detent": .string(detent), "known": .array(known.map { .string($0) })]),
                           to: call, context: context)
            case .invalidScreen(let reason):
                replyError(VarlinkErrorName.invalidScreen, .object(["reason": .string(reason)]), to: call, context: context)
            case .guarded:
                replyError(VarlinkErrorName.guarded, to: call, context: context)
            case .cannotFocus(let element, let reason):
                replyError(VarlinkErrorName.cannotFocus, .object(["element": .string(element), "reason": .string(reason)]),
                           to: call, context: context)
            case .noSuchSheet(let sheet):
                replyError(VarlinkErrorName.noSuchSheet, .object(["sheet": .string(sheet)]), to: call, context: context)
            case .notOwner(let sheet):
                logger.notice("\(who): \(request.methodName) on \(sheet) refused: another program's sheet")
                replyError(VarlinkErrorName.notOwner, .object(["sheet": .string(sheet)]), to: call, context: context)
            case .tooManySheets(let limit):
                replyError(VarlinkErrorName.tooManySheets, .object(["limit": .number(Double(limit))]), to: call, context: context)
            }
        }
    }
}
