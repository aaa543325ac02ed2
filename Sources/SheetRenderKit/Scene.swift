import SheetProtocol

/// How the sheet looks. The default is the one tests check pixels against: a mid-gray
/// background, the dim black at the published alpha over it, a white card.
public struct Look: Sendable, Equatable {
    public var background = RGB(hex: 0x808080)
    public var dim = RGB.black
    public var card = RGB.white
    public var grabber = RGB(hex: 0xD1D1D6)
    public var title = RGB(hex: 0x1C1C1E)
    public var closeFill = RGB(hex: 0xE5E5EA)
    public var closeMark = RGB(hex: 0x3C3C43)
    /// The card's top corners (points; DESIGN: 10–20 pt).
    public var cornerRadiusPoints = 16.0
    /// The grabber: 60 × 6 pt, 10 pt above the card.
    public var grabberWidthPoints = 60.0
    public var grabberHeightPoints = 6.0
    public var grabberGapPoints = 10.0
    /// The close button: a 30 pt circle 16 pt in from the card's top-right corner, as the core's
    /// hit test places it.
    public var closeDiameterPoints = 30.0
    public var closeInsetPoints = 16.0
    /// The title, left-aligned 20 pt in, centred on the close button's row.
    public var titleText = "sheetd"
    public var titleInsetPoints = 20.0
    /// A picture under the dim instead of the plain background colour.
    public var backdrop: Backdrop?

    public init() {}
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
    /// How visible the grabber is: it fades with the sheet in the lower half of its travel, so
    /// a hidden sheet leaves nothing on screen.
    public var grabberAlpha: Double
    public var look: Look

    public init(width: Int, height: Int, scale: Double, top: Double, dim: Double, progress: Double,
                look: Look = Look()) {
        self.width = width
        self.height = height
        self.scale = scale
        self.top = top
        self.dim = min(max(dim, 0), 1)
        self.grabberAlpha = min(max(progress * 2, 0), 1)
        self.look = look
    }

    /// The scene of `state` on its own screen.
    public init(_ state: SheetState, look: Look = Look()) {
        self.init(width: state.screen.width, height: state.screen.height, scale: state.screen.scale,
                  top: state.topInPixels, dim: state.dim, progress: state.progress, look: look)
    }

    /// The scene of `state` on a display of another size (a renderer whose `SetScreen` was
    /// refused): positions and sizes follow the height, the width is the display's.
    public init(_ state: SheetState, width: Int, height: Int, look: Look = Look()) {
        if state.screen.width == width && state.screen.height == height {
            self.init(state, look: look)
            return
        }
        let zoom = Double(height) / Double(max(1, state.screen.height))
        self.init(width: width, height: height, scale: state.screen.scale * zoom, top: state.topInPixels * zoom,
                  dim: state.dim, progress: state.progress, look: look)
    }

    func points(_ value: Double) -> Double { value * scale }

    var cornerRadius: Double { points(look.cornerRadiusPoints) }

    /// The grabber's rectangle (x0, y0, x1, y1) in px.
    var grabber: (x0: Double, y0: Double, x1: Double, y1: Double) {
        let w = points(look.grabberWidthPoints), h = points(look.grabberHeightPoints)
        let bottom = top - points(look.grabberGapPoints)
        let left = (Double(width) - w) / 2
        return (left, bottom - h, left + w, bottom)
    }

    /// The close button's centre and radius in px.
    var close: (x: Double, y: Double, radius: Double) {
        let radius = points(look.closeDiameterPoints) / 2
        let inset = points(look.closeInsetPoints)
        return (Double(width) - inset - radius, top + inset + radius, radius)
    }

    /// The rows this scene's decorations reach above and below the card's top edge.
    var reach: (above: Double, below: Double) {
        let above = points(look.grabberGapPoints + look.grabberHeightPoints) + 2
        let below = max(cornerRadius, points(look.closeInsetPoints + look.closeDiameterPoints)) + 2
        return (above, below)
    }

    /// The rows that differ from `previous` (nil: nothing drawn yet), or nil when none do.
    /// When only the card moved, that is the band between the two tops and their decorations;
    /// a change of dim, size or look redraws everything.
    public func damage(since previous: SheetScene?) -> Range<Int>? {
        let all = 0..<height
        guard let previous else { return all }
        if previous == self { return nil }
        guard previous.width == width, previous.height == height, previous.scale == scale,
              previous.dim == dim, previous.look == look else { return all }
        let low = min(previous.top, top) - reach.above
        let high = max(previous.top, top) + reach.below
        // Either top may be off the screen (a rubber band above it, a hidden card below it).
        let lower = Int(min(max(low.rounded(.down), 0), Double(height)))
        let upper = Int(min(max(high.rounded(.up) + 1, 0), Double(height)))
        return lower < upper ? lower..<upper : nil
    }
}
