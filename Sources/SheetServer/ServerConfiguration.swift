#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import SheetCore
import SheetProtocol

/// How the varlink server listens and what it tolerates from clients.
public struct ServerConfiguration: Sendable {
    /// The socket to create (removed again on stop), when none is inherited.
    public var socketPath: String
    /// A listening socket handed over by systemd (`LISTEN_FDS`); the server does not remove it.
    public var inheritedDescriptor: CInt?
    /// Mode of a socket the server creates itself (0660: the owner and the socket's group).
    public var socketMode: mode_t = 0o660
    /// Group given to a socket the server creates itself; nil keeps the process's group.
    public var socketGroup: gid_t?
    /// Members of this group may call the control methods (besides root and the daemon's own
    /// user). Nil: the group of the socket file.
    public var controlGroup: gid_t?
    /// Members of this group read every program's sheet, its events too (the renderers). Nil:
    /// the group `sheetd-render`, where there is one.
    public var renderGroup: gid_t?
    /// The socket of `io.sheetd.Input`, for programs that feed touches; nil: none.
    public var inputSocketPath: String?
    /// The input socket handed over by systemd (`FileDescriptorName=input`).
    public var inputInheritedDescriptor: CInt?
    /// Group given to an input socket the server creates itself; nil keeps the process's group.
    public var inputSocketGroup: gid_t?
    /// Members of this group may feed touches (besides root and the daemon's own user). Nil:
    /// the group of the input socket's file.
    public var inputGroup: gid_t?
    /// Connections beyond this get `TooManyConnections` and are closed. sd-varlink allows 4096
    /// in all; a panel has a few renderers and tools.
    public var maximumConnections = 256
    /// Connections one user may hold at once (by uid), so that one user cannot take every
    /// slot; half of `maximumConnections` unless set.
    public var maximumConnectionsPerUser: Int?
    /// A connection that has made no call for this long is closed (subscribers are never
    /// idle). 10 s, as the slots of clients that connect and do nothing are others' to have.
    public var idleTimeout = TimeAmount.seconds(10)
    /// Calls read ahead of their answers per client; beyond, the client is not read.
    public var maximumQueuedCalls = 32
    /// Calls answered for one client before the loop turns to the others.
    public var callsPerTurn = 16
    /// Largest call accepted, in bytes, NUL excluded. Calls here are under 200 bytes; systemd's
    /// limit is 16 MiB.
    public var maximumMessageBytes = 64 * 1024
    /// A subscriber whose socket has not taken a byte for this long is dropped (i3 drops after
    /// 10 s).
    public var stallTimeout = TimeAmount.seconds(10)
    /// Bytes queued for a client before it counts as slow and gets only the newest state.
    public var writeBufferHighWaterMark = 64 * 1024

    public var vendor = "sheetd"
    public var product = "sheetd"
    public var version = "0.1.0"
    public var url = "https://github.com/sheetd/sheetd"

    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// `maximumConnectionsPerUser`, or its default.
    public var connectionsPerUser: Int { maximumConnectionsPerUser ?? max(1, maximumConnections / 2) }
}

/// Who waits for the answer to an `io.sheetd.Input` call: the connection it came on. A
/// reference, not a closure, so that a frame's round trip allocates nothing.
public protocol InputCaller: AnyObject, Sendable {
    func inputDone(_ result: InputResult)
}

/// What the server asks of the daemon. Called on the server's event loop; `completion` may be
/// called from any thread.
public protocol SheetServiceDelegate: AnyObject, Sendable {
    func devices() -> [InputDevice]
    /// `GetContent`'s answer without a wait: the shared sheet's content, or with `shown` (a
    /// renderer's, which draws whatever is shown) the shown sheet's.
    func content(shown: Bool) -> SharedContent
    /// A call about a sheet; `completion` once, from any thread.
    func control(_ call: SheetCall, completion: @escaping @Sendable (ControlResult) -> Void)
    /// The last connection of a program that opened sheets (`OpenSheet`) has gone: its sheets
    /// close. `program` is `SheetCall.program`.
    func programGone(_ program: UInt64)
    /// An `io.sheetd.Input` call from the connection numbered `connection` (unique for the
    /// server's life), which owns the devices it opens. Answered with `caller.inputDone`,
    /// once, from any thread.
    func input(_ request: InputRequest, connection: UInt64, from peer: PeerCredentials, caller: any InputCaller)
    /// A connection that opened input devices has gone: they close, their touches cancel.
    func inputConnectionClosed(_ connection: UInt64)
    /// What the daemon counted (`GetStats`); the server adds its own counts.
    func stats(completion: @escaping @Sendable (DaemonStats) -> Void)
    /// The states published while no one watched were skipped (`VarlinkServer.skip`), and
    /// `GetState` or a new subscriber needs the newest: the daemon publishes the state as it is
    /// now, then calls `completion`, from any thread.
    func refreshState(completion: @escaping @Sendable () -> Void)
}

