/// Everything the engine needs to know, fixed at start.
public struct EngineConfiguration: Sendable, Hashable {
    public var screen: ScreenSize = .portraitFullHD
    public var gestures = GestureConfiguration()
    public var velocity = VelocityConfiguration()
    public var sheet = SheetConfiguration()
    public var layout = SheetLayout()
    public var initialDetent = "half"
    /// Slots beyond this are ignored (the kernel allows 64; touch panels report 2…16).
    public var maximumSlots = 32

    public init() {}
}

/// A touch as the engine saw it, for the replay's `touch` lines.
public struct TouchReport: Sendable, Equatable {
    public var time: Timestamp
    public var slot: Int
    public var phase: ContactPhase
    public var positionInPixels: Point
    /// On `up`: the release velocity (zero when the finger had stopped).
    public var velocityInPixelsPerSecond: Vector?
}

/// The sheet as published: what a renderer needs to draw it.
public struct SheetSnapshot: Sendable, Equatable {
    public var time: Timestamp
    public var state: SheetMachine.StateKind
    /// The detent the card is at, or nil between detents.
    public var detent: String?
    /// While settling: where it is going.
    public var target: String?
    public var topInPixels: Double
    public var dim: Double
    public var progress: Double
    public var velocityInPixelsPerSecond: Double
    public var cause: SheetCause
}

/// What one step of the engine produced, in order.
public enum EngineOutput: Sendable, Equatable {
    case touch(TouchReport)
    case gesture(GestureEvent)
    case sheet(SheetSnapshot)
    case transition(SheetTransition)
}

/// The core: touch frames and commands in, touches, gestures and sheet states out.
///
/// Pure and deterministic: time comes in with every call, and `nextDeadline` says when the
/// engine wants `advance(to:into:)` (a long press, an animation frame). The caller owns the
/// clock: a replay jumps to each deadline, the daemon sleeps until it.
///
/// Steady state allocates nothing: outputs go into an array the caller keeps and empties with
/// `removeAll(keepingCapacity: true)`.
public struct Engine: Sendable {
    public let configuration: EngineConfiguration
    public private(set) var arena: GestureArena
    public private(set) var sheet: SheetMachine

    private var slotDown: [Bool]
    private var slotPosition: [Point]
    private var trackers: [VelocityTracker]
    private var arenaScratch: [ArenaOutput] = []
    private var source: TouchSource = .touchscreen
    private var lastPublished: SheetSnapshot?
    private let pointsPerPixel: Double

    public init(configuration: EngineConfiguration) {
        self.configuration = configuration
        let scale = configuration.screen.scale
        pointsPerPixel = 1 / scale
        arena = GestureArena(configuration: configuration.gestures, scale: scale)
        sheet = SheetMachine(configuration: configuration.sheet, screen: configuration.screen,
                             layout: configuration.layout, initialDetent: configuration.initialDetent)
        slotDown = Array(repeating: false, count: configuration.maximumSlots)
        slotPosition = Array(repeating: .zero, count: configuration.maximumSlots)
        trackers = Array(repeating: VelocityTracker(configuration: configuration.velocity, scale: scale),
                         count: configuration.maximumSlots)
        arenaScratch.reserveCapacity(16)
    }

    /// The next instant the engine needs `advance(to:)`, or nil when nothing is pending.
    public var nextDeadline: Timestamp? {
        arena.deadline.earliest(sheet.deadline)
    }

    /// The sheet as it is now, stamped `time`.
    public func snapshot(at time: Timestamp) -> SheetSnapshot {
        let scale = configuration.screen.scale
        return SheetSnapshot(
            time: time, state: sheet.state.kind,
            detent: sheet.detentIndex.map { sheet.detents[$0].name },
            target: sheet.targetDetentIndex.map { sheet.detents[$0].name },
            topInPixels: sheet.top * scale, dim: sheet.dim, progress: sheet.progress,
            velocityInPixelsPerSecond: sheet.velocity * scale, cause: sheet.cause)
    }

    /// Publishes the initial state.
    public mutating func start(at time: Timestamp, into out: inout [EngineOutput]) {
        publish(at: time, into: &out)
    }

    /// Fires every deadline up to and including `time`, in order.
    public mutating func advance(to time: Timestamp, into out: inout [EngineOutput]) {
        while let deadline = nextDeadline, deadline <= time {
            if let arenaDeadline = arena.deadline, arenaDeadline == deadline {
                arenaScratch.removeAll(keepingCapacity: true)
                arena.timeout(at: deadline, into: &arenaScratch)
                forwardArena(into: &out)
            }
            if let sheetDeadline = sheet.deadline, sheetDeadline == deadline {
                feedSheet(.frame(deadline), into: &out)
            }
        }
    }

    /// Handles one frame of contacts (after firing the deadlines before it).
    public mutating func process(_ frame: TouchFrame, into out: inout [EngineOutput]) {
        advance(to: frame.time, into: &out)
        source = frame.source
        let time = frame.time
        for contact in frame.contacts {
            let slot = contact.slot
            guard slot >= 0, slot < slotDown.count else { continue }
            let point = contact.positionInPixels
            arenaScratch.removeAll(keepingCapacity: true)
            switch contact.phase {
            case .down:
                if slotDown[slot] {  // a down on a busy slot: the old contact ends first
                    liftSlot(slot, at: time, into: &out)
                    arenaScratch.removeAll(keepingCapacity: true)
                }
                slotDown[slot] = true
                slotPosition[slot] = point
                trackers[slot].reset()
                trackers[slot].add(point, at: time)
                out.append(.touch(TouchReport(time: time, slot: slot, phase: .down, positionInPixels: point)))
                arena.touchDown(slot: slot, at: point, time: time, into: &arenaScratch)
            case .move:
                guard slotDown[slot] else { continue }
                slotPosition[slot] = point
                trackers[slot].add(point, at: time)
                arena.touchMoved(slot: slot, to: point, time: time, into: &arenaScratch)
            case .up:
                guard slotDown[slot] else { continue }
                if point != slotPosition[slot] {
                    slotPosition[slot] = point
                    trackers[slot].add(point, at: time)
                    arena.touchMoved(slot: slot, to: point, time: time, into: &arenaScratch)
                }
                liftSlot(slot, at: time, into: &out)
                arenaScratch.removeAll(keepingCapacity: true)
                continue
            case .cancel:
                guard slotDown[slot] else { continue }
                cancelSlot(slot, at: time, into: &out)
                continue
            }
            forwardArena(into: &out)
        }
    }

    /// A programmatic command (`present`, `dismiss`, a detent by name). Returns false for an
    /// unknown detent name.
    @discardableResult
    public mutating func perform(_ command: SheetCommand, at time: Timestamp, into out: inout [EngineOutput]) -> Bool {
        advance(to: time, into: &out)
        switch command {
        case .present(let name):
            guard let index = sheet.detents.index(named: name ?? configuration.initialDetent)
                ?? (name == nil ? sheet.detents.index(named: "half") : nil) else { return false }
            feedSheet(.present(detent: index, time), into: &out)
        case .setDetent(let name):
            guard let index = sheet.detents.index(named: name) else { return false }
            feedSheet(.present(detent: index, time), into: &out)
        case .dismiss:
            feedSheet(.dismiss(time), into: &out)
        }
        return true
    }

    /// Ends every finger still down as a cancel (a recording ends, a device goes away).
    public mutating func cancelAllTouches(at time: Timestamp, into out: inout [EngineOutput]) {
        advance(to: time, into: &out)
        for slot in slotDown.indices where slotDown[slot] {
            arenaScratch.removeAll(keepingCapacity: true)
            cancelSlot(slot, at: time, into: &out)
        }
    }

    public var activeTouchCount: Int { slotDown.reduce(0) { $0 + ($1 ? 1 : 0) } }

    // MARK: Wiring

    private mutating func cancelSlot(_ slot: Int, at time: Timestamp, into out: inout [EngineOutput]) {
        slotDown[slot] = false
        trackers[slot].reset()
        out.append(.touch(TouchReport(time: time, slot: slot, phase: .cancel, positionInPixels: slotPosition[slot])))
        arena.touchCancelled(slot: slot, time: time, into: &arenaScratch)
        forwardArena(into: &out)
    }

    private mutating func liftSlot(_ slot: Int, at time: Timestamp, into out: inout [EngineOutput]) {
        let velocity = trackers[slot].estimate(at: time)
        slotDown[slot] = false
        trackers[slot].reset()
        out.append(.touch(TouchReport(time: time, slot: slot, phase: .up, positionInPixels: slotPosition[slot],
                                      velocityInPixelsPerSecond: velocity.pixelsPerSecond)))
        arena.touchUp(slot: slot, at: slotPosition[slot], time: time, velocity: velocity, into: &arenaScratch)
        forwardArena(into: &out)
    }

    /// Passes the arena's outputs on: gestures to the output, and each to the sheet in points.
    private mutating func forwardArena(into out: inout [EngineOutput]) {
        for index in arenaScratch.indices {
            let item = arenaScratch[index]
            switch item {
            case .gesture(let gesture):
                out.append(.gesture(gesture))
                switch (gesture.kind, gesture.phase) {
                case (.tap, _):
                    feedSheet(.tap(points(gesture.positionInPixels), source, gesture.time), into: &out)
                case (.swipe, _):
                    if let direction = gesture.direction {
                        feedSheet(.swipe(direction, start: points(gesture.startInPixels), source, gesture.time),
                                  into: &out)
                    }
                case (.pan, .began):
                    feedSheet(.panBegan(start: points(gesture.startInPixels),
                                        translation: gesture.translationInPixels.scaled(by: pointsPerPixel),
                                        source, gesture.time), into: &out)
                case (.pan, .changed):
                    let finger = arena.primarySlot.map { trackers[$0].verticalVelocity(at: gesture.time) } ?? 0
                    feedSheet(.panChanged(translationY: gesture.translationInPixels.dy * pointsPerPixel,
                                          velocityY: finger * pointsPerPixel, gesture.time), into: &out)
                case (.pan, _), (.longPress, _):
                    break
                }
            case .primaryDown(let point, let time):
                feedSheet(.touchDown(points(point), source, time), into: &out)
            case .primaryUp(_, let time, let velocity):
                feedSheet(.release(velocityY: velocity.dy * pointsPerPixel, time), into: &out)
            case .primaryCancelled(let time):
                feedSheet(.cancel(time), into: &out)
            }
        }
        arenaScratch.removeAll(keepingCapacity: true)
    }

    private func points(_ pixels: Point) -> Point { pixels.scaled(by: pointsPerPixel) }

    private mutating func feedSheet(_ event: SheetMachine.Event, into out: inout [EngineOutput]) {
        let effect = sheet.handle(event)
        if let transition = sheet.lastTransition { out.append(.transition(transition)) }
        if effect == .changed { publish(at: event.time, into: &out) }
    }

    /// Emits the sheet's state unless it looks the same as the last one published (to the
    /// hundredth of a pixel, the ten-thousandth of dim and the tenth of a pixel per second, the
    /// precision of the output).
    private mutating func publish(at time: Timestamp, into out: inout [EngineOutput]) {
        let snapshot = snapshot(at: time)
        if let last = lastPublished, last.state == snapshot.state, last.detent == snapshot.detent,
           last.target == snapshot.target,
           (last.topInPixels * 100).rounded() == (snapshot.topInPixels * 100).rounded(),
           (last.dim * 10_000).rounded() == (snapshot.dim * 10_000).rounded(),
           (last.velocityInPixelsPerSecond * 10).rounded() == (snapshot.velocityInPixelsPerSecond * 10).rounded() {
            return
        }
        lastPublished = snapshot
        out.append(.sheet(snapshot))
    }
}

/// A programmatic request to the sheet.
public enum SheetCommand: Sendable, Equatable {
    /// Show the sheet at a detent (the initial detent when nil).
    case present(String?)
    case dismiss
    case setDetent(String)
}
