import CPangoCairo
import SheetCore
import Synchronization
#if canImport(Glibc)
import Glibc
import SheetSystem
#endif

/// Finds a freedesktop icon by name, as the Icon Theme Specification says: in the theme's
/// directories (its `index.theme`) and those of the themes it inherits, ending with hicolor,
/// under each `icons` folder of `$XDG_DATA_DIRS`; the directory whose size matches exactly,
/// else the nearest; SVG or PNG. Only names reach it (`SheetItem.isIconName`): a name is never
/// a path, so nothing outside the icon folders is ever opened.
public struct IconTheme: Sendable {
    struct Directory: Sendable {
        var path: String
        var size: Int
        var minimum: Int
        var maximum: Int
        var threshold: Int
        var kind: String
        var scale: Int

        func matches(_ wanted: Int) -> Bool {
            switch kind {
            case "Fixed": return size == wanted
            case "Scalable": return minimum <= wanted && wanted <= maximum
            default: return size - threshold <= wanted && wanted <= size + threshold
            }
        }

        func distance(_ wanted: Int) -> Int {
            switch kind {
            case "Fixed": return abs(size * scale - wanted)
            case "Scalable": return wanted < minimum * scale ? minimum * scale - wanted : max(0, wanted - maximum * scale)
            default: return wanted < (size - threshold) * scale ? (size - threshold) * scale - wanted
                : max(0, wanted - (size + threshold) * scale)
            }
        }
    }

    /// The themes in the order they are searched, each with its directories.
    let themes: [(name: String, directories: [Directory])]

    /// The themes found, in the order they are searched (`Adwaita`, `hicolor`).
    public var names: [String] { themes.map(\.name) }

    /// The theme `name` (`Adwaita` by default) and what it inherits, from the `icons` folders
    /// under `dataDirectories` (`$XDG_DATA_DIRS`, else /usr/local/share and /usr/share).
    public init(name: String = "Adwaita", dataDirectories: [String]? = nil) {
        let bases = (dataDirectories ?? Self.dataDirectories()).map { $0 + "/icons" }
        var chain: [(String, [Directory])] = []
        var pending = [name], seen = Set<String>()
        while let theme = pending.first, chain.count < 8 {
            pending.removeFirst()
            guard seen.insert(theme).inserted else { continue }
            var directories: [Directory] = []
            var inherits: [String] = []
            for base in bases {
                guard let index = Self.read("\(base)/\(theme)/index.theme") else { continue }
                let parsed = Self.parse(index, root: "\(base)/\(theme)")
                directories += parsed.directories
                if inherits.isEmpty { inherits = parsed.inherits }
            }
            if !directories.isEmpty { chain.append((theme, directories)) }
            pending += inherits
            if pending.isEmpty, !seen.contains("hicolor") { pending.append("hicolor") }
        }
        themes = chain
    }

    static func dataDirectories() -> [String] {
        let value = getenv("XDG_DATA_DIRS").map { String(cString: $0) } ?? ""
        let folders = value.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return folders.isEmpty ? ["/usr/local/share", "/usr/share"] : folders
    }

    /// The file for icon `name` drawn `size` pixels square, or nil when no theme has it.
    public func path(for name: String, size: Int) -> String? {
        guard SheetItem.isIconName(name) else { return nil }
        for theme in themes {
            var best: (path: String, distance: Int)?
            for directory in theme.directories {
                for suffix in [".svg", ".png"] {
                    let file = "\(directory.path)/\(name)\(suffix)"
                    guard access(file, R_OK) == 0 else { continue }
                    if directory.matches(size) { return file }
                    let distance = directory.distance(size)
                    if best.map({ distance < $0.distance }) ?? true { best = (file, distance) }
                }
            }
            if let best { return best.path }
        }
        return nil
    }

    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        // index.theme is a few KB; a larger one is not an index.
        while bytes.count < 1 << 20 {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The directories an index.theme lists and the themes it inherits.
    static func parse(_ text: String, root: String) -> (directories: [Directory], inherits: [String]) {
        var sections: [String: [String: String]] = [:]
        var current = ""
        for raw in text.split(separator: "\n") {
            let line = String(raw).trimmingCharacters(in: " \t\r")
            if line.hasPrefix("[") && line.hasSuffix("]") {
                current = String(line.dropFirst().dropLast())
                continue
            }
            guard let equals = line.firstIndex(of: "="), !line.hasPrefix("#") else { continue }
            sections[current, default: [:]][String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        let header = sections["Icon Theme"] ?? [:]
        let names = (header["Directories"] ?? "").split(separator: ",").map(String.init)
            + (header["ScaledDirectories"] ?? "").split(separator: ",").map(String.init)
        var directories: [Directory] = []
        for name in names where !name.contains("..") {
            guard let fields = sections[name], let size = fields["Size"].flatMap({ Int($0) }), size > 0 else { continue }
            directories.append(Directory(path: "\(root)/\(name)", size: size,
                                         minimum: fields["MinSize"].flatMap { Int($0) } ?? size,
                                         maximum: fields["MaxSize"].flatMap { Int($0) } ?? size,
                                         threshold: fields["Threshold"].flatMap { Int($0) } ?? 2,
                                         kind: fields["Type"] ?? "Threshold",
                                         scale: max(1, fields["Scale"].flatMap { Int($0) } ?? 1)))
        }
        let inherits = (header["Inherits"] ?? "").split(separator: ",").map { String($0).trimmingCharacters(in: " ") }.filter { !$0.isEmpty }
        return (directories, inherits)
    }
}

extension String {
    /// Without the characters of `set` at either end.
    func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}

/// Icons drawn once at the size a row asks and kept, as the typesetter keeps lines: SVG with
/// librsvg, PNG with Cairo, scaled to fit; a symbolic icon (`…-symbolic`) in the colour it is
/// drawn with, as GTK recolours them. Bounded by bytes; an icon no theme has is remembered as
/// missing and said once by the caller.
public final class IconCache: Sendable {
    public let theme: IconTheme
    public let cacheBytes: Int
    private let state = Mutex<State>(State())

    struct Key: Hashable {
        var name: String
        var size: Int
        var colour: RGB
    }

    struct State {
        var images: [Key: TextImage] = [:]
        var order: [Key] = []
        var bytes = 0
        var missing: Set<String> = []
        /// SVG icons found but not drawn, since librsvg could not be loaded (`svgUnavailable`).
        var undrawable: Set<String> = []
        var svgUnavailable: SVGUnavailable?
    }

    public init(theme: IconTheme = IconTheme(), cacheBytes: Int = 8 << 20) {
        self.theme = theme
        self.cacheBytes = max(cacheBytes, 1 << 16)
    }

    /// Icon `name` in a `size`-pixel square, symbolic ones in `colour`; nil when no theme has
    /// it or it cannot be read.
    public func image(_ name: String, size: Int, colour: RGB) -> TextImage? {
        let size = min(max(size, 1), 512)
        let symbolic = name.hasSuffix("-symbolic")
        let key = Key(name: name, size: size, colour: symbolic ? colour : .black)
        if let image = state.withLock({ $0.images[key] }) { return image }
        if state.withLock({ $0.missing.contains(name) || $0.undrawable.contains(name) }) { return nil }
        guard let path = theme.path(for: name, size: size) else {
            state.withLock { state in if state.missing.count < 4096 { state.missing.insert(name) } }
            return nil
        }
        if path.hasSuffix(".svg"), case .failure(let why) = SVGLibrary.shared {
            state.withLock { state in
                state.svgUnavailable = why
                if state.undrawable.count < 4096 { state.undrawable.insert(name) }
            }
            return nil
        }
        guard let image = Self.draw(path, size: size, recolour: symbolic ? colour : nil) else {
            state.withLock { state in if state.missing.count < 4096 { state.missing.insert(name) } }
            return nil
        }
        state.withLock { state in
            let bytes = image.pixels.count * 4 + 64
            while state.bytes + bytes > cacheBytes, !state.order.isEmpty {
                let oldest = state.order.removeFirst()
                if let dropped = state.images.removeValue(forKey: oldest) { state.bytes -= dropped.pixels.count * 4 + 64 }
            }
            state.images[key] = image
            state.order.append(key)
            state.bytes += bytes
        }
        return image
    }

    /// Names asked for that no theme has, and how many.
    public var missing: Set<String> { state.withLock { $0.missing } }
    public var missingCount: Int { state.withLock { $0.missing.count } }
    /// Why SVG icons are not drawn (librsvg could not be loaded), once one was asked for.
    public var svgUnavailable: SVGUnavailable? { state.withLock { $0.svgUnavailable } }

    /// The file at `path` in a `size` square, centred, its aspect kept.
    static func draw(_ path: String, size: Int, recolour: RGB?) -> TextImage? {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(size), Int32(size)) else { return nil }
        defer { cairo_surface_destroy(surface) }
        let cairo = cairo_create(surface)!
        defer { cairo_destroy(cairo) }
        if path.hasSuffix(".svg") {
            guard case .success(let svg) = SVGLibrary.shared, let handle = svg.newFromFile(path, nil) else { return nil }
            defer { g_object_unref(UnsafeMutableRawPointer(handle)) }
            var viewport = zeroed(RsvgRectangle.self) {
                $0.width = Double(size)
                $0.height = Double(size)
            }
            guard svg.renderDocument(handle, cairo, &viewport, nil) != 0 else { return nil }
        } else {
            guard let png = cairo_image_surface_create_from_png(path), cairo_surface_status(png) == CAIRO_STATUS_SUCCESS else { return nil }
            defer { cairo_surface_destroy(png) }
            let width = Double(cairo_image_surface_get_width(png)), height = Double(cairo_image_surface_get_height(png))
            guard width > 0, height > 0 else { return nil }
            let zoom = Double(size) / max(width, height)
            cairo_translate(cairo, (Double(size) - width * zoom) / 2, (Double(size) - height * zoom) / 2)
            cairo_scale(cairo, zoom, zoom)
            cairo_set_source_surface(cairo, png, 0, 0)
            cairo_paint(cairo)
        }
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface) else { return nil }
        let pixels = [UInt32](unsafeUninitializedCapacity: size * size) { out, count in
            for y in 0..<size {
                let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<size {
                    var value = row[x]
                    if let recolour {
                        // Symbolic: the shape's coverage in the colour asked, premultiplied.
                        let alpha = value >> 24
                        value = alpha << 24 | (UInt32(recolour.r) * alpha / 255) << 16 | (UInt32(recolour.g) * alpha / 255) << 8
                            | UInt32(recolour.b) * alpha / 255
                    }
                    out[y * size + x] = value
                }
            }
            count = size * size
        }
        return TextImage(width: size, height: size, pixels: pixels, baseline: size, isEllipsized: false, unknownGlyphs: 0)
    }
}

/// librsvg, opened the first time an SVG icon is drawn rather than when a program starts: it
/// brings libxml2, ICU and libstdc++ with it, about 4 MiB resident (0.7 MiB of it data the
/// loader relocates), which the daemon, sheetctl and a sheet without icons never use. The
/// package depends on it by name, since the program's ELF header no longer does.
struct SVGLibrary: @unchecked Sendable {
    static let soname = "librsvg-2.so.2"
    let newFromFile: sheet_rsvg_handle_new_from_file
    let renderDocument: sheet_rsvg_handle_render_document

    /// The library's two calls, or why they cannot be had (for the renderer to say once).
    static let shared: Result<SVGLibrary, SVGUnavailable> = {
        guard let library = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(SVGUnavailable(reason: dlerror().map { String(cString: $0) } ?? "\(soname) cannot be loaded"))
        }
        guard let new = dlsym(library, "rsvg_handle_new_from_file"), let render = dlsym(library, "rsvg_handle_render_document") else {
            return .failure(SVGUnavailable(reason: "\(soname) has no rsvg_handle_render_document (librsvg 2.46 or later is needed)"))
        }
        return .success(SVGLibrary(newFromFile: unsafeBitCast(new, to: sheet_rsvg_handle_new_from_file.self),
                                   renderDocument: unsafeBitCast(render, to: sheet_rsvg_handle_render_document.self)))
    }()
}

/// Why SVG icons cannot be drawn: dlopen's or dlsym's words.
public struct SVGUnavailable: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public var description: String { "SVG icons cannot be drawn: \(reason)" }
}
