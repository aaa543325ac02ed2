/// Everything the engine needs to know, fixed at start.
public struct EngineConfiguration: Sendable, Hashable {
    public var screen: ScreenSize = .portraitFullHD
    public var gestures = GestureConfiguration()
    public var velocity = VelocityConfiguration()
    public var sheet = SheetConfiguration()
    public var layout = SheetLayout()
    public var list = ListConfiguration()
    /// Keys, knobs and switch scanning.
    public var focus = FocusConfiguration()
    /// How renderers draw the sheet; `SetAppearance` changes it at run time.
    public var appearance = Appearance.standard
    public var initialDetent: DetentName = .half
    /// Slots beyond this are ignored (the kernel allows 64; touch panels report 2…16).
    public var maximumSlots = 32

    public init() {}
}

/// A touch as the engine saw it, for the replay's `touch` lines.
public struct TouchReport: Sendable, Equatable, BitwiseCopyable {
    public var time: Timestamp
    public var slot: Int
    public var phase: ContactPhase
    public var positionInPixels: Point
    /// On `up`: the release velocity (zero when the finger had stopped).
    public var velocityInPixelsPerSecond: Vector?
    /// Not the sheet's: it began outside a non-modal sheet's region, and the engine passed it
    /// by (no gesture, no effect); a compositor gives such touches to what lies beneath.
    public var passThrough = false
}

/// The sheet as published: what a renderer needs to draw it.
public struct SheetSnapshot: Sendable, Equatable, BitwiseCopyable {
    public var time: Timestamp
    public var state: SheetMachine.StateKind
    /// The detent the card is at, or nil between detents.
    public var detent: DetentName?
    /// While settling: where it is going.
    public var target: DetentName?
    public var topInPixels: Double
    public var dim: Double
    public var progress: Double
    public var velocityInPixelsPerSecond: Double
    public var cause: SheetCause
    /// Reduced motion is on: the card is placed at once and only the dim fades.
    public var reduceMotion: Bool
    /// What holds the focus, and whether its ring is drawn. Here, beside the other small
    /// fields, it takes bytes the layout left spare: the snapshot stays 128 bytes.
    public var focus: FocusSnapshot
    /// The card's horizontal extent (pixels): the screen's width, or `SheetLayout.maximumWidth`
    /// placed by its alignment on a wider screen.
    public var cardInPixels: CardSpan
    /// Counts changes of the appearance (`Engine.appearance`), so that a state is published
    /// when only the appearance changed.
    public var appearanceRevision: UInt32
    /// Counts changes of the presentation (`SheetMachine.presentation`) made in place, so
    /// that a state is published when only it changed (a close button drawn or not).
    public var presentationRevision: UInt32
}

extension SheetMachine {
    /// The region (pixels) of a published state of this sheet: the snapshot leaves it out,
    /// since every output of the engine is as large as the largest, and copied as such.
    public func regionInPixels(of snapshot: SheetSnapshot) -> ScreenRegion {
        let scale = screen.scale
        let closed = snapshot.state == .resting && snapshot.detent == detents.floor.name
        return region(top: snapshot.topInPixels / scale, closedAtRest: closed).scaled(by: scale)
    }
}

/// What one step of the engine produced, in order.
public enum EngineOutput: Sendable, Equatable, BitwiseCopyable {
    case touch(TouchReport)
    case gesture(GestureEvent)
    case sheet(SheetSnapshot)
    /// While the sheet has items: the list as drawn with the `sheet` state that follows it.
    case list(ListSnapshot)
    case transition(SheetTransition)
    /// A drag let go: the rule that chose where the sheet goes, with its numbers.
    case release(ReleaseDecision)
    /// Something the content's client hears: an item tapped, a reorder, a dismissal refused.
    case content(ContentEventReport)
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
    /// Fixed at start but for `sheet.reduceMotion` and `sheet.presentation`
    /// (`SheetCommand.setReduceMotion`, `.setPresentation`): the presentation as set, of which
    /// the machine takes all but the bar's shape while it keeps its detents.
    public internal(set) var configuration: EngineConfiguration
    public internal(set) var arena: GestureArena
    public internal(set) var sheet: SheetMachine
    public internal(set) var list: ListMachine
    /// What the sheet holds (a title, items, the guard).
    public internal(set) var content = SheetContent.empty
    /// How renderers draw it: the configuration's, which `setAppearance` changes (one value,
    /// as the presentation's is).
    @inlinable
    public var appearance: Appearance { configuration.appearance }
    private var appearanceRevision: UInt32 = 0
    private var presentationRevision: UInt32 = 0

    /// What holds the focus (`Engine+Focus`).
    public internal(set) var focus = FocusSnapshot.none
    /// Keys to focus commands, with the modifiers held now.
    var keyMap: KeyMap
    /// When the one-switch scan steps next (`FocusConfiguration.switchScanMicroseconds`).
    public internal(set) var scanDeadline: Timestamp? { didSet { updateFocusDeadline() } }
    /// The held key whose command repeats, and when it does next.
    var keyRepeat: (input: KeyInput, command: FocusCommand)?
    /// Who moved the focus, when that is the newest change: a state it publishes says so in
    /// its cause (keys, a program, a finger exploring), until the sheet or a finger moves.
    var focusCause: SheetCause?
    public internal(set) var keyRepeatDeadline: Timestamp? { didSet { updateFocusDeadline() } }
    /// The earliest of the three (with `explorationDeadline`): one read on the path every frame
    /// takes.
    public private(set) var focusDeadline: Timestamp?
    /// Switch scanning is configured.
    let scans: Bool
    /// Explore by touch is on: one finger explores, two act as one (`TouchExplorer`). The
    /// presentation's, read in place.
    @inlinable
    public var exploresByTouch: Bool { configuration.sheet.presentation.exploresByTouch }
    var explorer: TouchExplorer
    /// The explorer's deadline, kept as it changes.
    public internal(set) var explorationDeadline: Timestamp? { didSet { updateFocusDeadline() } }

    mutating func updateFocusDeadline() {
        focusDeadline = scanDeadline.earliest(keyRepeatDeadline).earliest(explorationDeadline)
    }

    /// Fingers down: the slots of `slotDown` that hold. Kept as they change, so that a reader
    /// in another module reads a number instead of calling a getter on the whole engine.
    public internal(set) var activeTouchCount = 0

    var slotDown: [Bool]
    /// The slot's touch is not the sheet's (`TouchReport.passThrough`).
    var slotPassesThrough: [Bool]
    var slotPosition: [Point]
    var trackers: [VelocityTracker]
    var arenaScratch: [ArenaOutput] = []
    var source: TouchSource = .touchscreen
    /// The state last published; before the first, one that looks like no other (its top is
    /// not a number), so that publishing compares without an optional's copies.
    var lastPublished: SheetSnapshot
    var lastPublishedList: ListSnapshot?
    let pointsPerPixel: Double
    var listScratch: [ContentEventReport] = []
    /// Who the current pan moves: the sheet alone, or the list and the sheet in turn.
    var panRoute = PanRoute.sheet
    /// The touch sequence began with the sheet resting, shown, and the list still: a tap
    /// there may tap an item (a touch that stops something moving only stops it).
    var sequenceBeganAtRest = false

    /// A pan on a list longer than the card: upwards it raises the sheet to its highest detent
    /// first, then scrolls the list; downwards it scrolls the list back to its top first, then
    /// lowers the sheet (nested scrolling, as phone sheets do).
    struct NestedPan: Sendable {
        var start: Point
        /// The sheet's top when the pan began.
        var startTop: Double
        var lastTranslationY: Double = 0
        /// The sheet's share of the finger's travel.
        var sheetTranslationY: Double = 0
        /// The list's offset, before its rubber band.
        var rawOffset: Double
        var sheetDragging: Bool
    }

    enum PanRoute: Sendable {
        case sheet
        case nested(NestedPan)
    }

    /// An engine whose sheet starts at `detent` (the configuration's `initialDetent` when nil
    /// or unknown). `initialDetent` stays what `Present()` without a detent shows.
    public init(configuration: EngineConfiguration, startingAt detent: DetentName? = nil) {
        self.configuration = configuration
        keyMap = configuration.focus.keyMap
        scans = configuration.focus.switchScanMicroseconds != nil
        let scale = configuration.screen.scale
        pointsPerPixel = 1 / scale
        arena = GestureArena(configuration: configuration.gestures, scale: scale)
        explorer = TouchExplorer(configuration: configuration.focus.exploration,
                                 slop: configuration.gestures.slopInPoints * scale, scale: scale)
        let known = detent.flatMap { name in
            name.isFloor || configuration.sheet.detents.contains { $0.name == name } ? name : nil
        }
        sheet = SheetMachine(configuration: configuration.sheet, screen: configuration.screen,
                             layout: configuration.layout, initialDetent: known ?? configuration.initialDetent,
                             openDetent: configuration.initialDetent)
        list = ListMachine(configuration: configuration.list, sheet: configuration.sheet, screen: configuration.screen,
                           span: sheet.span, topmostTop: sheet.detents.topmost.topInPoints)
        listScratch.reserveCapacity(16)
        slotDown = Array(repeating: false, count: configuration.maximumSlots)
        slotPassesThrough = Array(repeating: false, count: configuration.maximumSlots)
        slotPosition = Array(repeating: .zero, count: configuration.maximumSlots)
        trackers = Array(repeating: VelocityTracker(configuration: configuration.velocity, scale: scale),
                         count: configuration.maximumSlots)
        arenaScratch.reserveCapacity(16)
        lastPublished = SheetSnapshot(
            time: .zero, state: .resting, detent: nil, target: nil, topInPixels: .nan, dim: 0, progress: 0,
            velocityInPixelsPerSecond: 0, cause: .initial, reduceMotion: false, focus: FocusSnapshot(),
            cardInPixels: CardSpan(left: 0, width: 0), appearanceRevision: 0, presentationRevision: 0)
    }

    /// The next instant the engine needs `advance(to:)`, or nil when nothing is pending.
    /// Inlinable down to each machine's deadline, so that the daemon reads it in place.
    @inlinable @inline(__always)
    public var nextDeadline: Timestamp? {
        motionDeadline.earliest(focusDeadline)
    }

    /// The next instant a finger, the sheet or the list needs `advance(to:)`: `nextDeadline`
    /// without the focus's (the one-switch scan, a held key's repeat), which come for as long
    /// as the sheet is shown or a key is held. A recording's end waits for this one only.
    @inlinable @inline(__always)
    public var motionDeadline: Timestamp? {
        arena.deadline.earliest(sheet.deadline).earliest(list.deadline)
    }

    /// What a recording's end waits for: `motionDeadline`, and a pending exploration (a tap
    /// waiting for its double). Off the per-frame path, which reads the exploration's deadline
    /// in `focusDeadline`.
    public var restDeadline: Timestamp? {
        motionDeadline.earliest(explorationDeadline)
    }

    /// The sheet as it is now, stamped `time`. Inlined, so that `publish` reads the sheet
    /// where it lies instead of copying the engine first.
    @inline(__always)
    public func snapshot(at time: Timestamp) -> SheetSnapshot {
        let scale = configuration.screen.scale
        return SheetSnapshot(
            time: time, state: sheet.kind,
            detent: sheet.detentIndex.map { sheet.detents[$0].name },
            target: sheet.targetDetentIndex.map { sheet.detents[$0].name },
            topInPixels: sheet.top * scale, dim: sheet.dim, progress: sheet.progress,
            velocityInPixelsPerSecond: sheet.velocity * scale, cause: focusCause ?? sheet.cause,
            reduceMotion: sheet.configuration.reduceMotion, focus: focus,
            cardInPixels: CardSpan(left: sheet.span.left * scale, width: sheet.span.width * scale),
            appearanceRevision: appearanceRevision, presentationRevision: presentationRevision)
    }

    /// The list as it is drawn now, stamped `time`; nil while the sheet has no content (a
    /// title alone has a list of no items, whose revision says when the title changed).
    @inline(__always)
    public func listSnapshot(at time: Timestamp) -> ListSnapshot? {
        content.isEmpty ? nil : list.snapshot(at: time)
    }

    /// Gives the sheet new content, with the list in `order` (indices into its items; the
    /// given order when it is not a permutation) scrolled to `scrollInPoints`. A reorder in
    /// progress ends. The caller validates (`SheetContent.problem()`); items past the limit
    /// are left out here all the same, so that nothing a caller passes can trap the core.
    /// `revision`: the list's revision counts on from there (an engine that takes over from
    /// another, so that consumers never see a revision twice).
    public mutating func setContent(_ content: SheetContent, order: [Int]? = nil, scrollInPoints: Double = 0,
                                    after revision: Int = 0, at time: Timestamp, into out: inout [EngineOutput]) {
        advance(to: time, into: &out)
        var content = content
        if content.items.count > SheetContent.Limits.items { content.items.removeLast(content.items.count - SheetContent.Limits.items) }
        content = content.withSectionsWrittenOut
        let previousItems = self.content.items
        self.content = content
        sheet.guarded = content.guarded
        sheet.titleDirection = TextDirection.of(content.title)
        list.setItems(content.items, order: order, offset: scrollInPoints, after: revision)
        arena.enableItemHold(!content.items.isEmpty)
        panRoute = .sheet
        refocus(afterItems: previousItems)
        publish(at: time, into: &out)
    }

    /// Changes the title and the guard and keeps the items, their order, the scroll and a
    /// reorder in progress; the list's revision moves on, so that renderers read the title.
    public mutating func setTitle(_ title: String, guarded: Bool, at time: Timestamp, into out: inout [EngineOutput]) {
        advance(to: time, into: &out)
        content.title = title
        content.guarded = guarded
        sheet.guarded = guarded
        sheet.titleDirection = TextDirection.of(title)
        list.contentChanged()
        publish(at: time, into: &out)
    }

    /// Changes how renderers draw the sheet and publishes it; the caller validates
    /// (`Appearance.problem()`). Nothing else moves.
    public mutating func setAppearance(_ appearance: Appearance, at time: Timestamp, into out: inout [EngineOutput]) {
        advance(to: time, into: &out)
        guard appearance != self.appearance else { return }
        configuration.appearance = appearance
        appearanceRevision &+= 1
        publish(at: time, into: &out)
    }

    /// Publishes the initial state (and starts the switch scan of a sheet shown from the start).
    public mutating func start(at time: Timestamp, into out: inout [EngineOutput]) {
        if scans { restartScan(at: time) }
        publish(at: time, into: &out)
    }

    /// Fires every deadline up to and including `time`, in order.
    public mutating func advance(to time: Timestamp, into out: inout [EngineOutput]) {
        while let deadline = nextDeadline, deadline <= time {
            if let arenaDeadline = arena.deadline, arenaDeadline == deadline {
                arena.timeout(at: deadline, into: &arenaScratch)
                forwardArena(into: &out)
            }
            if let sheetDeadline = sheet.deadline, sheetDeadline == deadline {
                feedSheet(.frame(deadline), into: &out)
            }
            if let listDeadline = list.deadline, listDeadline == deadline {
                feedList(.frame(deadline), into: &out)
            }
            if let focusDue = focusDeadline, focusDue == deadline {
                if let due = explorationDeadline, due == deadline { handleExplorer(.timeout(deadline), into: &out) }
                if let scan = scanDeadline, scan == deadline { scanStep(at: deadline, into: &out) }
                if let due = keyRepeatDeadline, due == deadline { repeatKey(at: deadline, into: &out) }
            }
        }
    }

    /// Handles one frame of contacts (after firing the deadlines before it).
    public mutating func process(_ frame: TouchFrame, into out: inout [EngineOutput]) {
        advance(to: frame.time, into: &out)
        if !frame.isEmpty { focusCause = nil }
        source = frame.source
        if exploresByTouch {
            explore(frame, into: &out)
            return
        }
        for contact in frame.contacts {
            handle(contact, at: frame.time, into: &out)
        }
    }

    /// One contact of a frame, through the gestures.
    @inline(__always)
    mutating func handle(_ contact: Contact, at time: Timestamp, into out: inout [EngineOutput]) {
        let slot = contact.slot
        guard slot >= 0, slot < slotDown.count else { return }
        let point = contact.positionInPixels
        switch contact.phase {
        case .down:
            if focus.visible, !exploresByTouch {
                // A touch hides the ring (`:focus-visible`); the focus stays where it was.
                focus.visible = false
                publish(at: time, into: &out)
            }
            if slotDown[slot] {  // a down on a busy slot: the old contact ends first
                liftSlot(slot, at: time, into: &out)
            }
            slotDown[slot] = true
            activeTouchCount += 1
            slotPosition[slot] = point
            if !sheet.owns(points(point), source) {
                slotPassesThrough[slot] = true
                out.append(.touch(TouchReport(time: time, slot: slot, phase: .down, positionInPixels: point,
                                              passThrough: true)))
                return
            }
            trackers[slot].reset()
            trackers[slot].add(point, at: time)
            out.append(.touch(TouchReport(time: time, slot: slot, phase: .down, positionInPixels: point)))
            arena.touchDown(slot: slot, at: point, time: time, into: &arenaScratch)
        case .move:
            guard slotDown[slot] else { return }
            slotPosition[slot] = point
            if slotPassesThrough[slot] { return }
            trackers[slot].add(point, at: time)
            arena.touchMoved(slot: slot, to: point, time: time, into: &arenaScratch)
        case .up:
            guard slotDown[slot] else { return }
            if point != slotPosition[slot], !slotPassesThrough[slot] {
                slotPosition[slot] = point
                trackers[slot].add(point, at: time)
                arena.touchMoved(slot: slot, to: point, time: time, into: &arenaScratch)
            }
            liftSlot(slot, at: time, into: &out)
            return
        case .cancel:
            guard slotDown[slot] else { return }
            cancelSlot(slot, at: time, into: &out)
            return
        }
        forwardArena(into: &out)
    }

    /// A programmatic command (`present`, `dismiss`, a detent by name).
    @discardableResult
    public mutating func perform(_ command: SheetCommand, at time: Timestamp, into out: inout [EngineOutput]) -> CommandResult {
        advance(to: time, into: &out)
        switch command {
        case .present(let name):
            // Without a name: the initial detent, or half when the sheet starts closed.
            guard let index = name.map({ sheet.detents.index(named: $0) }) ?? sheet.openDetent else { return .unknownDetent }
            feedSheet(.present(detent: index, time), into: &out)
        case .setDetent(let name):
            guard let index = sheet.detents.index(named: name) else { return .unknownDetent }
            feedSheet(.present(detent: index, time), into: &out)
        case .dismiss(let force):
            if content.guarded && !force { return .guarded }
            feedSheet(.dismiss(time), into: &out)
        case .setReduceMotion(let enabled):
            configuration.sheet.reduceMotion = enabled
            list.setReduceMotion(enabled)
            feedSheet(.reduceMotion(enabled, time), into: &out)
            publish(at: time, into: &out)
        case .setPresentation(let presentation):
            if presentation.problem() != nil { return .invalid }
            let shaped = presentation.shapesDetentsUnlike(configuration.sheet.presentation)
            if presentation.exploresByTouch != exploresByTouch { endTouchesForExploration(at: time, into: &out) }
            configuration.sheet.presentation = presentation
            if shaped {
                // A bar comes or goes, or changes height: new detents, as a reload makes them.
                reconfigure(configuration, at: time, into: &out)
            } else {
                sheet.setPresentation(presentation)
                focusFitsSheet()
                presentationRevision &+= 1
                publish(at: time, into: &out)
            }
        }
        return .done
    }

    /// Ends every finger still down as a cancel (a new screen, a replay's end).
    public mutating func cancelAllTouches(at time: Timestamp, into out: inout [EngineOutput]) {
        cancelTouches(in: 0..<slotDown.count, at: time, into: &out)
    }

    /// Ends the fingers down in `slots` as cancels (one input's fingers, when it ends: the
    /// others' stay down).
    public mutating func cancelTouches(in slots: Range<Int>, at time: Timestamp, into out: inout [EngineOutput]) {
        advance(to: time, into: &out)
        if explorer.held != 0 { cancelExplored(in: slots, at: time, into: &out) }
        for slot in slots.clamped(to: 0..<slotDown.count) where slotDown[slot] {
            cancelSlot(slot, at: time, into: &out)
        }
    }

    /// Fingers down in `slots`.
    public func touchCount(in slots: Range<Int>) -> Int {
        slots.clamped(to: 0..<slotDown.count).count { slot in
            slotDown[slot] || (slot < 32 && explorer.held & (1 << UInt32(slot)) != 0)
        }
    }

    /// Takes a new configuration (a screen, a reload) as a new engine would, keeping what the
    /// user and programs made: the content, the list's order, and the detent the sheet rested at
    /// or was going to, when the new configuration still has it. The list's revision counts on,
    /// so that no consumer sees one twice. Fingers down are cancelled first: their positions
    /// meant something on the old screen.
    public mutating func reconfigure(_ configuration: EngineConfiguration, at time: Timestamp, into out: inout [EngineOutput]) {
        cancelAllTouches(at: time, into: &out)
        let detent = (sheet.targetDetentIndex ?? sheet.detentIndex).map { sheet.detents[$0].name }
        let content = self.content, order = list.order, revision = list.revision
        let appearance = self.appearance, appearanceRevision = self.appearanceRevision
        let presentationRevision = self.presentationRevision &+ 1
        let focus = self.focus, keyMap = self.keyMap
        self = Engine(configuration: configuration, startingAt: detent)
        // The modifiers held stay where the new map is the same; the focus, once the content is back.
        if configuration.focus.keyMap == keyMap { self.keyMap = keyMap }
        // The appearance as it was set at run time, and its count, go on.
        self.configuration.appearance = appearance
        self.appearanceRevision = appearanceRevision
        self.presentationRevision = presentationRevision
        if !content.isEmpty {
            setContent(content, order: order, after: revision, at: time, into: &out)
        }
        self.focus = focus
        focusFitsSheet()
        start(at: time, into: &out)
    }


}

/// A programmatic request to the sheet.
public enum SheetCommand: Sendable, Equatable {
    /// Show the sheet at a detent (the initial detent when nil).
    case present(DetentName?)
    /// Hide the sheet; a guarded one only with `force`.
    case dismiss(force: Bool)
    case setDetent(DetentName)
    /// Reduced motion on or off from now; a move under way goes on in the new style.
    case setReduceMotion(Bool)
    /// How the sheet opens, closes and shares the screen from now. A change to the bar
    /// (on, off, its height) gives new detents, as a reload does; the rest applies in place.
    case setPresentation(SheetPresentation)
}

/// What became of a command.
public enum CommandResult: Sendable, Equatable {
    case done
    /// No detent has that name.
    case unknownDetent
    /// The content is guarded and the dismiss was not forced.
    case guarded
    /// The settings are out of range (`SheetPresentation.problem()`).
    case invalid
}
