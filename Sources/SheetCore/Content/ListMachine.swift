import RealModule

/// The list in the card: its order, its scroll offset, and the long-press reorder. Positions
/// are in points on the screen; the list starts `titleBarHeightInPoints` below the card's top
/// and shows what fits between there and the screen's bottom edge. Offsets are the scroll's,
/// positive when the list has moved up.
///
///     idle --scroll--> scrolling --release, fast--> flinging --frame at rest--> idle
///                      scrolling --release, slow / cancel--> idle (or flinging back into bounds)
///     flinging --touch-down--> idle (caught where it is)
///     idle --hold on an item--> reordering --hold-moved--> reordering (swaps, auto-scroll)
///     reordering --release / cancel--> idle (the item drops where it is)
///
/// docs/machines/list.md holds the state × event table that the tests walk.
public struct ListMachine: Sendable {
    public enum StateKind: UInt8, Sendable {
        case idle, scrolling, flinging, reordering

        public var name: StaticString {
            switch self {
            case .idle: return "idle"
            case .scrolling: return "scrolling"
            case .flinging: return "flinging"
            case .reordering: return "reordering"
            }
        }
    }

    /// The list moving on its own after a release: momentum, or a spring back into bounds.
    public enum Fling: Sendable, Equatable {
        /// Momentum decelerating at the sheet's rate per millisecond (0.998, UIScrollView).
        case momentum(from: Double, pointsPerSecond: Double, startedAt: Timestamp)
        /// Back to the nearest bound, carrying the velocity it had.
        case bounce(SheetAnimation, startedAt: Timestamp)
    }

    /// An item held by the finger.
    public struct Reorder: Sendable, Equatable {
        public var item: Int
        /// Its slot in the order now.
        public var position: Int
        /// Where in the row the finger holds it (points from the row's top).
        public var grabInPoints: Double
        /// The finger's height on the screen (points).
        public var fingerY: Double
        /// The visible list's top edge on the screen (the card rests while an item is held).
        public var listTop: Double
        /// When auto-scroll last stepped.
        public var lastStep: Timestamp
    }

    public enum State: Sendable, Equatable {
        case idle
        /// A finger scrolls the list (the engine keeps its raw offset, before the rubber band).
        case scrolling
        case flinging(Fling)
        case reordering(Reorder)

        public var kind: StateKind {
            switch self {
            case .idle: return .idle
            case .scrolling: return .scrolling
            case .flinging: return .flinging
            case .reordering: return .reordering
            }
        }
    }

    public enum Event: Sendable {
        /// The primary finger touched down somewhere: a flinging list stops where it is.
        case touchDown(Timestamp)
        /// The finger's share of a pan, as the offset it asks for (before the rubber band).
        case scroll(rawOffset: Double, Timestamp)
        /// The finger lifted; the offset's velocity (pt/s, positive when the list moves up).
        case release(offsetPointsPerSecond: Double, Timestamp)
        case cancel(Timestamp)
        /// A still finger was held for the item long-press time at this point, the card's top
        /// at `cardTop` (points).
        case hold(Point, cardTop: Double, Timestamp)
        /// The held finger moved.
        case holdMoved(Point, Timestamp)
        case frame(Timestamp)
        /// The focus came to the row at this position: the list scrolls it into the
        /// `visibleHeight` points it shows under the title bar now.
        case reveal(position: Int, visibleHeight: Double, Timestamp)
        /// A key moves the item at this position one place up (-1) or down (1) within its
        /// section: a reorder's three events at once, the swap animated as a drag's.
        case keyMove(position: Int, by: Int, Timestamp)

        public var name: StaticString {
            switch self {
            case .touchDown: return "touch-down"
            case .scroll: return "scroll"
            case .release: return "release"
            case .cancel: return "cancel"
            case .hold: return "hold"
            case .holdMoved: return "hold-moved"
            case .frame: return "frame"
            case .reveal: return "reveal"
            case .keyMove: return "key-move"
            }
        }

        public var time: Timestamp {
            switch self {
            case .touchDown(let t), .scroll(_, let t), .release(_, let t), .cancel(let t), .hold(_, _, let t),
                 .holdMoved(_, let t), .frame(let t), .reveal(_, _, let t), .keyMove(_, _, let t):
                return t
            }
        }
    }

    public enum Effect: Sendable, Equatable {
        case none
        /// Something a renderer draws changed.
        case changed
        /// A hold picked an item up: the reorder has the finger now.
        case claimed
    }

    public let configuration: ListConfiguration
    public let screen: ScreenSize
    /// The card's horizontal extent (points): rows are as wide as the card.
    public let span: CardSpan
    /// The highest detent's top (points): the list's visible height is measured there.
    public let topmostTop: Double
    var sheet: SheetConfiguration

    public internal(set) var state: State = .idle
    /// The list's order: position → index into the content's items.
    public internal(set) var order: [Int] = []
    /// Where each row lies in the list's order (laid out again at each swap).
    public internal(set) var layout = ListLayout()
    /// The content's items: their sizes, sections and whether they can be used.
    var items: [SheetItem] = []
    /// Counts changes of the content and its order: each new content (`setItems`) and each
    /// swap adds one, so a consumer that saw every `reorderMoved` knows the order without
    /// asking, and one that did not knows to ask.
    public internal(set) var revision = 0
    /// The scroll offset drawn now (points).
    public internal(set) var offset: Double = 0
    /// When the machine wants the next `.frame`.
    public internal(set) var deadline: Timestamp?

    // What is drawn away from rest.
    var lifted: LiftedTween?
    var othersScale: Tween
    /// The neighbours sliding after swaps, at most `MovingItems.capacity` (storage reserved once).
    var moving: [MovingTween] = []

    struct LiftedTween: Sendable, Equatable {
        var item: Int
        var position: Int
        var offset: Tween
        var shift: Tween
        var scale: Tween
        var opacity: Tween
    }

    struct MovingTween: Sendable, Equatable {
        var item: Int
        var position: Int
        var offset: Tween
    }

    public init(configuration: ListConfiguration, sheet: SheetConfiguration, screen: ScreenSize,
                span: CardSpan? = nil, topmostTop: Double) {
        self.configuration = configuration
        self.sheet = sheet
        self.screen = screen
        self.span = span ?? CardSpan(left: 0, width: screen.widthInPoints)
        self.topmostTop = topmostTop
        othersScale = Tween(value: 1, restDistance: 0.001)
        moving.reserveCapacity(MovingItems.capacity)
    }

    // MARK: Content

    /// Gives the list `items` in `order` (the given order when it is a permutation of their
    /// indices, else 0, 1, 2…). What was picked up or moving ends at once.
    public mutating func setItems(_ items: [SheetItem], order requested: [Int]? = nil, offset newOffset: Double = 0,
                                  after previousRevision: Int = 0) {
        let count = items.count
        self.items = items
        if let requested, Self.isPermutation(requested, of: count) {
            order = requested
        } else {
            order = Array(0..<count)
        }
        layout.layOut(items, order: order, configuration: configuration)
        revision = max(revision, previousRevision) + 1
        state = .idle
        lifted = nil
        moving.removeAll(keepingCapacity: true)
        othersScale = Tween(value: 1, restDistance: 0.001)
        offset = min(max(newOffset.isFinite ? newOffset : 0, 0), maximumOffset)
        deadline = nil
    }

    /// Whether `order` holds each of 0..<count once: a list order every boundary checks.
    public static func isPermutation(_ order: [Int], of count: Int) -> Bool {
        guard order.count == count else { return false }
        var seen = [Bool](repeating: false, count: count)
        for index in order {
            guard index >= 0, index < count, !seen[index] else { return false }
            seen[index] = true
        }
        return true
    }

    /// Reduced motion from now on: lifts, swaps and drops land at once (those under way finish
    /// as they began); scrolling keeps its momentum, which the finger gave it.
    public mutating func setReduceMotion(_ enabled: Bool) {
        sheet.reduceMotion = enabled
    }

    /// The content changed around the same items (a title, the guard): one revision more.
    public mutating func contentChanged() {
        revision += 1
    }

    public var count: Int { order.count }

    /// The list's height on the screen with the card at its highest detent.
    private var visibleHeight: Double {
        max(screen.heightInPoints - topmostTop - configuration.titleBarHeightInPoints, 0)
    }

    /// How far the list can scroll: its height past what fits under the title bar with the
    /// card at its highest detent.
    public var maximumOffset: Double { max(0, layout.height - visibleHeight) }

    /// The list is longer than the card shows: pans on it scroll.
    public var scrolls: Bool { maximumOffset > 0 }

    /// The position of the item under `point` with the card's top at `cardTop`, if any.
    public func position(at point: Point, cardTop: Double) -> Int? {
        let listTop = cardTop + configuration.titleBarHeightInPoints
        guard point.y >= listTop, point.y < screen.heightInPoints, span.contains(x: point.x)
        else { return nil }
        return layout.position(atY: point.y - listTop + offset)
    }

    /// Whether `point` is on the list (below the title bar, on the card).
    public func isOnList(_ point: Point, cardTop: Double) -> Bool {
        point.y >= cardTop + configuration.titleBarHeightInPoints && span.contains(x: point.x)
    }

    /// What a renderer draws now.
    public func snapshot(at time: Timestamp) -> ListSnapshot {
        var snapshot = ListSnapshot()
        snapshot.scrollInPoints = offset
        snapshot.revision = UInt32(truncatingIfNeeded: revision)
        if case .idle = state { snapshot.isSettled = lifted == nil && !isAnimating } else { snapshot.isSettled = false }
        snapshot.othersScale = Float(othersScale.value(at: time))
        // Items and positions are below 1,024 (`SheetContent.Limits.items`), so they fit UInt16.
        if let lifted {
            snapshot.lifted = LiftedItem(item: UInt16(lifted.item), position: UInt16(lifted.position),
                                         offsetInPoints: Float(lifted.offset.value(at: time) + lifted.shift.value(at: time)),
                                         scale: Float(lifted.scale.value(at: time)), opacity: Float(lifted.opacity.value(at: time)))
        }
        for entry in moving {
            snapshot.moving.append(MovingItem(item: UInt16(entry.item), position: UInt16(entry.position),
                                              offsetInPoints: Float(entry.offset.value(at: time))))
        }
        return snapshot
    }

    // MARK: The machine

    public mutating func handle(_ event: Event, into out: inout [ContentEventReport]) -> Effect {
        let effect = transition(event, into: &out)
        let time = event.time
        if needsFrames {
            if case .frame = event {
                deadline = time.adding(microseconds: sheet.frameIntervalMicroseconds)
            } else if deadline == nil || deadline! <= time {
                deadline = time.adding(microseconds: sheet.frameIntervalMicroseconds)
            }
        } else {
            deadline = nil
        }
        return effect
    }

    private mutating func transition(_ event: Event, into out: inout [ContentEventReport]) -> Effect {
        switch (state, event) {
        // idle
        case (.idle, .touchDown), (.idle, .release), (.idle, .cancel), (.idle, .holdMoved):
            return .none
        case (.idle, .scroll(let raw, _)):
            state = .scrolling
            return setOffset(rubberBanded(raw))
        case (.idle, .hold(let point, let cardTop, let time)):
            return pickUp(at: point, cardTop: cardTop, time: time, into: &out)
        case (.idle, .frame(let time)):
            return animate(at: time)
        case (.idle, .reveal(let position, let visibleHeight, let time)):
            return reveal(position, visibleHeight: visibleHeight, from: offset, at: time)
        case (.idle, .keyMove(let position, let delta, let time)), (.flinging, .keyMove(let position, let delta, let time)):
            return move(position, by: delta, at: time, into: &out)

        // scrolling
        case (.scrolling, .touchDown), (.scrolling, .hold), (.scrolling, .holdMoved):
            return .none
        case (.scrolling, .scroll(let raw, _)):
            state = .scrolling
            return setOffset(rubberBanded(raw))
        case (.scrolling, .release(let velocity, let time)):
            return letGo(velocity: velocity, at: time)
        case (.scrolling, .cancel(let time)):
            return letGo(velocity: 0, at: time)
        case (.scrolling, .frame(let time)):
            return animate(at: time)
        case (.scrolling, .reveal), (.scrolling, .keyMove):
            // The finger has the list.
            return .none

        // flinging
        case (.flinging(let fling), .touchDown(let time)):
            // Caught: the list stops where it is now, back inside its bounds if it was past them.
            let position = sample(fling, at: time).offset
            state = .idle
            let inside = min(max(position, 0), maximumOffset)
            if inside != position {
                return startBounce(from: position, velocity: 0, at: time)
            }
            return setOffset(position)
        case (.flinging, .scroll(let raw, _)):
            state = .scrolling
            return setOffset(rubberBanded(raw))
        case (.flinging, .release), (.flinging, .cancel), (.flinging, .hold), (.flinging, .holdMoved):
            return .none
        case (.flinging, .frame(let time)):
            let changed = stepFling(at: time)
            let animated = animate(at: time)
            return changed == .changed ? .changed : animated
        case (.flinging(let fling), .reveal(let position, let visibleHeight, let time)):
            // From where the list is now, towards the focused row.
            return reveal(position, visibleHeight: visibleHeight, from: sample(fling, at: time).offset, at: time)

        // reordering
        case (.reordering, .touchDown), (.reordering, .scroll), (.reordering, .hold), (.reordering, .reveal),
             (.reordering, .keyMove):
            return .none
        case (.reordering(var reorder), .holdMoved(let point, let time)):
            reorder.fingerY = point.y
            return step(&reorder, at: time, into: &out)
        case (.reordering(var reorder), .frame(let time)):
            var effect = step(&reorder, at: time, into: &out)
            if case .reordering = state, animate(at: time) == .changed { effect = .changed }
            return effect
        case (.reordering(let reorder), .release(_, let time)), (.reordering(let reorder), .cancel(let time)):
            // A cancel drops the item where it is, as a lift does (the reorder tutorial).
            return drop(reorder, at: time, into: &out)
        }
    }

    // MARK: Scrolling

    /// The offset drawn for a raw one: the sheet's rubber band past either end, over the height
    /// the list shows.
    public func rubberBanded(_ raw: Double) -> Double {
        let maximum = maximumOffset
        let band = RubberBand(coefficient: sheet.rubberBandCoefficient, dimension: max(visibleHeight, 1))
        if raw > maximum { return maximum + band.offset(raw - maximum) }
        if raw < 0 { return -band.offset(-raw) }
        return raw
    }

    mutating func setOffset(_ value: Double) -> Effect {
        guard value != offset else { return .none }
        offset = value
        return .changed
    }

    private var decay: Double { -1000 * Double.log(sheet.decelerationRate) }  // per second
    private var restSpeed: Double { sheet.springRestPixelsPerSecond / screen.scale }
    var restDistance: Double { sheet.springRestDistanceInPixels / screen.scale }

    private mutating func letGo(velocity: Double, at time: Timestamp) -> Effect {
        let shown = offset
        if shown < 0 || shown > maximumOffset {
            return startBounce(from: shown, velocity: velocity, at: time)
        }
        if abs(velocity) < restSpeed {
            state = .idle
            return .none
        }
        state = .flinging(.momentum(from: shown, pointsPerSecond: velocity, startedAt: time))
        return .none
    }

    private mutating func startBounce(from position: Double, velocity: Double, at time: Timestamp) -> Effect {
        let bound = min(max(position, 0), maximumOffset)
        let spring = Spring(from: position, target: bound, initialVelocity: velocity,
                            stiffness: sheet.springStiffness, dampingRatio: sheet.springDampingRatio)
        state = .flinging(.bounce(.spring(spring, clampAtTarget: false), startedAt: time))
        return setOffset(position)
    }

    @inline(__always)
    private func sample(_ fling: Fling, at time: Timestamp) -> (offset: Double, velocity: Double, finished: Bool) {
        switch fling {
        case .momentum(let from, let velocity, let start):
            let t = time.seconds(since: start)
            let fade = Double.exp(-decay * t)
            let speed = velocity * fade
            return (from + velocity / decay * (1 - fade), speed, abs(speed) < restSpeed)
        case .bounce(let animation, let start):
            let sample = animation.sample(after: time.seconds(since: start), restDistance: restDistance,
                                          restSpeed: restSpeed)
            return (sample.value, sample.velocity, sample.finished)
        }
    }

    private mutating func stepFling(at time: Timestamp) -> Effect {
        guard case .flinging(let fling) = state else { return .none }
        let (position, velocity, finished) = sample(fling, at: time)
        if case .momentum = fling, position < 0 || position > maximumOffset {
            // Past an end: a spring carries the momentum back to it.
            _ = startBounce(from: position, velocity: velocity, at: time)
            offset = position
            return .changed
        }
        if finished {
            state = .idle
        }
        return setOffset(position)
    }

    // MARK: Animations

    @inline(__always)
    private var needsFrames: Bool {
        switch state {
        case .flinging: return true
        case .reordering(let reorder):
            if autoScrollSpeed(fingerY: reorder.fingerY, listTop: reorder.listTop) != 0 { return true }
        case .idle, .scrolling: break
        }
        return isAnimating
    }

    @inline(__always)
    private var isAnimating: Bool {
        if othersScale.isMoving || !moving.isEmpty { return true }
        guard let lifted else { return false }
        return lifted.offset.isMoving || lifted.shift.isMoving || lifted.scale.isMoving || lifted.opacity.isMoving
    }

    /// Ends the animations that are over; changed while any ran.
    private mutating func animate(at time: Timestamp) -> Effect {
        guard isAnimating else { return .none }
        othersScale.settle(at: time)
        var index = 0
        while index < moving.count {
            if moving[index].offset.settle(at: time) { index += 1 } else { moving.remove(at: index) }
        }
        if var tween = lifted {
            tween.offset.settle(at: time)
            tween.shift.settle(at: time)
            tween.scale.settle(at: time)
            tween.opacity.settle(at: time)
            let reordering: Bool = if case .reordering = state { true } else { false }
            let still = !tween.offset.isMoving && !tween.shift.isMoving && !tween.scale.isMoving && !tween.opacity.isMoving
            lifted = still && !reordering ? nil : tween
        }
        return .changed
    }
}
