#if canImport(Glibc)
import Glibc
#endif
import SheetCore
import SheetProtocol
import SheetRenderKit
import SheetService

/// Why a renderer cannot go on, naming the device, file or terminal, with the exit status it
/// leaves with (sysexits: 69 a display that is not there or not usable, 74 an I/O error).
struct RenderError: Error, CustomStringConvertible {
    var description: String
    var status: Int32

    init(_ description: String, status: Int32 = 74) {
        self.description = description
        self.status = status
    }

    static func unavailable(_ description: String) -> RenderError { RenderError(description, status: 69) }

    /// `what: strerror(errno)`.
    static func system(_ what: String, status: Int32 = 74) -> RenderError {
        RenderError("\(what): \(String(cString: strerror(errno)))", status: status)
    }
}

/// What became of a frame handed to a backend.
enum Presentation: Equatable {
    /// On the output now; `rows` were redrawn.
    case shown(rows: Range<Int>?)
    /// Drawn and queued: shown when the backend's event descriptor says so (a page flip).
    case queued(rows: Range<Int>?)
    /// Not drawn (the png backend's every-Nth rule, a framebuffer left to others while hidden,
    /// a display unplugged).
    case skipped
}

/// What became of a backend's display when the system said one was plugged or unplugged.
enum DisplayChange: Equatable {
    /// Gone: nothing is drawn until it is back.
    case unplugged
    /// Back, or another in its place (perhaps of another size): what it shows is drawn anew.
    case plugged
}

/// One way of putting the sheet on an output. Backends are used from one thread.
protocol Backend: AnyObject {
    var name: String { get }
    /// The display's size in pixels, announced to the daemon with `SetScreen`; nil for outputs
    /// that draw at whatever size the daemon maps touches to (png) or that are not the touch
    /// surface (a terminal).
    var displaySize: (width: Int, height: Int)? { get }
    /// The display's scale (pixels to a point) when the output says it (a compositor's scaled
    /// output), announced with the size; nil leaves the daemon's.
    var displayScale: Double? { get }
    /// How many frames a second the display shows (the DRM mode's, the Wayland output's):
    /// the rate `sheet-render` asks the daemon for (`Monitor(maxRate:)`). nil: the output draws
    /// every state (pictures); a display that does not say is taken as 60.
    var refreshRate: Int? { get }
    /// Readable when a queued frame may have reached the screen (DRM page-flip events).
    var eventDescriptor: Int32? { get }
    /// Whether `show` may be called now (false while a page flip is pending).
    var isReady: Bool { get }
    /// How frames reach the output, for the log (`two pages, panned`).
    var method: String { get }
    /// Every update as it arrives, before states are skipped for the newest: for a backend that
    /// passes on what the sheet did (`events`: the web page's DOM events).
    func hear(_ update: MonitorUpdate)
    /// Draws `state` with `content` (its items in the list's order) when the sheet has some.
    func show(_ state: SheetState, content: SheetContent?) throws(RenderError) -> Presentation
    /// The event descriptor is readable: the CLOCK_MONOTONIC microsecond at which the queued
    /// frame reached the screen, or nil if it has not yet.
    func handleEvent() throws(RenderError) -> Int64?
    /// The output changed size (a terminal's SIGWINCH).
    func resized() throws(RenderError)
    /// Readable when a display was plugged in or out (udev's word, for the drm backend).
    var hotplugDescriptor: Int32? { get }
    /// The hotplug descriptor is readable: what became of the display, nil when nothing that
    /// concerns it changed.
    func handleHotplug() throws(RenderError) -> DisplayChange?
    /// Leaves the output as it was found (the previous CRTC, the terminal's screen) or, for
    /// pictures, writes the last frame that the every-Nth rule skipped. Returns whether that
    /// showed a frame of the last state given.
    func finish() throws(RenderError) -> Bool
}

extension Backend {
    var displayScale: Double? { nil }
    var refreshRate: Int? { 60 }
    var eventDescriptor: Int32? { nil }
    var method: String { "" }
    var isReady: Bool { true }
    func hear(_ update: MonitorUpdate) {}
    func handleEvent() throws(RenderError) -> Int64? { nil }
    func resized() throws(RenderError) {}
    var hotplugDescriptor: Int32? { nil }
    func handleHotplug() throws(RenderError) -> DisplayChange? { nil }
}

/// How to draw, given the output's size: the default look, or with a background picture
/// fitted to the size (made once per size).
///
/// The picture is read and its header checked at start (at most 64 MiB, 8192 px a side,
/// sound CRCs); it is inflated once the output's size is known, and refused when it holds
/// more than 4× the output's pixels, so a small file cannot make the renderer allocate
/// gigabytes for a picture no display shows.
final class Looks {
    private let path: String?
    private var file: [UInt8] = []
    private var image: (width: Int, height: Int, rgb: [UInt8])?
    private var fitted: Look?
    /// What `theme: auto` resolves to here: `--prefer`, or the session's preference as it changes.
    private(set) var prefersDark: Bool
    private(set) var prefersHighContrast = false
    private(set) var preferredTextScale = 1.0

    /// The most pixels a background may hold, for each pixel of the output.
    static let pixelsPerOutputPixel = 4

    init(backgroundPath: String?, prefersDark: Bool = false) throws(RenderError) {
        path = backgroundPath
        self.prefersDark = prefersDark
        guard let backgroundPath else { return }
        let bytes: [UInt8]?
        do { bytes = try AtomicFile.read(backgroundPath, limit: 64 << 20) } catch {
            throw RenderError("\(error)", status: 66)
        }
        guard let bytes else { throw RenderError("\(backgroundPath): \(String(cString: strerror(ENOENT)))", status: 66) }
        do { _ = try PNG.size(of: bytes) } catch { throw RenderError("\(backgroundPath): \(error)", status: 65) }
        file = bytes
    }

    /// `theme: auto` draws this from now on (the session changed its preference).
    func prefer(dark: Bool, highContrast: Bool, textScale: Double) {
        prefersDark = dark
        prefersHighContrast = highContrast
        preferredTextScale = textScale
        fitted?.prefersDark = dark
        fitted?.prefersHighContrast = highContrast
        fitted?.preferredTextScale = textScale
    }

    /// The look for an output of `width` x `height` (the base each state's appearance is
    /// applied to).
    func look(width: Int, height: Int) throws(RenderError) -> Look {
        if let fitted, fitted.backdrop.map({ $0.width == width && $0.height == height }) ?? true { return fitted }
        var look = Look()
        look.prefersDark = prefersDark
        look.prefersHighContrast = prefersHighContrast
        look.preferredTextScale = preferredTextScale
        if let path, image == nil {
            do {
                let picture = try PNG.decode(file, maximumPixels: Self.pixelsPerOutputPixel * max(1, width) * max(1, height))
                image = (picture.width, picture.height, picture.rgb)
                file = []
            } catch {
                throw RenderError("\(path): \(error) (the output is \(width)x\(height))", status: 65)
            }
        }
        if let image {
            look.backdrop = Backdrop(covering: width, height, with: image.rgb, imageWidth: image.width, imageHeight: image.height)
        }
        fitted = look
        return look
    }
}

/// Writes `bytes` whole to `descriptor`, retrying short writes and EINTR.
func writeAll(_ descriptor: Int32, _ bytes: [UInt8], naming what: String) throws(RenderError) {
    var offset = 0
    while offset < bytes.count {
        let count = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw .system(what)
        }
        offset += count
    }
}

/// CLOCK_MONOTONIC in microseconds, the daemon's clock for `timestampUSec`.
func monotonicMicroseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}

/// A display's refresh rate in whole frames a second from a rate in millihertz (Wayland's
/// `wl_output.mode`) or hertz, kept to what `Monitor(maxRate:)` takes; 60 when it is unknown
/// (zero or less).
func refreshRate(millihertz: Int64) -> Int {
    guard millihertz > 0 else { return 60 }
    let hertz = Int((millihertz + 500) / 1000)
    return min(max(hertz, MonitorPacer.rates.lowerBound), MonitorPacer.rates.upperBound)
}
