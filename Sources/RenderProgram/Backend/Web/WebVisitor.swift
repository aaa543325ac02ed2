#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1
import SheetSystem

/// Who made a connection to the web renderer, as the kernel tells it (never as the connection
/// says): a process of this machine by its user, or an address of another machine.
enum WebVisitor: CustomStringConvertible {
    /// A process of this machine run by this uid: a TCP peer's socket owner (sock_diag), or a
    /// Unix socket's peer (SO_PEERCRED, as it was when it connected).
    case user(uid_t)
    /// Another machine (the kernel has no socket of that address): by its IP address.
    case elsewhere(String)
    /// The kernel could not be asked (a sandbox without AF_NETLINK): why.
    case unknown(String)

    /// Asked on the channel's event loop, before its first read.
    static func of(_ channel: Channel) -> WebVisitor {
        switch (channel.localAddress, channel.remoteAddress) {
        case (.v4(let local)?, .v4(let peer)?):
            let thisMachine = peer.address.sin_addr.s_addr == local.address.sin_addr.s_addr
                || UInt32(bigEndian: peer.address.sin_addr.s_addr) >> 24 == 127
            return ask(.v4(local: local.address, peer: peer.address), peer: channel.remoteAddress?.ipAddress, thisMachine: thisMachine)
        case (.v6(let local)?, .v6(let peer)?):
            let address = withUnsafeBytes(of: peer.address.sin6_addr) { Array($0) }
            let thisMachine = address == withUnsafeBytes(of: local.address.sin6_addr) { Array($0) }
                || address == Array(repeating: 0, count: 15) + [1]
                || (address.prefix(12).elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]) && address[12] == 127)
            return ask(.v6(local: local.address, peer: peer.address), peer: channel.remoteAddress?.ipAddress, thisMachine: thisMachine)
        case (.unixDomainSocket?, _):
            guard let provider = channel as? SocketOptionProvider else { return .unknown("not a socket") }
            var credentials: KernelPeerCredentials?
            provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
                .assumeIsolated().whenSuccess { (read: KernelPeerCredentials) in credentials = read }
            return credentials.map { .user($0.uid) } ?? .unknown("SO_PEERCRED refused")
        default:
            return .unknown("neither TCP nor a Unix socket")
        }
    }

    /// `thisMachine`: the peer's address is loopback or ours, so a socket the kernel did not
    /// find (one bound to an interface, say) is not another machine's.
    private static func ask(_ ends: TCPEnds, peer: String?, thisMachine: Bool) -> WebVisitor {
        switch SocketOwner.ofPeer(ends) {
        case .local(let uid)?: return .user(uid)
        case .elsewhere? where thisMachine: return .unknown("a peer of this machine whose socket the kernel did not find")
        case .elsewhere?: return .elsewhere(peer ?? "an address not told")
        case nil: return .unknown("sock_diag: \(String(cString: strerror(errno)))")
        }
    }

    /// What its connections are counted under: a user, or an address.
    var key: String {
        switch self {
        case .user(let uid): return "uid \(uid)"
        case .elsewhere(let address): return address
        case .unknown: return "unknown"
        }
    }

    var description: String {
        switch self {
        case .user(let uid): return "uid \(uid)"
        case .elsewhere(let address): return address
        case .unknown(let why): return "a peer not known (\(why))"
        }
    }
}

/// `--allow-user`: the local users whose processes the web renderer serves (the kiosk's
/// browser's); by default the user it runs as.
struct WebUsers: CustomStringConvertible, Sendable {
    let uids: [uid_t]
    /// As given (names or numbers), for the log.
    let given: [String]

    /// Each of `given` a user name or a uid; none: the renderer's own user.
    init(_ given: [String]) throws(RenderError) {
        guard !given.isEmpty else {
            uids = [getuid()]
            self.given = ["uid \(getuid())"]
            return
        }
        var uids: [uid_t] = []
        for name in given {
            guard let uid = userID(name) else { throw RenderError("--allow-user \(name): no such user", status: 64) }
            uids.append(uid)
        }
        self.uids = uids
        self.given = zip(given, uids).map { UInt32($0.0) != nil ? "uid \($0.1)" : "\($0.0) (uid \($0.1))" }
    }

    var description: String { given.joined(separator: ", ") }
}

/// A connection refused: one plain HTTP answer, then closed; nothing it sends is read. What it
/// is told is the status alone (why, and whom the renderer serves, is for the log).
final class WebRefusal: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let status: HTTPResponseStatus

    init(status: HTTPResponseStatus) { self.status = status }

    func channelActive(context: ChannelHandlerContext) {
        let body = status == .serviceUnavailable ? "too many connections at once\n" : "not served\n"
        let text = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
