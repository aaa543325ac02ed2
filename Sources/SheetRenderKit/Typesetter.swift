import CPangoCairo
import SheetCore
import Synchronization

/// How a line of text is set: its size, weight, colour, the widest it may be, and which way it
/// reads. Two equal styles of the same text give the same pixels.
public struct TextStyle: Hashable, Sendable {
    public enum Weight: Hashable, Sendable {
        case regular
        case semibold
    }

    /// The font's size (px: points times the scale times the text scale).
    public var sizeInPixels: Double
    public var weight: Weight
    public var color: RGB
    /// Past this the line ends in an ellipsis (px, at least 1).
    public var maximumWidthInPixels: Int
    public var direction: TextDirection
    /// A fontconfig pattern; empty: the typesetter's own (`Typesetter.font`).
    public var font: String

    public init(sizeInPixels: Double, weight: Weight = .regular, color: RGB, maximumWidthInPixels: Int,
                direction: TextDirection = .leftToRight, font: String = "") {
        self.font = font
        self.sizeInPixels = sizeInPixels.isFinite ? min(max(sizeInPixels, 1), 512) : 16
        self.weight = weight
        self.color = color
        self.maximumWidthInPixels = min(max(maximumWidthInPixels, 1), 1 << 15)
        self.direction = direction
    }
}

/// A line of text drawn once: premultiplied ARGB pixels (`0xAARRGGBB`), its logical box (what
/// the font says the line takes, from ascent to descent), and where its baseline is.
public struct TextImage: Sendable {
    public let width: Int
    public let height: Int
    /// Row after row, `width` pixels each.
    public let pixels: [UInt32]
    /// From the image's top to the baseline (px).
    public let baseline: Int
    /// The text did not fit and ends in an ellipsis.
    public let isEllipsized: Bool
    /// Characters that no installed font has, drawn as hex boxes.
    public let unknownGlyphs: Int

    static let empty = TextImage(width: 0, height: 0, pixels: [], baseline: 0, isEllipsized: false, unknownGlyphs: 0)
}

/// Why the typesetter could not start: what the renderer logs before it falls back to the
/// console font.
public struct TypesetterError: Error, CustomStringConvertible, Sendable {
    public var reason: String
    public var description: String { reason }
}

/// Text through Pango over Cairo: fontconfig finds the font named by a pattern and falls back,
/// glyph by glyph, to any installed font that has the glyph (Noto CJK for Korean, Noto Color
/// Emoji for emoji); HarfBuzz shapes (Arabic joining, Indic clusters, Thai marks); FriBidi
/// orders mixed runs; FreeType rasterises, anti-aliased in grey levels with no hinting, so the
/// same fonts give the same pixels at any position. Each line is set once and kept: a frame
/// only blends the kept pixels. The cache holds at most `cacheBytes` of pixels and drops the
/// oldest lines past it.
public final class Typesetter: Sendable {
    /// The fontconfig pattern every line starts from (`Noto Sans`, `sans-serif`, `DejaVu Sans:bold`).
    public let font: String
    public let cacheBytes: Int
    private let pango: Mutex<PangoState>

    /// The typesetter for `font` (a fontconfig pattern; `sans-serif` when empty), or why there
    /// is none: fontconfig lists no font at all, or none matches the pattern's family or a
    /// fallback for it.
    public init(font: String = "sans-serif", cacheBytes: Int = 24 << 20) throws(TypesetterError) {
        let pattern = font.isEmpty ? "sans-serif" : font
        guard pattern.utf8.count <= 256, !pattern.utf8.contains(0) else {
            throw TypesetterError(reason: "the font pattern is not a fontconfig pattern (over 256 bytes or a NUL byte)")
        }
        self.font = pattern
        self.cacheBytes = max(cacheBytes, 1 << 16)
        pango = Mutex(try PangoState(pattern: pattern))
    }

    /// `text` set in `style`, from the cache when it was set before.
    public func image(_ text: String, style: TextStyle) -> TextImage {
        pango.withLock { $0.image(text, style: style, budget: cacheBytes) }
    }

    /// The lines the cache holds and their pixels' bytes.
    public var cached: (lines: Int, bytes: Int) {
        pango.withLock { ($0.images.count, $0.bytes) }
    }
}

/// What Pango needs between lines: its font map, a context with fixed font options, and the
/// cache. Only reached under the typesetter's lock.
private struct PangoState: ~Copyable {
    struct Key: Hashable {
        var text: String
        var style: TextStyle
    }

    let fontMap: UnsafeMutablePointer<PangoFontMap>
    let context: OpaquePointer
    let description: OpaquePointer
    /// Other patterns a style named (an appearance's font), parsed once: at most
    /// `maximumPatterns`, the oldest dropped past it.
    var patterns: [(pattern: String, description: OpaquePointer)] = []
    static let maximumPatterns = 8
    var images: [Key: TextImage] = [:]
    /// The keys in the order they were set, oldest first from `oldest`.
    var order: [Key] = []
    var oldest = 0
    var bytes = 0

    /// Pango set up for `pattern`, or why not. The fallible work happens before the value
    /// exists, so the value is always whole: a `~Copyable` init that throws part-way leaves
    /// Swift to tear a half-made value down, which assertion-enabled compilers (Debian's
    /// swiftlang 6.2) refuse to verify.
    init(pattern: String) throws(TypesetterError) {
        let handles = try Self.handles(pattern: pattern)
        self.init(fontMap: handles.fontMap, context: handles.context, description: handles.description)
    }

    private init(fontMap: UnsafeMutablePointer<PangoFontMap>, context: OpaquePointer, description: OpaquePointer) {
        self.fontMap = fontMap
        self.context = context
        self.description = description
    }

    /// Where the pattern's families have no glyph for a script, its Noto Sans family, named:
    /// fontconfig's own choice among the installed fonts of one script falls, when none
    /// matches the pattern better, to the order of its cache, which differs from one machine
    /// to the next (Noto Kufi Arabic on one Debian 13 tree, Noto Sans Arabic on another, the
    /// same packages installed in each). Chinese, Japanese and Korean need no name:
    /// fonts-noto-cjk's rules pick its face by the text's language.
    static let scriptFamilies = [
        "Noto Sans Arabic", "Noto Sans Hebrew", "Noto Sans Thai", "Noto Sans Devanagari", "Noto Sans Bengali",
        "Noto Sans Gurmukhi", "Noto Sans Gujarati", "Noto Sans Tamil", "Noto Sans Telugu", "Noto Sans Kannada",
        "Noto Sans Malayalam", "Noto Sans Sinhala", "Noto Sans Myanmar", "Noto Sans Khmer", "Noto Sans Lao",
        "Noto Sans Georgian", "Noto Sans Armenian", "Noto Sans Ethiopic",
    ].joined(separator: ",")

    /// `pattern` as a font description whose family list ends with `scriptFamilies`.
    static func parse(_ pattern: String) -> OpaquePointer {
        let description = pango_font_description_from_string(pattern)!
        let families = pango_font_description_get_family(description).map { String(cString: $0) } ?? ""
        pango_font_description_set_family(description, families.isEmpty ? scriptFamilies : "\(families),\(scriptFamilies)")
        return description
    }

    private static func handles(pattern: String) throws(TypesetterError)
        -> (fontMap: UnsafeMutablePointer<PangoFontMap>, context: OpaquePointer, description: OpaquePointer) {
        guard let fontMap = pango_cairo_font_map_new() else {
            throw TypesetterError(reason: "Pango could not make a font map (is fontconfig installed?)")
        }
        var families: UnsafeMutablePointer<UnsafeMutablePointer<PangoFontFamily>?>?
        var count: Int32 = 0
        pango_font_map_list_families(fontMap, &families, &count)
        g_free(families)
        guard count > 0 else {
            g_object_unref(UnsafeMutableRawPointer(fontMap))
            throw TypesetterError(reason: "fontconfig lists no fonts (install fonts-noto-core or fonts-dejavu-core)")
        }
        let context = pango_font_map_create_context(fontMap)!
        // Grey anti-aliasing with no hinting: glyphs keep their outlines' shapes and positions,
        // so a line looks the same wherever it is set and on any panel's subpixel order.
        let options = cairo_font_options_create()
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        pango_cairo_context_set_font_options(context, options)
        cairo_font_options_destroy(options)
        let description = Self.parse(pattern)
        // A pattern whose family matches no installed font still sets text: fontconfig
        // substitutes its default family, and that is what fallback means here.
        let font = pango_font_map_load_font(fontMap, context,
                                            description)
        guard let font else {
            pango_font_description_free(description)
            g_object_unref(UnsafeMutableRawPointer(context))
            g_object_unref(UnsafeMutableRawPointer(fontMap))
            throw TypesetterError(reason: "no installed font matches '\(pattern)', nor any fallback for it")
        }
        g_object_unref(UnsafeMutableRawPointer(font))
        return (fontMap, context, description)
    }

    deinit {
        for entry in patterns { pango_font_description_free(entry.description) }
        pango_font_description_free(description)
        g_object_unref(UnsafeMutableRawPointer(context))
        g_object_unref(UnsafeMutableRawPointer(fontMap))
    }

    mutating func image(_ text: String, style: TextStyle, budget: Int) -> TextImage {
        let key = Key(text: text, style: style)
        if let image = images[key] { return image }
        let image = set(text, style: style)
        let size = image.pixels.count * 4 + text.utf8.count + 64
        while bytes + size > budget, oldest < order.count {
            if let dropped = images.removeValue(forKey: order[oldest]) {
                bytes -= dropped.pixels.count * 4 + order[oldest].text.utf8.count + 64
            }
            oldest += 1
        }
        if oldest > 1024, oldest * 2 > order.count {
            order.removeFirst(oldest)
            oldest = 0
        }
        images[key] = image
        order.append(key)
        bytes += size
        return image
    }

    /// The description of `pattern`: the typesetter's own when empty. A pattern that names no
    /// installed family still sets text: fontconfig substitutes its default, and per-glyph
    /// fallback fills in the rest.
    mutating func description(for pattern: String) -> OpaquePointer {
        guard !pattern.isEmpty else { return description }
        if let entry = patterns.first(where: { $0.pattern == pattern }) { return entry.description }
        if patterns.count >= Self.maximumPatterns { pango_font_description_free(patterns.removeFirst().description) }
        // Held to a fontconfig pattern's length and without a NUL as the typesetter's own.
        let safe = pattern.utf8.count <= 256 && !pattern.utf8.contains(0) ? pattern : "sans-serif"
        let parsed = Self.parse(safe)
        patterns.append((pattern, parsed))
        return parsed
    }

    /// One line: laid out at the style's size and width, ending in an ellipsis when it does
    /// not fit, drawn in the style's colour into its own logical box.
    mutating func set(_ text: String, style: TextStyle) -> TextImage {
        guard !text.isEmpty else { return .empty }
        pango_context_set_base_dir(context,
                                   style.direction == .rightToLeft ? PANGO_DIRECTION_RTL : PANGO_DIRECTION_LTR)
        let layout = pango_layout_new(context)!
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let description = pango_font_description_copy(description(for: style.font))!
        defer { pango_font_description_free(description) }
        pango_font_description_set_absolute_size(description, style.sizeInPixels * Double(PANGO_SCALE))
        if style.weight == .semibold { pango_font_description_set_weight(description, PANGO_WEIGHT_SEMIBOLD) }
        pango_layout_set_font_description(layout, description)
        pango_layout_set_auto_dir(layout, 0)
        pango_layout_set_single_paragraph_mode(layout, 1)
        pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
        pango_layout_set_width(layout, Int32(style.maximumWidthInPixels) * PANGO_SCALE)
        pango_layout_set_alignment(layout, style.direction == .rightToLeft ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT)
        pango_layout_set_text(layout, text, Int32(text.utf8.count))
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        let width = Int(min(max(logical.width, 0), Int32(style.maximumWidthInPixels)))
        let height = Int(max(logical.height, 0))
        guard width > 0, height > 0, let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        else { return .empty }
        defer { cairo_surface_destroy(surface) }
        let cairo = cairo_create(surface)!
        cairo_set_source_rgb(cairo, Double(style.color.r) / 255, Double(style.color.g) / 255, Double(style.color.b) / 255)
        cairo_move_to(cairo, Double(-logical.x), Double(-logical.y))
        pango_cairo_update_layout(cairo, layout)
        pango_cairo_show_layout(cairo, layout)
        cairo_destroy(cairo)
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = UnsafeRawPointer(cairo_image_surface_get_data(surface)!)
        let pixels = [UInt32](unsafeUninitializedCapacity: width * height) { out, count in
            for y in 0..<height {
                let row = (data + y * stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<width { out[y * width + x] = row[x] }
            }
            count = width * height
        }
        return TextImage(width: width, height: height, pixels: pixels,
                         baseline: Int(pango_layout_get_baseline(layout) / PANGO_SCALE) - Int(logical.y),
                         isEllipsized: pango_layout_is_ellipsized(layout) != 0,
                         unknownGlyphs: Int(pango_layout_get_unknown_glyphs_count(layout)))
    }
}
