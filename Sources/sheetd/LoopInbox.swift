import SheetConfig
import SheetInput
import SheetProtocol
import SheetServer
import Synchronization

/// What other threads hand the engine loop: control calls, reloads, input calls, connections
/// gone, a stop. Each wakes the loop, which takes them all at once (`take`) and answers on its
/// own thread.
final class LoopInbox: Sendable {
    struct Calls {
        var commands: [(ControlRequest, @Sendable (ControlResult) -> Void)] = []
        var reloads: [(Settings, @Sendable () -> Void)] = []
        var inputs: [InputCall] = []
        /// Connections gone with input devices open.
        var inputConnectionsGone: [UInt64] = []
        /// `GetStats` calls waiting for the loop's counts.
        var stats: [@Sendable (DaemonStats) -> Void] = []
        var stopping = false

        /// Empties every list, keeping its storage for the next take.
        mutating func clear() {
            commands.removeAll(keepingCapacity: true)
            reloads.removeAll(keepingCapacity: true)
            inputs.removeAll(keepingCapacity: true)
            inputConnectionsGone.removeAll(keepingCapacity: true)
            stats.removeAll(keepingCapacity: true)
        }
    }

    /// An `io.sheetd.Input` call and the connection it came on, which takes the answer.
    struct InputCall {
        var request: InputRequest
        var connection: UInt64
        var peer: PeerCredentials
        var caller: any InputCaller
    }

    private let calls = Mutex<Calls>(Calls())
    private let waiter: Waiter

    init(waking waiter: Waiter) {
        self.waiter = waiter
    }

    /// Queues a control call; `completion` runs on the loop's thread.
    func submit(_ request: ControlRequest, completion: @escaping @Sendable (ControlResult) -> Void) {
        calls.withLock { $0.commands.append((request, completion)) }
        waiter.wake()
    }

    /// Queues a reload with settings read again; `completion` runs on the loop's thread once
    /// they apply.
    func reload(_ settings: Settings, completion: @escaping @Sendable () -> Void) {
        calls.withLock { $0.reloads.append((settings, completion)) }
        waiter.wake()
    }

    /// Queues an `io.sheetd.Input` call; `completion` runs on the loop's thread.
    func submit(_ call: InputCall) {
        calls.withLock { $0.inputs.append(call) }
        waiter.wake()
    }

    /// Closes the input devices of a connection that has gone.
    func inputConnectionClosed(_ connection: UInt64) {
        calls.withLock { $0.inputConnectionsGone.append(connection) }
        waiter.wake()
    }

    /// Queues a `GetStats`; `completion` runs on the loop's thread with what it counted.
    func submitStats(_ completion: @escaping @Sendable (DaemonStats) -> Void) {
        calls.withLock { $0.stats.append(completion) }
        waiter.wake()
    }

    func stop() {
        calls.withLock { $0.stopping = true }
        waiter.wake()
    }

    /// All that was queued since the last take (a stop stays), swapped into `taken`, whose
    /// lists must be empty: the two sets of lists take turns, so that a call queued costs no
    /// allocation once they have grown.
    func take(into taken: inout Calls) {
        calls.withLock { box in
            swap(&box, &taken)
            box.stopping = taken.stopping
        }
    }
}
