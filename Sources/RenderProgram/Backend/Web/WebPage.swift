import NIOCore
import NIOWebSocket
import SheetCore
import SheetProtocol

/// What a page sends, read and checked on the event loop.
enum WebInput: Sendable {
    /// Contacts in the page's CSS pixels, stamped with the page's event time (milliseconds,
    /// `Event.timeStamp`).
    case touch(PluginContacts, milliseconds: Int64)
    /// A kernel key code (the page maps the DOM's `code`), pressed or released.
    case key(code: UInt16, pressed: Bool)
    /// The page lost the keyboard's focus: every key it pressed is released.
    case blur
    /// The page went away: its keys released and its fingers cancelled.
    case left
}

/// One page's WebSocket, on its channel's event loop: every field is touched there only
/// (`send` and `offer` hop onto it).
final class WebPage: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let shared: WebShared
    private let origin: String
    private let channel: Channel
    /// A state sent that the page has not said it drew, and the newest one waiting for that.
    private var awaitingDraw = false
    private var waiting: [UInt8]?
    /// Messages this second, and which second.
    private var second: Int64 = 0
    private var messages = 0
    private var closing = false

    init(shared: WebShared, origin: String, channel: Channel) {
        self.shared = shared
        self.origin = origin
        self.channel = channel
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let (content, state) = shared.joined(self)
        if let content { write(content) }
        if let state {
            write(state)
            awaitingDraw = true
        }
        channel.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        shared.left(self)
        // Its fingers and keys do not stay down.
        _ = shared.deliver(.left, from: self)
        context.fireChannelInactive()
    }

    /// Sends `bytes` as they are (content, events).
    func send(_ bytes: [UInt8]) {
        channel.eventLoop.execute {
            self.write(bytes)
            self.channel.flush()
        }
    }

    /// A state: sent now if the page drew the last one, else kept (the newest only) until it has.
    func offer(_ bytes: [UInt8]) {
        channel.eventLoop.execute {
            if self.awaitingDraw {
                self.waiting = bytes
            } else {
                self.write(bytes)
                self.channel.flush()
                self.awaitingDraw = true
            }
        }
    }

    private func write(_ bytes: [UInt8]) {
        guard !closing else { return }
        let buffer = channel.allocator.buffer(bytes: bytes)
        channel.write(WebSocketFrame(fin: true, opcode: .text, data: buffer), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        // RFC 6455 §5.1: a client masks every frame, and a server that receives one unmasked
        // closes the connection, with 1002 (protocol error, §7.4.1).
        guard frame.maskKey != nil else {
            if !closing { shared.note("a page of \(origin): an unmasked frame (RFC 6455 5.1); closed") }
            return closeNow(context, code: .protocolError)
        }
        switch frame.opcode {
        case .text where frame.fin:
            var data = frame.unmaskedData
            let bytes = data.readBytes(length: data.readableBytes) ?? []
            guard withinRate() else { return refuse("more than \(WebBackend.maximumMessagesPerSecond) messages a second") }
            do {
                try take(try JSONReader.parse(bytes))
            } catch let problem as WebProblem {
                refuse(problem.reason)
            } catch {
                refuse("not JSON (\(error))")
            }
        case .ping:
            var data = frame.unmaskedData
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: data.readSlice(length: data.readableBytes) ?? ByteBuffer())
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .pong:
            break
        case .connectionClose:
            closeNow(context, code: .normalClosure)
        default:
            refuse("a binary or fragmented message")
        }
    }

    private func withinRate() -> Bool {
        let now = monotonicMicroseconds() / 1_000_000
        if now != second {
            second = now
            messages = 0
        }
        messages += 1
        return messages <= WebBackend.maximumMessagesPerSecond
    }

    /// One message: `drawn`, `screen`, `touch`, `key` or `blur`.
    private func take(_ message: JSONValue) throws(WebProblem) {
        guard case .object(let members) = message, members.count == 1, let (kind, body) = members.first else {
            throw WebProblem("a message is an object with one member")
        }
        switch kind {
        case "drawn":
            guard awaitingDraw else { throw WebProblem("drawn, with no state sent to draw") }
            shared.drew()
            awaitingDraw = false
            if let waiting {
                self.waiting = nil
                write(waiting)
                channel.flush()
                awaitingDraw = true
            }
        case "screen":
            guard let width = body["width"]?.intValue, let height = body["height"]?.intValue,
                  (1...16384).contains(width), (1...16384).contains(height) else {
                throw WebProblem("screen wants a width and a height of 1 to 16384 CSS pixels")
            }
            shared.resize(to: (width, height))
        case "touch":
            guard let time = body["time"]?.doubleValue, time >= 0, time < 9.0e15,
                  let list = body["contacts"]?.arrayValue, !list.isEmpty, list.count <= InputForwarder.slots else {
                throw WebProblem("touch wants a time (ms) and 1 to \(InputForwarder.slots) contacts")
            }
            var contacts = PluginContacts()
            for (index, contact) in list.enumerated() {
                guard let slot = contact["slot"]?.intValue, (0..<InputForwarder.slots).contains(slot),
                      let phase = contact["phase"]?.stringValue.flatMap(ContactPhase.init(name:)),
                      let x = contact["x"]?.doubleValue, let y = contact["y"]?.doubleValue, abs(x) < 1e6, abs(y) < 1e6 else {
                    throw WebProblem("contacts[\(index)] wants a slot (0-\(InputForwarder.slots - 1)), a phase (down, move, up, cancel), x and y")
                }
                _ = contacts.append(PluginContact(slot: slot, phase: phase, x: x, y: y))
            }
            try deliver(.touch(contacts, milliseconds: Int64(time)))
        case "key":
            guard let code = body["code"]?.intValue, WebKeys.allowed.contains(code), let pressed = body["pressed"]?.boolValue else {
                throw WebProblem("key wants a code the sheet takes (\(WebKeys.allowed.sorted().map(String.init).joined(separator: ", "))) and pressed")
            }
            try deliver(.key(code: UInt16(code), pressed: pressed))
        case "blur":
            try deliver(.blur)
        default:
            throw WebProblem("no message `\(kind)` (drawn, screen, touch, key, blur)")
        }
    }

    private func deliver(_ input: WebInput) throws(WebProblem) {
        guard shared.deliver(input, from: self) else { throw WebProblem("more input waiting than \(WebBackend.maximumInbox)") }
    }

    /// Closes the page with a policy violation, said once in the log.
    private func refuse(_ reason: String) {
        guard !closing else { return }
        shared.note("a page of \(origin): \(reason); closed")
        var data = channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: .policyViolation)
        channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)).whenComplete { _ in
            self.channel.close(promise: nil)
        }
        closing = true
    }

    private func closeNow(_ context: ChannelHandlerContext, code: WebSocketErrorCode) {
        guard !closing else { return }
        closing = true
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))).whenComplete { _ in
            self.channel.close(promise: nil)
        }
    }
}

struct WebProblem: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// The keys a page may send, by kernel code: what the standard key map binds for the focus
/// (`KeyMap.standard`), and Shift for Shift+Tab.
enum WebKeys {
    static let allowed: Set<Int> = Set([KeyCode.escape, KeyCode.tab, KeyCode.enter, KeyCode.leftShift, KeyCode.rightShift,
                                        KeyCode.space, KeyCode.keypadEnter, KeyCode.home, KeyCode.up, KeyCode.pageUp,
                                        KeyCode.left, KeyCode.right, KeyCode.end, KeyCode.down, KeyCode.pageDown].map(Int.init))
}
