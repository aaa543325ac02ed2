import CDisplay
import SheetCore
import SheetProtocol
import SheetRenderKit
import Testing
@testable import RenderProgram

/// A framebuffer in memory, laid out as a driver would report it, that records its pans: the
/// fbdev backend's paging, copying and snapshot on a machine with no /dev/fb0 (the e2e VM runs
/// the same backend on the kernel's).
final class MemoryFramebuffer: FramebufferDevice {
    let path = "/dev/fb7"
    var fixed = fb_fix_screeninfo()
    var variable = fb_var_screeninfo()
    let memory: UnsafeMutableRawPointer
    /// The `yoffset` of every pan the driver took.
    var pans: [UInt32] = []
    var refusesPans = false

    init(width: Int, height: Int, format: PixelFormat = .xrgb8888, pages: Int, panStep: UInt16 = 1, bytes: Int? = nil) {
        variable.xres = UInt32(width)
        variable.yres = UInt32(height)
        variable.xres_virtual = UInt32(width)
        variable.yres_virtual = UInt32(height * pages)
        switch format {
        case .xrgb8888, .argb8888:
            variable.bits_per_pixel = 32
            (variable.red.offset, variable.red.length) = (16, 8)
            (variable.green.offset, variable.green.length) = (8, 8)
            (variable.blue.offset, variable.blue.length) = (0, 8)
        case .rgb565:
            variable.bits_per_pixel = 16
            (variable.red.offset, variable.red.length) = (11, 5)
            (variable.green.offset, variable.green.length) = (5, 6)
            (variable.blue.offset, variable.blue.length) = (0, 5)
        }
        let stride = width * format.bytesPerPixel + 64
        fixed.line_length = UInt32(stride)
        fixed.smem_len = UInt32(bytes ?? stride * height * pages)
        fixed.visual = UInt32(FB_VISUAL_TRUECOLOR)
        fixed.ypanstep = panStep
        memory = UnsafeMutableRawPointer.allocate(byteCount: Int(fixed.smem_len), alignment: 16)
        // What the console left: a pattern every frame must cover or keep.
        for offset in 0..<Int(fixed.smem_len) { memory.storeBytes(of: UInt8(truncatingIfNeeded: offset &* 7), toByteOffset: offset, as: UInt8.self) }
    }

    deinit { memory.deallocate() }

    func pan(_ variable: inout fb_var_screeninfo) -> Bool {
        guard !refusesPans else { return false }
        pans.append(variable.yoffset)
        self.variable.yoffset = variable.yoffset
        return true
    }

    /// Page `index` as a canvas.
    func page(_ index: Int, format: PixelFormat = .xrgb8888) -> Canvas {
        let stride = Int(fixed.line_length), height = Int(variable.yres)
        return Canvas(wrapping: memory + index * stride * height, width: Int(variable.xres), height: height, stride: stride, format: format)
    }
}

@Suite struct FramebufferBackendTests {
    static let width = 320, height = 240

    static func state(top: Double, detent: DetentName? = .half) -> SheetState {
        let hidden = detent == .hidden
        return SheetState(state: .resting, detent: detent, target: nil, topInPixels: top, progress: hidden ? 0 : 0.5,
                          dim: hidden ? 0 : 0.7, velocityInPixelsPerSecond: 0,
                          screen: ScreenSize(widthInPixels: width, heightInPixels: height, scale: 1), cause: .initial, detents: [])
    }

    /// What the painter draws for `state` on a screen of its own.
    static func drawn(_ state: SheetState, format: PixelFormat = .xrgb8888, look: Look = Look()) -> Canvas {
        let canvas = Canvas(width: width, height: height, format: format)
        Painter().draw(SheetScene(state, width: width, height: height, look: look), into: canvas)
        return canvas
    }

    static func same(_ a: Canvas, _ b: Canvas) -> Bool {
        for y in 0..<a.height { for x in 0..<a.width where a.pixel(x: x, y: y) != b.pixel(x: x, y: y) { return false } }
        return true
    }

    static func backend(_ device: MemoryFramebuffer, snapshot: Bool = false) throws(RenderError) -> FramebufferBackend {
        try FramebufferBackend(device: device, looks: Looks(backgroundPath: nil), painter: Painter(), snapshot: snapshot)
    }

    /// With room for two pages and panning, each frame is drawn into the page not shown and
    /// panned to; at the end the first page shows again, with the last frame on it.
    @Test func twoPagesAreDrawnOffScreenAndPannedTo() throws {
        let device = MemoryFramebuffer(width: Self.width, height: Self.height, pages: 2)
        let backend = try Self.backend(device)
        #expect(backend.method == "two pages, panned")
        #expect(device.pans == [0], "the probe")
        let first = Self.state(top: 120), second = Self.state(top: 100)
        #expect(try backend.show(first, content: nil) == .shown(rows: 0..<Self.height))
        #expect(device.pans == [0, UInt32(Self.height)])
        #expect(Self.same(device.page(1), Self.drawn(first)))
        _ = try backend.show(second, content: nil)
        #expect(device.pans.last == 0)
        #expect(Self.same(device.page(0), Self.drawn(second)))
        _ = try backend.show(first, content: nil)
        #expect(try backend.finish() == false)
        #expect(device.pans.last == 0 && Self.same(device.page(0), Self.drawn(first)), "the console's page shows the last frame")
    }

    /// Without a second page, frames go to a shadow and only the rows that changed reach the
    /// screen: the rest of the screen is not written.
    @Test func withOnePageOnlyTheChangedRowsAreCopied() throws {
        let device = MemoryFramebuffer(width: Self.width, height: Self.height, format: .rgb565, pages: 1)
        let backend = try Self.backend(device)
        #expect(backend.method == "shadow buffer, damaged rows copied")
        let first = Self.state(top: 120), second = Self.state(top: 116)
        _ = try backend.show(first, content: nil)
        #expect(Self.same(device.page(0, format: .rgb565), Self.drawn(first, format: .rgb565)))
        let before = Array(UnsafeRawBufferPointer(start: device.memory, count: Int(device.fixed.smem_len)))
        guard case .shown(let rows?) = try backend.show(second, content: nil) else {
            Issue.record("the move redrew nothing")
            return
        }
        #expect(rows.count < Self.height / 2, "\(rows)")
        #expect(Self.same(device.page(0, format: .rgb565), Self.drawn(second, format: .rgb565)))
        let stride = Int(device.fixed.line_length)
        let after = UnsafeRawBufferPointer(start: device.memory, count: Int(device.fixed.smem_len))
        for y in 0..<Self.height where !rows.contains(y) {
            #expect(after[y * stride..<(y + 1) * stride].elementsEqual(before[y * stride..<(y + 1) * stride]), "row \(y) was written")
        }
        #expect(try backend.show(second, content: nil) == .shown(rows: nil), "nothing changed, nothing drawn")
        #expect(device.pans.isEmpty)
    }

    /// A driver that refuses to pan gets the shadow, never a page it cannot show.
    @Test func aDriverThatDoesNotPanGetsTheShadow() throws {
        let device = MemoryFramebuffer(width: Self.width, height: Self.height, pages: 2)
        device.refusesPans = true
        #expect(try Self.backend(device).method == "shadow buffer, damaged rows copied")
        let flat = MemoryFramebuffer(width: Self.width, height: Self.height, pages: 2, panStep: 0)
        #expect(try Self.backend(flat).method == "shadow buffer, damaged rows copied")
    }

    /// A driver showing a page past its memory (a bad `yoffset`) is drawn on from the first
    /// page, never past the mapping.
    @Test func anOffsetPastTheMemoryDrawsOnTheFirstPage() throws {
        let device = MemoryFramebuffer(width: Self.width, height: Self.height, pages: 1)
        device.variable.yoffset = 5000
        let backend = try Self.backend(device)
        let state = Self.state(top: 120)
        _ = try backend.show(state, content: nil)
        #expect(Self.same(device.page(0), Self.drawn(state)))
    }

    /// With `--snapshot`, what was on the screen is the background under the dim while the
    /// sheet is open, and is put back when it hides; while hidden nothing is drawn.
    @Test func aSnapshotIsTheBackdropAndIsPutBack() throws {
        let device = MemoryFramebuffer(width: Self.width, height: Self.height, pages: 1)
        let backend = try Self.backend(device, snapshot: true)
        let console = Canvas(width: Self.width, height: Self.height, format: .xrgb8888)
        console.copy(rows: 0..<Self.height, from: device.page(0))
        let hidden = Self.state(top: Double(Self.height), detent: .hidden)
        #expect(try backend.show(hidden, content: nil) == .skipped, "the screen is left to whoever draws on it")
        let open = Self.state(top: 120)
        _ = try backend.show(open, content: nil)
        var look = Look()
        look.backdrop = Backdrop(width: Self.width, height: Self.height, rgb: console.rgbBytes())
        #expect(Self.same(device.page(0), Self.drawn(open, look: look)), "the sheet over what was there")
        _ = try backend.show(hidden, content: nil)
        #expect(Self.same(device.page(0), console), "what was there, put back")
    }

    /// Layouts it does not draw, and memory too small for the picture, are refused with the
    /// device and what is wrong.
    @Test func whatItCannotDrawIsRefusedByName() throws {
        let packed = MemoryFramebuffer(width: Self.width, height: Self.height, pages: 1)
        packed.variable.bits_per_pixel = 24
        #expect(throws: RenderError.self) { try Self.backend(packed) }
        do { _ = try Self.backend(packed) } catch {
            #expect(error.description.hasPrefix("/dev/fb7: 24 bits a pixel") && error.status == 69, "\(error)")
        }
        let paletted = MemoryFramebuffer(width: Self.width, height: Self.height, pages: 1)
        paletted.fixed.visual = UInt32(FB_VISUAL_PSEUDOCOLOR)
        do { _ = try Self.backend(paletted) } catch { #expect(error.description.contains("not a true-colour visual"), "\(error)") }
        let small = MemoryFramebuffer(width: Self.width, height: Self.height, pages: 1, bytes: 4096)
        do {
            _ = try Self.backend(small)
            Issue.record("a picture larger than its memory was taken")
        } catch {
            #expect(error.description.contains("does not fit its 4096 bytes"), "\(error)")
        }
    }

    /// The refresh rate the renderer asks the daemon for comes from the driver's timings; a
    /// driver that gives none, or numbers too large to multiply, is taken as 60.
    @Test func theRefreshRateIsTheTimings() throws {
        let device = MemoryFramebuffer(width: Self.width, height: Self.height, pages: 1)
        #expect(try Self.backend(device).refreshRate == 60, "no pixel clock")
        // 320x240, with blanking 400 pixels by 262 lines, a pixel every 159,000 ps (6.29 MHz):
        // 10^12 / (159,000 × 400 × 262) ≈ 60.0 Hz.
        (device.variable.left_margin, device.variable.right_margin, device.variable.hsync_len) = (40, 20, 20)
        (device.variable.upper_margin, device.variable.lower_margin, device.variable.vsync_len) = (12, 8, 2)
        device.variable.pixclock = 159_000
        #expect(try Self.backend(device).refreshRate == 60)
        device.variable.pixclock = 79_500
        #expect(try Self.backend(device).refreshRate == 120)
        (device.variable.left_margin, device.variable.upper_margin) = (UInt32.max, UInt32.max)
        device.variable.pixclock = UInt32.max
        #expect(try Self.backend(device).refreshRate == 60, "timings that overflow are unknown, not a trap")
        #expect(refreshRate(millihertz: 59_940) == 60 && refreshRate(millihertz: 0) == 60)
        #expect(refreshRate(millihertz: 10_000_000) == 1000 && refreshRate(millihertz: 100) == 1)
    }

    /// Devices that are not framebuffers, or not there, are named in the error.
    @Test func aDeviceThatIsNotAFramebufferIsNamed() throws {
        do {
            _ = try KernelFramebuffer(path: "/dev/null")
            Issue.record("/dev/null taken for a framebuffer")
        } catch {
            #expect(error.description.hasPrefix("/dev/null: not a framebuffer") && error.status == 69, "\(error)")
        }
        do {
            _ = try KernelFramebuffer(path: "/nonexistent/fb0")
            Issue.record("a missing device opened")
        } catch {
            #expect(error.description.hasPrefix("/nonexistent/fb0: "), "\(error)")
        }
        do {
            _ = try DRMBackend(device: try KernelDRM(path: "/dev/null"), format: .xrgb8888, looks: Looks(backgroundPath: nil), painter: Painter())
            Issue.record("/dev/null taken for a DRM device")
        } catch {
            #expect(error.description.hasPrefix("/dev/null: not a mode-setting device") && error.status == 69, "\(error)")
        }
    }
}
