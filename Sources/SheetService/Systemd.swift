#if canImport(Glibc)
import Glibc
import SheetSystem
#endif

/// The two sides of systemd's service protocol, without libsystemd: notifications
/// (sd_notify(3): `KEY=value` lines in a datagram to `$NOTIFY_SOCKET`) and socket activation
/// (sd_listen_fds(3): descriptors from 3 when `$LISTEN_PID` is us).
public struct Systemd: Sendable {
    public let notifySocket: String?
    /// Half of `$WATCHDOG_USEC`, when the watchdog is on for this process.
    public let watchdogIntervalMicroseconds: Int64?

    public init(environment: [String: String] = Systemd.environment()) {
        notifySocket = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        if let text = environment["WATCHDOG_USEC"], let usec = Int64(text), usec > 0,
           environment["WATCHDOG_PID"].map({ Int32($0) == getpid() }) ?? true {
            watchdogIntervalMicroseconds = usec / 2
        } else {
            watchdogIntervalMicroseconds = nil
        }
    }

    public static func environment() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    /// Sends `state` (`READY=1`, `STATUS=…`, `WATCHDOG=1`); quietly nothing outside systemd.
    public func notify(_ state: String) {
        guard let path = notifySocket else { return }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        // A manager that does not read (a queue of 10 datagrams by default) must not stop the
        // daemon for ever: READY=1 and its kin wait a second at most.
        var timeout = timeval.of(seconds: 1)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }  // an abstract socket
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        var message = Array(state.utf8)
        // A STATUS= line is news, not a step of the protocol: when the manager's queue is full
        // it is dropped rather than block the thread that sends it (the input loop).
        let flags = Int32(MSG_NOSIGNAL) | (state.hasPrefix("STATUS=") ? Int32(MSG_DONTWAIT) : 0)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddrPointer in
                message.withUnsafeMutableBytes { sendto(descriptor, $0.baseAddress, $0.count, flags, sockaddrPointer, length) }
            }
        }
    }

    /// The listening sockets systemd passed, by `FileDescriptorName=` (a socket without a
    /// name is `varlink`, the main one); clears the variables so that children do not take them.
    public static func takeListeningSockets(environment: [String: String] = Systemd.environment()) -> [String: Int32] {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pid = environment["LISTEN_PID"].flatMap({ Int32($0) }), pid == getpid(),
              let count = environment["LISTEN_FDS"].flatMap({ Int($0) }), (1...64).contains(count) else { return [:] }
        let names = environment["LISTEN_FDNAMES"].map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) } ?? []
        var sockets: [String: Int32] = [:]
        for index in 0..<count {
            let descriptor = Int32(3 + index)  // SD_LISTEN_FDS_START
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            let name = index < names.count && !names[index].isEmpty && names[index] != "unknown" ? names[index] : "varlink"
            if sockets[name] == nil { sockets[name] = descriptor }
        }
        return sockets
    }
}
