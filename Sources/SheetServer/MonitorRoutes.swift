#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import SheetCore
import SheetProtocol

/// How Monitor updates reach subscribers, shared under one lock by the thread that publishes
/// and the event loop.
///
/// A subscriber whose socket has room is written to by the publishing thread itself, with a
/// non-blocking `send` on a duplicate of its socket: a frame's state leaves in the same thread
/// turn that took the frame, with no hop to the event loop (on a two-core machine the hop,
/// two thread wakeups and an eventfd, cost more than the engine and the encoding together).
/// A subscriber whose socket is full, or that has no socket (an embedded channel), is *routed
/// through the loop*: its updates hop to the event loop, which queues and conflates them and
/// drops the subscriber that stalls (`VarlinkConnection.offer`). Once the loop has written
/// everything it held for it, the subscriber goes back to direct writes. Every subscriber
/// starts on the loop, which writes its first reply.
///
/// Order is kept by one rule: while an update for a subscriber may be waiting in the loop, the
/// publishing thread does not write to it.
struct MonitorRoutes {
    struct Route {
        let connection: VarlinkConnection
        /// A duplicate of the subscriber's socket, closed when the route is removed; -1 when
        /// the channel has none.
        let descriptor: CInt
        /// The publishing thread writes to it; false while the loop does.
        var direct = false
        /// Routed through the loop: the first update's sequence the loop must still send it.
        var from: Int64
        /// The unsent end of an update the publishing thread wrote in part: the loop sends it
        /// before anything else.
        var tail: [UInt8]?
        /// Routed through the loop, whose writes to it wait for the socket: a plain state for
        /// it needs no hop (the loop would only conflate it); it is taken when the socket
        /// drains (`unblock`).
        var blocked = false
        /// A subscriber that asked for `maxRate`: which states its direct writes skip, and when
        /// the held one is due (`flushPaced`). Routed through the loop it is not paced: the loop
        /// already gives it only the newest state its socket takes.
        var pacer: MonitorPacer?
        /// Whether it takes the update numbered `decidedFor` (`takers(of:)` decided, once, with
        /// its pacer). A route that turned direct after the decision decides in `route`.
        var takes = false
        var decidedFor: Int64 = -1
    }

    /// The newest update (`GetState`), and its reply's bytes (a new subscriber's first reply).
    var latest: MonitorUpdate?
    /// Its storage changes places with the publishing thread's writer at each update.
    var latestBytes: [UInt8] = { var bytes: [UInt8] = []; bytes.reserveCapacity(2048); return bytes }()
    /// `latestBytes` are `latest`'s. With no route, an update is kept but not encoded: the next
    /// subscriber's first reply encodes it then.
    var latestEncoded = false
    /// With no route, a state is kept in its parts instead (`VarlinkServer.keep`), newer than
    /// `latest` when its sequence is; `newest()` builds it with `settings`.
    var deferred: DeferredUpdate?
    /// What the deferred states were published under.
    var settings: StateSettings?
    /// States were published while no one watched and not kept (`VarlinkServer.skip`):
    /// `newest()` is older than the daemon's state until it publishes one again.
    var skipped = false

    /// The newest update: `latest`, or the deferred state built now (and kept as `latest`).
    mutating func newest() -> MonitorUpdate? {
        if let deferred, let settings, deferred.sequence > latest?.sequence ?? 0 {
            latest = deferred.update(with: settings)
            latestEncoded = false
        }
        deferred = nil
        return latest
    }
    var routes: [Route] = []
    /// A program's sheets' events while none of its connections follows them: its next
    /// `Monitor` starts with them.
    var held = HeldEvents()

    /// Whether a connection of `program` follows (a `Monitor` of its own, not a renderer's).
    func follows(_ program: UInt64) -> Bool { routes.contains { $0.connection.program == program } }

    /// Holds `events` of `program`'s sheets when none of its connections follows: no event of
    /// a program's sheet is lost between `OpenSheet` and the program's `Monitor`.
    mutating func holdUnlessFollowed(_ events: [SheetEvent], for program: UInt64) {
        guard !events.isEmpty, !follows(program) else { return }
        held.hold(events, for: program)
    }
    /// Updates for routes through the loop, not yet taken by it; a newer state replaces the
    /// last one unless that carries a gesture or content events.
    var handoff: [(update: MonitorUpdate, bytes: [UInt8], others: Others?)] = []

    /// The bytes for everyone but `audience` (and the renderers) when an update carries a
    /// program's sheet's events, which are its owner's alone.
    typealias Others = (bytes: [UInt8], audience: UInt64)
    /// A hop to take `handoff` and the tails is scheduled.
    var scheduled = false

    /// Gestures kept across a hop the loop has not taken, at most; beyond, the oldest go.
    static let handoffLimit = 64

    /// What a pacer decides on: the state's number and time, and what it brings (an event, a
    /// change, or only a gesture that moved). Known before the state is built
    /// (`VarlinkServer.hold`).
    struct Offer {
        var sequence: Int64
        var timestampInMicroseconds: Int64
        var novelty: MonitorPacer.Novelty

        init(sequence: Int64, timestampInMicroseconds: Int64, novelty: MonitorPacer.Novelty) {
            self.sequence = sequence
            self.timestampInMicroseconds = timestampInMicroseconds
            self.novelty = novelty
        }

        /// `novelty` nil: an event or a change, as `update` says.
        init(_ update: MonitorUpdate, novelty: MonitorPacer.Novelty? = nil) {
            self.init(sequence: update.sequence, timestampInMicroseconds: update.timestampInMicroseconds,
                      novelty: novelty ?? (MonitorPacer.carriesEvent(update) ? .event : .change))
        }
    }

    /// Decides which routes take the state offered now: a direct route unless its pacer holds
    /// it, a route through the loop that has not had it. False when none does: the state is
    /// then only the newest (`latest`), and needs no encoding until someone takes it (a held
    /// state falling due, a new subscriber).
    mutating func takers(of offer: Offer) -> Bool {
        var any = false
        for index in routes.indices {
            guard routes[index].direct else {
                if routes[index].from <= offer.sequence { any = true }
                continue
            }
            any = (routes[index].pacer == nil || decide(index, offer)) || any
        }
        return any
    }

    /// Whether the direct route at `index` takes the state offered, asked of its pacer once.
    private mutating func decide(_ index: Int, _ offer: Offer) -> Bool {
        if routes[index].decidedFor != offer.sequence {
            routes[index].takes = routes[index].pacer?.offer(offer.novelty, at: offer.timestampInMicroseconds) ?? true
            routes[index].decidedFor = offer.sequence
        }
        return routes[index].takes
    }

    /// Sends `bytes` (the update numbered `sequence`, offered as `offer`; nil: as the update
    /// says) to each direct route that takes it (`takers(of:)` first), and turns a route
    /// whose socket is full, or failed, to the loop. True when the loop must take a hop: for a
    /// tail, for a gesture or content events, or for a route through the loop that can write.
    mutating func route(_ update: MonitorUpdate, bytes: [UInt8], others: Others? = nil, offer: Offer? = nil) -> Bool {
        let offer = offer ?? Offer(update)
        var walk = Walk(sequence: update.sequence, offer: offer, wake: update.gesture != nil || !update.events.isEmpty)
        bytes.withUnsafeBytes { full in
            guard let others else { return send(full, walk: &walk) }
            // A program's sheet's events and focus: its owner's bytes, and everyone else's.
            others.bytes.withUnsafeBytes { rest in send(full, walk: &walk, others: (rest, others.audience)) }
        }
        if walk.throughLoop { keep(update, bytes: bytes, others: others) }
        guard walk.wake, walk.throughLoop || walk.tails, !scheduled else { return false }
        scheduled = true
        return true
    }

    /// What a `route` found on its way over the routes.
    private struct Walk {
        let sequence: Int64
        let offer: Offer
        var wake: Bool
        var throughLoop = false
        var tails = false
    }

    /// Writes `raw` to each direct route that takes it (`others`' bytes to a route that does not
    /// hear its audience), and notes the routes through the loop that must have it.
    private mutating func send(_ raw: UnsafeRawBufferPointer, walk: inout Walk,
                               others: (bytes: UnsafeRawBufferPointer, audience: UInt64)? = nil) {
        for index in routes.indices {
            guard routes[index].direct else {
                if routes[index].from <= walk.sequence {
                    walk.throughLoop = true
                    walk.wake = walk.wake || !routes[index].blocked
                }
                continue
            }
            // An unpaced route takes every update: no decision to keep for it.
            if routes[index].pacer != nil, !decide(index, walk.offer) { continue }
            let bytes = others.map { routes[index].connection.hears($0.audience) ? raw : $0.bytes } ?? raw
            switch sendDirect(bytes, to: index, sequence: walk.sequence) {
            case .sent: break
            case .throughLoop: (walk.throughLoop, walk.wake) = (true, true)
            case .tail: (walk.tails, walk.wake) = (true, true)
            }
        }
    }

    enum DirectWrite { case sent, throughLoop, tail }

    /// Writes the update numbered `sequence` to the direct route at `index`; a socket that
    /// took part of it, or none, turns the route to the loop.
    private mutating func sendDirect(_ raw: UnsafeRawBufferPointer, to index: Int, sequence: Int64) -> DirectWrite {
        let written = Self.send(raw, to: routes[index].descriptor)
        guard written < raw.count else { return .sent }
        routes[index].direct = false
        if written <= 0 {
            routes[index].from = sequence
            return .throughLoop
        }
        routes[index].from = sequence + 1
        routes[index].tail = Array(raw[written...])
        return .tail
    }

    /// The earliest time a paced route's held state must go (`MonitorPacer.due`).
    func pacedDue() -> Int64? {
        var earliest: Int64?
        for route in routes where route.direct {
            guard let due = route.pacer?.due else { continue }
            earliest = min(earliest ?? due, due)
        }
        return earliest
    }

    /// Sends the newest update to each direct paced route whose held state is due at `now`.
    /// True when the loop must take a hop (a route that could not take all of it).
    mutating func flushPaced(at now: Int64) -> Bool {
        guard let latest, latestEncoded else { return false }
        var throughLoop = false
        var tails = false
        let bytes = latestBytes
        bytes.withUnsafeBytes { raw in
            for index in routes.indices where routes[index].direct {
                guard routes[index].pacer?.flush(at: now) == true else { continue }
                switch sendDirect(raw, to: index, sequence: latest.sequence) {
                case .sent: break
                case .throughLoop: throughLoop = true
                case .tail: tails = true
                }
            }
        }
        if throughLoop { keep(latest, bytes: bytes, others: nil) }
        guard throughLoop || tails, !scheduled else { return false }
        scheduled = true
        return true
    }

    mutating func keep(_ update: MonitorUpdate, bytes: [UInt8], others: Others?) {
        if let last = handoff.last, last.update.gesture == nil, last.update.events.isEmpty {
            handoff[handoff.count - 1] = (update, bytes, others)
            return
        }
        if handoff.count == Self.handoffLimit {
            // Far behind: drop the oldest state that carries no content event.
            handoff.remove(at: handoff.firstIndex { $0.update.events.isEmpty } ?? 0)
        }
        handoff.append((update, bytes, others))
    }

    /// What a hop gives the loop: the tails to send first, each route's first sequence, the
    /// updates. Tails are handed over once.
    mutating func take() -> (tails: [(VarlinkConnection, [UInt8])], routes: [(VarlinkConnection, Int64)],
                             updates: [(update: MonitorUpdate, bytes: [UInt8], others: Others?)]) {
        scheduled = false
        var tails: [(VarlinkConnection, [UInt8])] = []
        var through: [(VarlinkConnection, Int64)] = []
        for index in routes.indices where !routes[index].direct {
            if let tail = routes[index].tail {
                tails.append((routes[index].connection, tail))
                routes[index].tail = nil
            }
            through.append((routes[index].connection, routes[index].from))
        }
        defer { handoff.removeAll() }
        return (tails, through, handoff)
    }

    /// Lets the publishing thread write to `connection` again, if it has a socket and nothing
    /// for it waits for a hop. Called by the loop once it has written all it held for it.
    mutating func resume(_ connection: VarlinkConnection) {
        guard let index = routes.firstIndex(where: { $0.connection === connection }),
              routes[index].descriptor >= 0, routes[index].tail == nil,
              !handoff.contains(where: { $0.update.sequence >= routes[index].from }) else { return }
        routes[index].direct = true
    }

    /// Marks whether the loop's writes to `connection` wait for its socket. True when, just
    /// unblocked, updates for it wait to be taken and no hop is scheduled: the caller takes them.
    mutating func block(_ connection: VarlinkConnection, _ blocked: Bool) -> Bool {
        guard let index = routes.firstIndex(where: { $0.connection === connection }) else { return false }
        routes[index].blocked = blocked
        let from = routes[index].from
        guard !blocked, !scheduled, handoff.contains(where: { $0.update.sequence >= from }) else { return false }
        scheduled = true
        return true
    }

    mutating func remove(_ connection: VarlinkConnection) {
        guard let index = routes.firstIndex(where: { $0.connection === connection }) else { return }
        if routes[index].descriptor >= 0 { close(routes[index].descriptor) }
        routes.remove(at: index)
    }

    /// Writes what the socket takes without waiting: the bytes written, or -1 when it failed
    /// (the loop sees a socket that broke and closes the connection).
    static func send(_ bytes: UnsafeRawBufferPointer, to descriptor: CInt) -> Int {
        var written = 0
        while written < bytes.count {
            let result = Glibc.send(descriptor, bytes.baseAddress! + written, bytes.count - written,
                                    Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
            if result > 0 {
                written += result
            } else if result < 0, errno == EINTR {
                continue
            } else if result < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                return written
            } else {
                return written > 0 ? written : -1
            }
        }
        return written
    }

    // MARK: The subscriber's socket

    /// SO_COOKIE (asm-generic/socket.h): a number the kernel gives a socket, unique for the
    /// system's uptime.
    static let socketCookie: Int32 = 57

    /// A duplicate (close-on-exec) of the socket whose cookie is `cookie`, or -1. swift-nio
    /// does not tell a channel's descriptor, so it is looked for among the process's own
    /// (a few dozen), once per subscriber; the duplicate's cookie is checked again, since
    /// another thread may close and reuse a number meanwhile.
    static func duplicateSocket(cookie: UInt64) -> CInt {
        guard let folder = opendir("/proc/self/fd") else { return -1 }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let number = CInt(name), number != dirfd(folder), Self.cookie(of: number) == cookie else { continue }
            let duplicate = fcntl(number, F_DUPFD_CLOEXEC, 0)
            guard duplicate >= 0 else { continue }
            if Self.cookie(of: duplicate) == cookie { return duplicate }
            close(duplicate)
        }
        return -1
    }

    static func cookie(of descriptor: CInt) -> UInt64? {
        var cookie: UInt64 = 0
        var length = socklen_t(MemoryLayout<UInt64>.size)
        guard getsockopt(descriptor, SOL_SOCKET, socketCookie, &cookie, &length) == 0 else { return nil }
        return cookie
    }
}

/// The events of programs' sheets that no connection of their program followed yet, kept for
/// its first `Monitor`: at most `perSheet` a sheet and `perProgram` in all (the oldest go
/// first, counted), so that a program that opens and closes sheets and never follows holds
/// no more than one with all its sheets open.
struct HeldEvents {
    /// Events kept per sheet: a person's taps and drags for a program that has not yet
    /// followed, far more than a person makes before it does.
    static let perSheet = 64
    /// Events kept per program: `perSheet` for each sheet it may hold at once.
    static let perProgram = perSheet * SheetStack.Limits().perOwner

    private var byProgram: [UInt64: [SheetEvent]] = [:]
    /// Events dropped because a sheet held `perSheet` already, since the program last followed.
    private var dropped: [UInt64: Int] = [:]

    mutating func hold(_ events: [SheetEvent], for program: UInt64) {
        var kept = byProgram[program] ?? []
        for event in events {
            let sheet = event.sheet
            if kept.count { $0.sheet == sheet } >= Self.perSheet, let oldest = kept.firstIndex(where: { $0.sheet == sheet }) {
                kept.remove(at: oldest)
                dropped[program, default: 0] += 1
            } else if kept.count >= Self.perProgram {
                kept.removeFirst()
                dropped[program, default: 0] += 1
            }
            kept.append(event)
        }
        byProgram[program] = kept
    }

    /// What was held for `program`, in order, and how many were dropped; both forgotten.
    mutating func take(_ program: UInt64) -> (events: [SheetEvent], dropped: Int) {
        defer { forget(program) }
        return (byProgram[program] ?? [], dropped[program] ?? 0)
    }

    mutating func forget(_ program: UInt64) {
        byProgram[program] = nil
        dropped[program] = nil
    }
}
