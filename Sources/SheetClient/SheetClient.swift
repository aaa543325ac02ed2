#if canImport(Glibc)
import Glibc
#endif
import SheetCore
import SheetProtocol
import SheetSystem

/// Why a call to the daemon failed, naming the socket and the call.
public enum ClientError: Error, CustomStringConvertible, Equatable {
    case connect(path: String, reason: String)
    case io(path: String, call: String, reason: String)
    /// The daemon closed the connection.
    case closed(path: String)
    case badReply(path: String, reason: String)
    /// The daemon answered with a varlink error (`io.sheetd.Sheet.NotAllowed`).
    case remote(name: String, parameters: JSONValue)

    public var description: String {
        switch self {
        case .connect(let path, let reason): return "cannot connect to \(path): \(reason)"
        case .io(let path, let call, let reason): return "\(call) on \(path): \(reason)"
        case .closed(let path): return "\(path): the daemon closed the connection"
        case .badReply(let path, let reason): return "\(path): a reply that is not varlink: \(reason)"
        case .remote(let name, let parameters):
            if case .object(let members) = parameters, !members.isEmpty {
                var writer = JSONWriter()
                writer.append(parameters)
                return "\(name) \(String(decoding: writer.bytes, as: UTF8.self))"
            }
            return name
        }
    }
}

/// A blocking varlink connection on a Unix stream socket: write a call, read its replies.
public final class VarlinkClientConnection {
    public let path: String
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    /// Replies longer than this are refused. The daemon's longest is `GetContent` on a full
    /// list: 1,024 items whose 320 bytes of id and label all need six-byte escapes come to
    /// about 2 MiB; a state is under 2 KiB.
    public static let maximumReplyBytes = 4 << 20
    static let emptyReply: StaticString = #"{"parameters":{}}"#
    /// What one `recv` reads into, kept for the next.
    private var chunk = [UInt8](repeating: 0, count: 16 * 1024)

    /// `timeoutSeconds`: how long a read or a write may block before the call fails (none
    /// when nil), for callers that must not hang on a daemon that stopped answering.
    public convenience init(path: String, timeoutSeconds: Double? = nil) throws(ClientError) {
        var failure: Int32 = 0
        try self.init(path: path, timeoutSeconds: timeoutSeconds, failure: &failure)
    }

    /// As `init(path:timeoutSeconds:)`, leaving in `failure` the errno of a connection that
    /// failed (0 for a failure without one), for a caller that decides by it.
    init(path: String, timeoutSeconds: Double?, failure: inout Int32) throws(ClientError) {
        self.path = path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            failure = errno
            throw .connect(path: path, reason: String(cString: strerror(failure)))
        }
        if let timeoutSeconds, timeoutSeconds > 0 {
            let whole = min(timeoutSeconds, 86_400)
            var limit = timeval.of(seconds: Int(whole), microseconds: Int((whole - whole.rounded(.down)) * 1_000_000))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            close(fd)
            throw .connect(path: path, reason: "the path is longer than \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            failure = errno
            close(fd)
            throw .connect(path: path, reason: String(cString: strerror(failure)))
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// The socket, for callers that poll it.
    public var fileDescriptor: Int32 { descriptor }

    public func send(_ call: VarlinkCall) throws(ClientError) {
        try sendRaw(call.encoded(), call: call.method)
    }

    /// Writes bytes as they are (tests use it to send garbage).
    public func sendRaw(_ bytes: [UInt8], call: String = "write") throws(ClientError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, call: call, reason: String(cString: strerror(errno)))
            }
            offset += written
        }
    }

    /// The next reply, errors included as values. Blocks until one has arrived.
    public func readReply() throws(ClientError) -> VarlinkReply {
        while true {
            if let reply = try bufferedReply() { return reply }
            try receive()
        }
    }

    /// A reply that has already arrived whole, or nil; never blocks.
    public func bufferedReply() throws(ClientError) -> VarlinkReply? {
        guard let nul = buffer[start...].firstIndex(of: 0) else {
            guard buffer.count - start <= Self.maximumReplyBytes else {
                throw .badReply(path: path, reason: "a reply longer than \(Self.maximumReplyBytes) bytes")
            }
            return nil
        }
        let range = start..<nul
        start = nul + 1
        let reply = Result { () throws(ProtocolError) in try Self.reply(buffer[range]) }
        // Emptied once the reply's bytes are no longer referenced, so that its storage is kept.
        if start == buffer.count { buffer.removeAll(keepingCapacity: true); start = 0 }
        switch reply {
        case .success(let reply): return reply
        case .failure(let error): throw .badReply(path: path, reason: error.reason)
        }
    }

    private static func reply(_ message: ArraySlice<UInt8>) throws(ProtocolError) -> VarlinkReply {
        // The reply of most calls, and of every frame a plugin sends: known without a tree.
        if emptyReply.withUTF8Buffer({ message.elementsEqual($0) }) { return VarlinkReply() }
        return try VarlinkReply(message: message)
    }

    /// Whether a whole reply is waiting in the buffer.
    public var hasBufferedReply: Bool { buffer[start...].contains(0) }

    /// Reads what the socket holds (blocking until something does) into the buffer; throws
    /// `.closed` at the end of the stream.
    public func receive() throws(ClientError) {
        if start > 0 { buffer.removeFirst(start); start = 0 }
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { throw .io(path: path, call: "read", reason: "no reply in time") }
                throw .io(path: path, call: "read", reason: String(cString: strerror(errno)))
            }
            if count == 0 { throw .closed(path: path) }
            buffer.append(contentsOf: chunk[..<count])
            return
        }
    }

    /// Sends `call` and returns its reply's parameters, or throws the error it got.
    public func call(_ call: VarlinkCall) throws(ClientError) -> JSONValue {
        try send(call)
        let reply = try readReply()
        if let error = reply.error { throw .remote(name: error, parameters: reply.parameters) }
        return reply.parameters
    }
}

/// `io.sheetd.Sheet` from the client's side.
public final class SheetClient {
    public static let defaultSocketPath = "/run/sheetd/io.sheetd.Sheet"
    public let connection: VarlinkClientConnection

    /// The environment variable that names the daemon's socket for every client command.
    public static let socketVariable = "SHEETD_SOCKET"

    /// The socket a client talks to: `explicit` when given, else the seat's when one is named
    /// (`/run/sheetd/SEAT/io.sheetd.Sheet`; seat0's is the default), else `$SHEETD_SOCKET` when
    /// set and not empty, else `/run/sheetd/io.sheetd.Sheet`.
    public static func socketPath(_ explicit: String? = nil, seat: Seat? = nil) -> String {
        if let explicit { return explicit }
        if let seat { return seat.socketPath }
        if let value = getenv(socketVariable), value.pointee != 0 { return String(cString: value) }
        return defaultSocketPath
    }

    public init(path: String = SheetClient.defaultSocketPath, timeoutSeconds: Double? = nil) throws(ClientError) {
        connection = try VarlinkClientConnection(path: path, timeoutSeconds: timeoutSeconds)
    }

    /// Connects, waiting up to `waitingUpTo` seconds (nil: for ever) for a daemon that is not
    /// there yet (`VarlinkClientConnection.waitingConnection(path:waitingUpTo:)`).
    public init(path: String, waitingUpTo seconds: Double?) throws(ClientError) {
        connection = try VarlinkClientConnection.waitingConnection(path: path, waitingUpTo: seconds)
    }

    private func method(_ name: String, _ parameters: [String: JSONValue] = [:]) throws(ClientError) -> JSONValue {
        try connection.call(VarlinkCall(method: "\(SheetInterface.name).\(name)", parameters: .object(parameters)))
    }

    private func decode<T>(_ body: () throws(ProtocolError) -> T) throws(ClientError) -> T {
        do { return try body() } catch { throw .badReply(path: connection.path, reason: error.reason) }
    }

    public func state() throws(ClientError) -> SheetState {
        let parameters = try method("GetState")
        return try decode { () throws(ProtocolError) in try SheetState(json: parameters["state"] ?? .null) }
    }

    /// What the daemon has counted since it started (`GetStats`).
    public func stats() throws(ClientError) -> DaemonStats {
        let parameters = try method("GetStats")
        guard let stats = parameters["stats"] else { throw .badReply(path: connection.path, reason: "GetStats without stats") }
        return try decode { () throws(ProtocolError) in try DaemonStats(json: stats) }
    }

    public func devices() throws(ClientError) -> [InputDevice] {
        let parameters = try method("ListDevices")
        guard case .array(let list)? = parameters["devices"] else {
            throw .badReply(path: connection.path, reason: "ListDevices without a devices array")
        }
        return try decode { () throws(ProtocolError) in try list.map { item throws(ProtocolError) in try InputDevice(json: item) } }
    }

    // The calls below act on the sheet `sheet` names (one of this program's), else on the
    // program's topmost sheet, else on the shared sheet.

    public func present(detent: String? = nil, sheet: String? = nil) throws(ClientError) {
        _ = try method("Present", Self.naming(sheet, detent.map { ["detent": .string($0)] } ?? [:]))
    }

    /// Hides the sheet; a guarded one only with `force` (else `io.sheetd.Sheet.Guarded`).
    public func dismiss(force: Bool = false, sheet: String? = nil) throws(ClientError) {
        _ = try method("Dismiss", Self.naming(sheet, force ? ["force": .bool(true)] : [:]))
    }

    /// Changes what the sheet holds; fields the change leaves nil keep their value.
    public func setContent(_ change: ContentChange, sheet: String? = nil) throws(ClientError) {
        _ = try method("SetContent", Self.naming(sheet, change.parameters))
    }

    private static func naming(_ sheet: String?, _ parameters: [String: JSONValue]) -> [String: JSONValue] {
        guard let sheet else { return parameters }
        var named = parameters
        named["sheet"] = .string(sheet)
        return named
    }

    /// Opens a sheet of this program's own (`OpenSheet`), presented at `detent` on `layer`,
    /// over the sheets opened before it; its id. Every connection of this process may act on
    /// it; it closes with the process's last connection. `open` gives it with its calls.
    public func openSheet(_ change: ContentChange, layer: SheetStack.Layer = .app, detent: String? = nil) throws(ClientError) -> String {
        var parameters = change.parameters
        parameters["layer"] = .string(layer.name.description)
        if let detent { parameters["detent"] = .string(detent) }
        let reply = try method("OpenSheet", parameters)
        guard let sheet = reply["sheet"]?.stringValue else { throw .badReply(path: connection.path, reason: "OpenSheet without a sheet") }
        return sheet
    }

    /// A sheet of this program's own (`openSheet`), its calls naming it and its events
    /// followed on a connection of their own (`OwnedSheet`).
    public func open(_ change: ContentChange, layer: SheetStack.Layer = .app, detent: String? = nil) throws(ClientError) -> OwnedSheet {
        OwnedSheet(client: self, sheet: try openSheet(change, layer: layer, detent: detent))
    }

    /// Closes one of this program's sheets (`CloseSheet`): dismissed when shown, then gone.
    public func closeSheet(_ sheet: String) throws(ClientError) {
        _ = try method("CloseSheet", ["sheet": .string(sheet)])
    }

    /// The programs' sheets the caller may see, bottom to top (`ListSheets`).
    public func sheets() throws(ClientError) -> [SheetListing] {
        let parameters = try method("ListSheets")
        guard case .array(let list)? = parameters["sheets"] else { throw .badReply(path: connection.path, reason: "ListSheets without a sheets array") }
        return try decode { () throws(ProtocolError) in try list.map { item throws(ProtocolError) in try SheetListing(json: item) } }
    }

    /// What the sheet holds, its items in the list's current order.
    public func content() throws(ClientError) -> SheetContent { try contentAndRevision().content }

    /// The content and its revision, to match against a state's `list.revision`.
    public func contentAndRevision() throws(ClientError) -> (content: SheetContent, revision: Int) {
        let answer = try contentOfSheet()
        return (answer.content, answer.revision)
    }

    /// The content, its revision and whose it is (`sheet`: a program's, nil for the shared
    /// sheet): for a renderer, the sheet shown, or the one `sheet` names.
    public func contentOfSheet(_ sheet: String? = nil) throws(ClientError) -> (content: SheetContent, revision: Int, sheet: String?) {
        let parameters = try method("GetContent", sheet.map { ["sheet": .string($0)] } ?? [:])
        return try decode { () throws(ProtocolError) in
            let content = try SheetContent(json: parameters["content"] ?? .null)
            guard let revision = parameters["revision"]?.intValue, revision >= 0 else {
                throw ProtocolError("GetContent: no revision")
            }
            var sheet: String?
            if let value = parameters["sheet"], !value.isNull {
                guard let name = value.stringValue, (1...64).contains(name.utf8.count) else { throw ProtocolError("GetContent: sheet is not a sheet's name") }
                sheet = name
            }
            return (content, revision, sheet)
        }
    }

    public func setDetent(_ detent: String, sheet: String? = nil) throws(ClientError) {
        _ = try method("SetDetent", Self.naming(sheet, ["detent": .string(detent)]))
    }

    /// The focus on `element` (an item's id or `close`), then `command` as a person's key
    /// (`Focus`): what an assistive technology's focus and click do. An element that cannot
    /// take the focus is `io.sheetd.Sheet.CannotFocus`.
    public func focus(_ element: String? = nil, command: FocusCommand? = nil, sheet: String? = nil) throws(ClientError) {
        var parameters: [String: JSONValue] = [:]
        if let element { parameters["element"] = .string(element) }
        if let command { parameters["command"] = .string(command.name.description) }
        _ = try method("Focus", Self.naming(sheet, parameters))
    }

    /// Changes how the sheet opens, closes and shares the screen (`SetPresentation`): the
    /// fields given, the rest as they are.
    public func setPresentation(_ change: PresentationChange) throws(ClientError) {
        _ = try method("SetPresentation", change.parameters)
    }

    /// Reduced motion on or off (`SetReduceMotion`).
    public func setReduceMotion(_ enabled: Bool) throws(ClientError) {
        _ = try method("SetReduceMotion", ["enabled": .bool(enabled)])
    }

    /// Changes how the sheet looks (`SetAppearance`): the fields given, the rest as they are.
    public func setAppearance(_ change: AppearanceChange) throws(ClientError) {
        _ = try method("SetAppearance", change.parameters)
    }

    public func setScreen(width: Int, height: Int, scale: Double? = nil) throws(ClientError) {
        var parameters: [String: JSONValue] = ["width": .number(Double(width)), "height": .number(Double(height))]
        if let scale { parameters["scale"] = .number(scale) }
        _ = try method("SetScreen", parameters)
    }

    /// Subscribes and calls `body` with each update (the current state first) until it returns
    /// false or the daemon closes the connection. `maxRate`: at most that many states a second
    /// (`MonitorPacer`); nil: every state.
    public func monitor(maxRate: Int? = nil, _ body: (MonitorUpdate, JSONValue) throws -> Bool) throws {
        try connection.send(SheetInterface.monitorCall(maxRate: maxRate))
        while true {
            let reply = try connection.readReply()
            if let error = reply.error { throw ClientError.remote(name: error, parameters: reply.parameters) }
            let update = try decode { () throws(ProtocolError) in try MonitorUpdate(json: reply.parameters) }
            guard try body(update, reply.parameters) else { return }
            if !reply.continues { return }
        }
    }
}

/// `io.sheetd.Input` from a plugin's side: open a device, send its frames.
public final class InputClient {
    public static let defaultSocketPath = "/run/sheetd/io.sheetd.Input"
    /// The environment variable that names the input socket.
    public static let socketVariable = "SHEETD_INPUT_SOCKET"
    public let connection: VarlinkClientConnection
    private var writer = JSONWriter(capacity: 1024)

    /// `explicit` when given, else `$SHEETD_INPUT_SOCKET` when set and not empty, else
    /// `otherwise` (by default `/run/sheetd/io.sheetd.Input`).
    public static func socketPath(_ explicit: String? = nil, otherwise: String = defaultSocketPath) -> String {
        if let explicit { return explicit }
        if let value = getenv(socketVariable), value.pointee != 0 { return String(cString: value) }
        return otherwise
    }

    public init(path: String, waitingUpTo seconds: Double? = 0) throws(ClientError) {
        connection = seconds == 0 ? try VarlinkClientConnection(path: path)
            : try VarlinkClientConnection.waitingConnection(path: path, waitingUpTo: seconds)
    }

    private func method(_ name: String, _ parameters: JSONValue) throws(ClientError) -> JSONValue {
        try connection.call(VarlinkCall(method: "\(InputInterface.name).\(name)", parameters: parameters))
    }

    /// Opens a device that lives as long as this connection; its id.
    public func open(_ device: PluginDevice) throws(ClientError) -> Int {
        let reply = try method("OpenDevice", device.parameters)
        guard let id = reply["device"]?.intValue else { throw .badReply(path: connection.path, reason: "OpenDevice without a device id") }
        return id
    }

    /// Sends a frame; a refusal is `.remote(InvalidFrame, …)`. Written into a buffer kept for
    /// the next frame, its reply read without a tree: a frame costs no allocation.
    public func send(_ frame: PluginFrame, device: Int) throws(ClientError) {
        SendFrameCall(device: device, frame: frame).write(into: &writer)
        try connection.sendRaw(writer.bytes, call: SendFrameCall.method)
        let reply = try connection.readReply()
        if let error = reply.error { throw .remote(name: error, parameters: reply.parameters) }
    }

    public func close(device: Int) throws(ClientError) {
        _ = try method("CloseDevice", .object(["device": .number(Double(device))]))
    }

    /// Opens a device of keys (`OpenKeys`) that lives as long as this connection; its id.
    public func openKeys(name: String, clock: PluginClock = .monotonic) throws(ClientError) -> Int {
        let reply = try method("OpenKeys", .object(["name": .string(name), "clock": .string(clock.rawValue)]))
        guard let id = reply["device"]?.intValue else { throw .badReply(path: connection.path, reason: "OpenKeys without a device id") }
        return id
    }

    /// Sends a report of keys; a refusal is `.remote(InvalidFrame, …)`.
    public func send(_ report: PluginKeyReport, device: Int) throws(ClientError) {
        _ = try method("SendKeys", report.parameters(device: device))
    }
}

/// A sheet a program opened (`SheetClient.open`): its calls name it, on the client's
/// connection; `events` follows what a person does on it on a connection of its own, so that
/// the program answers each event with calls while it follows. No event is lost between
/// opening and following: the daemon holds a sheet's events while no connection of its
/// program follows, and gives them to the first `Monitor` that does.
public final class OwnedSheet {
    public let client: SheetClient
    public let sheet: String

    init(client: SheetClient, sheet: String) {
        self.client = client
        self.sheet = sheet
    }

    public func setContent(_ change: ContentChange) throws(ClientError) { try client.setContent(change, sheet: sheet) }
    public func present(detent: String? = nil) throws(ClientError) { try client.present(detent: detent, sheet: sheet) }
    public func dismiss(force: Bool = false) throws(ClientError) { try client.dismiss(force: force, sheet: sheet) }
    public func setDetent(_ detent: String) throws(ClientError) { try client.setDetent(detent, sheet: sheet) }
    public func focus(_ element: String? = nil, command: FocusCommand? = nil) throws(ClientError) {
        try client.focus(element, command: command, sheet: sheet)
    }
    public func content() throws(ClientError) -> (content: SheetContent, revision: Int) {
        let answer = try client.contentOfSheet(sheet)
        return (answer.content, answer.revision)
    }
    /// Closes it (dismissed, animated, when shown); the sheet beneath comes back.
    public func close() throws(ClientError) { try client.closeSheet(sheet) }

    /// Calls `body` with each of the sheet's events, from the first after it opened, until it
    /// returns false or the daemon goes; `state` is the state the event came with. A
    /// connection of its own: `body` may make the sheet's calls.
    public func events(maxRate: Int? = nil, _ body: (SheetEvent, SheetState) throws -> Bool) throws {
        let follower = try SheetClient(path: client.connection.path, timeoutSeconds: nil)
        try follower.monitor(maxRate: maxRate) { update, _ in
            for event in update.events where event.sheet == sheet {
                guard try body(event, update.state) else { return false }
            }
            return true
        }
    }
}
