import Foundation
import SheetRenderKit
import SheetTestSupport
import Testing

@Suite struct CanvasTests {
    /// Redrawing only the damaged rows gives the same pixels as drawing everything, and when
    /// only the card moved, the damage is the band it moved through.
    @Test(arguments: PixelFormat.allCases)
    func redrawingTheDamageEqualsAFullDraw(format: PixelFormat) {
        let painter = Painter(font: PSF2Font.system())
        let before = SheetScene(width: 1080, height: 1920, scale: 1, top: 960, dim: 0.7, progress: 0.5)
        let after = SheetScene(width: 1080, height: 1920, scale: 1, top: 940.25, dim: 0.7, progress: 0.52)
        let incremental = Canvas(width: 1080, height: 1920, format: format)
        painter.draw(before, into: incremental)
        let rows = after.damage(since: before)
        painter.draw(after, into: incremental, rows: rows)
        let full = Canvas(width: 1080, height: 1920, format: format)
        painter.draw(after, into: full)
        #expect(memcmp(incremental.base, full.base, full.stride * full.height) == 0)
        #expect(rows != nil)
        #expect((rows?.count ?? 0) < 120, "a 20 px move redraws its band, not the frame: \(String(describing: rows))")
        #expect(after.damage(since: after) == nil)
        #expect(after.damage(since: nil) == 0..<1920)
        var dimmer = after
        dimmer.dim = 0.5
        #expect(dimmer.damage(since: after) == 0..<1920, "a new dim changes every row above the card")
    }

    /// A mapped buffer's rows may be longer than its pixels: the padding is never written.
    @Test(arguments: PixelFormat.allCases)
    func aStrideLongerThanTheRowIsRespected(format: PixelFormat) {
        let width = 100, height = 80, stride = width * format.bytesPerPixel + 24
        let memory = UnsafeMutableRawPointer.allocate(byteCount: stride * height, alignment: 16)
        defer { memory.deallocate() }
        memory.initializeMemory(as: UInt8.self, repeating: 0xAB, count: stride * height)
        let canvas = Canvas(wrapping: memory, width: width, height: height, stride: stride, format: format)
        Painter().draw(SheetScene(width: width, height: height, scale: 1, top: 40, dim: 0.7, progress: 0.5), into: canvas)
        for y in 0..<height {
            let padding = UnsafeRawBufferPointer(start: memory + y * stride + width * format.bytesPerPixel, count: 24)
            #expect(padding.allSatisfy { $0 == 0xAB }, "row \(y)'s padding was written")
        }
        #expect(canvas.pixel(x: 50, y: 70) == .white)
    }

    @Test func rgb565StoresFiveSixFiveBits() {
        let canvas = Canvas(width: 2, height: 1, format: .rgb565)
        canvas.set(x: 0, y: 0, RGB(hex: 0xFF8040))
        let stored = canvas.base.assumingMemoryBound(to: UInt16.self).pointee
        #expect(stored == UInt16(0x1F << 11 | 0x20 << 5 | 0x08))
        #expect(canvas.pixel(x: 0, y: 0) == RGB(0xFF, 0x82, 0x42))
    }

    @Test func pngRoundTripsAndRefusesGarbage() throws {
        let canvas = Canvas(width: 7, height: 5, format: .xrgb8888)
        for y in 0..<5 { for x in 0..<7 { canvas.set(x: x, y: y, RGB(UInt8(x * 30), UInt8(y * 50), 200)) } }
        let decoded = try PNG.decode(PNG.encode(canvas))
        #expect(decoded.width == 7 && decoded.height == 5 && decoded.rgb == canvas.rgbBytes())
        #expect(PNG.encode(canvas) == PNG.encode(canvas), "the same pixels give the same bytes")
        #expect(throws: PNGError.self) { try PNG.decode(Array("not a picture".utf8)) }
        var cut = PNG.encode(canvas)
        cut.removeLast(30)
        #expect(throws: PNGError.self) { try PNG.decode(cut) }
    }

    @Test func fontErrorsNameTheFile() throws {
        let notAFont = try temporaryFile("font.psf", "hello")
        #expect { try PSF2Font(path: notAFont) } throws: { "\($0)".contains(notAFont) && "\($0)".contains("PSF2") }
        #expect { try PSF2Font(path: "/nonexistent/font.psf.gz") } throws: { "\($0)".contains("/nonexistent/font.psf.gz") }
        // A header that promises more glyphs than the file holds.
        var header = [UInt8](repeating: 0, count: 32)
        for (offset, value) in [(0, 0x864A_B572), (8, 32), (16, 256), (20, 16), (24, 16), (28, 8)] {
            for byte in 0..<4 { header[offset + byte] = UInt8(value >> (8 * byte) & 0xFF) }
        }
        #expect { try PSF2Font(bytes: header + [UInt8](repeating: 0, count: 100), name: "short.psf") } throws: { "\($0)".contains("cut short") }
    }

    @Test func theConsoleFontMapsUnicode() throws {
        let font = try #require(PSF2Font.system(), "no console font in \(PSF2Font.searchPaths) (Debian: console-setup-linux)")
        let a = try #require(font.glyph(for: "a"))
        #expect((0..<font.height).contains { y in (0..<font.width).contains { font.isSet(glyph: a, x: $0, y: y) } })
        #expect(font.glyph(for: "é") != nil, "Lat15 covers Western European letters")
    }
}
