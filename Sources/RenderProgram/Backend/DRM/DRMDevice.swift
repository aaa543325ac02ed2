#if canImport(Glibc)
import Glibc
#endif
import CDisplay
import SheetRenderKit
import SheetSystem

/// What a mode-setting device has, as values: its CRTCs, its connectors with their modes and
/// encoders, and which CRTCs each encoder drives now or can drive.
struct DRMResources {
    struct Connector {
        var id: UInt32
        var connected: Bool
        var modes: [drmModeModeInfo]
        /// The encoder driving it now, 0 for none.
        var encoder: UInt32
        var encoders: [UInt32]
        /// As the kernel names it (`HDMI-A-1`, `DSI-1`, `Virtual-1`): its type and number.
        var name = ""

        /// The mode to draw in when a display is connected: its preferred one, else its first.
        var modeToSet: drmModeModeInfo? {
            guard connected else { return nil }
            return modes.first(where: { $0.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 }) ?? modes.first
        }
    }

    struct Encoder {
        /// The CRTC it drives now, 0 for none.
        var crtc: UInt32
        /// Bit i: it can drive `crtcs[i]`.
        var possibleCRTCs: UInt32
    }

    var crtcs: [UInt32] = []
    var connectors: [Connector] = []
    var encoders: [UInt32: Encoder] = [:]

    /// The output to draw on: the connector `named` (`--connector`), else the first connected
    /// connector with a mode; its preferred mode (else its first), and a CRTC that drives it —
    /// the one its encoder has now, else the first one its encoders can drive. nil when no
    /// display (or not the one named) is connected.
    func pickOutput(named: String? = nil) -> DRMOutput? {
        for connector in connectors where named == nil || connector.name == named {
            guard let mode = connector.modeToSet else { continue }
            if let current = encoders[connector.encoder]?.crtc, current != 0 {
                return DRMOutput(connector: connector.id, name: connector.name, crtc: current, mode: mode)
            }
            for id in connector.encoders {
                guard let possible = encoders[id]?.possibleCRTCs else { continue }
                if let index = crtcs.indices.first(where: { $0 < 32 && possible & (1 << UInt32($0)) != 0 }) {
                    return DRMOutput(connector: connector.id, name: connector.name, crtc: crtcs[index], mode: mode)
                }
            }
        }
        return nil
    }
}

/// A connector, the CRTC that drives it and the mode to set.
struct DRMOutput {
    var connector: UInt32
    /// The connector's name (`HDMI-A-1`), for the log.
    var name = ""
    var crtc: UInt32
    var mode: drmModeModeInfo
}

/// A dumb buffer: the kernel's memory, the framebuffer object over it and its mapping.
struct DRMBuffer {
    var handle: UInt32 = 0
    var framebuffer: UInt32 = 0
    var pitch = 0
    var size = 0
    var map: UnsafeMutableRawPointer?
}

/// A mode-setting device's calls, wrapped once: what it has, dumb buffers, setting a CRTC,
/// page flips and the events that say one landed. `KernelDRM` is /dev/dri/cardN; the tests
/// stand a device in memory in its place.
protocol DRMDevice: AnyObject {
    var path: String { get }
    /// Readable when a page flip landed.
    var descriptor: Int32 { get }
    /// nil when it is not a mode-setting device (errno says why).
    func resources() -> DRMResources?
    /// The connector `id`, probed again (its display's modes read anew), or nil.
    func connector(_ id: UInt32) -> DRMResources.Connector?
    /// What `crtc` shows now (to put back on exit), or nil.
    func crtcState(_ crtc: UInt32) -> drmModeCrtc?
    /// A `width` x `height` buffer of `format`, with a framebuffer over it, mapped; a failure
    /// says which step failed (errno) and leaves nothing behind.
    func makeBuffer(width: Int, height: Int, format: PixelFormat) throws(RenderError) -> DRMBuffer
    func destroyBuffer(_ buffer: DRMBuffer)
    /// drmModeSetCrtc: `framebuffer` on `crtc` for `connectors` in `mode`; framebuffer 0 and no
    /// mode turn the CRTC off. False when the driver refuses (errno says why).
    func setCRTC(_ crtc: UInt32, framebuffer: UInt32, x: UInt32, y: UInt32, connectors: [UInt32], mode: drmModeModeInfo?) -> Bool
    /// Queues `framebuffer` for the next vertical blank, with an event when it shows; false
    /// when the driver cannot.
    func pageFlip(_ crtc: UInt32, framebuffer: UInt32) -> Bool
    /// Reads the device's events: the CLOCK_MONOTONIC microsecond at which a queued flip
    /// showed, or nil when none did.
    func readEvents() throws(RenderError) -> Int64?
    /// Waits up to `milliseconds` for an event; false when none came.
    func waitForEvent(milliseconds: Int32) -> Bool
}

/// `/dev/dri/cardN` through libdrm.
final class KernelDRM: DRMDevice {
    let path: String
    let descriptor: Int32
    /// Set by the page-flip handler during `readEvents`.
    private var flipTime: Int64?

    init(path: String) throws(RenderError) {
        self.path = path
        descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system(path, status: 69) }
    }

    deinit { close(descriptor) }

    func resources() -> DRMResources? {
        guard let handle = drmModeGetResources(descriptor) else { return nil }
        defer { drmModeFreeResources(handle) }
        var resources = DRMResources()
        resources.crtcs = Array(UnsafeBufferPointer(start: handle.pointee.crtcs, count: Int(handle.pointee.count_crtcs)))
        for id in UnsafeBufferPointer(start: handle.pointee.connectors, count: Int(handle.pointee.count_connectors)) {
            guard let connector = connector(id) else { continue }
            resources.connectors.append(connector)
            for encoderID in connector.encoders + [connector.encoder] where encoderID != 0 && resources.encoders[encoderID] == nil {
                guard let encoder = drmModeGetEncoder(descriptor, encoderID) else { continue }
                resources.encoders[encoderID] = DRMResources.Encoder(crtc: encoder.pointee.crtc_id,
                                                                     possibleCRTCs: encoder.pointee.possible_crtcs)
                drmModeFreeEncoder(encoder)
            }
        }
        return resources
    }

    func connector(_ id: UInt32) -> DRMResources.Connector? {
        guard let connector = drmModeGetConnector(descriptor, id) else { return nil }
        defer { drmModeFreeConnector(connector) }
        let c = connector.pointee
        return DRMResources.Connector(id: id, connected: c.connection == DRM_MODE_CONNECTED,
                                      modes: Array(UnsafeBufferPointer(start: c.modes, count: Int(c.count_modes))),
                                      encoder: c.encoder_id, encoders: Array(UnsafeBufferPointer(start: c.encoders, count: Int(c.count_encoders))),
                                      name: Self.name(type: c.connector_type, number: c.connector_type_id))
    }

    /// A connector's name as the kernel makes it (and /sys/class/drm shows it): libdrm's name
    /// of its type, a dash, its number of that type.
    static func name(type: UInt32, number: UInt32) -> String {
        let typeName = drmModeGetConnectorTypeName(type).map { String(cString: $0) } ?? "Unknown\(type)"
        return "\(typeName)-\(number)"
    }

    func crtcState(_ crtc: UInt32) -> drmModeCrtc? {
        guard let state = drmModeGetCrtc(descriptor, crtc) else { return nil }
        defer { drmModeFreeCrtc(state) }
        return state.pointee
    }

    func makeBuffer(width: Int, height: Int, format: PixelFormat) throws(RenderError) -> DRMBuffer {
        var buffer = DRMBuffer()
        let bits = UInt32(format.bytesPerPixel * 8)
        var pitch: UInt32 = 0, size: UInt64 = 0
        guard drmModeCreateDumbBuffer(descriptor, UInt32(width), UInt32(height), bits, 0, &buffer.handle, &pitch, &size) == 0 else {
            throw .system("\(path): a \(width)x\(height) dumb buffer", status: 69)
        }
        buffer.pitch = Int(pitch)
        buffer.size = Int(size)
        let depth: UInt8 = format == .xrgb8888 ? 24 : 16
        guard drmModeAddFB(descriptor, UInt32(width), UInt32(height), depth, UInt8(bits), pitch, buffer.handle, &buffer.framebuffer) == 0 else {
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
        return buffer
    }

    func destroyBuffer(_ buffer: DRMBuffer) {
        if let map = buffer.map { munmap(map, buffer.size) }
        if buffer.framebuffer != 0 { drmModeRmFB(descriptor, buffer.framebuffer) }
        if buffer.handle != 0 { drmModeDestroyDumbBuffer(descriptor, buffer.handle) }
    }

    func setCRTC(_ crtc: UInt32, framebuffer: UInt32, x: UInt32, y: UInt32, connectors: [UInt32], mode: drmModeModeInfo?) -> Bool {
        var connectors = connectors
        guard var mode else { return drmModeSetCrtc(descriptor, crtc, framebuffer, x, y, nil, 0, nil) == 0 }
        return drmModeSetCrtc(descriptor, crtc, framebuffer, x, y, &connectors, Int32(connectors.count), &mode) == 0
    }

    func pageFlip(_ crtc: UInt32, framebuffer: UInt32) -> Bool {
        drmModePageFlip(descriptor, crtc, framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), Unmanaged.passUnretained(self).toOpaque()) == 0
    }

    func readEvents() throws(RenderError) -> Int64? {
        var context = drmEventContext()
        context.version = 2
        context.page_flip_handler = { _, _, seconds, microseconds, data in
            guard let data else { return }
            Unmanaged<KernelDRM>.fromOpaque(data).takeUnretainedValue().flipTime = Int64(seconds) * 1_000_000 + Int64(microseconds)
        }
        flipTime = nil
        guard drmHandleEvent(descriptor, &context) == 0 else { throw .system("\(path): reading display events") }
        return flipTime
    }

    func waitForEvent(milliseconds: Int32) -> Bool {
        var ready = pollfd.readable(descriptor)
        return poll(&ready, 1, milliseconds) > 0
    }
}
