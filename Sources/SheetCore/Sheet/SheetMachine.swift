/// One line of the sheet's transition log: `old → event → new`, libinput style.
public struct SheetTransition: Sendable, Equatable, BitwiseCopyable {
    public var time: Timestamp
    public var from: SheetMachine.StateKind
    public var event: StaticString
    /// A number that belongs to the event: the release velocity in pt/s.
    public var eventPointsPerSecond: Double?
    public var to: SheetMachine.StateKind
    /// The detent the new state rests at or settles to.
    public var detent: DetentName?
    public var fromDetent: DetentName?
}

/// The bottom sheet: where its card is and where it is going. Positions are the card's top
/// edge in points (0 = top of the screen, H = hidden); velocities in points per second,
/// positive downwards.
///
///     resting(d) --touch on card, pan began--> dragging --release--> settling(target)
///     resting(d) --tap on dim / close, swipe down from dim, dismiss--> settling(hidden)
///     settling(t) --touch on card--> dragging (caught where it is, no jump)
///     settling(t) --frame at the end--> resting(t)
///     dragging --cancel--> settling(where the drag began)
///
/// docs/machines/sheet.md holds the full state × event table that the tests walk.
public struct SheetMachine: Sendable {
    public enum StateKind: UInt8, Sendable, BitwiseCopyable, Named {
        case resting, dragging, settling

        public var name: StaticString {
            switch self {
            case .resting: return "resting"
            case .dragging: return "dragging"
            case .settling: return "settling"
            }
        }
    }

    public struct Drag: Sendable, Equatable {
        /// The detent the drag began from (for a cancel, and `half-drag`'s "back where it started").
        public var originDetent: Int
        /// The card's top when the finger went down.
        public var startTop: Double
        /// The card's top now.
        public var top: Double
        /// How fast the card's top follows the finger now (pt/s, down positive): the finger's
        /// vertical velocity, times the rubber band's slope past the top detent (0 where the
        /// card is clamped).
        public var velocity: Double = 0
        /// A drag that opens the sheet from its floor (an edge swipe, a swipe up from the bar):
        /// what the `presented` event names when it is released above the floor.
        public var opening: PresentCause? = nil
    }

    public struct Settle: Sendable, Equatable {
        public var targetDetent: Int
        public var animation: SheetAnimation
        public var startedAt: Timestamp
        /// The last sampled position and velocity.
        public var top: Double
        public var velocity: Double
        /// The next animation frame to sample.
        public var nextFrame: Timestamp
        public var cause: SheetCause
        /// Reduced motion: the dim as the cross-fade has it now, with the card already at the
        /// target; the animation then moves the dim, not the top. Nil while the card moves.
        public var dim: Double? = nil
    }

    public enum State: Sendable, Equatable {
        case resting(detent: Int)
        case dragging(Drag)
        case settling(Settle)

        public var kind: StateKind {
            switch self {
            case .resting: return .resting
            case .dragging: return .dragging
            case .settling: return .settling
            }
        }
    }

    public enum Event: Sendable {
        /// The primary finger touched down (points).
        case touchDown(Point, TouchSource, Timestamp)
        /// The pan began: its start point and the finger's translation since then. A pan that
        /// begins mostly sideways is not the sheet's (axis lock, as phoc and libadwaita do).
        case panBegan(start: Point, translation: Vector, TouchSource, Timestamp)
        /// The finger moved: its translation since the pan began and its vertical velocity now
        /// (pt/s, from the velocity tracker).
        case panChanged(translationY: Double, velocityY: Double, Timestamp)
        /// The primary finger lifted, with its vertical velocity (pt/s; 0 if it had stopped).
        case release(velocityY: Double, Timestamp)
        /// The primary finger was cancelled.
        case cancel(Timestamp)
        case tap(Point, TouchSource, Timestamp)
        case swipe(SwipeDirection, start: Point, TouchSource, Timestamp)
        case present(detent: Int, Timestamp)
        /// The card goes up to `detent` as `present` takes it, but nobody opened it: the sheet
        /// was there before another took its place (`SheetStack`), so no `presented` report.
        case comeBack(detent: Int, Timestamp)
        case dismiss(Timestamp)
        /// Reduced motion turned on or off: a settle under way goes on in the new style.
        case reduceMotion(Bool, Timestamp)
        /// An animation frame (the machine's deadline passed).
        case frame(Timestamp)

        public var name: StaticString {
            switch self {
            case .touchDown: return "touch-down"
            case .panBegan: return "pan-began"
            case .panChanged: return "pan-changed"
            case .release: return "release"
            case .cancel: return "cancel"
            case .tap: return "tap"
            case .swipe: return "swipe"
            case .present: return "present"
            case .comeBack: return "come-back"
            case .dismiss: return "dismiss"
            case .reduceMotion: return "reduce-motion"
            case .frame: return "frame"
            }
        }
    }

    public enum Effect: Sendable, Equatable {
        /// Nothing visible changed.
        case none
        /// The card moved or changed state.
        case changed
    }

    /// The state's kind. Each kind's numbers are kept apart, where only that kind reads them
    /// (`restingDetent`, `dragging`, `settling`): reading the sheet (a published frame reads it
    /// a dozen times) and moving it then touch a field in place, where a switch over one enum
    /// holding a whole animation copied it each time. `state` puts them together.
    public private(set) var kind: StateKind
    /// While resting: the detent.
    var restingDetent: Int
    /// While dragging: the drag.
    var dragging: Drag
    /// While settling: the animation under way. Readable from inlined code (`deadline`).
    @usableFromInline internal(set) var settling: Settle
    /// While a spring settles: the spring on the settle's frame grid (`Spring.Grid`).
    var springGrid: Spring.Grid?

    /// The state whole, for tests, tables and logs.
    public var state: State {
        switch kind {
        case .resting: .resting(detent: restingDetent)
        case .dragging: .dragging(dragging)
        case .settling: .settling(settling)
        }
    }
    /// The numbers the machine was made with; only `reduceMotion` changes afterwards.
    public internal(set) var configuration: SheetConfiguration
    public let detents: DetentSet
    public let layout: SheetLayout
    public let screen: ScreenSize
    /// The card's horizontal extent (points): the screen's width up to `layout.maximumWidth`.
    public let span: CardSpan
    /// Which way the title reads: the close button sits where it ends. Set with the content.
    public internal(set) var titleDirection = TextDirection.leftToRight
    public internal(set) var cause: SheetCause = .initial
    /// Set by `handle` when the state changed kind or target; the caller logs it.
    public private(set) var lastTransition: SheetTransition?
    /// Unsaved changes in the content: a user's dismissal springs back to the detent it left
    /// and is reported in `lastDismissAttempt` instead. A `dismiss` event still hides.
    public internal(set) var guarded = false
    /// Set by `handle` when a user tried to dismiss a guarded sheet.
    public private(set) var lastDismissAttempt: DismissCause?
    /// Set by `handle` when the sheet left its floor for a detent above it, with what did it.
    public private(set) var lastPresented: PresentCause?
    /// Who sent a `present` or `dismiss` event: a program's call, or a key (the engine sets it
    /// around the event). It names the `presented` report; and the move it starts is a
    /// program's `command`, or, for a person's key, the card moving on its own (`animation`),
    /// as after a tap on the close button.
    public internal(set) var presentCause = PresentCause.control

    var requestCause: SheetCause {
        switch presentCause {
        case .control: .command
        case .key: .keys
        case .edgeSwipe, .barTap, .barSwipe: .animation
        }
    }
    /// Where a tap on the bar, or a half-drag opening, takes the sheet: the initial detent
    /// (never the floor).
    public let openDetent: Int

    /// How the sheet opens, closes and shares the screen.
    public var presentation: SheetPresentation { configuration.presentation }

    var height: Double { screen.heightInPoints }
    /// The floor's top: the screen's height, or the bar's top.
    let floorTop: Double
    /// The floor is the bottom bar (`collapsed`), not `hidden`.
    let floorIsBar: Bool
    /// The sheet's region when it takes the whole screen, and when it rests closed at `hidden`.
    let wholeScreen: ScreenRegion
    var closedRegion: ScreenRegion
    /// Half a pixel, in points: closer than this to a detent is at the detent.
    var tolerance: Double { 0.5 / screen.scale }

    /// `openDetent`: where a tap on the bar opens the sheet (`half` when it is not a detent).
    public init(configuration: SheetConfiguration, screen: ScreenSize, layout: SheetLayout = SheetLayout(),
                initialDetent: DetentName = .half, openDetent: DetentName = .half) {
        self.configuration = configuration
        self.screen = screen
        self.layout = layout
        span = layout.cardSpan(screenWidth: screen.widthInPoints, scale: screen.scale)
        let presentation = configuration.presentation
        let detents = DetentSet(configuration.detents, screenHeightInPoints: screen.heightInPoints,
                                barHeightInPoints: presentation.gestures.contains(.bottomBar) ? presentation.barHeightInPoints : nil)
        self.detents = detents
        floorTop = detents.floor.topInPoints
        floorIsBar = detents.floor.name == .collapsed
        wholeScreen = ScreenRegion(x: 0, y: 0, width: screen.widthInPoints, height: screen.heightInPoints)
        closedRegion = Self.closedRegion(presentation, screen: screen)
        let initial = detents.index(named: initialDetent)
            ?? (initialDetent.isFloor ? detents.hiddenIndex : detents.nearest(to: screen.heightInPoints / 2))
        let open = detents.index(named: openDetent) ?? detents.index(named: .half) ?? detents.hiddenIndex
        self.openDetent = open != detents.hiddenIndex ? open
            : detents.nearest(to: screen.heightInPoints / 2, includingHidden: false)
        kind = .resting
        restingDetent = initial
        // What the other kinds start from is set when the machine enters them.
        dragging = Drag(originDetent: initial, startTop: 0, top: 0)
        settling = Settle(targetDetent: initial, animation: .curve(from: 0, to: 0, seconds: 0, .linear),
                          startedAt: .zero, top: 0, velocity: 0, nextFrame: .zero, cause: .initial)
    }

    /// For tests: a machine in a given state.
    public init(configuration: SheetConfiguration, screen: ScreenSize, state: State) {
        self.init(configuration: configuration, screen: screen)
        switch state {
        case .resting(let detent): rest(at: detent)
        case .dragging(let drag): begin(drag)
        case .settling(let settle): begin(settle)
        }
    }

    // MARK: Reading the state

    /// The card's top edge now (points).
    @inline(__always)
    public var top: Double {
        switch kind {
        case .resting: detents[restingDetent].topInPoints
        case .dragging: dragging.top
        case .settling: settling.top
        }
    }

    /// How fast the card's top moves (pt/s, down positive): the spring's or curve's while
    /// settling, the finger's (through the rubber band) while dragging.
    @inline(__always)
    public var velocity: Double {
        switch kind {
        case .resting: 0
        case .dragging: dragging.velocity
        case .settling: settling.velocity
        }
    }

    /// The detent the card is at (within half a pixel), or nil between detents.
    @inline(__always)
    public var detentIndex: Int? {
        kind == .resting ? restingDetent : detents.detent(at: top, tolerance: tolerance)
    }

    @inline(__always)
    public var targetDetentIndex: Int? {
        kind == .settling ? settling.targetDetent : nil
    }

    /// The detent the state rests at or settles to; nil while dragging.
    @inline(__always)
    private var destination: Int? {
        switch kind {
        case .resting: restingDetent
        case .dragging: nil
        case .settling: settling.targetDetent
        }
    }

    /// Dim opacity: the cross-fade's under reduced motion, else from the position.
    @inline(__always)
    public var dim: Double {
        if kind == .settling, let dim = settling.dim { return dim }
        return dim(atTop: top)
    }

    /// Dim opacity from position: `maximumDim · (F − top) / (F − H/2)`, clamped to
    /// 0…maximumDim, where F is the floor's top (H when hidden); none when not modal.
    @inline(__always)
    func dim(atTop top: Double) -> Double {
        guard configuration.presentation.modal else { return 0 }
        let floor = floorTop, span = floor - height / 2
        guard span > 0 else { return 0 }
        let value = configuration.maximumDim * (floor - top) / span
        return min(max(value, 0), configuration.maximumDim)
    }

    /// 0 at the floor, 1 at the topmost detent.
    @inline(__always)
    public var progress: Double {
        let span = floorTop - detents.topmost.topInPoints
        return span > 0 ? (floorTop - top) / span : 0
    }

    /// When the machine wants the next `.frame`. Inlinable, as every deadline on the engine's
    /// path is: a caller in another module reads it where the engine lies, without a copy.
    @inlinable @inline(__always)
    public var deadline: Timestamp? {
        kind == .settling ? settling.nextFrame : nil
    }

    /// At, or on its way to, a detent other than hidden (or held by a finger).
    @inline(__always)
    public var isShown: Bool {
        destination.map { $0 != detents.hiddenIndex } ?? true
    }

    // MARK: The machine

    public mutating func handle(_ event: Event) -> Effect {
        lastDismissAttempt = nil
        lastPresented = nil
        let before = (kind: kind, destination: destination)
        let effect = transition(event)
        // A new kind, or a settle that changed its target.
        if before.kind != kind || (kind == .settling && destination != before.destination) {
            var velocity: Double?
            if case .release(let v, _) = event { velocity = v }
            lastTransition = SheetTransition(
                time: event.time, from: before.kind, event: event.name, eventPointsPerSecond: velocity,
                to: kind, detent: destination.map { detents[$0].name },
                fromDetent: before.destination.map { detents[$0].name })
        } else {
            lastTransition = nil
        }
        return effect
    }

    mutating func rest(at detent: Int) {
        kind = .resting
        restingDetent = detent
    }

    mutating func begin(_ drag: Drag) {
        kind = .dragging
        dragging = drag
    }

    mutating func begin(_ settle: Settle) {
        kind = .settling
        settling = settle
        if case .spring(let spring, _) = settle.animation {
            springGrid = Spring.Grid(spring, stepMicroseconds: configuration.frameIntervalMicroseconds)
        } else {
            springGrid = nil
        }
    }

    private mutating func transition(_ event: Event) -> Effect {
        switch (kind, event) {
        // resting
        case (.resting, .touchDown):
            return .none
        case (.resting, .panBegan(let start, let translation, let source, _)):
            let detent = restingDetent
            guard abs(translation.dy) >= abs(translation.dx) else { return .none }
            var opening: PresentCause?
            if detent == detents.hiddenIndex {
                // Closed: only a way to open it moves it.
                guard let cause = openingGesture(from: start, translation: translation, source) else { return .none }
                opening = cause
            } else {
                guard isOnCard(start, source) else { return .none }
            }
            let startTop = detents[detent].topInPoints
            begin(Drag(originDetent: detent, startTop: startTop, top: startTop, opening: opening))
            cause = .user
            moveDrag(translationY: translation.dy)
            return .changed
        case (.resting, .panChanged), (.resting, .release), (.resting, .cancel), (.resting, .frame):
            return .none
        case (.resting, .tap(let point, let source, let time)):
            if restingDetent == detents.hiddenIndex {
                // Closed: a tap on the bar opens; anything else does nothing.
                guard floorIsBar, presentation.canOpen, source == .touchscreen,
                      layout.isOnCard(point, top: top, span: span) else { return .none }
                lastPresented = .barTap
                return settle(to: openDetent, velocity: 0, at: time, cause: .animation)
            }
            return dismissIfOutside(point, source, time)
        case (.resting, .swipe(let direction, let start, let source, let time)):
            return dismissIfSwipeFromDim(direction, start, source, time)
        case (.resting, .present(let detent, let time)), (.resting, .comeBack(let detent, let time)):
            if case .present = event, restingDetent == detents.hiddenIndex, detent != detents.hiddenIndex { lastPresented = presentCause }
            return settle(to: detent, velocity: 0, at: time, cause: requestCause)
        case (.resting, .dismiss(let time)):
            return settle(to: detents.hiddenIndex, velocity: 0, at: time, cause: requestCause)
        case (.resting, .reduceMotion(let enabled, _)), (.dragging, .reduceMotion(let enabled, _)):
            configuration.reduceMotion = enabled
            return .none

        // dragging
        case (.dragging, .touchDown), (.dragging, .panBegan), (.dragging, .frame):
            return .none
        case (.dragging, .panChanged(let translation, let velocity, _)):
            return moveDrag(translationY: translation, fingerVelocity: velocity)
        case (.dragging, .release(let velocity, let time)):
            let drag = dragging
            let target = releaseTarget(drag: drag, velocity: velocity)
            if target == detents.hiddenIndex, drag.originDetent != detents.hiddenIndex {
                if !presentation.canClose {
                    // Locked open: back to where the drag began, as a guard does, unannounced.
                    return settle(to: drag.originDetent, velocity: 0, at: time, cause: .animation)
                }
                if guarded {
                    // Guarded: back to where the drag began, from rest (no overshoot off the screen).
                    lastDismissAttempt = isFling(velocity) ? .swipeDown : .drag
                    return settle(to: drag.originDetent, velocity: 0, at: time, cause: .animation)
                }
            }
            if let opening = drag.opening, target != detents.hiddenIndex { lastPresented = opening }
            return settle(to: target, velocity: velocity, at: time, cause: .animation)
        case (.dragging, .cancel(let time)):
            return settle(to: dragging.originDetent, velocity: 0, at: time, cause: .animation)
        case (.dragging, .tap(let point, let source, let time)):
            let drag = dragging
            // A tap that ends a caught drag: the close button still closes.
            guard source == .touchscreen, presentation.canClose, drag.opening == nil,
                  layout.isOnCloseButton(point, top: top, span: span, direction: titleDirection) else { return .none }
            if guarded && drag.originDetent != detents.hiddenIndex {
                lastDismissAttempt = .closeButton
                return settle(to: drag.originDetent, velocity: 0, at: time, cause: .animation)
            }
            return settle(to: detents.hiddenIndex, velocity: 0, at: time, cause: .animation)
        case (.dragging, .swipe):
            return .none
        case (.dragging, .present(let detent, let time)), (.dragging, .comeBack(let detent, let time)):
            if case .present = event, dragging.opening != nil, detent != detents.hiddenIndex { lastPresented = presentCause }
            return settle(to: detent, velocity: 0, at: time, cause: requestCause)
        case (.dragging, .dismiss(let time)):
            return settle(to: detents.hiddenIndex, velocity: 0, at: time, cause: requestCause)

        // settling
        case (.settling, .touchDown(let point, let source, let time)):
            let settle = settling
            // Hit-test and catch where the card is at the touch, not where the last frame drew it.
            let top = settle.dim == nil ? sampleSettle(at: time).value : settle.top
            guard source == .touchpad || layout.isOnCard(point, top: top, span: span) else { return .none }
            // A sheet going away that a person may not open is not theirs to hold back.
            guard settle.targetDetent != detents.hiddenIndex || presentation.canOpen else { return .none }
            // Caught where it is: the drag starts from the current top, no jump.
            begin(Drag(originDetent: settle.targetDetent, startTop: top, top: top))
            cause = .user
            return .changed
        case (.settling, .panBegan), (.settling, .panChanged), (.settling, .release), (.settling, .cancel):
            return .none
        case (.settling, .frame(let time)):
            return advance(to: time)
        case (.settling, .tap(let point, let source, let time)):
            guard settling.targetDetent != detents.hiddenIndex else { return .none }
            _ = advance(to: time, scheduling: false)
            return dismissIfOutside(point, source, time)
        case (.settling, .swipe(let direction, let start, let source, let time)):
            guard settling.targetDetent != detents.hiddenIndex else { return .none }
            _ = advance(to: time, scheduling: false)
            return dismissIfSwipeFromDim(direction, start, source, time)
        case (.settling, .present(let detent, let time)), (.settling, .comeBack(let detent, let time)):
            let closing = settling.targetDetent == detents.hiddenIndex
            _ = advance(to: time, scheduling: false)
            // The settle may end at the command's instant: then it is a command at rest.
            if kind == .resting {
                _ = transition(event)
                return .changed
            }
            if case .present = event, closing, detent != detents.hiddenIndex { lastPresented = presentCause }
            return retarget(to: detent, at: time)
        case (.settling, .dismiss(let time)):
            _ = advance(to: time, scheduling: false)
            if kind == .resting {
                _ = transition(event)
                return .changed
            }
            return retarget(to: detents.hiddenIndex, at: time)
        case (.settling, .reduceMotion(let enabled, let time)):
            guard enabled != configuration.reduceMotion else { return .none }
            _ = advance(to: time, scheduling: false)
            configuration.reduceMotion = enabled
            // Over already, or on from where it is in the new style.
            guard kind == .settling else { return .changed }
            return settle(to: settling.targetDetent, velocity: settling.velocity, at: time, cause: settling.cause)
        }
    }

    // MARK: Dragging

    @discardableResult
    private mutating func moveDrag(translationY: Double, fingerVelocity: Double = 0) -> Effect {
        guard kind == .dragging else { return .none }
        let raw = dragging.startTop + translationY
        let topmost = detents.topmost.topInPoints
        var top = raw
        // How far the card moves per point the finger moves, here.
        var slope = 1.0
        if raw < topmost {
            switch configuration.ruleSet {
            case .tutorial, .halfDrag:
                top = topmost  // the tutorial clamps at the expanded top
                slope = 0
            case .projection:
                top = topmost - rubberBand.offset(topmost - raw)
                slope = rubberBand.slope(topmost - raw)
            }
        }
        if top > floorTop {
            top = floorTop
            slope = 0
        }
        let velocity = fingerVelocity * slope
        // A card that reaches a clamp stops: that is a change even where the top stays.
        let changed = top != dragging.top || velocity != dragging.velocity
        dragging.top = top
        dragging.velocity = velocity
        return changed ? .changed : .none
    }

    /// The drag's rubber band above the top detent, over the screen's height.
    private var rubberBand: RubberBand {
        RubberBand(coefficient: configuration.rubberBandCoefficient, dimension: height)
    }

    // MARK: Dismissing

    private mutating func dismissIfOutside(_ point: Point, _ source: TouchSource, _ time: Timestamp) -> Effect {
        guard isShown, source == .touchscreen, presentation.canClose else { return .none }
        let onCloseButton = layout.isOnCloseButton(point, top: top, span: span, direction: titleDirection)
        // Off the card is the dim's, which only a modal sheet has.
        guard onCloseButton || (presentation.modal && !isOnCard(point, source)) else { return .none }
        if guarded {
            lastDismissAttempt = onCloseButton ? .closeButton : .dimTap
            return .none
        }
        return settle(to: detents.hiddenIndex, velocity: 0, at: time, cause: .animation)
    }

    private mutating func dismissIfSwipeFromDim(_ direction: SwipeDirection, _ start: Point, _ source: TouchSource,
                                                _ time: Timestamp) -> Effect {
        guard isShown, direction == .down, source == .touchscreen, presentation.modal, presentation.canClose,
              !isOnCard(start, source) else { return .none }
        if guarded {
            lastDismissAttempt = .swipeDown
            return .none
        }
        return settle(to: detents.hiddenIndex, velocity: 0, at: time, cause: .animation)
    }
}

extension SheetMachine.Event {
    public var time: Timestamp {
        switch self {
        case .touchDown(_, _, let t), .panBegan(_, _, _, let t), .panChanged(_, _, let t), .release(_, let t),
             .cancel(let t), .tap(_, _, let t), .swipe(_, _, _, let t), .present(_, let t), .comeBack(_, let t), .dismiss(let t),
             .reduceMotion(_, let t), .frame(let t):
            return t
        }
    }
}

extension SheetTransition {
    public static func == (lhs: SheetTransition, rhs: SheetTransition) -> Bool {
        lhs.time == rhs.time && lhs.from == rhs.from && lhs.to == rhs.to && lhs.detent == rhs.detent
            && lhs.fromDetent == rhs.fromDetent && lhs.eventPointsPerSecond == rhs.eventPointsPerSecond
            && lhs.event.withUTF8Buffer({ a in rhs.event.withUTF8Buffer { b in a.elementsEqual(b) } })
    }
}
