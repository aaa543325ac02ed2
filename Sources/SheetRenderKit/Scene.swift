import SheetCore
import SheetProtocol
import Synchronization

/// How the sheet looks: the colours of a theme, the shapes' sizes, the text's font and size, and
/// what lies under the dim. `Look()` is the standard appearance's light theme over a mid-gray
/// background, the one tests check pixels against; `applying(_:)` takes a published
/// `Appearance`, so every renderer draws what the daemon says.
public struct Look: Sendable, Equatable {
    public var background = RGB(hex: 0x808080)
    public var dim = RGB.black
    public var card = RGB.white
    public var grabber = RGB(hex: 0xBFBFBF)
    public var title = RGB(hex: 0x333333)
    public var closeFill = RGB(hex: 0xEBEBEB)
    public var closeMark = RGB(hex: 0x333333)
    /// Toggles that are on, checks, the lifted row's edge: GNOME's blue.
    public var accent = Appearance.gnomeBlue
    /// The card's top corners (points): 28, Material 3's bottom sheet.
    public var cornerRadiusPoints = 28.0
    /// The grabber: 60 × 6 pt, 10 pt above the card.
    public var grabberWidthPoints = 60.0
    public var grabberHeightPoints = 6.0
    public var grabberGapPoints = 10.0
    /// The close button: a 30 pt circle 16 pt in from the card's top corner, as the core's
    /// hit test places it.
    public var closeDiameterPoints = 30.0
    public var closeInsetPoints = 16.0
    /// The title when the sheet has no content, left-aligned 20 pt in, centred on the close
    /// button's row.
    public var titleText = "sheetd"
    public var titleInsetPoints = 20.0
    /// Typeset text: the title 20 pt semibold, labels 17 pt (iOS's body size; Material's
    /// body large is 16 sp), both times `textScale` (0.5–3, a user's larger or smaller text).
    public var titleSizePoints = 20.0
    public var labelSizePoints = 17.0
    public var textScale = 1.0
    /// A fontconfig pattern for the text; empty: the typesetter's own.
    public var font = ""
    /// The list's rows: labels in the title's colour 20 pt in, a 1 px separator under each;
    /// a second line in `secondaryLabel`.
    public var label = RGB(hex: 0x333333)
    public var secondaryLabel = RGB(hex: 0x737373)
    public var separator = RGB(hex: 0xE0E0E0)
    public var labelInsetPoints = 20.0
    /// The picked-up row: rounded 8 pt, over a soft shadow (black at 22 % under the row,
    /// fading out over 10 pt, 3 pt lower).
    public var liftedCornerRadiusPoints = 8.0
    /// The focus ring: 2 pt (WCAG 2.4.13's minimum), 2 pt in from the row's top and bottom
    /// and 8 pt from its sides (clear of the card's edge), or 3 pt out from the close button's
    /// disc, in `focusRing`.
    public var focusRingWidthPoints = 2.0
    public var focusRingInsetPoints = 2.0
    public var focusRingSideInsetPoints = 8.0
    /// A line along the card's edge (points; 0: none), in the text's colour, so that the card
    /// is told from the dim without colour (the high-contrast themes).
    public var cardEdgePoints = 0.0
    /// The accent where it stands out from the card by 3:1 (WCAG 2.4.13), else the text.
    public var focusRing = Appearance.gnomeBlue
    public var shadow = RGB.black
    public var shadowAlpha = 0.22
    public var shadowBlurPoints = 10.0
    public var shadowDropPoints = 3.0
    /// A picture under the dim instead of the plain background colour.
    public var backdrop: Backdrop?
    /// Whether what lies below shows through: the dim is drawn as `dim` at the scene's dim
    /// alpha over nothing, instead of over `background` or the backdrop, and the card's edge
    /// fades to it; a hidden sheet leaves every pixel transparent. For an argb8888 canvas that
    /// a compositor blends over the other surfaces (the wayland backend).
    public var seeThrough = false
    /// What `theme: auto` means here: this renderer's display prefers dark.
    public var prefersDark = false
    /// What `theme: auto` draws here: high contrast (dark with `prefersDark`) when the session
    /// asks for more contrast.
    public var prefersHighContrast = false
    /// What `text-scale: auto` draws here: the session's text scaling (GNOME's
    /// `text-scaling-factor`), 1 where there is none.
    public var preferredTextScale = 1.0

    public init() {}

    /// The standard look in `appearance`.
    public init(_ appearance: Appearance, prefersDark: Bool = false) {
        self.init()
        self.prefersDark = prefersDark
        self = applying(appearance)
    }

    /// A theme's colours: a card, its text (the foreground, at 80 % on light cards as
    /// libadwaita's `window_fg_color`, whole on dark ones) and the parts drawn in the
    /// foreground over the card (the second line at 55 %, the grabber at 25 %, separators at
    /// 12 %, the close button's disc at 8 %).
    public struct Palette: Sendable, Equatable {
        public var card: RGB
        public var foreground: RGB
        public var foregroundAlpha: Double
        /// The second line's share of the foreground: 55 % over the text's 80 %, or as much
        /// more as it takes to read at WCAG AA (4.5:1) on a card a person picked. Decided when
        /// the palette is made, so that applying an appearance to each state costs no `pow`.
        public var secondaryFraction = 0.55 / 0.8

        /// libadwaita's light style: a white card, black text at 80 %.
        public static let light = Palette(card: .white, foreground: .black, foregroundAlpha: 0.8)
        /// libadwaita's dark style: the dialogs' #383838, white text.
        public static let dark = Palette(card: RGB(hex: 0x383838), foreground: .white, foregroundAlpha: 1)
        /// High contrast: black on white (21:1), the second line at 70 % (#4d4d4d, 8.4:1).
        public static let highContrast = Palette(card: .white, foreground: .black, foregroundAlpha: 1, secondaryFraction: 0.7)
        /// High contrast, dark: white on black, the second line at 70 % (#b3b3b3, 10:1).
        public static let highContrastDark = Palette(card: .black, foreground: .white, foregroundAlpha: 1, secondaryFraction: 0.7)

        func on(_ fraction: Double) -> RGB { foreground.over(card, alpha: foregroundAlpha * fraction) }
        public var text: RGB { on(1) }
        public var secondaryText: RGB { on(secondaryFraction) }
        var grabber: RGB { on(0.25 / 0.8) }
        var separator: RGB { on(0.12 / 0.8) }
        /// Separators and the grabber that read without colour: the foreground at 60 %, past
        /// 3:1 on the card (WCAG 1.4.11).
        var strongLine: RGB { on(0.6) }
        var closeFill: RGB { on(0.08 / 0.8) }

        /// The theme's text on another card: black or white, whichever reads better on it, at
        /// the theme's opacity when that still reads at `minimum` (WCAG AA's 4.5:1, or 7:1 in
        /// high contrast, 1.4.6), else whole; the second line as dark or light as it must be to
        /// read too. A card on which neither black nor white reaches `minimum` (a mid grey in
        /// high contrast) is lightened or darkened, its hue kept, until the text does.
        func with(card colour: RGB, minimum: Double = 4.5) -> Palette {
            let foreground = RGB.black.contrast(with: colour) >= RGB.white.contrast(with: colour) ? RGB.black : RGB.white
            var card = colour
            var away = 0.0
            while foreground.contrast(with: card) < minimum, away < 1 {
                away = min(away + 0.05, 1)
                card = (foreground == .black ? RGB.white : .black).over(colour, alpha: away)
            }
            var palette = Palette(card: card, foreground: foreground, foregroundAlpha: foregroundAlpha,
                                  secondaryFraction: secondaryFraction)
            if palette.text.contrast(with: card) < minimum { palette.foregroundAlpha = 1 }
            while palette.secondaryFraction < 1, palette.secondaryText.contrast(with: card) < minimum {
                palette.secondaryFraction = min(palette.secondaryFraction + 0.05, 1)
            }
            return palette
        }
    }

    /// This look drawn in `appearance`: its theme's palette (or the card colour it names, with
    /// the text that reads on it), its accent, dim, corners, font and text scale. The
    /// background, the backdrop and how it is composed stay this look's.
    public func applying(_ appearance: Appearance) -> Look {
        var look = self
        let auto = appearance.theme == .auto
        let highContrast = appearance.theme == .highContrast || appearance.theme == .highContrastDark || (auto && prefersHighContrast)
        let dark = appearance.theme == .dark || appearance.theme == .highContrastDark || (auto && prefersDark)
        var palette = highContrast ? (dark ? Palette.highContrastDark : Palette.highContrast) : dark ? Palette.dark : Palette.light
        if let card = appearance.card { palette = palette.with(card: card, minimum: highContrast ? 7 : 4.5) }
        look.card = palette.card
        look.title = palette.text
        look.label = palette.text
        look.closeMark = palette.text
        look.secondaryLabel = palette.secondaryText
        look.grabber = palette.grabber
        look.separator = palette.separator
        look.closeFill = palette.closeFill
        look.accent = appearance.accent
        look.focusRing = appearance.accent.contrast(with: look.card) >= 3 ? appearance.accent : palette.text
        if highContrast {
            look.separator = palette.strongLine
            look.grabber = palette.strongLine
            look.cardEdgePoints = 2
            look.focusRingWidthPoints = 3
            // The ring at 4.5:1 at least: the accent where it reads so, else the text.
            look.focusRing = appearance.accent.contrast(with: look.card) >= 4.5 ? appearance.accent : palette.text
        } else {
            look.cardEdgePoints = 0
            look.focusRingWidthPoints = 2
        }
        look.dim = appearance.dim ?? .black
        look.cornerRadiusPoints = appearance.cornerRadiusInPoints
        look.font = appearance.font
        look.textScale = appearance.textScale ?? preferredTextScale
        return look
    }
}

/// A picture the size of the display, shown under the dim: an image a user passes, or what was
/// on a framebuffer when the sheet opened. Two looks with backdrops are equal when they share
/// the same one.
public final class Backdrop: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// R, G, B bytes, row after row.
    public let rgb: [UInt8]

    public init(width: Int, height: Int, rgb: [UInt8]) {
        precondition(width > 0 && height > 0 && rgb.count == width * height * 3, "\(rgb.count) bytes for \(width)x\(height) RGB")
        self.width = width
        self.height = height
        self.rgb = rgb
    }

    /// `image` (R, G, B rows of `imageWidth` x `imageHeight`) scaled to cover `width` x
    /// `height`, keeping its aspect and cropping the overflow equally on both sides; nearest
    /// pixel.
    public convenience init(covering width: Int, _ height: Int, with image: [UInt8], imageWidth: Int, imageHeight: Int) {
        let zoom = max(Double(width) / Double(imageWidth), Double(height) / Double(imageHeight))
        let offsetX = (Double(imageWidth) * zoom - Double(width)) / 2
        let offsetY = (Double(imageHeight) * zoom - Double(height)) / 2
        var out = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            let sy = min(imageHeight - 1, max(0, Int((Double(y) + 0.5 + offsetY) / zoom)))
            for x in 0..<width {
                let sx = min(imageWidth - 1, max(0, Int((Double(x) + 0.5 + offsetX) / zoom)))
                let from = (sy * imageWidth + sx) * 3, to = (y * width + x) * 3
                out[to] = image[from]
                out[to + 1] = image[from + 1]
                out[to + 2] = image[from + 2]
            }
        }
        self.init(width: width, height: height, rgb: out)
    }

    public static func == (a: Backdrop, b: Backdrop) -> Bool { a === b }
}

/// What one frame shows, in pixels, computed from a published state. Two scenes that compare
/// equal draw the same pixels.
public struct SheetScene: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var scale: Double
    /// The card's top edge (px from the top of the screen; `height` when hidden).
    public var top: Double
    /// The dim's opacity over the background (0…1).
    public var dim: Double
    /// The card's left edge and width (px): the whole width, or a narrower card on a wide
    /// display (`SheetState.cardInPixels`); the dim shows beside it.
    public var cardLeft: Double
    public var cardWidth: Double
    /// How visible the grabber is: it fades with the sheet in the lower half of its travel, so
    /// a hidden sheet leaves nothing on screen.
    public var grabberAlpha: Double
    public var look: Look
    /// The title in the card: the content's, or the look's when the sheet has none.
    public var title: String {
        didSet { titleDirection = TextDirection.of(title) }
    }
    /// Which way the title reads: a right-to-left title is set against the card's right edge
    /// and the close button moves to the left, where the core hit-tests it.
    public private(set) var titleDirection: TextDirection
    /// The list in the card, when the sheet has content.
    public var list: ListScene?
    /// Whether the close button is drawn: not when a person may not close the sheet
    /// (`canClose` false), nor on the bottom bar, where the sheet is closed already.
    public var showsClose = true
    /// Where the focus ring is drawn: only while the state says it is visible (a key was
    /// used since the last touch).
    public var focusRing: FocusRing?

    /// What the ring goes round.
    public enum FocusRing: Sendable, Equatable {
        case close
        /// The row at this position of the list.
        case row(Int)
    }

    public init(width: Int, height: Int, scale: Double, top: Double, dim: Double, progress: Double,
                look: Look = Look(), title: String? = nil, list: ListScene? = nil, card: CardSpan? = nil) {
        self.width = width
        self.height = height
        // On the screen and at least a pixel wide, whatever a daemon sent; whole pixels.
        let left = card.map { $0.left.isFinite ? min(max($0.left.rounded(), 0), Double(width - 1)) : 0 } ?? 0
        let cardWidth = card.map { $0.width.isFinite ? $0.width.rounded() : Double(width) } ?? Double(width)
        cardLeft = left
        self.cardWidth = min(max(cardWidth, 1), Double(width) - left)
        // What a daemon publishes is drawn whatever it is: a scale and a top past any real
        // screen's are held where pixel arithmetic stays in range.
        self.scale = scale.isFinite ? min(max(scale, 1.0 / 64), 64) : 1
        self.top = top.isFinite ? min(max(top, -4 * Double(height)), 4 * Double(height)) : Double(height)
        self.dim = dim.isFinite ? min(max(dim, 0), 1) : 0
        self.grabberAlpha = progress.isFinite ? min(max(progress * 2, 0), 1) : 0
        self.look = look
        let title = title ?? look.titleText
        self.title = title
        titleDirection = TextDirection.of(title)
        self.list = list
    }

    /// The scene of `state` on its own screen, with `content` (its items in the list's order)
    /// drawn as `state.list` places it.
    public init(_ state: SheetState, content: SheetContent? = nil, look: Look = Look()) {
        self.init(state, width: state.screen.widthInPixels, height: state.screen.heightInPixels, content: content, look: look)
    }

    /// The scene of `state` on a display of another size (a renderer whose `SetScreen` was
    /// refused): positions and sizes follow the height, the width is the display's.
    public init(_ state: SheetState, width: Int, height: Int, content: SheetContent? = nil, look: Look = Look()) {
        let zoom = state.screen.widthInPixels == width && state.screen.heightInPixels == height
            ? 1 : Double(height) / Double(max(1, state.screen.heightInPixels))
        let list = content.flatMap { content in
            state.list.map { ListScene($0, items: content.items, zoom: zoom, height: height) }
        }
        // On a display of another size the card keeps its share of the width.
        let widthZoom = Double(width) / Double(max(1, state.screen.widthInPixels))
        let card = CardSpan(left: state.cardInPixels.left * widthZoom, width: state.cardInPixels.width * widthZoom)
        self.init(width: width, height: height, scale: state.screen.scale * zoom, top: state.topInPixels * zoom,
                  dim: state.dim, progress: state.progress, look: look.applying(state.appearance), title: content?.title,
                  list: list, card: card)
        showsClose = state.presentation.canClose && state.detent != .collapsed && state.target != .collapsed
        if state.focusVisible {
            switch state.focus {
            case .close?: focusRing = showsClose ? .close : nil
            case .item(let id)?: focusRing = content?.items.firstIndex { $0.id == id }.map(FocusRing.row)
            case nil: focusRing = nil
            }
        }
    }

    func points(_ value: Double) -> Double { value * scale }

    var cornerRadius: Double { points(look.cornerRadiusPoints) }

    /// The grabber's rectangle (x0, y0, x1, y1) in px.
    var grabber: (x0: Double, y0: Double, x1: Double, y1: Double) {
        let w = points(look.grabberWidthPoints), h = points(look.grabberHeightPoints)
        let bottom = top - points(look.grabberGapPoints)
        let left = cardLeft + (cardWidth - w) / 2
        return (left, bottom - h, left + w, bottom)
    }

    /// The close button's centre and radius in px: at the card's top right, or top left for
    /// a right-to-left title.
    var close: (x: Double, y: Double, radius: Double) {
        let radius = points(look.closeDiameterPoints) / 2
        let inset = points(look.closeInsetPoints)
        let x = titleDirection == .rightToLeft ? cardLeft + inset + radius : cardLeft + cardWidth - inset - radius
        return (x, top + inset + radius, radius)
    }

    /// The rows this scene's decorations reach above and below the card's top edge.
    var reach: (above: Double, below: Double) {
        let above = points(look.grabberGapPoints + look.grabberHeightPoints) + 2
        let below = max(cornerRadius, points(look.closeInsetPoints + look.closeDiameterPoints)) + 2
        return (above, below)
    }

    /// The rows that differ from `previous` (nil: nothing drawn yet), or nil when none do.
    /// When only the card moved, that is the band between the two tops and their decorations;
    /// with content, the card's whole face from the higher top down (the list moves with the
    /// card); a change of dim, size or look redraws everything.
    public func damage(since previous: SheetScene?) -> Range<Int>? {
        let all = 0..<height
        guard let previous else { return all }
        if previous == self { return nil }
        guard previous.width == width, previous.height == height, previous.scale == scale,
              previous.dim == dim, previous.look == look, previous.cardLeft == cardLeft,
              previous.cardWidth == cardWidth, previous.showsClose == showsClose,
              previous.focusRing == focusRing else { return all }
        let low = min(previous.top, top) - reach.above
        let withContent = list != nil || previous.list != nil || title != previous.title
        let high = withContent ? Double(height) : max(previous.top, top) + reach.below
        // Either top may be off the screen (a rubber band above it, a hidden card below it).
        let lower = Int(min(max(low.rounded(.down), 0), Double(height)))
        let upper = Int(min(max(high.rounded(.up) + 1, 0), Double(height)))
        return lower < upper ? lower..<upper : nil
    }
}

/// The list as one frame draws it, in pixels: the items in the list's order and where
/// `ListState` puts each row. Every value is clamped to what a picture can hold, so a state
/// from a broken or hostile daemon draws something odd rather than trapping or hanging.
public struct ListScene: Sendable, Equatable {
    public struct Lifted: Sendable, Equatable {
        public var position: Int
        public var offset: Double
        public var scale: Double
        public var opacity: Double

        public init(position: Int, offset: Double, scale: Double, opacity: Double) {
            self.position = position
            self.offset = offset
            self.scale = scale
            self.opacity = opacity
        }
    }

    public struct Moving: Sendable, Equatable {
        public var position: Int
        public var offset: Double

        public init(position: Int, offset: Double) {
            self.position = position
            self.offset = offset
        }
    }

    /// The items by position in the list (the content's own array: two scenes of the same
    /// content compare it at once).
    public var items: [SheetItem]
    public var titleBarHeight: Double
    public var itemHeight: Double
    public var scroll: Double
    public var othersScale: Double
    public var lifted: Lifted?
    public var moving: [Moving]
    /// Where each row lies (px from the list's top), as the core lays the same items out.
    public let layout: ListLayout
    /// The tallest row (px).
    let tallest: Double

    /// A row is at least a pixel tall; scales stay within 0…4, offsets and the scroll within
    /// the list's length and a few screens either way. Two-line rows and headers are as tall
    /// as given, or in the core's proportion to `itemHeight` (72 and 48 to 56).
    public init(items: [SheetItem], titleBarHeight: Double, itemHeight: Double, twoLineItemHeight: Double? = nil,
                headerHeight: Double? = nil, scroll: Double, othersScale: Double, lifted: Lifted?, moving: [Moving], height: Int) {
        func clamp(_ value: Double, _ low: Double, _ high: Double) -> Double { value.isFinite ? min(max(value, low), high) : low }
        let screens = 4 * Double(max(height, 1))
        self.items = items
        self.itemHeight = clamp(itemHeight, 1, screens)
        self.titleBarHeight = clamp(titleBarHeight, 0, screens)
        var sizes = ListConfiguration()
        sizes.itemHeightInPoints = self.itemHeight
        sizes.twoLineItemHeightInPoints = clamp(twoLineItemHeight ?? self.itemHeight * 72 / 56, 1, screens)
        sizes.sectionHeaderHeightInPoints = clamp(headerHeight ?? self.itemHeight * 48 / 56, 0, screens)
        (layout, tallest) = ListScene.laidOut(items, sizes: sizes)
        let reach = layout.height + screens
        self.scroll = clamp(scroll, -reach, reach)
        self.othersScale = clamp(othersScale, 0, 4)
        let positions = 0..<items.count
        self.lifted = lifted.flatMap {
            positions.contains($0.position)
                ? Lifted(position: $0.position, offset: clamp($0.offset, -reach, reach), scale: clamp($0.scale, 0, 4),
                         opacity: clamp($0.opacity, 0, 1))
                : nil
        }
        self.moving = moving.filter { positions.contains($0.position) && $0.position != lifted?.position }
            .map { Moving(position: $0.position, offset: clamp($0.offset, -reach, reach)) }
    }

    /// The last layout made, by what it was made of: a renderer builds a scene for every state
    /// it draws, and the items and sizes change only with the content or the screen (a drag of
    /// a 1,024-item list laid it out again every frame, about 5 % of the frame).
    private struct Memo {
        var items: [SheetItem]
        var sizes: ListConfiguration
        var layout: ListLayout
        var tallest: Double
    }
    private static let memo = Mutex<Memo?>(nil)

    /// `items` laid out at `sizes`, and the tallest row: the last one made when they are the same
    /// (the same items compare at once when they share their array, as a renderer's do).
    static func laidOut(_ items: [SheetItem], sizes: ListConfiguration) -> (ListLayout, Double) {
        if let hit = memo.withLock({ memo in memo.flatMap { $0.sizes == sizes && $0.items == items ? ($0.layout, $0.tallest) : nil } }) {
            return hit
        }
        var layout = ListLayout()
        layout.layOut(items, order: Array(items.indices), configuration: sizes)
        let tallest = layout.heights.max() ?? sizes.itemHeightInPoints
        memo.withLock { $0 = Memo(items: items, sizes: sizes, layout: layout, tallest: tallest) }
        return (layout, tallest)
    }

    /// `state` with `items` (the content's, in the list's order), zoomed by `zoom` for a
    /// display `height` pixels tall.
    public init(_ state: ListState, items: [SheetItem], zoom: Double, height: Int) {
        self.init(items: items, titleBarHeight: state.titleBarHeightInPixels * zoom,
                  itemHeight: state.itemHeightInPixels * zoom, twoLineItemHeight: state.twoLineItemHeightInPixels * zoom,
                  headerHeight: state.headerHeightInPixels * zoom, scroll: state.scrollInPixels * zoom,
                  othersScale: state.othersScale,
                  lifted: state.lifted.map { Lifted(position: $0.index, offset: $0.offsetInPixels * zoom, scale: $0.scale,
                                                    opacity: $0.opacity) },
                  moving: state.moving.map { Moving(position: $0.index, offset: $0.offsetInPixels * zoom) },
                  height: height)
    }

    /// One row where this frame draws it: the centre of its box (px from the screen's top), its
    /// height at rest, its scale about that centre and its opacity.
    public struct Row: Sendable, Equatable {
        public var position: Int
        public var centre: Double
        public var height: Double
        public var scale: Double
        public var opacity: Double
        public var isLifted: Bool
    }

    /// The rows that reach into `clip` (px from the screen's top) with the card's top at
    /// `top`, in drawing order: the rows at rest, then the sliding ones, then the lifted one.
    public func rows(top: Double, clip: Range<Double>, _ body: (Row) -> Void) {
        guard !items.isEmpty, !clip.isEmpty else { return }
        let listTop = top + titleBarHeight
        func centre(_ position: Int) -> Double { listTop + layout.centre(position) - scroll }
        // Rows at rest: those whose slot, scaled, reaches the clip (a row reaches half its
        // height times its scale either side of its centre).
        let grow = max(othersScale, 1)
        var position = firstRow(reaching: clip.lowerBound - listTop + scroll - tallest * (grow - 1))
        while position < items.count, listTop + layout.top(position) - scroll - layout.heights[position] * (grow - 1) / 2 < clip.upperBound {
            if position != lifted?.position, !moving.contains(where: { $0.position == position }) {
                body(Row(position: position, centre: centre(position), height: layout.heights[position], scale: othersScale,
                         opacity: 1, isLifted: false))
            }
            position += 1
        }
        for entry in moving {
            let y = centre(entry.position) + entry.offset, reach = layout.heights[entry.position] * grow / 2
            if y + reach > clip.lowerBound, y - reach < clip.upperBound {
                body(Row(position: entry.position, centre: y, height: layout.heights[entry.position], scale: othersScale,
                         opacity: 1, isLifted: false))
            }
        }
        if let lifted {
            let height = layout.heights[lifted.position]
            let y = centre(lifted.position) + lifted.offset, half = height * lifted.scale / 2
            if y + half > clip.lowerBound - height, y - half < clip.upperBound + height {
                body(Row(position: lifted.position, centre: y, height: height, scale: lifted.scale, opacity: lifted.opacity,
                         isLifted: true))
            }
        }
    }

    /// The section headers that reach into `clip`: each one's title, and its box's top and
    /// bottom (px from the screen's top), above the row it heads, scaled with the others.
    public func headers(top: Double, clip: Range<Double>, _ body: (_ title: String, _ y0: Double, _ y1: Double) -> Void) {
        guard !items.isEmpty, !clip.isEmpty, layout.headerHeight > 0 else { return }
        let listTop = top + titleBarHeight
        var position = firstRow(reaching: clip.lowerBound - listTop + scroll)
        while position < items.count, listTop + layout.top(position) - layout.headerHeight - scroll < clip.upperBound {
            if layout.headed[position] {
                let bottom = listTop + layout.top(position) - scroll
                body(items[position].section, bottom - layout.headerHeight, bottom)
            }
            position += 1
        }
    }

    /// The first position whose row (or the header above it) ends below `y` (px from the
    /// list's top).
    private func firstRow(reaching y: Double) -> Int {
        var low = 0, high = items.count
        while low < high {
            let middle = (low + high) / 2
            if layout.top(middle) + layout.heights[middle] <= y { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
