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
        var commands: [(SheetCall, @Sendable (ControlResult) -> Void)] = []
        var reloads: [(Settings, @Sendable () -> Void)] = []
        var inputs: [InputCall] = []
        /// Connections gone with input devices open.
        var inputConnectionsGone: [UInt64] = []
        /// Connections gone with sheets open.
        var programsGone: [UInt64] = []
        /// `GetStats` calls waiting for the loop's counts.
        var stats: [@Sendable (DaemonStats) -> Void] = []
        /// `GetState`s and new subscribers waiting for the state as it is now.
        var refreshes: [@Sendable () -> Void] = []
        var stopping = false

        /// Empties every list, keeping its storage for the next take.
        mutating func clear() {
            if !commands.isEmpty { commands.removeAll(keepingCapacity: true) }
            if !reloads.isEmpty { reloads.removeAll(keepingCapacity: true) }
            if !inputs.isEmpty { inputs.removeAll(keepingCapacity: true) }
            if !inputConnectionsGone.isEmpty { inputConnectionsGone.removeAll(keepingCapacity: true) }
            if !programsGone.isEmpty { programsGone.removeAll(keepingCapacity: true) }
            if !stats.isEmpty { stats.removeAll(keepingCapacity: true) }
            if !refreshes.isEmpty { refreshes.removeAll(keepingCapacity: true) }
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
    /// Set after anything is queued, cleared by `take`: a turn with nothing handed over (most
    /// turns, a touch frame each) costs one load, not the lock and the lists.
    private let pending = Atomic<Bool>(false)
    private let waiter: Waiter

    init(waking waiter: Waiter) {
        self.waiter = waiter
    }

    /// Queues a call about a sheet; `completion` runs on the loop's thread.
    func submit(_ call: SheetCall, completion: @escaping @Sendable (ControlResult) -> Void) {
        calls.withLock { $0.commands.append((call, completion)) }
        queued()
    }

    /// Closes the sheets of a program that has gone.
    func programGone(_ program: UInt64) {
        calls.withLock { $0.programsGone.append(program) }
        queued()
    }

    /// Queues a reload with settings read again; `completion` runs on the loop's thread once
    /// they apply.
    func reload(_ settings: Settings, completion: @escaping @Sendable () -> Void) {
        calls.withLock { $0.reloads.append((settings, completion)) }
        queued()
    }

    /// Queues an `io.sheetd.Input` call; `completion` runs on the loop's thread.
    func submit(_ call: InputCall) {
        calls.withLock { $0.inputs.append(call) }
        queued()
    }

    /// Closes the input devices of a connection that has gone.
    func inputConnectionClosed(_ connection: UInt64) {
        calls.withLock { $0.inputConnectionsGone.append(connection) }
        queued()
    }

    /// Queues a `GetStats`; `completion` runs on the loop's thread with what it counted.
    func submitStats(_ completion: @escaping @Sendable (DaemonStats) -> Void) {
        calls.withLock { $0.stats.append(completion) }
        queued()
    }

    /// Queues a request for the state as it is now (`SheetServiceDelegate.refreshState`);
    /// `completion` runs on the loop's thread once it is published.
    func submitRefresh(_ completion: @escaping @Sendable () -> Void) {
        calls.withLock { $0.refreshes.append(completion) }
        queued()
    }

    func stop() {
        calls.withLock { $0.stopping = true }
        queued()
    }

    /// Marks something queued, then wakes the loop: a take that misses the mark misses only
    /// what the wake-up then brings it to.
    private func queued() {
        pending.store(true, ordering: .releasing)
        waiter.wake()
    }

    /// All that was queued since the last take (a stop stays), swapped into `taken`, whose
    /// lists must be empty: the two sets of lists take turns, so that a call queued costs no
    /// allocation once they have grown. False, with `taken` left as it is, when nothing was.
    @discardableResult
    func take(into taken: inout Calls) -> Bool {
        guard pending.load(ordering: .acquiring) else { return false }
        pending.store(false, ordering: .relaxed)
        calls.withLock { box in
            swap(&box, &taken)
            box.stopping = taken.stopping
        }
        return true
    }
}
