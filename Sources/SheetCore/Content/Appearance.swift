import RealModule

/// An opaque sRGB colour, 8 bits a channel: `#3584e4` in files and on the wire.
public struct RGB: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8

    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// `0xRRGGBB`.
    public init(hex: UInt32) {
        self.init(UInt8(hex >> 16 & 0xFF), UInt8(hex >> 8 & 0xFF), UInt8(hex & 0xFF))
    }

    /// `#rrggbb` or `#rgb` (either case), or nil.
    public init?(parsing text: some StringProtocol) {
        let digits = Array(text.utf8)
        guard digits.first == UInt8(ascii: "#"), digits.count == 7 || digits.count == 4 else { return nil }
        var value: UInt32 = 0
        for digit in digits.dropFirst() {
            let nibble: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = digit - UInt8(ascii: "A") + 10
            default: return nil
            }
            // #rgb doubles each digit: #3ae is #33aaee.
            value = digits.count == 4 ? value << 8 | UInt32(nibble) << 4 | UInt32(nibble) : value << 4 | UInt32(nibble)
        }
        self.init(hex: value)
    }

    public static let black = RGB(0, 0, 0)
    public static let white = RGB(255, 255, 255)

    /// This colour at `alpha` (0…1) over `below`, rounded per channel.
    public func over(_ below: RGB, alpha: Double) -> RGB {
        if alpha >= 1 { return self }
        if alpha <= 0 { return below }
        func mix(_ top: UInt8, _ bottom: UInt8) -> UInt8 {
            UInt8((Double(top) * alpha + Double(bottom) * (1 - alpha)).rounded())
        }
        return RGB(mix(r, below.r), mix(g, below.g), mix(b, below.b))
    }

    /// WCAG 2's relative luminance: 0 for black, 1 for white.
    public var relativeLuminance: Double {
        func linear(_ channel: UInt8) -> Double {
            let value = Double(channel) / 255
            return value <= 0.04045 ? value / 12.92 : Double.pow((value + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
    }

    /// WCAG 2's contrast ratio with `other`, 1 to 21 (AA asks 4.5 for body text).
    public func contrast(with other: RGB) -> Double {
        let a = relativeLuminance, b = other.relativeLuminance
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    public var description: String {
        let value = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
        let digits = String(value, radix: 16)
        return "#" + String(repeating: "0", count: 6 - digits.count) + digits
    }
}

/// Light or dark: the palette renderers draw the sheet in. `auto` is each renderer's to
/// resolve from what it knows of its display's preference (`sheet-render --prefer`), light
/// when it knows none.
public enum Theme: UInt8, Sendable, BitwiseCopyable, Named {
    case light, dark, auto
    /// For people with low vision: black on white, every text at least 7:1 (WCAG 1.4.6), the
    /// separators and the card's edge drawn so they are told apart without colour, a thicker
    /// focus ring.
    case highContrast
    /// The same, white on black.
    case highContrastDark

    public var name: StaticString {
        switch self {
        case .light: return "light"
        case .dark: return "dark"
        case .auto: return "auto"
        case .highContrast: return "high-contrast"
        case .highContrastDark: return "high-contrast-dark"
        }
    }
}

/// How the sheet looks, as the daemon says, so that every renderer draws the same sheet: the
/// theme, the accent colour, the font and how large text is, the card's and the dim's colours
/// and the card's corners. Set in the configuration and at run time (`SetAppearance`, for a
/// panel that turns dark at night); every state carries it.
/// Example: `Appearance(theme: .dark, accent: RGB(hex: 0xE66100))`.
public struct Appearance: Hashable, Sendable {
    public var theme: Theme
    /// Toggles that are on, checks, what is selected: GNOME's blue (#3584e4) by default.
    public var accent: RGB
    /// A fontconfig pattern (`Noto Sans`, `DejaVu Sans:bold`); empty: each renderer's own
    /// (the system's sans-serif unless it was told otherwise).
    public var font: String
    /// Text size, times the display's scale: 0.5 to 3, for people who need larger text; nil
    /// (`auto`): each renderer's, the desktop session's text scaling where it has one, else 1.
    public var textScale: Double?
    /// The card's colour; nil: the theme's.
    public var card: RGB?
    /// The dim's colour (drawn at the state's dim opacity); nil: the theme's (black).
    public var dim: RGB?
    /// The card's top corners, points: 28, Material 3's bottom sheet.
    public var cornerRadiusInPoints: Double

    public init(theme: Theme = .light, accent: RGB = Appearance.gnomeBlue, font: String = "", textScale: Double? = 1,
                card: RGB? = nil, dim: RGB? = nil, cornerRadiusInPoints: Double = 28) {
        self.theme = theme
        self.accent = accent
        self.font = font
        self.textScale = textScale
        self.card = card
        self.dim = dim
        self.cornerRadiusInPoints = cornerRadiusInPoints
    }

    public static let gnomeBlue = RGB(hex: 0x3584E4)
    public static let standard = Appearance()

    /// The limits every boundary holds an appearance to (the wire, the configuration).
    public enum Limits {
        /// Bytes of UTF-8 in the font pattern.
        public static let fontBytes = 256
        public static let textScale = 0.5...3.0
        public static let cornerRadiusInPoints = 0.0...64.0
    }

    /// The first thing wrong with this appearance, or nil when every limit holds.
    public func problem() -> ContentProblem? {
        if font.utf8.count > Limits.fontBytes {
            return ContentProblem(field: "font", index: nil, reason: "longer than \(Limits.fontBytes) bytes")
        }
        // A pattern is one line of text: a NUL would cut it short in C, a control has no place in it.
        if font.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return ContentProblem(field: "font", index: nil, reason: "holds a control character")
        }
        if let textScale, !textScale.isFinite || !Limits.textScale.contains(textScale) {
            return ContentProblem(field: "textScale", index: nil,
                                  reason: "not \(Limits.textScale.lowerBound) to \(Limits.textScale.upperBound)")
        }
        if !cornerRadiusInPoints.isFinite || !Limits.cornerRadiusInPoints.contains(cornerRadiusInPoints) {
            return ContentProblem(field: "cornerRadius", index: nil,
                                  reason: "not \(Int(Limits.cornerRadiusInPoints.lowerBound)) to \(Int(Limits.cornerRadiusInPoints.upperBound)) points")
        }
        return nil
    }
}

/// A change to the appearance, as `SetAppearance` asks for it: each field given replaces the
/// current one; nil keeps it. `card` and `dim` given as `.some(nil)` go back to the theme's, and
/// `textScale` as `.some(nil)` to the renderer's (`auto`).
public struct AppearanceChange: Sendable, Equatable {
    public var theme: Theme?
    public var accent: RGB?
    public var font: String?
    public var textScale: Double??
    public var card: RGB??
    public var dim: RGB??
    public var cornerRadiusInPoints: Double?

    public init(theme: Theme? = nil, accent: RGB? = nil, font: String? = nil, textScale: Double?? = nil,
                card: RGB?? = nil, dim: RGB?? = nil, cornerRadiusInPoints: Double? = nil) {
        self.theme = theme
        self.accent = accent
        self.font = font
        self.textScale = textScale
        self.card = card
        self.dim = dim
        self.cornerRadiusInPoints = cornerRadiusInPoints
    }

    public func applied(to appearance: Appearance) -> Appearance {
        var changed = appearance
        if let theme { changed.theme = theme }
        if let accent { changed.accent = accent }
        if let font { changed.font = font }
        if let textScale { changed.textScale = textScale }
        if let card { changed.card = card }
        if let dim { changed.dim = dim }
        if let cornerRadiusInPoints { changed.cornerRadiusInPoints = cornerRadiusInPoints }
        return changed
    }

    /// The first limit a given field breaks (each stands alone, so the change applied to any
    /// valid appearance is valid).
    public func problem() -> ContentProblem? { applied(to: .standard).problem() }
}
