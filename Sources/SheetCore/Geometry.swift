/// A position on the screen. The unit is given by the name of the value holding it: gestures and
/// touches work in pixels (`…InPixels`), the sheet in points (`…InPoints`, one point = `scale`
/// pixels). The origin is the top-left corner; y grows downwards.
public struct Point: Hashable, Sendable, BitwiseCopyable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static let zero = Point(x: 0, y: 0)

    public static func - (lhs: Point, rhs: Point) -> Vector {
        Vector(dx: lhs.x - rhs.x, dy: lhs.y - rhs.y)
    }

    public static func + (lhs: Point, rhs: Vector) -> Point {
        Point(x: lhs.x + rhs.dx, y: lhs.y + rhs.dy)
    }

    /// The same position in a unit `factor` times larger (pixels → points with `1 / scale`).
    public func scaled(by factor: Double) -> Point {
        Point(x: x * factor, y: y * factor)
    }
}

/// A displacement or a velocity; the unit is in the name of the value holding it.
public struct Vector: Hashable, Sendable, BitwiseCopyable {
    public var dx: Double
    public var dy: Double

    public init(dx: Double, dy: Double) {
        self.dx = dx
        self.dy = dy
    }

    public static let zero = Vector(dx: 0, dy: 0)

    public var length: Double { (dx * dx + dy * dy).squareRoot() }

    public func scaled(by factor: Double) -> Vector {
        Vector(dx: dx * factor, dy: dy * factor)
    }
}

/// The size of the screen in pixels, and how many pixels make one point.
/// Example: a 1080x1920 panel at scale 2 is 540x960 points.
public struct ScreenSize: Hashable, Sendable, CustomStringConvertible {
    public var widthInPixels: Int
    public var heightInPixels: Int
    public var scale: Double

    public init(widthInPixels: Int, heightInPixels: Int, scale: Double = 1) {
        self.widthInPixels = widthInPixels
        self.heightInPixels = heightInPixels
        self.scale = scale
    }

    /// Sides a screen may have, in pixels: a small status panel to 16K, the most a DRM
    /// framebuffer takes on common drivers. The configuration, `SetScreen`, clients reading a
    /// state and `sheetctl replay --screen` all hold screens to this, so a value one part
    /// accepts never traps another.
    public static let pixelRange = 64...16384
    /// Pixels per point, from a quarter (a large panel seen from afar) to 16.
    public static let scaleRange = 0.25...16.0

    /// Why a screen cannot be used, or nil when it can.
    public static func refusal(width: Int, height: Int, scale: Double) -> String? {
        if !pixelRange.contains(width) || !pixelRange.contains(height) {
            return "width and height must be \(pixelRange.lowerBound) to \(pixelRange.upperBound) pixels; got \(width)x\(height)"
        }
        if !scale.isFinite || !scaleRange.contains(scale) {
            return "scale must be \(scaleRange.lowerBound) to \(Int(scaleRange.upperBound)); got \(scale)"
        }
        return nil
    }

    /// The default screen when nothing says otherwise: a portrait 1080x1920 panel.
    public static let portraitFullHD = ScreenSize(widthInPixels: 1080, heightInPixels: 1920)

    public var widthInPoints: Double { Double(widthInPixels) / scale }
    public var heightInPoints: Double { Double(heightInPixels) / scale }

    public var description: String { "\(widthInPixels)x\(heightInPixels)" }
}
