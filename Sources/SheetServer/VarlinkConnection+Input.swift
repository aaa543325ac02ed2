import NIOCore
import SheetCore
import SheetProtocol

/// `io.sheetd.Input`: the calls of programs that feed touches (open a device, its frames, close
/// it), handed to the daemon's loop and answered in the order they came.
extension VarlinkConnection {
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
        case "CloseDevice":
            guard let device = parameters["device"]?.intValue else { return invalidParameter("device", call, context: context) }
            request = .close(device: device)
        default:
            return methodNotFound(call, context: context)
        }
        guard server.mayFeed(peer) else {
            let group = server.inputGroupName
            logger.notice("\(who): \(call.name) refused (not root, the daemon's user or in group \(group))")
            replyError(InputInterface.notAllowed, .object(["method": .string(call.method), "group": .string(group)]),
                       to: call, context: context)
            return
        }
        waitingForDaemon = true
        let loop = context.eventLoop
        let contextBox = NIOLoopBound(context, eventLoop: loop)
        server.delegate.input(request, connection: number, from: peer!) { result in
            loop.execute { [self] in
                let context = contextBox.value
                waitingForDaemon = false
                switch result {
                case .opened: openDevices += 1
                case .done: if case .close = request { openDevices -= 1 }
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
                inputReply(result, call, context: context)
                drain(context: context)
            }
        }
    }

    func inputReply(_ result: InputResult, _ call: VarlinkCall, context: ChannelHandlerContext) {
        switch result {
        case .opened(let device):
            reply(.object(["device": .number(Double(device))]), to: call, context: context)
        case .done:
            reply(.object([:]), to: call, context: context)
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
