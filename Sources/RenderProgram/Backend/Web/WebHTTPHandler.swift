import NIOCore
import NIOHTTP1
import SheetService

/// Plain HTTP: `GET /sheetd.js` (the module), `GET /icons/NAME.svg`, and `/socket` when it was
/// not upgraded (403 for an origin not allowed). Responses carry `Access-Control-Allow-Origin`
/// for an allowed origin only, which a page of another origin needs for a module and a mask
/// image; a browser refuses both to a page of an origin not allowed.
final class WebHTTPHandler: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let shared: WebShared
    private var head: HTTPRequestHead?

    init(shared: WebShared) { self.shared = shared }

    /// Nothing read for `WebBackend.idleSeconds` (IdleStateHandler, named sheet-idle): closed,
    /// so that a connection that sends nothing does not hold a descriptor.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            respond(context, to: head)
        }
    }

    private func respond(_ context: ChannelHandlerContext, to head: HTTPRequestHead) {
        let origin = head.headers.first(name: "origin")
        let allowed = origin.map(shared.allows) ?? false
        guard head.method == .GET || head.method == .HEAD else {
            return reply(context, head, .methodNotAllowed, type: "text/plain", body: Array("GET only\n".utf8), origin: nil)
        }
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        switch path {
        case "/sheetd.js":
            reply(context, head, .ok, type: "text/javascript; charset=utf-8", body: PackageResources.sheetd_js, origin: allowed ? origin : nil)
        case "/socket":
            let (status, why): (HTTPResponseStatus, String) =
                origin != nil && !allowed ? (.forbidden, "origin \(origin ?? "") is not allowed (--allow-origin)")
                : allowed && shared.pageCount >= WebBackend.maximumPages ? (.serviceUnavailable, "\(WebBackend.maximumPages) pages are shown already")
                : (.badRequest, "a WebSocket upgrade from an allowed origin")
            reply(context, head, status, type: "text/plain", body: Array((why + "\n").utf8), origin: nil)
        default:
            if path.hasPrefix("/icons/"), path.hasSuffix(".svg"), let svg = icon(String(path.dropFirst(7).dropLast(4))) {
                reply(context, head, .ok, type: "image/svg+xml", body: svg, origin: allowed ? origin : nil)
            } else {
                reply(context, head, .notFound, type: "text/plain", body: Array("not found\n".utf8), origin: nil)
            }
        }
    }

    /// An icon of the theme by name (letters, digits, `-`, `_` and `.`, as icon names are), at
    /// most 256 KiB.
    private func icon(_ name: String) -> [UInt8]? {
        guard !name.isEmpty, name.utf8.count <= 128, !name.hasPrefix("."),
              name.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5a).contains($0) || (0x61...0x7a).contains($0) || $0 == 0x2d || $0 == 0x5f || $0 == 0x2e }),
              let path = shared.icons?.theme.path(for: name, size: 24), path.hasSuffix(".svg") else { return nil }
        return try? AtomicFile.read(path, limit: 256 << 10)
    }

    private func reply(_ context: ChannelHandlerContext, _ head: HTTPRequestHead, _ status: HTTPResponseStatus, type: String,
                       body: [UInt8], origin: String?) {
        // A request that said `Connection: close` (or HTTP/1.0 without keep-alive) is the last
        // on its connection: said in the response, and the connection closed after it (RFC 9112 §9.6).
        let keepAlive = head.isKeepAlive
        var headers = HTTPHeaders()
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: "\(body.count)")
        headers.add(name: "Cache-Control", value: "no-cache")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        if let origin {
            headers.add(name: "Access-Control-Allow-Origin", value: origin)
            headers.add(name: "Vary", value: "Origin")
        }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if head.method != .HEAD { context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil) }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }
}
