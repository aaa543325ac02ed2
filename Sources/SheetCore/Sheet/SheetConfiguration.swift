/// How a release picks where the sheet goes.
public enum ReleaseRuleSet: String, Sendable, CaseIterable, Hashable {
    /// The tutorial's rules, exactly: a downward fling over 1500 pt/s hides; otherwise the top's
    /// position decides (above 25 % of H → expanded, above H − 70 → half, else hidden). The drag
    /// is clamped at the expanded top; the card moves with a 0.3 s ease-in.
    case tutorial
    /// The second tutorial's rule: dragged down more than half the card's height → hidden,
    /// otherwise back where the drag started; 0.25 s ease-in-out.
    case halfDrag = "half-drag"
    /// Momentum projection (the default): the release point projected with the finger's
    /// momentum, snapped to the nearest detent, at most one detent away for a fling; dismissal
    /// needs a downward fling or a projected point past the dismiss line. A rubber band above
    /// the top detent; an interruptible spring that carries the release velocity.
    case projection
}

/// Every number of the sheet, with its unit and source.
public struct SheetConfiguration: Sendable, Hashable {
    public var ruleSet: ReleaseRuleSet = .projection
    public var detents: [DetentSpec] = DetentSpec.standard
    /// How the sheet opens, closes and shares the screen; `modal`, `canOpen` and `canClose`
    /// change at run time (`SheetMachine.setPresentation`).
    public var presentation = SheetPresentation()
    /// Most detents a sheet has: every state lists them, and a finger cannot tell more apart.
    public static let maximumDetents = 64

    // MARK: tutorial
    /// Downward release speed above which `tutorial` hides. 1500 pt/s: the tutorial.
    public var tutorialDismissPointsPerSecond: Double = 1500
    /// `tutorial`: a top above this fraction of H goes to expanded. 0.25: the tutorial.
    public var tutorialExpandFraction: Double = 0.25
    /// `tutorial`: a top above H minus this goes to half. 70 pt: the tutorial.
    public var tutorialHideMarginInPoints: Double = 70
    /// `tutorial`: the show/hide animation. 0.3 s ease-in: the tutorial (UIView curveEaseIn).
    public var tutorialAnimationSeconds: Double = 0.3
    /// `half-drag`: dragged down more than this fraction of the card's height hides. 0.5.
    public var halfDragHideFraction: Double = 0.5
    /// `half-drag`: 0.25 s ease-in-out (the second tutorial's animation).
    public var halfDragAnimationSeconds: Double = 0.25

    // MARK: projection
    /// Deceleration per millisecond of the projected momentum. 0.998: UIScrollView
    /// `.normal` (WWDC18 "Designing Fluid Interfaces"); projection = v/1000 · r/(1 − r).
    public var decelerationRate: Double = 0.998
    /// Release speeds at or above this are a fling: they move at least to the next detent in
    /// their direction and at most one detent. 300 pt/s: libadwaita's touch velocity threshold
    /// (0.3 px/ms) and PanModal's snap sensitivity.
    public var flingPointsPerSecond: Double = 300
    /// A projected top below H minus this dismisses even without a fling (the tutorial's 70 pt).
    public var dismissLineMarginInPoints: Double = 70
    /// The rubber band's stiffness above the top detent: f(x) = (1 − 1/(x·c/d + 1))·d with
    /// c = 0.55 and d = screen height (UIScrollView's curve, as quoted by FloatingPanel).
    public var rubberBandCoefficient: Double = 0.55
    /// The settle spring: mass 1, stiffness 400, damping ratio 0.8 (libadwaita AdwBottomSheet,
    /// ω0 = 20 rad/s). Programmatic moves use the same spring from rest.
    public var springStiffness: Double = 400
    public var springDampingRatio: Double = 0.8
    /// The spring rests when within this many pixels of its target, moving slower than
    /// `springRestPixelsPerSecond` (1 px per 60 Hz frame), as libadwaita and Android settle.
    public var springRestDistanceInPixels: Double = 0.5
    public var springRestPixelsPerSecond: Double = 60

    // MARK: everyone
    /// The most opaque the dim gets: 0.7 at or above half, falling linearly to 0 at hidden
    /// (`0.7 · (H − top) / (H/2)`, the tutorial's intended line).
    public var maximumDim: Double = 0.7
    /// Animation frames are sampled this often while the card moves on its own. 60 Hz.
    public var frameIntervalMicroseconds: Int64 = 16_667

    // MARK: reduced motion
    /// For people who ask for less motion (`reduce-motion`): the card is placed at once where
    /// it goes, and only the dim moves, a short linear cross-fade to its new opacity. A finger
    /// still drags the card; the list's lift, swap and drop land at once; scrolling keeps its
    /// momentum. Settable at run time (`SetReduceMotion`).
    public var reduceMotion = false
    /// The cross-fade: 150 ms when the dim deepens (the sheet comes in), 75 ms when it fades
    /// (the sheet goes): Material Components' `MaterialFade` enter and return durations.
    public var reducedMotionFadeInSeconds: Double = 0.15
    public var reducedMotionFadeOutSeconds: Double = 0.075

    public init() {}
}

/// Where a card narrower than the screen sits: libadwaita's `AdwBottomSheet:align` and
/// Material 3's centred sheet. `start` is the screen's left edge and `end` its right, whatever
/// the title's direction, so that new content never moves the card.
public enum CardAlignment: UInt8, Sendable, BitwiseCopyable, Named {
    case center, start, end

    public var name: StaticString {
        switch self {
        case .center: return "center"
        case .start: return "start"
        case .end: return "end"
        }
    }
}

/// The card's horizontal extent, in points from the screen's left edge.
/// Example: a 1920x720 panel at scale 1 with the 640 pt cap, centred: left 640, width 640.
public struct CardSpan: Hashable, Sendable, BitwiseCopyable {
    public var left: Double
    public var width: Double

    public init(left: Double, width: Double) {
        self.left = left
        self.width = width
    }

    public var right: Double { left + width }
    public var centre: Double { left + width / 2 }

    @inline(__always)
    public func contains(x: Double) -> Bool { x >= left && x < right }
}

/// The card's parts that a touch can hit, in points, shared with renderers.
/// The grabber: 60×6 pt, 10 pt above the card (the tutorial); the close button: a 30 pt circle
/// 16 pt in from the card's top corner on the side where the title ends (right, or left for a
/// right-to-left title), with a 44×44 pt touch target (Apple's minimum). On a screen wider than
/// `maximumWidth` the card is that wide, placed by `alignment`; beside it is the dim.
public struct SheetLayout: Sendable, Hashable {
    public var grabberWidth: Double = 60
    public var grabberHeight: Double = 6
    public var grabberGap: Double = 10
    public var closeButtonDiameter: Double = 30
    public var closeButtonInset: Double = 16
    public var minimumTouchTarget: Double = 44
    /// The widest the card gets: 640 pt, Material 3's bottom sheet maximum width (as
    /// libadwaita's `AdwBottomSheet` caps its sheet too). Portrait phones are narrower.
    public var maximumWidth: Double = 640
    public var alignment: CardAlignment = .center

    /// Widths the cap may be set to (points).
    public static let maximumWidthRange = 160.0...16384.0

    public init() {}

    /// The card on a screen `screenWidth` points wide: the whole width up to the cap, then the
    /// cap's width placed by the alignment, on whole pixels at `scale` so that what a renderer
    /// draws and what is hit-tested agree to the pixel.
    public func cardSpan(screenWidth: Double, scale: Double = 1) -> CardSpan {
        guard screenWidth > maximumWidth else { return CardSpan(left: 0, width: max(screenWidth, 0)) }
        let widthInPixels = (maximumWidth * scale).rounded()
        let spareInPixels = (screenWidth * scale).rounded() - widthInPixels
        let leftInPixels: Double
        switch alignment {
        case .center: leftInPixels = (spareInPixels / 2).rounded(.down)
        case .start: leftInPixels = 0
        case .end: leftInPixels = spareInPixels
        }
        return CardSpan(left: leftInPixels / scale, width: widthInPixels / scale)
    }

    /// The close button's centre for a card at `span` whose top is at `top`: in from the
    /// corner where the title ends.
    public func closeButtonCentre(top: Double, span: CardSpan, direction: TextDirection = .leftToRight) -> Point {
        let offset = closeButtonInset + closeButtonDiameter / 2
        return Point(x: direction == .rightToLeft ? span.left + offset : span.right - offset, y: top + offset)
    }

    public func isOnCloseButton(_ point: Point, top: Double, span: CardSpan, direction: TextDirection = .leftToRight) -> Bool {
        let centre = closeButtonCentre(top: top, span: span, direction: direction)
        let half = max(minimumTouchTarget, closeButtonDiameter) / 2
        return abs(point.x - centre.x) <= half && abs(point.y - centre.y) <= half
    }

    /// How far above the card's top its touch targets reach: the grabber's, centred on the
    /// grabber (35 pt with the defaults).
    public var grabberReach: Double { grabberGap + grabberHeight / 2 + minimumTouchTarget / 2 }

    /// On the card, or on the grabber's touch target above it; beside a card narrower than the
    /// screen is off it.
    public func isOnCard(_ point: Point, top: Double, span: CardSpan) -> Bool {
        if point.y >= top { return span.contains(x: point.x) }
        let grabberCentreY = top - grabberGap - grabberHeight / 2
        let halfWidth = max(minimumTouchTarget, grabberWidth) / 2
        let halfHeight = minimumTouchTarget / 2
        return abs(point.x - span.centre) <= halfWidth && abs(point.y - grabberCentreY) <= halfHeight
    }
}
