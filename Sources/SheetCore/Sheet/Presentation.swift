/// A way a person opens the sheet by touch (`present-gesture`); several may be on at once.
public enum PresentGesture: UInt8, Sendable, BitwiseCopyable, Named {
    /// A finger that starts in a band at the screen's bottom edge and moves up drags the sheet
    /// in from the bottom.
    case edgeSwipe
    /// Hidden, the sheet rests as a bar at the bottom (the `collapsed` detent, the title
    /// showing, no dim); a tap on it or a swipe up from it opens the sheet. libadwaita's
    /// `AdwBottomSheet:bottom-bar`, Material 3's peek height.
    case bottomBar

    public var name: StaticString {
        switch self {
        case .edgeSwipe: return "edge-swipe"
        case .bottomBar: return "bottom-bar"
        }
    }
}

/// The set of `PresentGesture`s that are on; empty is `none` (only control calls present).
public struct PresentGestures: OptionSet, Sendable, Hashable, BitwiseCopyable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public init(_ gesture: PresentGesture) { rawValue = 1 << gesture.rawValue }

    public static let edgeSwipe = PresentGestures(.edgeSwipe)
    public static let bottomBar = PresentGestures(.bottomBar)
    public static let none: PresentGestures = []

    public func contains(_ gesture: PresentGesture) -> Bool { contains(PresentGestures(gesture)) }

    /// The gestures' names in their declared order, `["edge-swipe", "bottom-bar"]`.
    public var members: [PresentGesture] { PresentGesture.allCases.filter { contains($0) } }
}

/// What opened the sheet: the `presented` event's cause.
public enum PresentCause: UInt8, Sendable, BitwiseCopyable, Named {
    /// A drag in from the bottom edge, released at a detent other than the floor.
    case edgeSwipe
    /// A tap on the bottom bar.
    case barTap
    /// A drag up from the bottom bar, released at a detent other than the bar.
    case barSwipe
    /// A program's `Present` or `SetDetent`.
    case control
    /// A key mapped to `open` (`KEY_MENU` by default).
    case key

    public var name: StaticString {
        switch self {
        case .edgeSwipe: return "edge-swipe"
        case .barTap: return "bar-tap"
        case .barSwipe: return "bar-swipe"
        case .control: return "control"
        case .key: return "key"
        }
    }
}

/// Whether the sheet is spoken (`speech:`): never, always, or while headphones are plugged, as
/// a cash machine starts speaking when a headset is plugged (EN 301 549's private listening).
public enum SpeechMode: UInt8, Sendable, BitwiseCopyable, Named, CaseIterable {
    case off, on, headset

    public var name: StaticString {
        switch self {
        case .off: return "off"
        case .on: return "on"
        case .headset: return "headset"
        }
    }
}

/// How the sheet is opened, closed and shares the screen. `gestures`, `edgeBandInPoints` and
/// `barHeightInPoints` shape the detents (the bar is one); `modal`, `canOpen`, `canClose` and
/// `touchExploration` change at run time without touching them (`SetPresentation`).
public struct SheetPresentation: Sendable, Hashable, BitwiseCopyable {
    /// Default `edge-swipe`, so that a kiosk whose sheet was dismissed is never stuck.
    public var gestures: PresentGestures = .edgeSwipe
    /// The band at the bottom edge an edge swipe starts in. 24 pt: Android's bottom system
    /// gesture inset (24 dp), the band where a swipe up is the system's.
    public var edgeBandInPoints: Double = 24
    /// The bottom bar's height (the `collapsed` detent's distance from the bottom). 64 pt: the
    /// 56 pt title bar whole, and 8 pt of card below it.
    public var barHeightInPoints: Double = 64
    /// Modal (Material's modal bottom sheet, the default): the dim covers the rest of the
    /// screen and a tap on it dismisses. Not modal (Material's standard bottom sheet): no dim,
    /// and touches that start outside the sheet's region are not the sheet's.
    public var modal = true
    /// A person may open the sheet (edge swipe, bar). Programs always may (`Present`).
    public var canOpen = true
    /// A person may close the sheet (swipe, drag, dim, close button). Programs always may
    /// (`Dismiss`), as with AdwBottomSheet's `can-open` and `can-close`.
    public var canClose = true
    /// Explore by touch, for a person who cannot see the screen (`TouchExplorer`): one finger
    /// moves the focus and never taps or drags, a double tap activates, flicks step, two
    /// fingers act as one. nil: while the sheet is spoken (`speaking`), as TalkBack turns it on
    /// with its speech.
    public var touchExploration: Bool?
    /// Whether renderers speak the sheet (`speech:`): never, always, or while headphones are
    /// plugged (a kiosk's private listening).
    public var speech = SpeechMode.off
    /// The voice's rate and volume, speech-dispatcher's scales: -100 to 100; 0 is the voice's
    /// own rate, 100 the loudest.
    public var speechRate: Int8 = 0
    public var speechVolume: Int8 = 100
    /// Headphones are plugged (the daemon's headphone switches): not a setting, what a device says.
    public var headphonesPlugged = false

    /// The sheet is spoken now.
    @inline(__always)
    public var speaking: Bool { speech == .on || (speech == .headset && headphonesPlugged) }
    /// Touches explore: as set, or while the sheet is spoken. Read for every frame: inlined.
    @inline(__always)
    public var exploresByTouch: Bool { touchExploration ?? speaking }

    public static let edgeBandRange = 4.0...200.0
    public static let speechRange = -100...100
    public static let barHeightRange = 24.0...400.0

    public init() {}

    /// Whether `other` needs different detents (a bar, or none, or another bar height).
    public func shapesDetentsUnlike(_ other: SheetPresentation) -> Bool {
        gestures.contains(.bottomBar) != other.gestures.contains(.bottomBar)
            || (gestures.contains(.bottomBar) && barHeightInPoints != other.barHeightInPoints)
    }

    /// The first limit broken, named by its field on the wire (`edgeBand`, `barHeight`), or nil.
    public func problem() -> ContentProblem? {
        if !edgeBandInPoints.isFinite || !Self.edgeBandRange.contains(edgeBandInPoints) {
            return ContentProblem(field: "edgeBand", index: nil,
                                  reason: "\(edgeBandInPoints) is not \(Self.edgeBandRange.lowerBound) to \(Self.edgeBandRange.upperBound) pt")
        }
        if !barHeightInPoints.isFinite || !Self.barHeightRange.contains(barHeightInPoints) {
            return ContentProblem(field: "barHeight", index: nil,
                                  reason: "\(barHeightInPoints) is not \(Self.barHeightRange.lowerBound) to \(Self.barHeightRange.upperBound) pt")
        }
        for (field, value) in [("speechRate", speechRate), ("speechVolume", speechVolume)] where !Self.speechRange.contains(Int(value)) {
            return ContentProblem(field: field, index: nil, reason: "\(value) is not -100 to 100")
        }
        return nil
    }
}

/// A change to how the sheet opens, closes and shares the screen, as `SetPresentation` asks
/// for it: each field given replaces the current one; nil keeps it.
public struct PresentationChange: Sendable, Equatable {
    public var gestures: PresentGestures?
    public var edgeBandInPoints: Double?
    public var barHeightInPoints: Double?
    public var modal: Bool?
    public var canOpen: Bool?
    public var canClose: Bool?
    public var touchExploration: Bool?
    public var speech: SpeechMode?
    /// -100 to 100 (`problem` says so of a value outside).
    public var speechRate: Int?
    public var speechVolume: Int?

    public init(gestures: PresentGestures? = nil, edgeBandInPoints: Double? = nil, barHeightInPoints: Double? = nil,
                modal: Bool? = nil, canOpen: Bool? = nil, canClose: Bool? = nil, touchExploration: Bool? = nil,
                speech: SpeechMode? = nil, speechRate: Int? = nil, speechVolume: Int? = nil) {
        self.speech = speech
        self.speechRate = speechRate
        self.speechVolume = speechVolume
        self.gestures = gestures
        self.edgeBandInPoints = edgeBandInPoints
        self.barHeightInPoints = barHeightInPoints
        self.modal = modal
        self.canOpen = canOpen
        self.canClose = canClose
        self.touchExploration = touchExploration
    }

    public func applied(to presentation: SheetPresentation) -> SheetPresentation {
        var changed = presentation
        if let gestures { changed.gestures = gestures }
        if let edgeBandInPoints { changed.edgeBandInPoints = edgeBandInPoints }
        if let barHeightInPoints { changed.barHeightInPoints = barHeightInPoints }
        if let modal { changed.modal = modal }
        if let canOpen { changed.canOpen = canOpen }
        if let canClose { changed.canClose = canClose }
        if let touchExploration { changed.touchExploration = touchExploration }
        if let speech { changed.speech = speech }
        if let speechRate { changed.speechRate = Int8(clamping: speechRate) }
        if let speechVolume { changed.speechVolume = Int8(clamping: speechVolume) }
        return changed
    }

    /// The first limit a given field breaks (each stands alone, so the change applied to any
    /// valid presentation is valid).
    public func problem() -> ContentProblem? {
        for (field, value) in [("speechRate", speechRate), ("speechVolume", speechVolume)] {
            if let value, !SheetPresentation.speechRange.contains(value) {
                return ContentProblem(field: field, index: nil, reason: "\(value) is not -100 to 100")
            }
        }
        return applied(to: SheetPresentation()).problem()
    }
}

/// A rectangle of the screen; its unit is in the name of the value holding it. Empty when its
/// width or height is zero.
/// Example: a non-modal 640 pt card at half on a 1920x720 panel: x 640, y 325, 640 × 395.
public struct ScreenRegion: Hashable, Sendable, BitwiseCopyable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = max(width, 0)
        self.height = max(height, 0)
    }

    public static let empty = ScreenRegion(x: 0, y: 0, width: 0, height: 0)

    public var isEmpty: Bool { width <= 0 || height <= 0 }

    @inline(__always)
    public func contains(_ point: Point) -> Bool {
        point.x >= x && point.x < x + width && point.y >= y && point.y < y + height
    }

    public func scaled(by factor: Double) -> ScreenRegion {
        ScreenRegion(x: x * factor, y: y * factor, width: width * factor, height: height * factor)
    }
}
