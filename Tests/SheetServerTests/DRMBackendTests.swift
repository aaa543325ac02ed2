#if canImport(Glibc)
import Glibc
#endif
import CDisplay
import SheetCore
import SheetRenderKit
import Testing
@testable import RenderProgram

/// A mode-setting device in memory: the connectors, encoders and CRTCs a test gives it, dumb
/// buffers in memory, and a log of what the backend asked of it. The drm backend's choice of
/// output, its page flips, fallbacks and clean-up on a machine with no /dev/dri (the e2e VM
/// runs the same backend on the kernel's).
final class MemoryDRM: DRMDevice {
    let path = "/dev/dri/card7"
    let descriptor: Int32 = -1
    var given: DRMResources?
    var saved: drmModeCrtc?
    /// What the backend did, in order: `set CRTC fb FB WxH`, `off CRTC`, `flip CRTC fb FB`.
    var log: [String] = []
    var flips = true
    var refusesModes = false
    /// The buffer (counted from 1) whose making fails.
    var failingBuffer: Int?
    /// The flip event the next read gives.
    var landed: Int64?
    private(set) var made: [DRMBuffer] = []
    private(set) var destroyed: [UInt32] = []

    init(_ resources: DRMResources?) { given = resources }

    deinit { for buffer in made { buffer.map?.deallocate() } }

    func resources() -> DRMResources? {
        if given == nil { errno = ENOTTY }
        return given
    }

    func connector(_ id: UInt32) -> DRMResources.Connector? { given?.connectors.first { $0.id == id } }

    func crtcState(_ crtc: UInt32) -> drmModeCrtc? { saved }

    func makeBuffer(width: Int, height: Int, format: PixelFormat) throws(RenderError) -> DRMBuffer {
        guard made.count + 1 != failingBuffer else {
            errno = ENOMEM
            throw .system("\(path): a \(width)x\(height) dumb buffer", status: 69)
        }
        let pitch = width * format.bytesPerPixel + 64
        let map = UnsafeMutableRawPointer.allocate(byteCount: pitch * height, alignment: 16)
        map.initializeMemory(as: UInt8.self, repeating: 0x5A, count: pitch * height)
        let buffer = DRMBuffer(handle: UInt32(made.count + 1), framebuffer: UInt32(100 + made.count + 1), pitch: pitch,
                               size: pitch * height, map: map)
        made.append(buffer)
        return buffer
    }

    func destroyBuffer(_ buffer: DRMBuffer) { destroyed.append(buffer.handle) }

    func setCRTC(_ crtc: UInt32, framebuffer: UInt32, x: UInt32, y: UInt32, connectors: [UInt32], mode: drmModeModeInfo?) -> Bool {
        guard !refusesModes else {
            errno = EACCES
            return false
        }
        if let mode {
            log.append("set \(crtc) fb \(framebuffer) \(mode.hdisplay)x\(mode.vdisplay) on \(connectors)")
        } else {
            log.append("off \(crtc)")
        }
        return true
    }

    func pageFlip(_ crtc: UInt32, framebuffer: UInt32) -> Bool {
        guard flips else { return false }
        log.append("flip \(crtc) fb \(framebuffer)")
        return true
    }

    func readEvents() throws(RenderError) -> Int64? {
        defer { landed = nil }
        return landed
    }

    func waitForEvent(milliseconds: Int32) -> Bool { landed != nil }

    /// A buffer as a canvas.
    func canvas(_ framebuffer: UInt32, width: Int, height: Int) -> Canvas {
        let buffer = made.first { $0.framebuffer == framebuffer }!
        return Canvas(wrapping: buffer.map!, width: width, height: height, stride: buffer.pitch, format: .xrgb8888)
    }
}

@Suite struct DRMBackendTests {
    static let width = FramebufferBackendTests.width, height = FramebufferBackendTests.height

    static func mode(_ width: Int, _ height: Int, preferred: Bool = false) -> drmModeModeInfo {
        var mode = drmModeModeInfo()
        mode.hdisplay = UInt16(width)
        mode.vdisplay = UInt16(height)
        mode.vrefresh = 60
        mode.type = preferred ? UInt32(DRM_MODE_TYPE_PREFERRED) : 0
        return mode
    }

    /// One display on connector 7, which encoder 3 can put on the second of two CRTCs.
    static func oneDisplay(modes: [drmModeModeInfo] = [mode(width, height, preferred: true)]) -> DRMResources {
        DRMResources(crtcs: [40, 41],
                     connectors: [DRMResources.Connector(id: 7, connected: true, modes: modes, encoder: 0, encoders: [3])],
                     encoders: [3: DRMResources.Encoder(crtc: 0, possibleCRTCs: 0b10)])
    }

    static func backend(_ device: MemoryDRM) throws(RenderError) -> DRMBackend {
        try DRMBackend(device: device, format: .xrgb8888, looks: Looks(backgroundPath: nil), painter: Painter())
    }

    /// The first connected connector with a mode, its preferred mode, and the CRTC its encoder
    /// drives now, else the first one its encoders can drive.
    @Test func theOutputIsTheFirstConnectedDisplayInItsPreferredMode() {
        var resources = DRMResources(
            crtcs: [40, 41, 42],
            connectors: [
                DRMResources.Connector(id: 5, connected: false, modes: [Self.mode(800, 600)], encoder: 0, encoders: [2]),
                DRMResources.Connector(id: 6, connected: true, modes: [], encoder: 0, encoders: [2]),
                DRMResources.Connector(id: 7, connected: true, modes: [Self.mode(640, 480), Self.mode(1080, 1920, preferred: true)],
                                       encoder: 0, encoders: [9, 3]),
            ],
            encoders: [2: DRMResources.Encoder(crtc: 40, possibleCRTCs: 0b1), 3: DRMResources.Encoder(crtc: 0, possibleCRTCs: 0b110)])
        var output = resources.pickOutput()
        #expect(output?.connector == 7 && output?.crtc == 41, "an encoder the device does not list is passed over")
        #expect(output?.mode.hdisplay == 1080 && output?.mode.vdisplay == 1920)

        resources.connectors[2].encoder = 2
        output = resources.pickOutput()
        #expect(output?.crtc == 40, "the CRTC that drives the display now")

        resources.connectors[2].modes = [Self.mode(640, 480), Self.mode(1024, 768)]
        #expect(resources.pickOutput()?.mode.hdisplay == 640, "no preferred mode: the first")

        resources.connectors.removeLast()
        #expect(resources.pickOutput() == nil)
    }

    @Test func aDeviceWithoutDisplaysOrModeSettingIsSaid() {
        do {
            _ = try Self.backend(MemoryDRM(DRMResources(crtcs: [40], connectors: [], encoders: [:])))
            Issue.record("a device without displays was taken")
        } catch {
            #expect(error.description == "/dev/dri/card7: no connected display" && error.status == 69, "\(error)")
        }
        do {
            _ = try Self.backend(MemoryDRM(nil))
            Issue.record("a device without mode setting was taken")
        } catch {
            #expect(error.description.hasPrefix("/dev/dri/card7: not a mode-setting device (") && error.status == 69, "\(error)")
        }
    }

    /// The first frame sets the mode with the front buffer; each later one is drawn into the
    /// back buffer (only the rows that changed since that buffer last showed) and flipped to,
    /// one flip at a time; at the end the CRTC shows what it showed before.
    @Test func framesAreFlippedOneAtATimeAndTheCRTCIsPutBack() throws {
        let device = MemoryDRM(Self.oneDisplay())
        var before = Self.mode(1024, 768)
        before.vrefresh = 75
        var saved = drmModeCrtc()
        (saved.crtc_id, saved.buffer_id, saved.mode_valid, saved.mode) = (41, 77, 1, before)
        device.saved = saved
        let backend = try Self.backend(device)
        #expect(backend.displaySize! == (Self.width, Self.height) && backend.refreshRate == 60)
        #expect(backend.method == "two dumb buffers, page flips on vblank")

        let first = FramebufferBackendTests.state(top: 120), second = FramebufferBackendTests.state(top: 100)
        let third = FramebufferBackendTests.state(top: 80)
        #expect(try backend.show(first, content: nil) == .shown(rows: 0..<Self.height))
        #expect(device.log == ["set 41 fb 101 \(Self.width)x\(Self.height) on [7]"])
        #expect(FramebufferBackendTests.same(device.canvas(101, width: Self.width, height: Self.height), FramebufferBackendTests.drawn(first)))

        guard case .queued(let rows?) = try backend.show(second, content: nil) else {
            Issue.record("the second frame was not queued")
            return
        }
        #expect(rows == 0..<Self.height, "the back buffer never showed: drawn whole")
        #expect(device.log.last == "flip 41 fb 102" && !backend.isReady)
        #expect(try backend.handleEvent() == nil && !backend.isReady, "an event that is not the flip")
        device.landed = 1_000_123
        #expect(try backend.handleEvent() == 1_000_123 && backend.isReady)

        guard case .queued(let damaged?) = try backend.show(third, content: nil) else {
            Issue.record("the third frame was not queued")
            return
        }
        #expect(damaged.count < Self.height, "only the rows that changed since buffer 101 showed: \(damaged)")
        #expect(device.log.last == "flip 41 fb 101")
        #expect(FramebufferBackendTests.same(device.canvas(101, width: Self.width, height: Self.height), FramebufferBackendTests.drawn(third)))

        device.landed = 1_016_790
        #expect(try backend.finish() == false)
        #expect(device.log.last == "set 41 fb 77 1024x768 on [7]", "the pending flip landed, then the console came back: \(device.log)")
    }

    /// A display unplugged is drawn nothing and nothing is asked of the card; plugged again,
    /// its mode is set anew with the next frame, drawn whole; another display plugged in its
    /// place at another size gets buffers of that size. Each change is said once.
    @Test func aDisplayUnpluggedAndPluggedAgainIsSetAnew() throws {
        let device = MemoryDRM(Self.oneDisplay())
        let backend = try Self.backend(device)
        let first = FramebufferBackendTests.state(top: 120), second = FramebufferBackendTests.state(top: 100)
        #expect(try backend.show(first, content: nil) == .shown(rows: 0..<Self.height))
        #expect(try backend.probeAgain() == nil, "nothing changed")

        device.given!.connectors[0].connected = false
        #expect(try backend.probeAgain() == .unplugged)
        #expect(try backend.probeAgain() == nil, "said once")
        let asked = device.log.count
        #expect(try backend.show(second, content: nil) == .skipped)
        #expect(device.log.count == asked && backend.isReady, "nothing asked of the card while unplugged: \(device.log)")

        device.given!.connectors[0].connected = true
        #expect(try backend.probeAgain() == .plugged)
        #expect(try backend.probeAgain() == nil, "said once")
        #expect(try backend.show(second, content: nil) == .shown(rows: 0..<Self.height), "drawn whole")
        #expect(device.log.last == "set 41 fb 101 \(Self.width)x\(Self.height) on [7]", "the mode set anew: \(device.log)")
        #expect(FramebufferBackendTests.same(device.canvas(101, width: Self.width, height: Self.height), FramebufferBackendTests.drawn(second)))
        #expect(device.destroyed.isEmpty, "the same size keeps its buffers")

        device.given!.connectors[0].modes = [Self.mode(800, 1280, preferred: true)]
        #expect(try backend.probeAgain() == .plugged)
        #expect(backend.displaySize! == (800, 1280))
        #expect(device.destroyed == [1, 2] && device.made.count == 4)
        #expect(try backend.show(second, content: nil) == .shown(rows: 0..<1280))
        #expect(device.log.last == "set 41 fb 103 800x1280 on [7]", "\(device.log)")
        _ = try backend.finish()
    }

    /// A driver that cannot flip pages gets each frame set directly (it may tear), and says so.
    @Test func aDriverWithoutPageFlipsIsSetDirectly() throws {
        let device = MemoryDRM(Self.oneDisplay())
        device.flips = false
        device.saved = drmModeCrtc()
        let backend = try Self.backend(device)
        _ = try backend.show(FramebufferBackendTests.state(top: 120), content: nil)
        #expect(try backend.show(FramebufferBackendTests.state(top: 100), content: nil) == .shown(rows: 0..<Self.height))
        #expect(backend.method == "two dumb buffers, set directly (no page flips)" && backend.isReady)
        #expect(device.log == ["set 41 fb 101 \(Self.width)x\(Self.height) on [7]", "set 41 fb 102 \(Self.width)x\(Self.height) on [7]"])
        #expect(try backend.finish() == false)
        #expect(device.log.last == "off 41", "a CRTC that showed nothing before is turned off")
    }

    /// A mode the driver refuses (another program holds the display) is said with the way out.
    @Test func aRefusedModeSaysWhoMayHoldTheDisplay() throws {
        let device = MemoryDRM(Self.oneDisplay())
        device.refusesModes = true
        do {
            _ = try Self.backend(device).show(FramebufferBackendTests.state(top: 120), content: nil)
            Issue.record("a refused mode was taken")
        } catch {
            #expect(error.description.hasPrefix("/dev/dri/card7: setting mode \(Self.width)x\(Self.height) (is another program the display's master?)"),
                    "\(error)")
            #expect(error.status == 69)
        }
    }

    /// A buffer that cannot be made fails the backend, and what was made is given back.
    @Test func aBufferThatCannotBeMadeLeavesNothingBehind() {
        let device = MemoryDRM(Self.oneDisplay())
        device.failingBuffer = 2
        do {
            _ = try Self.backend(device)
            Issue.record("the backend started without its second buffer")
        } catch {
            #expect(error.description.hasPrefix("/dev/dri/card7: a \(Self.width)x\(Self.height) dumb buffer: "), "\(error)")
        }
        #expect(device.destroyed == [1])
        let whole = MemoryDRM(Self.oneDisplay())
        do { _ = try Self.backend(whole) } catch { Issue.record("\(error)") }
        #expect(whole.destroyed == [1, 2], "both buffers go with the backend")
    }
}
