import Dispatch
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import SheetClient
import SheetCore
import SheetProtocol
@testable import SheetServer
import SheetTestSupport
import Synchronization
import Testing

/// The server on its own, with a delegate that has nothing to control.
private class NothingToControl: SheetServiceDelegate, @unchecked Sendable {
    func devices() -> [InputDevice] { [] }
    func content(shown: Bool) -> SharedContent { SharedContent(content: .empty, order: [], revision: 0) }
    func control(_ call: SheetCall, completion: @escaping @Sendable (ControlResult) -> Void) { completion(.done) }
    func programGone(_ program: UInt64) {}
    func input(_ request: InputRequest, connection: UInt64, from peer: PeerCredentials, caller: any InputCaller) {
        caller.inputDone(.noSuchDevice(0))
    }
    func inputConnectionClosed(_ connection: UInt64) {}
    func stats(completion: @escaping @Sendable (DaemonStats) -> Void) { completion(DaemonStats()) }
    func refreshState(completion: @escaping @Sendable () -> Void) { completion() }
}

/// Whether `semaphore` is signalled within `seconds`, without holding a thread of the test's
/// executor.
private func signalled(_ semaphore: DispatchSemaphore, within seconds: Double) async -> Bool {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: semaphore.wait(timeout: .now() + seconds) == .success) }
    }
}

/// A daemon stand-in whose state is `update(next)`: asked for the state as it is now
/// (`refreshState`), it publishes the next one, as the loop does.
private final class Refreshing: NothingToControl, @unchecked Sendable {
    weak var server: VarlinkServer?
    let refreshes = Mutex(0)
    let next = Mutex<Int64>(100)

    override func refreshState(completion: @escaping @Sendable () -> Void) {
        refreshes.withLock { $0 += 1 }
        let sequence = next.withLock { value -> Int64 in
            value += 1
            return value
        }
        server?.publish(update(sequence))
        completion()
    }
}

/// Waits for `semaphore` without holding a thread of the test's executor.
private func signalled(_ semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            semaphore.wait()
            continuation.resume()
        }
    }
}

private func update(_ sequence: Int64, gesture: GestureReport? = nil) -> MonitorUpdate {
    let state = SheetState(state: .dragging, detent: nil, target: nil, topInPixels: Double(900 - sequence),
                           progress: 0.5, dim: 0.7, velocityInPixelsPerSecond: 0,
                           screen: ScreenSize(widthInPixels: 1080, heightInPixels: 1920, scale: 1), cause: .user, detents: [])
    return MonitorUpdate(sequence: sequence, timestampInMicroseconds: sequence * 1000, state: state, gesture: gesture)
}

/// A subscriber on its own thread that keeps what it is sent: `subscribed` is signalled when
/// update `first` comes (or the connection fails), `reached` when update `also` comes,
/// `finished` when it has had `last`.
private final class Subscriber: Sendable {
    let received = Mutex<[MonitorUpdate]>([])
    let subscribed = DispatchSemaphore(value: 0), reached = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)

    init(at path: String, signallingAt first: Int64, also: Int64? = nil, until last: Int64, maxRate: Int? = nil) {
        Thread.detachNewThread { [self] in
            defer { finished.signal() }
            guard let client = try? SheetClient(path: path) else { subscribed.signal(); return }
            try? client.monitor(maxRate: maxRate) { update, _ in
                received.withLock { $0.append(update) }
                if update.sequence == first { subscribed.signal() }
                if update.sequence == also { reached.signal() }
                return update.sequence < last
            }
        }
    }
}

/// A server on a socket in `folder` with nothing behind it, accepting; and the socket's path.
private func startedServer(in folder: URL) async throws -> (VarlinkServer, String) {
    let path = folder.appendingPathComponent("io.sheetd.Sheet").path
    let server = VarlinkServer(configuration: ServerConfiguration(socketPath: path), delegate: NothingToControl(),
                               logger: Logger(label: "test"))
    try await server.start()
    return (server, path)
}

@Suite struct HandoffTests {
    /// A subscriber whose socket has room is written to by the publishing thread: it gets
    /// every state, in order, while the event loop is busy with something else.
    @Test func aStateReachesASubscriberWhileTheEventLoopIsBusy() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, path) = try await startedServer(in: folder)
        server.publish(update(1))

        let subscriber = Subscriber(at: path, signallingAt: 1, until: 5)
        let subscribed = subscriber.subscribed, finished = subscriber.finished
        await signalled(subscribed)
        // The loop's turn that wrote the first reply is over: the subscriber is written to directly.
        try await server.eventLoop.submit {}.get()
        #expect(server.directSubscribers == 1)

        // The loop is held until the subscriber has had all five (or, if they wait for the
        // loop, for 10 s); the third carries a tap.
        let gate = DispatchSemaphore(value: 0)
        server.eventLoop.execute { gate.wait() }
        server.publish(update(2))
        server.publish(update(3, gesture: GestureReport(kind: .tap, phase: .recognized, xInPixels: 540, yInPixels: 400)))
        server.publish(update(4))
        server.publish(update(5))
        let whileHeld = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: finished.wait(timeout: .now() + 10)) }
        }
        gate.signal()
        if whileHeld == .timedOut { await signalled(finished) }
        #expect(whileHeld == .success, "every state came while the loop was held")
        await server.shutdown()

        #expect(subscriber.received.withLock { $0.map(\.sequence) } == [1, 2, 3, 4, 5])
        #expect(subscriber.received.withLock { $0.first { $0.sequence == 3 }?.gesture?.kind } == .tap)
    }

    /// While no one watches, states are kept in their parts (`keep`) and built when asked:
    /// `GetState`'s answer and a new subscriber's first reply are the newest state, built with
    /// the settings it was kept with; once someone watches, `keep` declines.
    @Test func aStateKeptInPartsIsBuiltWhenSomeoneAsks() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, path) = try await startedServer(in: folder)
        var engine = Engine(configuration: EngineConfiguration())
        var outputs: [EngineOutput] = []
        engine.setContent(SheetContent(title: "Kept", items: [SheetItem(id: "a", label: "A")]), at: .zero, into: &outputs)
        engine.start(at: .zero, into: &outputs)
        let detents = [DetentPosition(name: .half, topInPixels: 960)]
        let settings = StateSettings(screen: engine.configuration.screen, layout: engine.configuration.list, content: engine.content,
                                     detents: detents, appearance: Appearance(theme: .dark), presentation: SheetPresentation())
        func deferred(_ sequence: Int64) -> DeferredUpdate {
            let snapshot = engine.snapshot(at: Timestamp(microseconds: sequence * 1000))
            return DeferredUpdate(sequence: sequence, timestampInMicroseconds: sequence * 1000, snapshot: snapshot,
                                  list: engine.listSnapshot(at: snapshot.time), inputActive: sequence == 2,
                                  regionInPixels: engine.sheet.regionInPixels(of: snapshot))
        }
        server.publish(update(1))
        #expect(server.keep(deferred(2), settings: settings))
        let built = try #require(server.currentUpdate)
        #expect(built == deferred(2).update(with: settings))
        #expect(built.state.appearance.theme == .dark && built.state.list != nil && built.state.inputActive)
        // The next one keeps the same settings, said either way.
        #expect(server.keep(deferred(3), settings: nil))
        #expect(server.currentUpdate == deferred(3).update(with: settings))
        #expect(server.keep(deferred(3)))
        #expect(server.currentUpdate == deferred(3).update(with: settings))

        let subscriber = Subscriber(at: path, signallingAt: 3, until: 4)
        let subscribed = subscriber.subscribed, finished = subscriber.finished
        await signalled(subscribed)
        let first = try #require(subscriber.received.withLock { $0.first })
        #expect(first.sequence == 3 && first.state.appearance.theme == .dark && first.state.list != nil)
        // Watched, the state is asked for whole, and goes to the subscriber.
        #expect(!server.keep(deferred(4), settings: nil) && !server.keep(deferred(4)))
        server.publish(update(4))
        await signalled(finished)
        #expect(subscriber.received.withLock { $0.map(\.sequence) } == [3, 4])
        await server.shutdown()
    }

    /// While every subscriber is paced and holds a state (it carries no event and comes
    /// sooner than the pace lets it go), the state is kept in its parts (`hold`): `GetState`
    /// builds the newest, and the one still newest when the pace lets it go is built then,
    /// with its gesture (a pan that changed). A state with an event, or one the pace lets go,
    /// is declined, to be published whole.
    @Test func aHeldStateIsBuiltWhenItFallsDue() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, path) = try await startedServer(in: folder)
        var engine = Engine(configuration: EngineConfiguration())
        var outputs: [EngineOutput] = []
        engine.setContent(SheetContent(title: "Held", items: [SheetItem(id: "a", label: "A")]), at: .zero, into: &outputs)
        engine.start(at: .zero, into: &outputs)
        let settings = StateSettings(screen: engine.configuration.screen, layout: engine.configuration.list, content: engine.content,
                                     detents: [DetentPosition(name: .half, topInPixels: 960)], appearance: Appearance(theme: .dark),
                                     presentation: SheetPresentation())
        let pan = GestureReport(kind: .pan, phase: .changed, xInPixels: 540, yInPixels: 900)
        func deferred(_ sequence: Int64, gesture: GestureReport? = pan) -> DeferredUpdate {
            let snapshot = engine.snapshot(at: Timestamp(microseconds: sequence * 1000))
            return DeferredUpdate(sequence: sequence, timestampInMicroseconds: sequence * 1000, snapshot: snapshot,
                                  list: engine.listSnapshot(at: snapshot.time), inputActive: true,
                                  regionInPixels: engine.sheet.regionInPixels(of: snapshot), gesture: gesture)
        }
        server.publish(update(1))
        #expect(!server.hold(deferred(1), settings: settings, novelty: .change), "no subscriber: nothing holds it")

        // Ten states a second: one each 100 ms.
        // It stays subscribed to the end: a route that goes would decline every hold.
        let subscriber = Subscriber(at: path, signallingAt: 1, also: 4, until: 1_000, maxRate: 10)
        let subscribed = subscriber.subscribed, reached = subscriber.reached
        await signalled(subscribed)
        try await server.eventLoop.submit {}.get()
        #expect(server.directSubscribers == 1 && server.mayAllBePaced)
        server.publish(update(2))  // the first the pacer is offered goes at once

        #expect(server.hold(deferred(3), settings: settings, novelty: .change), "1 ms after the last sent: held")
        #expect(server.hold(deferred(4), settings: nil, novelty: .change), "the same settings")
        #expect(server.pacedDue() == 102_000)
        server.flushPaced(at: 102_000)
        await signalled(reached)
        let received = subscriber.received.withLock { $0 }
        #expect(received.map(\.sequence) == [1, 2, 4], "the newest held state, built when it fell due")
        #expect(received.last?.gesture?.phase == .changed && received.last?.state.appearance.theme == .dark
                && received.last?.state.list != nil && received.last?.state.inputActive == true)
        #expect(server.currentUpdate == deferred(4).update(with: settings), "GetState answers the same, built")

        // The flush at 102 ms started the interval again: a state at 110 ms is held.
        var soon = deferred(5)
        soon.timestampInMicroseconds = 110_000
        #expect(server.hold(soon, settings: nil, novelty: .change), "8 ms after the flush: held")
        var ended = deferred(6, gesture: GestureReport(kind: .pan, phase: .ended, xInPixels: 540, yInPixels: 880))
        ended.timestampInMicroseconds = 111_000
        #expect(!server.hold(ended, settings: nil, novelty: .event), "a pan that ended is an event: published whole, held or not")
        server.publish(ended.update(with: settings))
        var late = deferred(7, gesture: nil)
        late.timestampInMicroseconds = 150_000
        #expect(server.hold(late, settings: nil, novelty: .change), "39 ms after the event went: held")
        late.sequence = 8
        late.timestampInMicroseconds = 211_000
        #expect(!server.hold(late, settings: nil, novelty: .change), "100 ms after the event went: it goes now, published whole")
        await server.shutdown()
    }

    /// While no one watches, the daemon's states may be skipped (`skip`): nothing is kept for
    /// them. `GetState` then asks the daemon for its state as it is now and answers with it, and
    /// a new subscriber's first update is that state, not the stale one kept before; with a
    /// subscriber there, nothing is skipped.
    @Test func skippedStatesAreRefreshedWhenAsked() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("io.sheetd.Sheet").path
        let delegate = Refreshing()
        let server = VarlinkServer(configuration: ServerConfiguration(socketPath: path), delegate: delegate, logger: Logger(label: "test"))
        delegate.server = server
        try await server.start()
        server.publish(update(1))
        let client = try SheetClient(path: path)
        #expect(try client.state() == update(1).state, "nothing skipped: the kept state, and no refresh")
        #expect(delegate.refreshes.withLock { $0 } == 0)

        #expect(server.skip())
        #expect(try client.state() == update(101).state, "skipped: the daemon's state as it is now")
        #expect(delegate.refreshes.withLock { $0 } == 1)
        #expect(try client.state() == update(101).state, "kept since: no second refresh")
        #expect(delegate.refreshes.withLock { $0 } == 1)

        #expect(server.skip())
        let subscriber = Subscriber(at: path, signallingAt: 102, until: 103)
        let subscribed = subscriber.subscribed, finished = subscriber.finished
        #expect(await signalled(subscribed, within: 10), "the refreshed state came: \(subscriber.received.withLock { $0.map(\.sequence) })")
        #expect(subscriber.received.withLock { $0.map(\.sequence) } == [102], "its first update is the refreshed state, not the kept 101")
        #expect(delegate.refreshes.withLock { $0 } == 2, "the subscriber asked for it")
        try await server.eventLoop.submit {}.get()
        #expect(!server.skip(), "someone watches: nothing is skipped")
        server.publish(update(103))
        #expect(await signalled(finished, within: 10))
        #expect(subscriber.received.withLock { $0.map(\.sequence) } == [102, 103])
        await server.shutdown()
    }

    /// A new subscriber's first reply used to be the latest update as it was sent, with the
    /// gesture (and content events) of a frame before it subscribed, which it then took as
    /// new: the e2e run saw a pan end twice. It is the current state alone.
    @Test func aNewSubscriberStartsWithTheStateAloneNotAPastGesture() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, path) = try await startedServer(in: folder)
        var tapped = update(1, gesture: GestureReport(kind: .tap, phase: .recognized, xInPixels: 540, yInPixels: 400))
        tapped.events = [SheetEvent(kind: .itemTapped, item: "wifi")]
        server.publish(tapped)
        try await server.eventLoop.submit {}.get()  // the loop has taken it: it is the latest

        let first = Mutex<MonitorUpdate?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { finished.signal() }
            try? SheetClient(path: path).monitor { update, _ in
                first.withLock { $0 = update }
                return false
            }
        }
        await signalled(finished)
        await server.shutdown()
        let got = first.withLock { $0 }
        #expect(got?.sequence == 1 && got?.state == tapped.state, "\(String(describing: got))")
        #expect(got?.gesture == nil && got?.events.isEmpty == true, "\(String(describing: got))")
    }

    /// With nobody subscribed an update is kept but not encoded. The bytes of the last one a
    /// subscriber had are still there: the next subscriber must start with the newest state,
    /// not with those.
    @Test func aSubscriberAfterUpdatesNobodyHadStartsWithTheNewest() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, path) = try await startedServer(in: folder)
        server.publish(update(1))

        /// Subscribes, and returns the first reply's sequence once the subscription has ended.
        func firstSequence() async -> Int64? {
            let first = Mutex<Int64?>(nil)
            let finished = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                defer { finished.signal() }
                try? SheetClient(path: path).monitor { update, _ in
                    first.withLock { $0 = update.sequence }
                    return false
                }
            }
            await signalled(finished)
            return first.withLock { $0 }
        }
        // The first subscriber has update 2 as it is published, encoded for it.
        let second = Mutex<[Int64]>([])
        let subscribed = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { finished.signal() }
            try? SheetClient(path: path).monitor { update, _ in
                second.withLock { $0.append(update.sequence) }
                if update.sequence == 1 { subscribed.signal() }
                return update.sequence < 2
            }
        }
        await signalled(subscribed)
        server.publish(update(2))
        await signalled(finished)
        #expect(second.withLock { $0 } == [1, 2])
        // Its connection closed, the loop removes its route; then nobody has 3 and 4.
        while server.statistics.subscribers > 0 { try await server.eventLoop.submit {}.get() }
        server.publish(update(3))
        server.publish(update(4))
        #expect(await firstSequence() == 4)
        await server.shutdown()
    }
}

/// The routes on their own: a subscriber's socket is one end of a socket pair the test reads.
@Suite struct MonitorRoutesTests {
    let server = VarlinkServer(configuration: ServerConfiguration(socketPath: "/nonexistent"), delegate: NothingToControl(),
                               logger: Logger(label: "test"))

    /// A route with the near end of a new socket pair (small buffers); the far end to read.
    func route(direct: Bool = true) throws -> (MonitorRoutes.Route, far: CInt) {
        var ends: [CInt] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        var size: CInt = 4096
        setsockopt(ends[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<CInt>.size))
        let connection = VarlinkConnection(server: server, channel: EmbeddedChannel(), endpoint: .sheet)
        return (MonitorRoutes.Route(connection: connection, descriptor: ends[0], direct: direct, from: 1), ends[1])
    }

    func encoded(_ update: MonitorUpdate) -> [UInt8] {
        VarlinkReply.encode(continues: true) { update.writeParameters(to: &$0) }
    }

    /// Everything waiting on `far`, without blocking.
    func drain(_ far: CInt) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(far, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            guard count > 0 else { return bytes }
            bytes += chunk[..<count]
        }
    }

    @Test func aDirectRouteGetsEveryUpdateAndNothingHops() throws {
        var routes = MonitorRoutes()
        let (route, far) = try route()
        defer { close(far) }
        routes.routes.append(route)
        var expected: [UInt8] = []
        for sequence in Int64(1)...3 {
            let bytes = encoded(update(sequence))
            expected += bytes
            let hop = routes.route(update(sequence), bytes: bytes)
            #expect(!hop)
        }
        #expect(drain(far) == expected)
        #expect(routes.handoff.isEmpty && routes.routes[0].direct)
        // The duplicate's socket, by inode: once closed, its number is free, and a test running
        // beside this one may be given it for a file of its own at once.
        var before = stat()
        #expect(fstat(route.descriptor, &before) == 0)
        routes.remove(route.connection)
        var after = stat()
        let closed = fstat(route.descriptor, &after) != 0 || after.st_ino != before.st_ino || after.st_dev != before.st_dev
        #expect(closed, "the duplicate is closed with its route")
    }

    /// A socket that is full turns the route to the loop: the update it refused and those
    /// after it are handed off, states conflated but a gesture kept; the route comes back
    /// only once nothing for it waits for a hop.
    @Test func aFullSocketSendsTheRestThroughTheLoopInOrder() throws {
        var routes = MonitorRoutes()
        let (route, far) = try route()
        defer { close(far); routes.remove(route.connection) }
        routes.routes.append(route)
        var sent: [UInt8] = []
        var sequence: Int64 = 0
        while routes.routes[0].direct {
            sequence += 1
            let bytes = encoded(update(sequence))
            let hop = routes.route(update(sequence), bytes: bytes)
            #expect(hop == !routes.routes[0].direct)
            if routes.routes[0].direct { sent += bytes }
        }
        let cut = sequence
        let written = drain(far)
        let taken = routes.take()
        if let (_, tail) = taken.tails.first {
            // The socket took the last update in part: its end goes first.
            #expect(written + tail == sent + encoded(update(cut)))
            #expect(taken.routes.map(\.1) == [cut + 1] && taken.updates.isEmpty)
        } else {
            #expect(written == sent)
            #expect(taken.routes.map(\.1) == [cut] && taken.updates.map(\.update.sequence) == [cut])
        }
        let tap = GestureReport(kind: .tap, phase: .recognized, xInPixels: 540, yInPixels: 400)
        var hops = 0
        for (next, gesture) in [(cut + 1, nil), (cut + 2, tap), (cut + 3, nil), (cut + 4, nil)] as [(Int64, GestureReport?)] {
            if routes.route(update(next, gesture: gesture), bytes: encoded(update(next, gesture: gesture))) { hops += 1 }
        }
        #expect(hops == 1, "one hop is scheduled until the loop takes it")
        routes.resume(route.connection)
        #expect(!routes.routes[0].direct, "updates for it wait for the hop")
        #expect(routes.take().updates.map(\.update.sequence) == [cut + 2, cut + 4], "a plain state is replaced; the tap is kept")
        routes.resume(route.connection)
        #expect(routes.routes[0].direct)
    }

    /// A subscriber whose socket the loop waits on costs the loop nothing per state: plain
    /// states wait, conflated, without a hop; a gesture still hops (the loop keeps it); when
    /// the socket drains, what waited is taken.
    @Test func aBlockedSubscriberNeedsNoHopForAPlainState() {
        var routes = MonitorRoutes()
        let connection = VarlinkConnection(server: server, channel: EmbeddedChannel(), endpoint: .sheet)
        routes.routes.append(MonitorRoutes.Route(connection: connection, descriptor: -1, from: 1))
        let waiting = routes.block(connection, true)
        #expect(!waiting, "nothing waits for it")
        for sequence in Int64(1)...3 {
            let hop = routes.route(update(sequence), bytes: encoded(update(sequence)))
            #expect(!hop)
        }
        #expect(routes.handoff.map(\.update.sequence) == [3])
        let tap = update(4, gesture: GestureReport(kind: .tap, phase: .recognized, xInPixels: 540, yInPixels: 400))
        let hop = routes.route(tap, bytes: encoded(tap))
        #expect(hop, "a gesture is carried to the loop at once")
        _ = routes.take()
        _ = routes.route(update(5), bytes: encoded(update(5)))
        let given = routes.block(connection, false)
        #expect(given, "unblocked, it is given the state that waited")
        let taken = routes.take()
        #expect(taken.updates.map(\.update.sequence) == [5])
    }

    /// An update larger than the socket takes at once: what was not written is the tail.
    @Test func anUpdateWrittenInPartLeavesItsEndAsTheTail() throws {
        var routes = MonitorRoutes()
        let (route, far) = try route()
        defer { close(far); routes.remove(route.connection) }
        routes.routes.append(route)
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 % 251) }
        let hop = routes.route(update(1), bytes: bytes)
        #expect(hop && !routes.routes[0].direct)
        let written = drain(far)
        let taken = routes.take()
        let tail = try #require(taken.tails.first?.1)
        #expect(!written.isEmpty && written + tail == bytes)
        #expect(taken.routes.map(\.1) == [2] && taken.updates.isEmpty)
    }

    /// An embedded channel has no socket: its route stays on the loop.
    @Test func aRouteWithoutASocketStaysOnTheLoop() {
        var routes = MonitorRoutes()
        let connection = VarlinkConnection(server: server, channel: EmbeddedChannel(), endpoint: .sheet)
        routes.routes.append(MonitorRoutes.Route(connection: connection, descriptor: -1, from: 1))
        let hop = routes.route(update(1), bytes: encoded(update(1)))
        #expect(hop)
        routes.resume(connection)
        #expect(!routes.routes[0].direct)
        let taken = routes.take()
        #expect(taken.updates.map(\.update.sequence) == [1])
    }
}
