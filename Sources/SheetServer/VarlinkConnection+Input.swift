import NIOCore
import SheetCore
import SheetProtocol

/// `io.sheetd.Input`: the calls of programs that feed touches (open a device, its frames, close
/// it), handed to the daemon's loop and answered in the order they came.
///
/// A frame costs no allocation on its way: `SendFrameCall` reads it from the message's bytes,
/// the daemon answers through `InputCaller` (the connection itself, holding the call while it
/// waits), and a frame taken is answered with the empty reply encoded once.
extension VarlinkConnection: InputCaller {
    /// Any input call, read by the general readers; each refusal names what is wrong.
    func inputCall(_ call: VarlinkCall, context: ChannelHandlerContext) {
        let parameters = call.parameters
        let request: InputRequest
        switch call.name {
        case "OpenDevice":
            do {
                request = .open(try PluginDevice(json: parameters))
            } catch {
                logger.notice("\(who): OpenDevice refused: \(error)")
                return invalidParameter(error.parameter, call, context: context)
            }
        case "SendFrame":
            guard let device = parameters["device"]?.intValue else { return invalidParameter("device", call, context: context) }
            do {
                request = .frame(device: device, try PluginFrame(json: parameters))
            } catch {
                // A frame whose number can be read is refused by its number, like any bad frame.
                guard error.parameter != "sequence", let sequence = parameters["sequence"]?.intValue else {
                    return invalidParameter(error.parameter, call, context: context)
                }
                return inputReply(.invalidFrame(device: device, sequence: Int64(sequence), reason: error.description), call, context: context)
            }
        case "OpenKeys":
            guard let name = parameters["name"]?.stringValue,
                  (1...PluginDevice.Limits.nameBytes).contains(name.utf8.count) else {
                return invalidParameter("name", call, context: context)
            }
            var clock = PluginClock.monotonic
            if let value = parameters["clock"], !value.isNull {
                guard let named = value.stringValue.flatMap(PluginClock.init(rawValue:)) else { return invalidParameter("clock", call, context: context) }
                clock = named
            }
            request = .openKeys(name: name, clock: clock)
        case "SendKeys":
            guard let device = parameters["device"]?.intValue else { return invalidParameter("device", call, context: context) }
            do {
                request = .keys(device: device, try PluginKeyReport(json: parameters))
            } catch {
                guard error.parameter != "sequence", let sequence = parameters["sequence"]?.intValue else {
                    return invalidParameter(error.parameter, call, context: context)
                }
                return inputReply(.invalidFrame(device: device, sequence: Int64(sequence), reason: error.description), call, context: context)
            }
        case "CloseDevice":
            guard let device = parameters["device"]?.intValue else { return invalidParameter("device", call, context: context) }
            request = .close(device: device)
        default:
            return methodNotFound(call, context: context)
        }
        submitInput(request, call, context: context)
    }

    /// A `SendFrame` that `SendFrameCall` read from the bytes.
    func inputFrame(_ read: SendFrameCall, context: ChannelHandlerContext) {
        // The method's name is a literal and the parameters an empty object: making the call
        // allocates nothing.
        let call = VarlinkCall(method: SendFrameCall.method, parameters: .object([:]), more: read.more, oneway: read.oneway)
        submitInput(.frame(device: read.device, read.frame), call, context: context)
    }

    /// Hands a request to the daemon, once the peer may feed; the connection reads no further
    /// call until `inputDone` answers it.
    private func submitInput(_ request: InputRequest, _ call: VarlinkCall, context: ChannelHandlerContext) {
        guard server.mayFeed(peer) else {
            let group = server.inputGroupName
            logger.notice("\(who): \(call.name) refused (not root, the daemon's user or in group \(group))")
            replyError(InputInterface.notAllowed, .object(["method": .string(call.method), "group": .string(group)]),
                       to: call, context: context)
            return
        }
        waitingForDaemon = true
        var closes = false
        if case .close = request { closes = true }
        inputWaiting = (call, closes)
        server.delegate.input(request, connection: number, from: peer!, caller: self)
    }

    /// The daemon's answer, on its thread: kept until the connection's loop takes it. The task
    /// captures only the connection, so handing it over allocates nothing.
    func inputDone(_ result: InputResult) {
        inputResult.withLock { $0 = result }
        channel.eventLoop.execute { [self] in inputAnswered() }
    }

    /// On the connection's loop: the answer to the call that waited.
    private func inputAnswered() {
        guard let result = inputResult.withLock({ kept in defer { kept = nil }; return kept }),
              let (call, closes) = inputWaiting else { return }
        inputWaiting = nil
        waitingForDaemon = false
        switch result {
        case .opened: openDevices += 1
        case .done: if closes { openDevices -= 1 }
        default: break
        }
        guard channel.isActive else {
            // Gone while the daemon opened a device for it: the daemon closes it now.
            if case .opened = result, openDevices > 0 {
                server.delegate.inputConnectionClosed(number)
                openDevices = 0
            }
            return
        }
        guard let context = handlerContext else { return }
        inputReply(result, call, context: context)
        drain(context: context)
    }

    func inputReply(_ result: InputResult, _ call: VarlinkCall, context: ChannelHandlerContext) {
        switch result {
        case .opened(let device):
            reply(.object(["device": .number(Double(device))]), to: call, context: context)
        case .done:
            replyEmpty(to: call, context: context)
        case .invalidFrame(let device, let sequence, let reason):
            logger.info("\(who): frame \(sequence) of device \(device) refused: \(reason)")
            replyError(InputInterface.invalidFrame, .object(["device": .number(Double(device)), "sequence": .number(Double(sequence)),
                                                              "reason": .string(reason)]), to: call, context: context)
        case .noSuchDevice(let device):
            replyError(InputInterface.noSuchDevice, .object(["device": .number(Double(device))]), to: call, context: context)
        case .tooManyDevices(let limit):
            logger.notice("\(who): OpenDevice refused: \(limit) input devices are open already")
            replyError(InputInterface.tooManyDevices, .object(["limit": .number(Double(limit))]), to: call, context: context)
        case .invalidParameter(let parameter, let reason):
            logger.notice("\(who): \(call.name) refused: \(parameter): \(reason)")
            invalidParameter(parameter, call, context: context)
        }
    }
}
