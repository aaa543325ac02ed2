#if canImport(Glibc)
import Glibc
#endif
import CDisplay
import SheetCore
import SheetProtocol
import SheetRenderKit

/// `--backend fbdev`: a Linux framebuffer (`/dev/fbN`). The pixel layout comes from the
/// driver (bit depth, the red, green and blue bit fields, the line length); XRGB8888 and
/// RGB565 are drawn directly. When the driver offers a second page (a virtual height of at
/// least twice the visible one, and vertical panning), each frame is drawn off screen and
/// panned to; otherwise frames are drawn into a shadow buffer in memory and only the rows that
/// changed are copied to the screen, so the screen never shows a half-drawn frame row.
///
/// With `snapshot`, what is on the framebuffer when the sheet opens becomes the background
/// under the dim, and it is put back when the sheet is hidden again; while hidden the screen is
/// left to whoever else draws on it.
final class FramebufferBackend: Backend {
    let name = "fbdev"
    var path: String { device.path }
    private let device: FramebufferDevice
    private var variable: fb_var_screeninfo
    private let width: Int, height: Int, stride: Int
    private let format: PixelFormat
    /// Page-flipping: the two pages and which one shows. Otherwise a shadow canvas.
    private var pages: [Canvas] = []
    private var pageScenes: [SheetScene?] = [nil, nil]
    private var visiblePage = 0
    private var shadow: Canvas?
    private var shadowScene: SheetScene?
    /// Without pages: the visible framebuffer, which the shadow's damaged rows are copied to.
    private var visible: Canvas?
    private let painter: Painter
    private let looks: Looks
    private let snapshot: Bool
    private var snapshotLook: Look?

    var displaySize: (width: Int, height: Int)? { (width, height) }
    /// From the driver's timings: a pixel clock (picoseconds a pixel) over the whole frame,
    /// blanking included; 60 when the driver gives none.
    var refreshRate: Int? {
        let v = variable
        let across = Int64(v.xres) + Int64(v.left_margin) + Int64(v.right_margin) + Int64(v.hsync_len)
        let down = Int64(v.yres) + Int64(v.upper_margin) + Int64(v.lower_margin) + Int64(v.vsync_len)
        // A frame's picoseconds; timings too large for that (whatever a driver says) are unknown.
        let line = Int64(v.pixclock).multipliedReportingOverflow(by: across)
        let frame = line.partialValue.multipliedReportingOverflow(by: down)
        guard !line.overflow, !frame.overflow, frame.partialValue > 0 else { return 60 }
        return RenderProgram.refreshRate(millihertz: 1_000_000_000_000_000 / frame.partialValue)
    }
    /// How frames reach the screen, for the log.
    var method: String { pages.isEmpty ? "shadow buffer, damaged rows copied" : "two pages, panned" }

    convenience init(path: String, looks: Looks, painter: Painter, snapshot: Bool) throws(RenderError) {
        try self.init(device: KernelFramebuffer(path: path), looks: looks, painter: painter, snapshot: snapshot)
    }

    init(device: FramebufferDevice, looks: Looks, painter: Painter, snapshot: Bool) throws(RenderError) {
        self.device = device
        self.looks = looks
        self.painter = painter
        self.snapshot = snapshot
        let path = device.path, fixed = device.fixed, variable = device.variable
        let layout = (variable.bits_per_pixel, variable.red.offset, variable.red.length, variable.green.offset,
                      variable.green.length, variable.blue.offset, variable.blue.length)
        switch layout {
        case (32, 16, 8, 8, 8, 0, 8): format = .xrgb8888
        case (16, 11, 5, 5, 6, 0, 5): format = .rgb565
        default:
            throw .unavailable("\(path): \(variable.bits_per_pixel) bits a pixel with red \(variable.red.offset)/\(variable.red.length), green \(variable.green.offset)/\(variable.green.length), blue \(variable.blue.offset)/\(variable.blue.length) (offset/length); XRGB8888 and RGB565 are drawn")
        }
        guard fixed.visual == FB_VISUAL_TRUECOLOR else {
            throw .unavailable("\(path): not a true-colour visual (\(fixed.visual))")
        }
        width = Int(variable.xres)
        height = Int(variable.yres)
        stride = Int(fixed.line_length)
        let mapSize = Int(fixed.smem_len)
        guard width > 0, height > 0, stride >= width * format.bytesPerPixel, mapSize >= stride * height else {
            throw .unavailable("\(path): \(width)x\(height) with \(stride) bytes a line does not fit its \(mapSize) bytes of memory")
        }
        let mapped = device.memory
        self.variable = variable

        // A second page when the driver has room for one and pans to it.
        let pageBytes = stride * height
        if Int(variable.yres_virtual) >= 2 * height, fixed.ypanstep > 0, mapSize >= 2 * pageBytes {
            var probe = variable
            probe.xoffset = 0
            probe.yoffset = 0
            if device.pan(&probe) {
                self.variable = probe
                pages = (0..<2).map { Canvas(wrapping: mapped + $0 * pageBytes, width: width, height: height, stride: stride, format: format) }
            }
        }
        if pages.isEmpty {
            shadow = Canvas(width: width, height: height, format: format)
            // The page the driver shows now, if it fits in the memory; else the first.
            let offset = Int(variable.yoffset) * stride
            let shown = offset + pageBytes <= mapSize ? offset : 0
            visible = Canvas(wrapping: mapped + shown, width: width, height: height, stride: stride, format: format)
        }
    }

    /// What the visible page shows.
    private var screen: Canvas { visible ?? pages[visiblePage] }

    private func look(hidden: Bool) throws(RenderError) -> Look? {
        guard snapshot else { return try looks.look(width: width, height: height) }
        if snapshotLook == nil && !hidden {
            // The sheet opens: keep what is on screen now.
            var look = Look()
            look.prefersDark = looks.prefersDark
            look.backdrop = Backdrop(width: width, height: height, rgb: screen.rgbBytes())
            snapshotLook = look
        }
        return snapshotLook
    }

    func show(_ state: SheetState, content: SheetContent?) throws(RenderError) -> Presentation {
        let hidden = state.state == .resting && state.progress <= 0 && state.dim <= 0
        guard let look = try look(hidden: hidden) else { return .skipped }
        let scene = SheetScene(state, width: width, height: height, content: content, look: look)
        if snapshot && hidden {
            // Put back what was there (the hidden scene over the snapshot is the snapshot), then
            // forget it: the next opening takes a fresh one.
            snapshotLook = nil
        }
        if pages.isEmpty {
            let shadow = shadow!
            guard let rows = scene.damage(since: shadowScene) else { return .shown(rows: nil) }
            painter.draw(scene, into: shadow, rows: rows)
            shadowScene = scene
            screen.copy(rows: rows, from: shadow)
            if snapshot && hidden { shadowScene = nil }
            return .shown(rows: rows)
        }
        let back = 1 - visiblePage
        let rows = scene.damage(since: pageScenes[back])
        if let rows { painter.draw(scene, into: pages[back], rows: rows) }
        pageScenes[back] = scene
        var pan = variable
        pan.yoffset = UInt32(back * height)
        guard device.pan(&pan) else { throw .system("\(path): panning to the second page") }
        variable = pan
        visiblePage = back
        if snapshot && hidden { pageScenes = [nil, nil] }
        return .shown(rows: rows)
    }

    func finish() throws(RenderError) -> Bool {
        // Leave the first page showing, as the console expects.
        if !pages.isEmpty && visiblePage != 0 {
            pages[0].copy(rows: 0..<height, from: pages[visiblePage])
            var pan = variable
            pan.yoffset = 0
            _ = device.pan(&pan)
        }
        return false
    }
}

/// A framebuffer's system calls, wrapped once: the layout its driver reports, its memory, and
/// panning to a page.
protocol FramebufferDevice: AnyObject {
    var path: String { get }
    var fixed: fb_fix_screeninfo { get }
    /// The variable information as it was when the device was opened.
    var variable: fb_var_screeninfo { get }
    /// The framebuffer's memory, `fixed.smem_len` bytes.
    var memory: UnsafeMutableRawPointer { get }
    /// FBIOPAN_DISPLAY: shows the page at `variable.yoffset`; false when the driver refuses.
    func pan(_ variable: inout fb_var_screeninfo) -> Bool
}

/// `/dev/fbN`: opened, asked for its layout and mapped; unmapped and closed with the backend.
final class KernelFramebuffer: FramebufferDevice {
    let path: String
    let fixed: fb_fix_screeninfo
    let variable: fb_var_screeninfo
    let memory: UnsafeMutableRawPointer
    private let descriptor: Int32

    init(path: String) throws(RenderError) {
        self.path = path
        descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system(path, status: 69) }
        var fixed = fb_fix_screeninfo()
        var variable = fb_var_screeninfo()
        guard sheet_fb_get_fix(descriptor, &fixed) == 0, sheet_fb_get_var(descriptor, &variable) == 0 else {
            let failure = RenderError.system("\(path): not a framebuffer", status: 69)
            close(descriptor)
            throw failure
        }
        let size = Int(fixed.smem_len)
        guard size > 0, let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), mapped != MAP_FAILED else {
            let failure = RenderError.system("\(path): mapping \(size) bytes", status: 69)
            close(descriptor)
            throw failure
        }
        self.fixed = fixed
        self.variable = variable
        memory = mapped
    }

    deinit {
        munmap(memory, Int(fixed.smem_len))
        close(descriptor)
    }

    func pan(_ variable: inout fb_var_screeninfo) -> Bool {
        sheet_fb_pan(descriptor, &variable) == 0
    }
}
