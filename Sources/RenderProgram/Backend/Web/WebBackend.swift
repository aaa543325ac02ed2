#if canImport(Glibc)
import Glibc
#endif
import CDisplay
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import SheetCore
import SheetProtocol
import SheetRenderKit
import SheetService
import SheetSystem

/// `--backend web`: the sheet drawn by a page in a browser (a kiosk's `cage -- chromium --kiosk
/// URL`, where no layer shell puts a surface over the browser). sheet-render serves, over HTTP,
/// the ES module `/sheetd.js` that defines `<sheet-view>`, the icons its rows name
/// (`/icons/NAME.svg`, from the icon theme) and a WebSocket (`/socket`) that carries the states
/// to the page and the page's touches and keys back; those go to the daemon as forwarded input
/// (`InputForwarder`, as under a compositor), so the daemon's recogniser decides.
///
/// Only the kiosk's browser is served. Each connection's user is asked of the kernel when it
/// comes (`WebVisitor`: the peer socket's owner through sock_diag for TCP, SO_PEERCRED for a
/// Unix socket), and only the `--allow-user` users' get an answer: any local process can write
/// any header, so another user's could otherwise read a program's content and move the sheet.
/// Only pages of an allowed origin (`--allow-origin`) are served the module and the socket: the
/// `Origin` of a WebSocket's upgrade is checked, and refused with 403, so another site the
/// kiosk's browser opens can neither read a program's content nor move the sheet.
///
/// Each page is paced to its own frame rate: it says when it has drawn a state (`drawn`), and
/// until then the newest state waits for it, replacing older ones. The screen the daemon maps
/// touches to is the newest page's viewport, in CSS pixels.
///
/// Limits (docs/renderers.md): a message from a page at most `maximumMessage` bytes, at most
/// `maximumMessagesPerSecond` a second from each page, at most `maximumPages` pages at once and
/// `maximumInbox` inputs waiting for the render loop; past one, the page is closed with a policy
/// violation and the log says so once. At most `maximumConnectionsPerVisitor` connections of one
/// user (or one address elsewhere) at once, past which one is answered 503 and closed; an HTTP
/// connection that sends nothing for `idleSeconds` is closed (a page's socket is not: a page
/// at rest has nothing to say).
final class WebBackend: Backend {
    static let maximumMessage = 16 << 10
    static let maximumMessagesPerSecond = 2000
    static let maximumPages = 16
    static let maximumInbox = 4096
    static let maximumConnectionsPerVisitor = 32
    static let idleSeconds: Int64 = 10

    let name = "web"
    private let shared: WebShared
    private let group: MultiThreadedEventLoopGroup
    private let server: Channel
    private let forwarder: InputForwarder?
    private let log: Log
    /// The content last sent to the pages: its sheet and revision.
    private var sentContent: (sheet: String?, revision: Int)?
    let place: String

    var displaySize: (width: Int, height: Int)? { shared.viewport }
    var displayScale: Double? { 1 }
    var eventDescriptor: Int32? { shared.wakeup }
    var method: String { "pages paced by their frames" }

    init(listen: WebListen, origins: [WebOrigin], users: WebUsers, anywhere: Bool, icons: IconCache?,
         forwarder: InputForwarder?, log: Log) throws(RenderError) {
        self.forwarder = forwarder
        self.log = log
        let wakeup = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wakeup >= 0 else { throw .system("eventfd") }
        let shared = WebShared(wakeup: wakeup, origins: origins, users: users, anywhere: anywhere, icons: icons)
        self.shared = shared
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                // Who it is, before a byte of it is read: another user's connection gets a
                // refusal and nothing else.
                let visitor = WebVisitor.of(channel)
                switch shared.admit(visitor) {
                case .refused(let status):
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(WebRefusal(status: status))
                    }
                case .admitted(let key):
                    channel.closeFuture.whenComplete { _ in shared.release(key) }
                }
                let http = WebHTTPHandler(shared: shared)
                let upgrader = NIOWebSocketServerUpgrader(
                    maxFrameSize: WebBackend.maximumMessage, automaticErrorHandling: true,
                    shouldUpgrade: { channel, head in
                        // Only the socket, only from an allowed origin; anything else stays HTTP
                        // and is answered there (403 for another origin).
                        guard head.uri == "/socket", let origin = head.headers.first(name: "origin"),
                              shared.allows(origin), shared.pageCount < WebBackend.maximumPages else {
                            return channel.eventLoop.makeSucceededFuture(nil)
                        }
                        return channel.eventLoop.makeSucceededFuture(HTTPHeaders())
                    },
                    upgradePipelineHandler: { channel, head in
                        let origin = head.headers.first(name: "origin") ?? ""
                        return channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(WebPage(shared: shared, origin: origin, channel: channel))
                        }
                    })
                return channel.eventLoop.makeCompletedFuture {
                    // HTTP that sends nothing for a while is closed; a page's socket stays.
                    try channel.pipeline.syncOperations.addHandler(
                        IdleStateHandler(readTimeout: .seconds(WebBackend.idleSeconds)), name: "sheet-idle")
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in
                            channel.pipeline.removeHandler(name: "sheet-http", promise: nil)
                            channel.pipeline.removeHandler(name: "sheet-idle", promise: nil)
                        }))
                    try channel.pipeline.syncOperations.addHandler(http, name: "sheet-http")
                }
            }
        do {
            switch listen {
            case .tcp(let host, let port): server = try bootstrap.bind(host: host, port: port).wait()
            case .unix(let path):
                // A socket left by an earlier renderer is taken over; any other file is not.
                var status = stat()
                if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
                server = try bootstrap.bind(unixDomainSocketPath: path).wait()
            }
        } catch {
            try? group.syncShutdownGracefully()
            close(wakeup)
            throw .unavailable("web: cannot listen on \(listen): \(error)")
        }
        place = "\(listen)"
        log.say("sheet-render: web: serving /sheetd.js and its socket on \(listen) to pages of \(origins.map(\.text).joined(separator: ", "))"
                + " in a browser of \(users)\(anywhere ? ", and to other machines" : "")")
    }

    /// Every update as it arrives: what the sheet did (`events`) reaches the pages at once,
    /// whatever states are skipped for the newest.
    func hear(_ update: MonitorUpdate) {
        guard !update.events.isEmpty else { return }
        var w = JSONWriter(capacity: 256)
        w.append("{\"events\":[")
        for (index, event) in update.events.enumerated() {
            if index > 0 { w.append(UInt8(ascii: ",")) }
            event.write(to: &w)
        }
        w.append("],\"sheet\":")
        if let sheet = update.state.sheet { w.appendString(sheet) } else { w.append("null") }
        w.append(UInt8(ascii: "}"))
        shared.broadcast(w.bytes)
    }

    func show(_ state: SheetState, content: SheetContent?) throws(RenderError) -> Presentation {
        let revision = state.list?.revision ?? -1
        if let content, sentContent.map({ $0.sheet != state.sheet || $0.revision != revision }) ?? true {
            var w = JSONWriter(capacity: 2048)
            w.append("{\"content\":")
            content.write(to: &w)
            w.append(",\"sheet\":")
            if let sheet = state.sheet { w.appendString(sheet) } else { w.append("null") }
            w.append(",\"revision\":")
            w.appendInteger(Int64(revision))
            w.append(UInt8(ascii: "}"))
            shared.setContent(w.bytes)
            sentContent = (state.sheet, revision)
        }
        var w = JSONWriter(capacity: 1024)
        w.append("{\"state\":")
        state.write(to: &w)
        w.append(UInt8(ascii: "}"))
        // On its way to the pages: shown once one says it drew it (`drawn`), as a page flip.
        return shared.setState(w.bytes) ? .queued(rows: nil) : .shown(rows: nil)
    }

    /// The pages said something: their touches and keys go on to the daemon, in order.
    func handleEvent() throws(RenderError) -> Int64? {
        var count: UInt64 = 0
        _ = read(shared.wakeup, &count, 8)
        for said in shared.takeInbox() {
            switch said.input {
            case .touch(let contacts, let milliseconds):
                guard let forwarder, let viewport = shared.viewport else { continue }
                forwarder.size = viewport
                forwarder.forward(contacts, at: UInt32(truncatingIfNeeded: milliseconds))
            case .key(let code, let pressed):
                forwarder?.forwardKey(code, pressed: pressed, at: monotonicMicroseconds())
            case .blur:
                forwarder?.releaseKeys(at: monotonicMicroseconds())
            case .left:
                forwarder?.releaseKeys(at: monotonicMicroseconds())
                forwarder?.cancelTouches()
            }
        }
        for line in shared.takeNotes() { log.say("sheet-render: web: \(line)") }
        return shared.takeDrawn()
    }

    func finish() throws(RenderError) -> Bool {
        try? server.close().wait()
        try? group.syncShutdownGracefully()
        close(shared.wakeup)
        return false
    }
}

/// `--listen`: `HOST:PORT` (`[::1]:PORT` for IPv6), or `unix:PATH` for a reverse proxy.
enum WebListen: CustomStringConvertible, Equatable {
    case tcp(host: String, port: Int)
    case unix(path: String)

    init(_ text: String) throws(RenderError) {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard path.hasPrefix("/"), path.utf8.count < 108 else {
                throw RenderError("--listen unix:PATH wants an absolute path shorter than 108 bytes; got `\(text)`", status: 64)
            }
            self = .unix(path: path)
            return
        }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else {
            throw RenderError("--listen wants HOST:PORT (a port from 1 to 65535) or unix:PATH; got `\(text)`", status: 64)
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw RenderError("--listen wants a host before the port; got `\(text)`", status: 64) }
        self = .tcp(host: host, port: port)
    }

    /// Whether only this machine can connect.
    var isLoopback: Bool {
        switch self {
        case .unix: return true
        case .tcp(let host, _): return host == "localhost" || host == "::1" || host.hasPrefix("127.")
        }
    }

    var description: String {
        switch self {
        case .tcp(let host, let port): return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): return "unix:\(path)"
        }
    }
}

/// `--allow-origin`: a page's origin as a browser sends it, `http://localhost:8080`: a scheme
/// (http or https), a host and an optional port, nothing after.
struct WebOrigin: Sendable, Equatable {
    let text: String

    init(_ given: String) throws(RenderError) {
        let lowered = given.lowercased()
        let scheme = lowered.hasPrefix("http://") ? "http://" : lowered.hasPrefix("https://") ? "https://" : nil
        guard let scheme else { throw RenderError("--allow-origin wants http://HOST[:PORT] or https://HOST[:PORT]; got `\(given)`", status: 64) }
        let rest = lowered.dropFirst(scheme.count)
        guard !rest.isEmpty, rest.allSatisfy({ $0.isLetter || $0.isNumber || "-.:[]".contains($0) }) else {
            throw RenderError("--allow-origin wants an origin with no path, query or user: `\(given)`", status: 64)
        }
        text = lowered
    }
}

/// What the event loop and the render loop share, under one lock: the pages, the newest
/// content and state, the inputs the pages sent and the viewport they draw in.
final class WebShared: Sendable {
    let wakeup: Int32
    let origins: [WebOrigin]
    let users: WebUsers
    /// --listen-anywhere: a connection from another machine is served (by origin alone).
    let anywhere: Bool
    let icons: IconCache?

    private struct State {
        var pages: [ObjectIdentifier: WebPage] = [:]
        var content: [UInt8]?
        var state: [UInt8]?
        var inbox: [(page: ObjectIdentifier, input: WebInput)] = []
        var viewport: (width: Int, height: Int)?
        var notes: [String] = []
        /// When a page last said it drew a state (CLOCK_MONOTONIC microseconds), not yet taken.
        var drawn: Int64?
        /// The connections open now, by who made them (`WebVisitor.key`).
        var connections: [String: Int] = [:]
        /// Who was refused already, so that the log says so once for each.
        var refused: Set<String> = []
    }
    private let box = NIOLockedValueBox(State())

    init(wakeup: Int32, origins: [WebOrigin], users: WebUsers, anywhere: Bool, icons: IconCache?) {
        self.wakeup = wakeup
        self.origins = origins
        self.users = users
        self.anywhere = anywhere
        self.icons = icons
    }

    static let maximumRefusalsNoted = 1024

    enum Admission {
        /// Served; `release(key)` once it closes.
        case admitted(key: String)
        /// Answered with this status and closed.
        case refused(HTTPResponseStatus)
    }

    /// Whether a new connection is served: its user is allowed (another machine's only with
    /// --listen-anywhere), and it has fewer than `maximumConnectionsPerVisitor` open. A refusal
    /// is said once in the log for each user or address.
    func admit(_ visitor: WebVisitor) -> Admission {
        let refusal: (HTTPResponseStatus, String)?
        switch visitor {
        case .user(let uid) where !users.uids.contains(uid):
            refusal = (.forbidden, "a connection of uid \(uid) refused: this renderer serves \(users) (--allow-user)")
        case .elsewhere(let address) where !anywhere:
            refusal = (.forbidden, "a connection from \(address) refused: not a process of this machine (--listen-anywhere serves other machines)")
        case .unknown(let why):
            refusal = (.forbidden, "a connection refused: who made it is not known (\(why))")
        default:
            refusal = nil
        }
        let key = visitor.key
        // Said once for each; past `maximumRefusalsNoted` of them (many addresses elsewhere), no more.
        func first(_ state: inout State, _ key: String) -> Bool {
            state.refused.count < WebShared.maximumRefusalsNoted && state.refused.insert(key).inserted
        }
        let outcome = box.withLockedValue { state -> (Admission, note: String?) in
            if let refusal {
                let (status, why) = refusal
                return (.refused(status), first(&state, key) ? why : nil)
            }
            let open = state.connections[key, default: 0]
            guard open < WebBackend.maximumConnectionsPerVisitor else {
                let why = "a connection of \(visitor) refused: \(open) of its connections are open, the most one may hold"
                return (.refused(.serviceUnavailable), first(&state, key + " full") ? why : nil)
            }
            state.connections[key] = open + 1
            return (.admitted(key: key), nil)
        }
        if let note = outcome.note { self.note(note) }
        return outcome.0
    }

    func release(_ key: String) {
        box.withLockedValue { state in
            let open = state.connections[key, default: 1] - 1
            state.connections[key] = open > 0 ? open : nil
        }
    }

    func allows(_ origin: String) -> Bool { origins.contains { $0.text == origin.lowercased() } }
    var pageCount: Int { box.withLockedValue { $0.pages.count } }
    var viewport: (width: Int, height: Int)? { box.withLockedValue { $0.viewport } }

    func joined(_ page: WebPage) -> (content: [UInt8]?, state: [UInt8]?) {
        box.withLockedValue {
            $0.pages[ObjectIdentifier(page)] = page
            return ($0.content, $0.state)
        }
    }

    func left(_ page: WebPage) { box.withLockedValue { _ = $0.pages.removeValue(forKey: ObjectIdentifier(page)) } }

    func setContent(_ bytes: [UInt8]) {
        let pages = box.withLockedValue { $0.content = bytes; return Array($0.pages.values) }
        for page in pages { page.send(bytes) }
    }

    /// The newest state, offered to every page; false when no page is there to draw it.
    func setState(_ bytes: [UInt8]) -> Bool {
        let pages = box.withLockedValue { $0.state = bytes; return Array($0.pages.values) }
        for page in pages { page.offer(bytes) }
        return !pages.isEmpty
    }

    /// A page drew the state it was sent.
    func drew() {
        box.withLockedValue { $0.drawn = monotonicMicroseconds() }
        wake()
    }

    func takeDrawn() -> Int64? {
        box.withLockedValue { state in
            defer { state.drawn = nil }
            return state.drawn
        }
    }

    func broadcast(_ bytes: [UInt8]) {
        for page in box.withLockedValue({ Array($0.pages.values) }) { page.send(bytes) }
    }

    /// Queues what a page said for the render loop; false when the queue is full.
    func deliver(_ input: WebInput, from page: WebPage) -> Bool {
        let full = box.withLockedValue { state -> Bool in
            guard state.inbox.count < WebBackend.maximumInbox else { return true }
            state.inbox.append((ObjectIdentifier(page), input))
            return false
        }
        if !full { wake() }
        return !full
    }

    func resize(to viewport: (width: Int, height: Int)) {
        box.withLockedValue { $0.viewport = viewport }
        wake()
    }

    func note(_ line: String) {
        box.withLockedValue { $0.notes.append(line) }
        wake()
    }

    func takeInbox() -> [(page: ObjectIdentifier, input: WebInput)] {
        box.withLockedValue { state in
            defer { state.inbox.removeAll(keepingCapacity: true) }
            return state.inbox
        }
    }

    func takeNotes() -> [String] {
        box.withLockedValue { state in
            defer { state.notes.removeAll() }
            return state.notes
        }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeup, &one, 8)
    }
}
