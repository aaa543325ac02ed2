#if canImport(Glibc)
import Glibc
#endif
import CLibInput
import SheetCore
import Synchronization

/// What the input thread sleeps on: an input descriptor, a CLOCK_MONOTONIC timer (timerfd, to
/// the microsecond) and a wake-up from other threads (eventfd). Nothing else wakes it.
///
/// The three are registered once in an epoll set, so that a wait is one `epoll_wait` that
/// looks only at what is ready (a `poll` of the three put the thread on each one's wait queue
/// and took it off again, every turn).
public final class Waiter: @unchecked Sendable {
    private let wakeDescriptor: Int32
    private let timerDescriptor: Int32
    private let epollDescriptor: Int32
    /// The input descriptor in the set (-1: none). The loop's input lives as long as the loop,
    /// so its descriptor is never closed and reused under the set.
    private var registeredInput: Int32 = -1
    private enum Source: UInt64 { case wake, timer, input }
    /// The time the timer is set for; nil: not set.
    private var armed: Timestamp?

    public struct Readiness: Sendable {
        public var woken = false
        /// The timer fired: the time it was set for, which the clock has therefore reached.
        public var timer: Timestamp?
        public var input = false
    }

    public init() throws(InputError) {
        wakeDescriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        timerDescriptor = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        epollDescriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard wakeDescriptor >= 0, timerDescriptor >= 0, epollDescriptor >= 0,
              Self.watch(wakeDescriptor, as: .wake, in: epollDescriptor), Self.watch(timerDescriptor, as: .timer, in: epollDescriptor) else {
            throw .libinput(call: "eventfd/timerfd_create/epoll_create1", argument: String(cString: strerror(errno)))
        }
    }

    deinit {
        close(epollDescriptor)
        close(wakeDescriptor)
        close(timerDescriptor)
    }

    private static func watch(_ descriptor: Int32, as source: Source, in set: Int32) -> Bool {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = source.rawValue
        return epoll_ctl(set, EPOLL_CTL_ADD, descriptor, &event) == 0
    }

    /// Wakes the thread in `wait` (any thread may call it).
    public func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }

    /// Catches `signals` (below 64) for the whole process from now on: a handler records each
    /// one and wakes this waiter, and `takeSignals` hands them to its thread. No thread waits
    /// for a signal that has not come (the dispatch sources swift-service-lifecycle traps signals with
    /// start libdispatch's worker pool, whose monitor then wakes the process every second).
    /// One waiter per process catches signals.
    public func catchSignals(_ signals: [Int32]) {
        precondition(signals.allSatisfy { $0 > 0 && $0 < 64 }, "signals \(signals) out of 1...63")
        // Both are set up here, before the handler can run: it then only reads them.
        signalWakeDescriptor.store(wakeDescriptor, ordering: .sequentiallyConsistent)
        _ = caughtSignals.load(ordering: .relaxed)
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { caught in
                let saved = errno
                caughtSignals.bitwiseOr(1 << UInt64(caught), ordering: .sequentiallyConsistent)
                var one: UInt64 = 1
                _ = write(signalWakeDescriptor.load(ordering: .sequentiallyConsistent), &one, 8)
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signal, &action, nil)
        }
        // A mask is inherited through exec: a parent that blocks these (a test runner, a
        // shell's job) would leave them pending forever. Unblocked on this thread, which the
        // kernel then chooses for them while the others keep the mask they were made with.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signal in signals { sigaddset(&unblocked, signal) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    }

    /// The signals caught since the last call, as a set of bits (bit n: signal n). A plain
    /// load on most turns: the exchange, a locked instruction, only when one came.
    public func takeSignals() -> UInt64 {
        guard caughtSignals.load(ordering: .acquiring) != 0 else { return 0 }
        return caughtSignals.exchange(0, ordering: .sequentiallyConsistent)
    }

    /// The timer fires at `time` on CLOCK_MONOTONIC; nil disarms it.
    public func arm(at time: Timestamp?) {
        // Most turns of a loop keep the deadline they had: no system call for those.
        guard time != armed else { return }
        armed = time
        var spec = itimerspec()
        if let time {
            let microseconds = max(time.microseconds, 1)
            spec.it_value.tv_sec = Int(microseconds / 1_000_000)
            spec.it_value.tv_nsec = Int(microseconds % 1_000_000) * 1000
        }
        _ = timerfd_settime(timerDescriptor, time == nil ? 0 : Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    /// Sleeps until something is ready (or returns at once with `block` false).
    public func wait(input: Int32?, block: Bool) -> Readiness {
        let wanted = input ?? -1
        if wanted != registeredInput {
            if registeredInput >= 0 { epoll_ctl(epollDescriptor, EPOLL_CTL_DEL, registeredInput, nil) }
            registeredInput = wanted >= 0 && Self.watch(wanted, as: .input, in: epollDescriptor) ? wanted : -1
        }
        var readiness = Readiness()
        // The events on the stack: an array property of this class took a run-time
        // exclusivity check at each wait.
        var events = (epoll_event(), epoll_event(), epoll_event())
        var count: Int32
        repeat {
            count = withUnsafeMutableBytes(of: &events) { raw in
                epoll_wait(epollDescriptor, raw.baseAddress!.assumingMemoryBound(to: epoll_event.self), 3, block ? -1 : 0)
            }
        } while count < 0 && errno == EINTR
        var drain: UInt64 = 0
        for index in 0..<max(0, Int(count)) {
            let data = withUnsafeBytes(of: &events) { $0.loadUnaligned(fromByteOffset: index * MemoryLayout<epoll_event>.stride, as: epoll_event.self).data.u64 }
            switch Source(rawValue: data) {
            case .wake:
                _ = read(wakeDescriptor, &drain, 8)
                readiness.woken = true
            case .timer:
                // It fired, so it is no longer set: the next `arm` sets it whatever the time.
                _ = read(timerDescriptor, &drain, 8)
                readiness.timer = armed ?? .zero
                armed = nil
            case .input: readiness.input = true
            case nil: break
            }
        }
        return readiness
    }
}

/// How early to set a timer whose thread must be up at a deadline (a recorded frame falling
/// due): a running estimate of the 97.5th percentile of how late the timer has fired. The
/// thread then waits out the rest on the clock, so the deadline is kept to a few microseconds
/// for as little CPU as this machine's wake-up latency allows: a fixed 300 µs spun away most
/// of itself where timers fire 100 µs late, and is too little where they fire later.
///
/// The estimate moves up by 39 µs for a wake later than it and down by 1 µs for one within it,
/// so it settles where 1 wake in 40 is later (a stochastic quantile: no history kept, the same
/// cost for every wake). It starts at 300 µs and stays within `range`.
public struct WakeLead: Sendable, Equatable {
    public static let range: ClosedRange<Int64> = 20...2_000
    public private(set) var microseconds: Int64 = 300

    public init() {}

    /// The timer set for `armed` woke the thread at `woke`.
    public mutating func record(armed: Timestamp, woke: Timestamp) {
        let late = woke.microseconds - armed.microseconds
        let next = late > microseconds ? microseconds + 39 : microseconds - 1
        microseconds = min(max(next, Self.range.lowerBound), Self.range.upperBound)
    }
}

/// What the signal handler reads and writes: plain atomics, safe in a handler.
private let caughtSignals = Atomic<UInt64>(0)
private let signalWakeDescriptor = Atomic<Int32>(-1)
