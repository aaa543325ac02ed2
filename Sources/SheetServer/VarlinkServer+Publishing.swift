import Glibc
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SheetProtocol
import Synchronization

/// What the daemon publishes, from any thread: the newest state kept for `GetState`, sent to
/// every subscriber (paced ones as their pacers decide), or kept in its parts while no one
/// watches.
extension VarlinkServer {
    /// Makes `update` the state that `GetState` returns and sends it to every subscriber (a
    /// paced one as its pacer decides on `novelty`; nil: an event or a change, as the update
    /// says). With no subscriber the update is kept and not encoded
    /// (`MonitorRoutes.latestEncoded`).
    ///
    /// `audience`: the connection whose sheet this is (`OpenSheet`), which alone, with the
    /// renderers (`mayReadEverything`), hears its events and learns which of its items has the
    /// focus; every other subscriber, and `GetState`, gets the state without them.
    public func publish(_ update: MonitorUpdate, novelty: MonitorPacer.Novelty? = nil, audience: UInt64? = nil) {
        let others = audience == nil ? nil : Self.forOthers(update)
        let offer = MonitorRoutes.Offer(update, novelty: novelty)
        let mustHop = encoder.withLockedValue { encoder -> Bool in
            // `routeCount` is a hint read without the lock; only the lock decides that no route
            // is there, so that a subscriber that comes meanwhile still gets this update.
            if routeCount.load(ordering: .relaxed) == 0 {
                let kept = routes.withLockedValue { routes -> Bool in
                    guard routes.routes.isEmpty else { return false }
                    routes.latest = update
                    routes.latestEncoded = false
                    routes.skipped = false
                    return true
                }
                if kept {
                    if let others {
                        routes.withLockedValue { routes in
                            routes.latest = others
                            routes.holdUnlessFollowed(update.events, for: audience!)
                        }
                    }
                    return false
                }
            }
            // Paced subscribers that all hold this state: nothing to encode (a 60 Hz renderer
            // of a 120 Hz panel's touches skips the encoding of half the states). Without one,
            // each route decides as it is sent to.
            if pacedRouteCount.load(ordering: .relaxed) > 0 {
                let held = routes.withLockedValue { routes -> Bool in
                    guard !routes.takers(of: offer) else { return false }
                    routes.latest = update
                    routes.latestEncoded = false
                    routes.skipped = false
                    return true
                }
                if held { return false }
            }
            update.writeReply(into: &encoder.writer, reusing: &encoder.settled)
            if let others {
                // Rare (a program's sheet's events): the owner's bytes, then everyone else's.
                let full = encoder.writer.bytes
                others.writeReply(into: &encoder.writer, reusing: &encoder.settled)
                return routes.withLockedValue { routes in
                    routes.holdUnlessFollowed(update.events, for: audience!)
                    routes.latest = others
                    routes.skipped = false
                    swap(&routes.latestBytes, &encoder.writer.bytes)
                    routes.latestEncoded = true
                    return routes.route(update, bytes: full, others: (routes.latestBytes, audience ?? 0), offer: offer)
                }
            }
            return routes.withLockedValue { routes in
                routes.latest = update
                routes.skipped = false
                // The bytes change places with the writer's: neither is copied nor reallocated.
                swap(&routes.latestBytes, &encoder.writer.bytes)
                routes.latestEncoded = true
                return routes.route(update, bytes: routes.latestBytes, offer: offer)
            }
        }
        if mustHop { eventLoop.execute { self.takeHandoff() } }
    }

    /// Holds the events of a program's sheet that no one watched (`HeldEvents`), for the first
    /// `Monitor` of `program`.
    public func hold(_ events: [SheetEvent], for program: UInt64) {
        routes.withLockedValue { $0.holdUnlessFollowed(events, for: program) }
    }

    /// What a program's sheet's update is to everyone but its owner and the renderers: no
    /// events, no focus; nil when it carries neither.
    static func forOthers(_ update: MonitorUpdate) -> MonitorUpdate? {
        guard !update.events.isEmpty || update.state.focus != nil else { return nil }
        var others = update
        others.events = []
        others.state.focus = nil
        others.state.focusVisible = false
        return others
    }

    /// Whether a subscriber may be there (read without the lock: `keep` decides under it).
    public var mayBeWatched: Bool { routeCount.load(ordering: .relaxed) > 0 }

    /// Keeps `deferred` as the newest state, unbuilt, when no subscriber is there, with
    /// `settings` when they changed since the last kept (nil: the same); false when there is
    /// one, and the caller publishes the whole update instead. The lock that decides is the
    /// one a new subscriber takes, so it never misses a state.
    public func keep(_ deferred: DeferredUpdate, settings: StateSettings?) -> Bool {
        routes.withLockedValue { routes in
            guard routes.routes.isEmpty else { return false }
            if let settings { routes.settings = settings }
            routes.deferred = deferred
            routes.skipped = false
            return true
        }
    }

    /// Notes, when no subscriber is there, that states were published and not kept: the
    /// daemon's frames while no one watches cost no state built, copied or kept. `GetState`
    /// and a new subscriber then ask the delegate for the newest (`refreshState`). False when
    /// a subscriber is there: the caller publishes. The lock that decides is the one a new
    /// subscriber takes, so a subscriber that comes after a skip always sees it.
    public func skip() -> Bool {
        routes.withLockedValue { routes in
            guard routes.routes.isEmpty else { return false }
            routes.skipped = true
            return true
        }
    }

    /// Whether states were skipped since the last kept or published (`skip`).
    public var statesSkipped: Bool { routes.withLockedValue { $0.skipped } }

    /// `keep(_:settings:)` under the settings kept last: no optional settings are made and
    /// dropped for each frame.
    public func keep(_ deferred: DeferredUpdate) -> Bool {
        routes.withLockedValue { routes in
            guard routes.routes.isEmpty else { return false }
            routes.deferred = deferred
            routes.skipped = false
            return true
        }
    }

    /// Whether every subscriber may be paced (read without the lock: `hold` decides under it).
    /// With one that takes every state, or none, no state is held.
    public var mayAllBePaced: Bool {
        let paced = pacedRouteCount.load(ordering: .relaxed)
        return paced > 0 && paced == routeCount.load(ordering: .relaxed)
    }

    /// Keeps `deferred` as the newest state, unbuilt, when every subscriber holds it now: each
    /// is paced and its pacer holds the state (`novelty` a change that came sooner than the
    /// pace lets it go, or only a gesture that moved), with `settings` when they changed since
    /// the last kept (nil: the same).
    /// False when a subscriber takes it now, or there is none: the caller publishes the whole
    /// update instead. A held state is built, and encoded, when it falls due while still the
    /// newest (`flushPaced`), or someone asks for it; most are replaced before, unbuilt.
    public func hold(_ deferred: DeferredUpdate, settings: StateSettings?, novelty: MonitorPacer.Novelty) -> Bool {
        guard pacedRouteCount.load(ordering: .relaxed) > 0 else { return false }
        let offer = MonitorRoutes.Offer(sequence: deferred.sequence, timestampInMicroseconds: deferred.timestampInMicroseconds,
                                        novelty: novelty)
        return routes.withLockedValue { routes in
            guard !routes.routes.isEmpty, !routes.takers(of: offer) else { return false }
            if let settings { routes.settings = settings }
            routes.deferred = deferred
            routes.skipped = false
            return true
        }
    }

    /// When a paced subscriber's held state must go (CLOCK_MONOTONIC µs), for the publishing
    /// thread's timer; nil: none is held.
    public func pacedDue() -> Int64? {
        guard pacedRouteCount.load(ordering: .relaxed) > 0 else { return nil }
        return routes.withLockedValue { $0.pacedDue() }
    }

    /// Sends the held states that are due at `now` (CLOCK_MONOTONIC µs) to their paced
    /// subscribers: the newest state. Called by the publishing thread, like `publish`.
    public func flushPaced(at now: Int64) {
        guard pacedRouteCount.load(ordering: .relaxed) > 0 else { return }
        let mustHop = encoder.withLockedValue { encoder -> Bool in
            // The held state was not encoded when it came (every paced route held it).
            // It may still be unbuilt (`hold`): built now, once.
            if let pending = routes.withLockedValue({ routes in
                let newest = routes.newest()
                return routes.latestEncoded ? nil : newest
            }) {
                pending.writeReply(into: &encoder.writer, reusing: &encoder.settled)
                routes.withLockedValue { routes in
                    guard routes.latest?.sequence == pending.sequence, !routes.latestEncoded else { return }
                    swap(&routes.latestBytes, &encoder.writer.bytes)
                    routes.latestEncoded = true
                }
            }
            return routes.withLockedValue { $0.flushPaced(at: now) }
        }
        if mustHop { eventLoop.execute { self.takeHandoff() } }
    }

    private func takeHandoff() {
        let (tails, through, updates) = routes.withLockedValue { $0.take() }
        for (connection, tail) in tails {
            var buffer = ByteBufferAllocator().buffer(capacity: tail.count)
            buffer.writeBytes(tail)
            connection.offer(buffer, keep: true)
        }
        for (update, bytes, others) in updates {
            var buffer = ByteBufferAllocator().buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            var othersBuffer: ByteBuffer?
            if let others {
                othersBuffer = ByteBufferAllocator().buffer(capacity: others.bytes.count)
                othersBuffer?.writeBytes(others.bytes)
            }
            let keep = !update.events.isEmpty
            for (connection, from) in through where update.sequence >= from {
                if let othersBuffer, let others, !connection.hears(others.audience) {
                    connection.offer(othersBuffer, keep: false)
                } else {
                    connection.offer(buffer, keep: keep)
                }
            }
        }
    }

    /// Called by a subscriber's connection when its socket stops or starts taking what the
    /// loop writes; unblocked, it is given what waited for it.
    func subscriberBlocked(_ connection: VarlinkConnection, _ blocked: Bool) {
        if routes.withLockedValue({ $0.block(connection, blocked) }) { takeHandoff() }
    }

    /// Subscribers the publishing thread writes to itself now.
    var directSubscribers: Int { routes.withLockedValue { $0.routes.count { $0.direct } } }

    /// Called by a subscriber's connection once the loop has written all it held for it.
    func resumeDirect(_ connection: VarlinkConnection) {
        routes.withLockedValue { $0.resume(connection) }
    }
}
