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
/// back on exit. A display unplugged is drawn nothing until it is back; plugged again (or
/// another in its place), its mode is set anew and what it shows drawn whole, at its size.
final class DRMBackend: Backend {
    let name = "drm"
    private let device: DRMDevice
    private var output: DRMOutput
    /// udev's word of displays plugged in or out of the card; nil when not listened to.
    private let hotplug: DisplayHotplug?
    /// Why displays plugged in or out are not heard (`hotplug` is nil on a real card), for the log.
    private(set) var hotplugUnheard: String?
    /// Whether the display is plugged in (as last probed).
    private var plugged = true
    /// What the CRTC showed before, put back by `finish`.
    private let saved: drmModeCrtc?
    private var buffers: [DumbBuffer] = []
    private var front = 0
    private var flipping: Int?
    private var flipsWork = true
    private let painter: Painter
    private let looks: Looks
    private var configured = false

    var path: String { device.path }
    var displaySize: (width: Int, height: Int)? { (Int(output.mode.hdisplay), Int(output.mode.vdisplay)) }
    var refreshRate: Int? { RenderProgram.refreshRate(millihertz: Int64(output.mode.vrefresh) * 1000) }
    var eventDescriptor: Int32? { device.descriptor }
    var isReady: Bool { flipping == nil }
    /// Where it draws: the card and the connector (`/dev/dri/card1, Virtual-1`).
    var place: String { "\(device.path), \(output.name)" }
    var method: String { flipsWork ? "two dumb buffers, page flips on vblank" : "two dumb buffers, set directly (no page flips)" }

    /// One dumb buffer, the canvas over its mapping and what it holds (for damage).
    struct DumbBuffer {
        var buffer: DRMBuffer
        var canvas: Canvas
        var scene: SheetScene?
    }

    /// Opens `path`, or the first of /dev/dri/card0…7 with a connected display (with the
    /// connector named `connector` when one is named).
    static func open(path: String?, connector: String? = nil, format: PixelFormat, looks: Looks,
                     painter: Painter) throws(RenderError) -> DRMBackend {
        if let path {
            return try DRMBackend(kernel: try KernelDRM(path: path), connector: connector, format: format, looks: looks, painter: painter)
        }
        var reasons: [String] = []
        for index in 0..<8 {
            let candidate = "/dev/dri/card\(index)"
            guard access(candidate, F_OK) == 0 else { continue }
            do {
                return try DRMBackend(kernel: try KernelDRM(path: candidate), connector: connector, format: format, looks: looks, painter: painter)
            } catch {
                reasons.append(error.description)
            }
        }
        throw .unavailable(reasons.isEmpty ? "no /dev/dri/card* device" : reasons.joined(separator: "; "))
    }

    /// A card of the kernel's, with udev listened to for its displays plugged in or out.
    private convenience init(kernel device: KernelDRM, connector: String?, format: PixelFormat, looks: Looks,
                             painter: Painter) throws(RenderError) {
        let hotplug = DisplayHotplug(cardDescriptor: device.descriptor)
        let unheard = hotplug == nil ? String(cString: strerror(errno)) : nil
        try self.init(device: device, connector: connector, format: format, looks: looks, painter: painter, hotplug: hotplug)
        if let unheard {
            hotplugUnheard = "udev cannot be listened to (\(unheard)): a display unplugged and plugged again is not noticed"
        }
    }

    init(device: DRMDevice, connector: String? = nil, format: PixelFormat, looks: Looks, painter: Painter,
         hotplug: DisplayHotplug? = nil) throws(RenderError) {
        self.device = device
        self.looks = looks
        self.painter = painter
        self.hotplug = hotplug
        guard let resources = device.resources() else {
            throw .unavailable("\(device.path): not a mode-setting device (\(String(cString: strerror(errno))))")
        }
        guard let output = resources.pickOutput(named: connector) else {
            guard let connector else { throw .unavailable("\(device.path): no connected display") }
            let connected = resources.connectors.filter { $0.connected && !$0.modes.isEmpty }.map(\.name)
            throw .unavailable("\(device.path): no connected display on \(connector) (connected: \(connected.isEmpty ? "none" : connected.joined(separator: ", ")))")
        }
        self.output = output
        self.format = format
        saved = device.crtcState(output.crtc)
        // A failure from here on is cleaned up by deinit.
        try makeBuffers()
    }

    private let format: PixelFormat

    /// Two buffers of the mode's size.
    private func makeBuffers() throws(RenderError) {
        let (width, height) = (Int(output.mode.hdisplay), Int(output.mode.vdisplay))
        for _ in 0..<2 {
            let buffer = try device.makeBuffer(width: width, height: height, format: format)
            buffers.append(DumbBuffer(buffer: buffer, canvas: Canvas(wrapping: buffer.map!, width: width, height: height,
                                                                     stride: buffer.pitch, format: format)))
        }
    }

    deinit {
        for buffer in buffers { device.destroyBuffer(buffer.buffer) }
    }

    func show(_ state: SheetState, content: SheetContent?) throws(RenderError) -> Presentation {
        precondition(flipping == nil, "a frame while a flip is pending")
        guard plugged else { return .skipped }
        let (width, height) = (Int(output.mode.hdisplay), Int(output.mode.vdisplay))
        let scene = SheetScene(state, width: width, height: height, content: content, look: try looks.look(width: width, height: height))
        // The first frame goes into the buffer that is set on the CRTC; later ones into the back one.
        let target = configured ? 1 - front : front
        let rows = scene.damage(since: buffers[target].scene)
        if let rows { painter.draw(scene, into: buffers[target].canvas, rows: rows) }
        buffers[target].scene = scene
        if !configured {
            guard device.setCRTC(output.crtc, framebuffer: buffers[target].buffer.framebuffer, x: 0, y: 0,
                                 connectors: [output.connector], mode: output.mode) else {
                throw .system("\(path): setting mode \(width)x\(height) (is another program the display's master?)", status: 69)
            }
            configured = true
            return .shown(rows: rows)
        }
        if rows == nil && buffers[target].scene == buffers[front].scene { return .shown(rows: nil) }
        if flipsWork {
            if device.pageFlip(output.crtc, framebuffer: buffers[target].buffer.framebuffer) {
                flipping = target
                return .queued(rows: rows)
            }
            // A driver without page flips: set the buffer directly from now on (it may tear).
            flipsWork = false
        }
        guard device.setCRTC(output.crtc, framebuffer: buffers[target].buffer.framebuffer, x: 0, y: 0,
                             connectors: [output.connector], mode: output.mode) else {
            throw .system("\(path): showing a frame")
        }
        front = target
        return .shown(rows: rows)
    }

    func handleEvent() throws(RenderError) -> Int64? {
        guard let shown = try device.readEvents(), let target = flipping else { return nil }
        front = target
        flipping = nil
        return shown
    }

    var hotplugDescriptor: Int32? { hotplug?.descriptor }

    func handleHotplug() throws(RenderError) -> DisplayChange? {
        guard let hotplug, hotplug.take() else { return nil }
        return try probeAgain()
    }

    /// Probes its connector again (only its own), once udev said a display of the card came or
    /// went: gone, nothing is drawn (the CRTC is left as it is); back, or another in its place,
    /// its mode is set with the next frame, drawn whole, on buffers of the new size if it has one.
    func probeAgain() throws(RenderError) -> DisplayChange? {
        guard let mode = device.connector(output.connector)?.modeToSet else {
            guard plugged else { return nil }
            plugged = false
            return .unplugged
        }
        let current = output.mode
        let sameSize = mode.hdisplay == current.hdisplay && mode.vdisplay == current.vdisplay
        if plugged, sameSize, mode.vrefresh == current.vrefresh, mode.clock == current.clock { return nil }
        waitForPendingFlip()
        output.mode = mode
        if !sameSize {
            for buffer in buffers { device.destroyBuffer(buffer.buffer) }
            buffers.removeAll()
            try makeBuffers()
        }
        for index in buffers.indices { buffers[index].scene = nil }
        front = 0
        configured = false
        plugged = true
        return .plugged
    }

    /// Lets a pending flip land before its buffers are set or go.
    private func waitForPendingFlip() {
        while flipping != nil {
            guard device.waitForEvent(milliseconds: 1000) else {
                flipping = nil
                return
            }
            _ = try? handleEvent()
        }
    }

    func finish() throws(RenderError) -> Bool {
        waitForPendingFlip()
        if let saved, configured {
            if saved.mode_valid != 0 {
                _ = device.setCRTC(saved.crtc_id, framebuffer: saved.buffer_id, x: saved.x, y: saved.y,
                                   connectors: [output.connector], mode: saved.mode)
            } else {
                _ = device.setCRTC(output.crtc, framebuffer: 0, x: 0, y: 0, connectors: [], mode: nil)
            }
        }
        configured = false
        return false
    }
}
