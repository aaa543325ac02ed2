#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// `struct ucred` as SO_PEERCRED fills it (Glibc hides the type behind _GNU_SOURCE): who
/// connected to a Unix socket, as the kernel saw it then.
public struct KernelPeerCredentials: Sendable {
    public var pid: pid_t = 0
    public var uid: uid_t = 0
    public var gid: gid_t = 0

    public init() {}
}

/// The two ends of a TCP connection, as the accepting side sees them: its own address and the
/// peer's, both IPv4 or both IPv6 (an IPv4 peer of an IPv6 socket is `::ffff:a.b.c.d`).
public enum TCPEnds: Sendable {
    case v4(local: sockaddr_in, peer: sockaddr_in)
    case v6(local: sockaddr_in6, peer: sockaddr_in6)
}

/// Who owns the peer's end of a TCP connection, when that end is a socket of this machine: the
/// kernel's socket table, asked over NETLINK_SOCK_DIAG for the one socket whose own address is
/// the peer's and whose remote address is ours (`inet_diag`'s exact lookup, the uid that
/// `ss -e` shows). A process can forge every header it sends, not this.
///
/// `.local(uid)`: the peer is a process of this machine (of this network namespace), run by
/// `uid`. `.elsewhere`: the kernel has no such socket: the peer is another machine (or it closed
/// already). nil: the kernel could not be asked (no AF_NETLINK in a sandbox) or did not answer
/// within a second; errno says why.
public enum SocketOwner: Sendable, Equatable {
    case local(uid_t)
    case elsewhere

    /// TCP states (the kernel's numbering, include/net/tcp_states.h) of a socket that is one end
    /// of a connection: established, or closing after it was.
    static let connectedStates: Set<UInt8> = [1, 4, 5, 8, 9, 11]  // ESTABLISHED, FIN_WAIT1/2, CLOSE_WAIT, LAST_ACK, CLOSING

    public static func ofPeer(_ ends: TCPEnds) -> SocketOwner? {
        let descriptor = socket(AF_NETLINK, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_SOCK_DIAG)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var patience = timeval.of(seconds: 1)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &patience, socklen_t(MemoryLayout<timeval>.size))
        var message = zeroed(sheet_inet_diag_request.self) { message in
            message.header.nlmsg_len = UInt32(MemoryLayout<sheet_inet_diag_request>.size)
            message.header.nlmsg_type = UInt16(SOCK_DIAG_BY_FAMILY)
            message.header.nlmsg_flags = UInt16(NLM_F_REQUEST)
            message.header.nlmsg_seq = 1
            message.request.sdiag_protocol = UInt8(IPPROTO_TCP)
            message.request.idiag_states = ~0
            // No cookie: the socket is looked up by its addresses and ports (INET_DIAG_NOCOOKIE).
            message.request.id.idiag_cookie = (~0, ~0)
            // The peer's socket: its own end (src) is the peer's address, its other end (dst)
            // ours. Ports and addresses stay in network order, as the kernel keeps them.
            switch ends {
            case .v4(let local, let peer):
                message.request.sdiag_family = UInt8(AF_INET)
                message.request.id.idiag_sport = peer.sin_port
                message.request.id.idiag_dport = local.sin_port
                message.request.id.idiag_src.0 = peer.sin_addr.s_addr
                message.request.id.idiag_dst.0 = local.sin_addr.s_addr
            case .v6(let local, let peer):
                message.request.sdiag_family = UInt8(AF_INET6)
                // A link-local peer's socket is bound to its scope's interface.
                message.request.id.idiag_if = peer.sin6_scope_id
                message.request.id.idiag_sport = peer.sin6_port
                message.request.id.idiag_dport = local.sin6_port
                withUnsafeBytes(of: peer.sin6_addr) { address in
                    withUnsafeMutableBytes(of: &message.request.id.idiag_src) { $0.copyMemory(from: address) }
                }
                withUnsafeBytes(of: local.sin6_addr) { address in
                    withUnsafeMutableBytes(of: &message.request.id.idiag_dst) { $0.copyMemory(from: address) }
                }
            }
        }
        var kernel = zeroed(sockaddr_nl.self) { $0.nl_family = sa_family_t(AF_NETLINK) }
        let sent = withUnsafePointer(to: &kernel) { address in
            address.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, &message, MemoryLayout<sheet_inet_diag_request>.size, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
            }
        }
        guard sent == MemoryLayout<sheet_inet_diag_request>.size else { return nil }
        let asked = message.request.id
        // One reply: the socket's inet_diag_msg, or an error (ENOENT: no such socket here).
        return withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 8) { buffer -> SocketOwner? in
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            guard count >= 0 else { return nil }
            let headerSize = MemoryLayout<nlmsghdr>.size
            // Anything but the one answer asked for is no answer (EPROTO, for the caller's log).
            func malformed() -> SocketOwner? {
                errno = EPROTO
                return nil
            }
            guard count >= headerSize else { return malformed() }
            let header = buffer.loadUnaligned(as: nlmsghdr.self)
            guard header.nlmsg_seq == 1, Int(header.nlmsg_len) <= count else { return malformed() }
            if header.nlmsg_type == UInt16(NLMSG_ERROR) {
                guard Int(header.nlmsg_len) >= headerSize + 4 else { return malformed() }
                let error = -buffer.loadUnaligned(fromByteOffset: headerSize, as: Int32.self)
                if error == ENOENT { return .elsewhere }
                errno = error
                return nil
            }
            guard header.nlmsg_type == UInt16(SOCK_DIAG_BY_FAMILY),
                  Int(header.nlmsg_len) >= headerSize + MemoryLayout<inet_diag_msg>.size else { return malformed() }
            let reply = buffer.loadUnaligned(fromByteOffset: headerSize, as: inet_diag_msg.self)
            // The kernel's lookup falls back to a listening socket of that port, and a socket
            // in TIME_WAIT or half open is reported as root's: only the connected socket of
            // exactly those ends says who is there.
            let found = reply.id
            let same = found.idiag_sport == asked.idiag_sport && found.idiag_dport == asked.idiag_dport
                && withUnsafeBytes(of: found.idiag_src) { a in withUnsafeBytes(of: asked.idiag_src) { a.elementsEqual($0) } }
                && withUnsafeBytes(of: found.idiag_dst) { a in withUnsafeBytes(of: asked.idiag_dst) { a.elementsEqual($0) } }
            guard same, SocketOwner.connectedStates.contains(reply.idiag_state) else { return malformed() }
            return .local(reply.idiag_uid)
        }
    }
}

/// The uid of a user given by name or as a number, as a command line gives one; nil when there
/// is no such user (getpwnam_r(3), wrapped once).
public func userID(_ given: String) -> uid_t? {
    if let number = UInt32(given) { return number }
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>?
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 16 << 10) { buffer in
        guard let base = buffer.baseAddress, getpwnam_r(given, &entry, base, buffer.count, &found) == 0, found != nil else { return nil }
        return entry.pw_uid
    }
}
