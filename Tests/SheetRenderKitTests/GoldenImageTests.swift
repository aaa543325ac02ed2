import Foundation
import SheetCore
import SheetRenderKit
import SheetTestSupport
import Testing

/// The kit's pictures against golden images in `Tests/Fixtures/golden`, pixel for pixel. A
/// mismatch keeps the picture drawn in `.build/goldens` (`keptGoldens`) and names it; after a
/// deliberate change of the look, `SHEETD_UPDATE_GOLDENS=1 swift test --filter GoldenImageTests`
/// rewrites the goldens (look at them before committing).
@Suite struct GoldenImageTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var width: Int
        var height: Int
        var scale: Double
        var top: Double
        var dim: Double
        var progress: Double
        var format: PixelFormat
        var testDescription: String { name }
    }

    // A 1080x1920 panel at scale 1 (detents: expanded 30, half 960, hidden 1920), the extreme
    // sizes, and both pixel formats.
    static let cases: [Case] = [
        Case(name: "half-1080x1920", width: 1080, height: 1920, scale: 1, top: 960, dim: 0.7, progress: 0.5155, format: .xrgb8888),
        Case(name: "expanded-1080x1920", width: 1080, height: 1920, scale: 1, top: 30, dim: 0.7, progress: 1, format: .xrgb8888),
        Case(name: "hidden-1080x1920", width: 1080, height: 1920, scale: 1, top: 1920, dim: 0, progress: 0, format: .xrgb8888),
        Case(name: "mid-drag-1080x1920", width: 1080, height: 1920, scale: 1, top: 600.37, dim: 0.7, progress: 0.7086, format: .xrgb8888),
        Case(name: "mid-settle-1080x1920", width: 1080, height: 1920, scale: 1, top: 1500.5, dim: 0.3057, progress: 0.2247, format: .xrgb8888),
        Case(name: "half-1080x1920-rgb565", width: 1080, height: 1920, scale: 1, top: 960, dim: 0.7, progress: 0.5155, format: .rgb565),
        Case(name: "half-320x240", width: 320, height: 240, scale: 1, top: 120, dim: 0.7, progress: 0.5814, format: .xrgb8888),
        Case(name: "half-320x240-rgb565", width: 320, height: 240, scale: 1, top: 120, dim: 0.7, progress: 0.5814, format: .rgb565),
        Case(name: "half-3840x2160", width: 3840, height: 2160, scale: 2, top: 1080, dim: 0.7, progress: 0.5141, format: .xrgb8888),
    ]

    static let font = PSF2Font.system()

    @Test(arguments: cases)
    func matchesItsGoldenImage(_ c: Case) throws {
        let font = try #require(Self.font, "no console font in \(PSF2Font.searchPaths) (Debian: console-setup-linux)")
        let scene = SheetScene(width: c.width, height: c.height, scale: c.scale, top: c.top, dim: c.dim, progress: c.progress)
        let canvas = Canvas(width: c.width, height: c.height, format: c.format)
        Painter(font: font).draw(scene, into: canvas)
        try compare(canvas, name: c.name)
    }

    // The list: a 540x960 panel at scale 1 with the card at 300 px and twelve rows (the
    // list starts at 356 px); at rest, mid-reorder (row 2 picked up and 31 px down, at 1.2
    // and 0.85 opaque, the others at 0.9, row 1 sliding 22 px from its new slot) and scrolled.
    static let items = ["Wi-Fi", "Bluetooth", "Display", "Sound", "Network", "Language", "Date and time", "Updates",
                         "Über dieses Gerät", "Accessibility", "Privacy", "About this panel"].map { SheetItem(id: $0, label: $0) }

    struct ListCase: CustomTestStringConvertible, Sendable {
        var name: String
        var list: ListScene
        var testDescription: String { name }
    }

    static let listCases: [ListCase] = [
        ListCase(name: "list-at-rest-540x960", list: ListScene(
            items: items, titleBarHeight: 56, itemHeight: 56, scroll: 0, othersScale: 1, lifted: nil, moving: [], height: 960)),
        ListCase(name: "list-mid-reorder-540x960", list: ListScene(
            items: items, titleBarHeight: 56, itemHeight: 56, scroll: 0, othersScale: 0.9,
            lifted: .init(position: 2, offset: 31, scale: 1.2, opacity: 0.85), moving: [.init(position: 1, offset: 22)], height: 960)),
        ListCase(name: "list-scrolled-540x960", list: ListScene(
            items: items, titleBarHeight: 56, itemHeight: 56, scroll: 150.5, othersScale: 1, lifted: nil, moving: [], height: 960)),
    ]

    @Test(arguments: listCases)
    func aListMatchesItsGoldenImage(_ c: ListCase) throws {
        let font = try #require(Self.font, "no console font in \(PSF2Font.searchPaths) (Debian: console-setup-linux)")
        let scene = SheetScene(width: 540, height: 960, scale: 1, top: 300, dim: 0.7, progress: 0.7, title: "Settings", list: c.list)
        let canvas = Canvas(width: 540, height: 960, format: .xrgb8888)
        Painter(font: font).draw(scene, into: canvas)
        try compare(canvas, name: c.name)
    }

    /// `canvas` against the golden image `name`, or written as it when updating.
    func compare(_ canvas: Canvas, name: String) throws {
        let drawn = PNG.encode(canvas)
        let golden = fixtures.appendingPathComponent("golden/\(name).png")
        if ProcessInfo.processInfo.environment["SHEETD_UPDATE_GOLDENS"] == "1" {
            try Data(drawn).write(to: golden)
            return
        }
        let expected = try PNG.decode(Array(try Data(contentsOf: golden)))
        let actual = canvas.rgbBytes()
        let same = expected.rgb.count == actual.count
            && expected.rgb.withUnsafeBytes { a in actual.withUnsafeBytes { b in memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 } }
        if expected.width != canvas.width || expected.height != canvas.height || !same {
            let differing = zip(expected.rgb, actual).enumerated().filter { $0.element.0 != $0.element.1 }.map { $0.offset / 3 }
            try FileManager.default.createDirectory(at: keptGoldens, withIntermediateDirectories: true)
            let written = keptGoldens.appendingPathComponent("\(name).drawn.png")
            try Data(drawn).write(to: written)
            let first = differing.first.map { "first at (\($0 % canvas.width), \($0 / canvas.width))" } ?? "size differs"
            Issue.record("\(name): \(Set(differing).count) pixels differ from \(golden.path), \(first); drawn: \(written.path)")
        }
    }

    /// The default look, checked by value rather than by image: the dim is black at the
    /// published alpha over #808080, the card white, a hidden sheet leaves only the background.
    @Test func theDefaultLookHasTheDocumentedColours() {
        let canvas = Canvas(width: 320, height: 240, format: .xrgb8888)
        let painter = Painter()
        painter.draw(SheetScene(width: 320, height: 240, scale: 1, top: 120, dim: 0.7, progress: 0.5), into: canvas)
        let dimmed = UInt8((128 * 0.3).rounded())
        #expect(canvas.pixel(x: 5, y: 5) == RGB(dimmed, dimmed, dimmed))
        #expect(canvas.pixel(x: 160, y: 200) == .white)
        #expect(canvas.pixel(x: 160, y: 120) == .white, "the card's top row is the published top")
        #expect(canvas.pixel(x: 160, y: 119) == RGB(dimmed, dimmed, dimmed))
        painter.draw(SheetScene(width: 320, height: 240, scale: 1, top: 240, dim: 0, progress: 0), into: canvas)
        for y in stride(from: 0, to: 240, by: 7) {
            for x in stride(from: 0, to: 320, by: 11) { #expect(canvas.pixel(x: x, y: y) == RGB(hex: 0x808080)) }
        }
    }
}
