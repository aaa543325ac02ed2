#if canImport(Glibc)
import Glibc
#endif
import CDisplay
import SheetCore
import SheetProtocol
import SheetRenderKit

/// `--backend drm`: kernel mode setting through libdrm. Two dumb buffers; each frame is drawn
/// into the one not on screen (only the rows that changed since that buffer last showed) and
/// flipped to at the next vertical blank, so nothing tears and at most one frame a refresh is
/// drawn. The CRTC's previous configuration (the console, another program's picture) is put
/// back on exit.
final class DRMBackend: Backend {
    let name = "drm"
    let path: String
    private let descriptor: Int32
    private let connector: UInt32
    private let crtc: UInt32
    private var mode: drmModeModeInfo
    private let saved: UnsafeMutablePointer<drmModeCrtc>?
    private var buffers: [DumbBuffer] = []
    private var front = 0
    private var flipping: Int?
    private var flipTime: Int64?
    private var flipsWork = true
    private let painter: Painter
    private let looks: Looks
    private var configured = false

    var displaySize: (width: Int, height: Int)? { (Int(mode.hdisplay), Int(mode.vdisplay)) }
    var refreshRate: Int? { RenderProgram.refreshRate(millihertz: Int64(mode.vrefresh) * 1000) }
    var eventDescriptor: Int32? { descriptor }
    var isReady: Bool { flipping == nil }
    var method: String { flipsWork ? "two dumb buffers, page flips on vblank" : "two dumb buffers, set directly (no page flips)" }

    /// One dumb buffer: the kernel's memory, a framebuffer object over it and our mapping.
    struct DumbBuffer {
        var handle: UInt32 = 0
        var framebuffer: UInt32 = 0
        var size = 0
        var map: UnsafeMutableRawPointer?
        var canvas: Canvas?
        /// What the buffer holds, for damage.
        var scene: SheetScene?
    }

    /// Opens `path`, or the first of /dev/dri/card0…7 with a connected display.
    static func open(path: String?, format: PixelFormat, looks: Looks, painter: Painter) throws(RenderError) -> DRMBackend {
        if let path { return try DRMBackend(path: path, format: format, looks: looks, painter: painter) }
        var reasons: [String] = []
        for index in 0..<8 {
            let candidate = "/dev/dri/card\(index)"
            guard access(candidate, F_OK) == 0 else { continue }
            do { return try DRMBackend(path: candidate, format: format, looks: looks, painter: painter) } catch { reasons.append(error.description) }
        }
        throw .unavailable(reasons.isEmpty ? "no /dev/dri/card* device" : reasons.joined(separator: "; "))
    }

    init(path: String, format: PixelFormat, looks: Looks, painter: Painter) throws(RenderError) {
        self.path = path
        self.looks = looks
        self.painter = painter
        descriptor = Glibc.open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system(path, status: 69) }
        var found: (connector: UInt32, crtc: UInt32, mode: drmModeModeInfo)?
        do {
            found = try Self.pickOutput(descriptor, path: path)
        } catch {
            close(descriptor)
            throw error
        }
        connector = found!.connector
        crtc = found!.crtc
        mode = found!.mode
        saved = drmModeGetCrtc(descriptor, crtc)
        // A failure from here on is cleaned up by deinit.
        for _ in 0..<2 { buffers.append(try makeBuffer(format: format)) }
    }

    deinit { release() }

    /// The first connected connector with a mode, its preferred mode, and a CRTC that can
    /// drive it (the one its encoder has now, else the first its encoders allow).
    private static func pickOutput(_ fd: Int32, path: String) throws(RenderError) -> (UInt32, UInt32, drmModeModeInfo) {
        guard let resources = drmModeGetResources(fd) else {
            throw .unavailable("\(path): not a mode-setting device (\(String(cString: strerror(errno))))")
        }
        defer { drmModeFreeResources(resources) }
        let crtcs = Array(UnsafeBufferPointer(start: resources.pointee.crtcs, count: Int(resources.pointee.count_crtcs)))
        for id in UnsafeBufferPointer(start: resources.pointee.connectors, count: Int(resources.pointee.count_connectors)) {
            guard let connector = drmModeGetConnector(fd, id) else { continue }
            defer { drmModeFreeConnector(connector) }
            let c = connector.pointee
            guard c.connection == DRM_MODE_CONNECTED, c.count_modes > 0 else { continue }
            let modes = UnsafeBufferPointer(start: c.modes, count: Int(c.count_modes))
            let mode = modes.first { $0.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 } ?? modes[0]
            if c.encoder_id != 0, let encoder = drmModeGetEncoder(fd, c.encoder_id) {
                let current = encoder.pointee.crtc_id
                drmModeFreeEncoder(encoder)
                if current != 0 { return (id, current, mode) }
            }
            for encoderID in UnsafeBufferPointer(start: c.encoders, count: Int(c.count_encoders)) {
                guard let encoder = drmModeGetEncoder(fd, encoderID) else { continue }
                let possible = encoder.pointee.possible_crtcs
                drmModeFreeEncoder(encoder)
                if let index = crtcs.indices.first(where: { possible & (1 << UInt32($0)) != 0 }) {
                    return (id, crtcs[index], mode)
                }
            }
        }
        throw .unavailable("\(path): no connected display")
    }

    private func makeBuffer(format: PixelFormat) throws(RenderError) -> DumbBuffer {
        var buffer = DumbBuffer()
        let width = UInt32(mode.hdisplay), height = UInt32(mode.vdisplay)
        let bits = UInt32(format.bytesPerPixel * 8)
        var pitch: UInt32 = 0, size: UInt64 = 0
        guard drmModeCreateDumbBuffer(descriptor, width, height, bits, 0, &buffer.handle, &pitch, &size) == 0 else {
            throw .system("\(path): a \(width)x\(height) dumb buffer", status: 69)
        }
        buffer.size = Int(size)
        let depth: UInt8 = format == .xrgb8888 ? 24 : 16
        guard drmModeAddFB(descriptor, width, height, depth, UInt8(bits), pitch, buffer.handle, &buffer.framebuffer) == 0 else {
            let failure = RenderError.system("\(path): a framebuffer of \(format.rawValue)", status: 69)
            drmModeDestroyDumbBuffer(descriptor, buffer.handle)
            throw failure
        }
        var offset: UInt64 = 0
        guard drmModeMapDumbBuffer(descriptor, buffer.handle, &offset) == 0,
              let map = mmap(nil, buffer.size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, off_t(offset)),
              map != MAP_FAILED else {
            let failure = RenderError.system("\(path): mapping a dumb buffer", status: 69)
            drmModeRmFB(descriptor, buffer.framebuffer)
            drmModeDestroyDumbBuffer(descriptor, buffer.handle)
            throw failure
        }
        buffer.map = map
        buffer.canvas = Canvas(wrapping: map, width: Int(width), height: Int(height), stride: Int(pitch), format: format)
        return buffer
    }

    func show(_ state: SheetState, content: SheetContent?) throws(RenderError) -> Presentation {
        precondition(flipping == nil, "a frame while a flip is pending")
        let (width, height) = (Int(mode.hdisplay), Int(mode.vdisplay))
        let scene = SheetScene(state, width: width, height: height, content: content, look: try looks.look(width: width, height: height))
        // The first frame goes into the buffer that is set on the CRTC; later ones into the back one.
        let target = configured ? 1 - front : front
        let rows = scene.damage(since: buffers[target].scene)
        if let rows { painter.draw(scene, into: buffers[target].canvas!, rows: rows) }
        buffers[target].scene = scene
        if !configured {
            var connectorID = connector
            guard drmModeSetCrtc(descriptor, crtc, buffers[target].framebuffer, 0, 0, &connectorID, 1, &mode) == 0 else {
                throw .system("\(path): setting mode \(width)x\(height) (is another program the display's master?)", status: 69)
            }
            configured = true
            return .shown(rows: rows)
        }
        if rows == nil && buffers[target].scene == buffers[front].scene { return .shown(rows: nil) }
        if flipsWork {
            let context = Unmanaged.passUnretained(self).toOpaque()
            if drmModePageFlip(descriptor, crtc, buffers[target].framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), context) == 0 {
                flipping = target
                return .queued(rows: rows)
            }
            // A driver without page flips: set the buffer directly from now on (it may tear).
            flipsWork = false
        }
        var connectorID = connector
        guard drmModeSetCrtc(descriptor, crtc, buffers[target].framebuffer, 0, 0, &connectorID, 1, &mode) == 0 else {
            throw .system("\(path): showing a frame")
        }
        front = target
        return .shown(rows: rows)
    }

    func handleEvent() throws(RenderError) -> Int64? {
        var context = drmEventContext()
        context.version = 2
        context.page_flip_handler = { _, _, seconds, microseconds, data in
            guard let data else { return }
            let backend = Unmanaged<DRMBackend>.fromOpaque(data).takeUnretainedValue()
            backend.flipTime = Int64(seconds) * 1_000_000 + Int64(microseconds)
        }
        flipTime = nil
        guard drmHandleEvent(descriptor, &context) == 0 else { throw .system("\(path): reading display events") }
        guard let shown = flipTime, let target = flipping else { return nil }
        front = target
        flipping = nil
        return shown
    }

    func finish() throws(RenderError) -> Bool {
        // Let a pending flip land before the buffers go.
        while flipping != nil {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 1000) > 0 else { break }
            _ = try handleEvent()
        }
        if let saved, configured {
            var connectorID = connector
            var previous = saved.pointee
            if previous.mode_valid != 0 {
                drmModeSetCrtc(descriptor, previous.crtc_id, previous.buffer_id, previous.x, previous.y, &connectorID, 1, &previous.mode)
            } else {
                drmModeSetCrtc(descriptor, crtc, 0, 0, 0, nil, 0, nil)
            }
        }
        configured = false
        return false
    }

    private func release() {
        for buffer in buffers {
            if let map = buffer.map { munmap(map, buffer.size) }
            if buffer.framebuffer != 0 { drmModeRmFB(descriptor, buffer.framebuffer) }
            if buffer.handle != 0 { drmModeDestroyDumbBuffer(descriptor, buffer.handle) }
        }
        buffers = []
        if let saved { drmModeFreeCrtc(saved) }
        if descriptor >= 0 { close(descriptor) }
    }
}
