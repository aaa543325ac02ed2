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
    private let device: DRMDevice
    private let output: DRMOutput
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
            return try DRMBackend(device: try KernelDRM(path: path), connector: connector, format: format, looks: looks, painter: painter)
        }
        var reasons: [String] = []
        for index in 0..<8 {
            let candidate = "/dev/dri/card\(index)"
            guard access(candidate, F_OK) == 0 else { continue }
            do {
                return try DRMBackend(device: try KernelDRM(path: candidate), connector: connector, format: format, looks: looks, painter: painter)
            } catch {
                reasons.append(error.description)
            }
        }
        throw .unavailable(reasons.isEmpty ? "no /dev/dri/card* device" : reasons.joined(separator: "; "))
    }

    init(device: DRMDevice, connector: String? = nil, format: PixelFormat, looks: Looks, painter: Painter) throws(RenderError) {
        self.device = device
        self.looks = looks
        self.painter = painter
        guard let resources = device.resources() else {
            throw .unavailable("\(device.path): not a mode-setting device (\(String(cString: strerror(errno))))")
        }
        guard let output = resources.pickOutput(named: connector) else {
            guard let connector else { throw .unavailable("\(device.path): no connected display") }
            let connected = resources.connectors.filter { $0.connected && !$0.modes.isEmpty }.map(\.name)
            throw .unavailable("\(device.path): no connected display on \(connector) (connected: \(connected.isEmpty ? "none" : connected.joined(separator: ", ")))")
        }
        self.output = output
        saved = device.crtcState(output.crtc)
        // A failure from here on is cleaned up by deinit.
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

    func finish() throws(RenderError) -> Bool {
        // Let a pending flip land before the buffers go.
        while flipping != nil {
            guard device.waitForEvent(milliseconds: 1000) else { break }
            _ = try handleEvent()
        }
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
