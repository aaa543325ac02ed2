import Foundation
import SheetCore
import SheetProtocol
@testable import SheetRenderKit
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

    /// A card dragged past the top (the rubber band) or below the bottom damages only the rows
    /// on screen, or none.
    @Test func damageOffTheScreenIsClipped() {
        func scene(_ top: Double) -> SheetScene { SheetScene(width: 320, height: 240, scale: 1, top: top, dim: 0.7, progress: 1) }
        #expect(scene(-63).damage(since: scene(-80)) == nil, "both tops far above the screen")
        #expect(scene(-10).damage(since: scene(-80)) == 0..<39, "the band reaches 46 pt of decorations below the top, and a row")
        #expect(scene(400).damage(since: scene(300)) == nil, "both below the screen")
        #expect(scene(250).damage(since: scene(200)) == 182..<240)
    }

    /// A backdrop shows under the dim: each pixel is the picture's, dimmed exactly as the plain
    /// background is; a redraw of the damage still equals a full draw.
    @Test(arguments: PixelFormat.allCases)
    func aBackdropIsDimmedPixelByPixel(format: PixelFormat) {
        let (width, height) = (64, 48)
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for index in 0..<(width * height) {
            rgb[index * 3] = UInt8(index % 256)
            rgb[index * 3 + 1] = UInt8((index / 7) % 256)
            rgb[index * 3 + 2] = 200
        }
        var look = Look()
        look.backdrop = Backdrop(width: width, height: height, rgb: rgb)
        let before = SheetScene(width: width, height: height, scale: 0.25, top: 30, dim: 0.4, progress: 0.5, look: look)
        let after = SheetScene(width: width, height: height, scale: 0.25, top: 26.5, dim: 0.4, progress: 0.55, look: look)
        let canvas = Canvas(width: width, height: height, format: .xrgb8888)
        Painter().draw(after, into: canvas)
        for (x, y) in [(0, 0), (13, 5), (63, 20)] {
            let index = (y * width + x) * 3
            let picture = RGB(rgb[index], rgb[index + 1], rgb[index + 2])
            #expect(canvas.pixel(x: x, y: y) == RGB.black.over(picture, alpha: 0.4), "(\(x), \(y))")
        }
        #expect(canvas.pixel(x: 32, y: 40) == .white, "the card covers the picture")

        let incremental = Canvas(width: width, height: height, format: format)
        Painter().draw(before, into: incremental)
        Painter().draw(after, into: incremental, rows: after.damage(since: before))
        let full = Canvas(width: width, height: height, format: format)
        Painter().draw(after, into: full)
        #expect(memcmp(incremental.base, full.base, full.stride * height) == 0)
    }

    /// A see-through look (the wayland backend's) composited by a compositor over a colour
    /// gives, pixel by pixel, what the opaque look draws over that colour as its background:
    /// the dim, the card's anti-aliased edge and corners, the grabber over the dim. A hidden
    /// sheet leaves every pixel transparent; redrawing the damage equals a full draw.
    @Test func aSeeThroughLookCompositesAsTheOpaqueOneDraws() {
        let (width, height) = (160, 120)
        let below = RGB(hex: 0x336699)
        var opaque = Look()
        opaque.background = below
        var seeThrough = Look()
        seeThrough.seeThrough = true
        let painter = Painter(font: PSF2Font.system())
        for (top, dim, progress) in [(60.0, 0.7, 0.5), (33.4, 0.55, 0.8), (97.75, 0.2, 0.1), (0.0, 1.0, 1.0)] {
            let drawn = Canvas(width: width, height: height, format: .xrgb8888)
            painter.draw(SheetScene(width: width, height: height, scale: 0.5, top: top, dim: dim, progress: progress, look: opaque), into: drawn)
            let layer = Canvas(width: width, height: height, format: .argb8888)
            painter.draw(SheetScene(width: width, height: height, scale: 0.5, top: top, dim: dim, progress: progress, look: seeThrough), into: layer)
            var worst = 0
            for y in 0..<height {
                for x in 0..<width {
                    // The compositor's blend of premultiplied ARGB: colour + below × (1 − alpha).
                    let alpha = layer.alpha(x: x, y: y), colour = layer.pixel(x: x, y: y), expected = drawn.pixel(x: x, y: y)
                    func channel(_ c: UInt8, _ b: UInt8) -> Int { Int((Double(c) + Double(b) * (1 - alpha)).rounded()) }
                    worst = max(worst, abs(channel(colour.r, below.r) - Int(expected.r)), abs(channel(colour.g, below.g) - Int(expected.g)),
                                abs(channel(colour.b, below.b) - Int(expected.b)))
                }
            }
            #expect(worst <= 1, "top \(top), dim \(dim): a channel off by \(worst)")
            #expect(layer.alpha(x: 5, y: height - 1) == 1, "the card is opaque")
            if top > 0 { #expect(abs(layer.alpha(x: 5, y: 0) - dim) < 1.0 / 255, "the dim's alpha is the dim") }
        }
        let hidden = Canvas(width: width, height: height, format: .argb8888)
        hidden.base.initializeMemory(as: UInt8.self, repeating: 0xAB, count: hidden.stride * height)
        painter.draw(SheetScene(width: width, height: height, scale: 0.5, top: Double(height), dim: 0, progress: 0, look: seeThrough), into: hidden)
        #expect(UnsafeRawBufferPointer(start: hidden.base, count: hidden.stride * height).allSatisfy { $0 == 0 }, "hidden is transparent")

        let before = SheetScene(width: width, height: height, scale: 0.5, top: 60, dim: 0.7, progress: 0.5, look: seeThrough)
        let after = SheetScene(width: width, height: height, scale: 0.5, top: 52.5, dim: 0.7, progress: 0.56, look: seeThrough)
        let incremental = Canvas(width: width, height: height, format: .argb8888)
        painter.draw(before, into: incremental)
        painter.draw(after, into: incremental, rows: after.damage(since: before))
        let full = Canvas(width: width, height: height, format: .argb8888)
        painter.draw(after, into: full)
        #expect(memcmp(incremental.base, full.base, full.stride * height) == 0)
    }

    /// A picture of another shape covers the display: scaled to fill, cropped in the middle.
    @Test func aBackdropCoversTheDisplay() {
        // 4x2: left half red, right half blue, onto 2x2: the middle two columns survive.
        let red: [UInt8] = [255, 0, 0], blue: [UInt8] = [0, 0, 255]
        let picture = (red + red + blue + blue) + (red + red + blue + blue)
        let fitted = Backdrop(covering: 2, 2, with: picture, imageWidth: 4, imageHeight: 2)
        #expect(fitted.rgb == red + blue + red + blue)
    }

    /// A renderer whose display is not the daemon's screen draws the sheet scaled by height.
    @Test func aStateOnAnotherDisplayScalesByHeight() {
        let state = SheetState(state: .resting, detent: .half, target: nil, topInPixels: 960, progress: 0.5, dim: 0.7,
                               velocityInPixelsPerSecond: 0, screen: ScreenSize(widthInPixels: 1080, heightInPixels: 1920, scale: 2),
                               cause: .initial, detents: [])
        let scene = SheetScene(state, width: 540, height: 960)
        #expect(scene.top == 480 && scene.scale == 1 && scene.width == 540)
        #expect(SheetScene(state, width: 1080, height: 1920) == SheetScene(state))
    }

    /// Copying rows moves exactly those rows between canvases of different strides.
    @Test func copyingRowsRespectsBothStrides() {
        let source = Canvas(width: 10, height: 6, format: .rgb565)
        for y in 0..<6 { source.fill(row: y, RGB(UInt8(y * 40), 255, 0)) }
        let memory = UnsafeMutableRawPointer.allocate(byteCount: 32 * 6, alignment: 16)
        defer { memory.deallocate() }
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: 32 * 6)
        let target = Canvas(wrapping: memory, width: 10, height: 6, stride: 32, format: .rgb565)
        target.copy(rows: 2..<4, from: source)
        #expect(target.pixel(x: 9, y: 2) == source.pixel(x: 9, y: 2) && target.pixel(x: 0, y: 3) == source.pixel(x: 0, y: 3))
        #expect(target.pixel(x: 0, y: 1) == .black && target.pixel(x: 0, y: 4) == .black)
        #expect(memory.load(fromByteOffset: 2 * 32 + 20, as: UInt8.self) == 0, "the padding stays")
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

    /// A run into a folder an earlier, longer run used: its frames go, other files stay.
    @Test func aFrameFolderStartsWithoutEarlierFrames() throws {
        let folder = try temporaryFolder().path
        for name in ["frame-000009.png", "frame-000001.png", "keep.txt", "frame-1.png"] {
            FileManager.default.createFile(atPath: "\(folder)/\(name)", contents: Data("x".utf8))
        }
        let writer = try PNGFrameWriter(folder: folder, painter: Painter(font: PSF2Font.system()))
        try writer.frame(SheetScene(width: 64, height: 64, scale: 1, top: 32, dim: 0.5, progress: 1))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["frame-000001.png", "frame-1.png", "keep.txt"])
    }

    /// A small file may claim a huge picture or carry damaged chunks: both are refused before
    /// a byte is allocated for the pixels.
    @Test func pngRefusesBadCRCsAndPicturesPastItsLimits() throws {
        var damaged = PNG.encode(width: 4, height: 4, rgb: [UInt8](repeating: 9, count: 48))
        damaged[damaged.count - 20] ^= 0x40  // in IDAT
        #expect(throws: PNGError(reason: "chunk IDAT at byte 33 has a bad CRC")) { try PNG.decode(damaged) }
        let wide = PNG.encode(width: PNG.maximumSide + 1, height: 1, rgb: [UInt8](repeating: 0, count: (PNG.maximumSide + 1) * 3))
        #expect(throws: PNGError(reason: "a 8193x1 picture; at most 8192 pixels a side is read")) { try PNG.size(of: wide) }
        let square = PNG.encode(width: 100, height: 100, rgb: [UInt8](repeating: 0, count: 30_000))
        #expect(try PNG.size(of: square) == (100, 100))
        #expect(throws: PNGError(reason: "a 100x100 picture; at most 5000 pixels are read here")) {
            try PNG.decode(square, maximumPixels: 5000)
        }
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

/// The animated PNG: a valid APNG whose frames, laid over each other in order as a viewer does,
/// end in exactly the picture of the last scene.
@Suite struct AnimatedPNGTests {
    @Test func framesComposeToTheLastScene() throws {
        let folder = try temporaryFolder()
        let path = folder.appendingPathComponent("drag.png").path
        let painter = Painter(font: PSF2Font.system())
        let writer = AnimatedPNGWriter(path: path, painter: painter, framesPerSecond: 30)
        var scenes: [SheetScene] = []
        for step in 0...40 {
            let top = 240 - Double(step) * 4.5
            scenes.append(SheetScene(width: 320, height: 480, scale: 1, top: top, dim: 0.7, progress: 0.5 + Double(step) / 80))
            // 100 Hz: two of every three states fall inside the 33 ms frame interval.
            writer.frame(scenes.last!, at: Int64(step) * 10_000)
        }
        try writer.finish()
        #expect(writer.frameCount == 11, "frames at 0, 40, 80 … 400 ms; the last state is one of them")

        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        var chunks: [(type: String, data: [UInt8])] = []
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            chunks.append((String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self), Array(bytes[(offset + 8)..<(offset + 8 + length)])))
            offset += 12 + length
        }
        func word(_ data: [UInt8], _ at: Int) -> Int { Int(data[at]) << 24 | Int(data[at + 1]) << 16 | Int(data[at + 2]) << 8 | Int(data[at + 3]) }
        #expect(chunks.map(\.type).prefix(3) == ["IHDR", "acTL", "fcTL"] && chunks.last?.type == "IEND")
        let control = chunks.first { $0.type == "acTL" }!.data
        #expect(word(control, 0) == 11 && word(control, 4) == 0)

        // Compose: each frame's band, decoded as a PNG of its own, over the picture so far.
        var picture = [UInt8](repeating: 0, count: 320 * 480 * 3)
        var sequence = 0
        var band: (y: Int, height: Int)?
        for chunk in chunks {
            switch chunk.type {
            case "fcTL":
                #expect(word(chunk.data, 0) == sequence)
                sequence += 1
                #expect(word(chunk.data, 4) == 320 && word(chunk.data, 12) == 0)
                band = (word(chunk.data, 16), word(chunk.data, 8))
            case "IDAT", "fdAT":
                var data = chunk.data
                if chunk.type == "fdAT" {
                    #expect(word(data, 0) == sequence)
                    sequence += 1
                    data.removeFirst(4)
                }
                let (y, height) = band!
                var single = PNG.signature
                PNG.appendChunk("IHDR", PNG.header(width: 320, height: height), to: &single)
                PNG.appendChunk("IDAT", data, to: &single)
                PNG.appendChunk("IEND", [], to: &single)
                let decoded = try PNG.decode(single)
                picture.replaceSubrange((y * 320 * 3)..<((y + height) * 320 * 3), with: decoded.rgb)
            default: break
            }
        }
        let last = Canvas(width: 320, height: 480, format: .xrgb8888)
        painter.draw(scenes.last!, into: last)
        #expect(picture == last.rgbBytes(), "the composed animation ends on the last scene")
    }
}

@Suite struct HostileScenePaintingTests {
    /// Screens a kit user may ask for and values a broken daemon may send: widths under the
    /// card's corners and insets, scales far past the screen, tops past any number. Each is
    /// drawn with content into a canvas of its size without trapping (a width under 15 px and
    /// scale 16 on 200 px used to make a reversed range).
    @Test func tinyScreensHugeScalesAndWildTopsDraw() {
        let painter = Painter(font: PSF2Font.system())
        let items = (0..<8).map { SheetItem(id: "\($0)", label: "row \($0)") }
        for (width, height) in [(1, 1), (2, 300), (14, 1920), (15, 40), (64, 64), (200, 120), (300, 2)] {
            let canvas = Canvas(width: width, height: height, format: .xrgb8888)
            for scale in [-1, 0, 0.25, 1, 16, 64, 1e300] {
                for top in [-1e19, -1, 0, Double(height) / 2, Double(height), 1e19] {
                    let list = ListState(titleBarHeightInPixels: 56 * scale, itemHeightInPixels: 48 * scale, scrollInPixels: 0,
                                         revision: 1, lifted: .init(item: "1", index: 1, offsetInPixels: 3, scale: 1.05, opacity: 0.9),
                                         othersScale: 0.97, moving: [])
                    let scene = SheetScene(width: width, height: height, scale: scale, top: top, dim: 0.5, progress: 1,
                                           title: "Settings", list: ListScene(list, items: items, zoom: 1, height: height))
                    painter.draw(scene, into: canvas)
                }
            }
        }
    }
}

@Suite struct ListPaintingTests {
    /// Values a broken or hostile daemon could publish (the wire takes any finite number): the
    /// painter clamps them and draws, neither trapping nor looping over a list of 10¹⁸ rows.
    @Test func aListWithAbsurdValuesDrawsWithoutTrapping() {
        let painter = Painter(font: PSF2Font.system())
        let canvas = Canvas(width: 64, height: 96, format: .rgb565)
        let items = (0..<1024).map { SheetItem(id: "\($0)", label: "row \($0) \(String(repeating: "é", count: 100))") }
        for value in [0, -1e300, 1e300, Double.leastNonzeroMagnitude, -0.0, 1e18] {
            let state = ListState(titleBarHeightInPixels: value, itemHeightInPixels: value, scrollInPixels: value, revision: 1,
                                  lifted: .init(item: "x", index: Int.max, offsetInPixels: value, scale: value, opacity: value),
                                  othersScale: value, moving: [.init(item: "y", index: 3, offsetInPixels: value)])
            var lifted = state
            lifted.lifted?.index = 2
            for list in [state, lifted] {
                let scene = SheetScene(width: 64, height: 96, scale: value.magnitude > 100 ? 16 : 1, top: 10, dim: 0.5, progress: 1,
                                       title: "t", list: ListScene(list, items: items, zoom: 1, height: 96))
                painter.draw(scene, into: canvas)
            }
        }
    }
}
