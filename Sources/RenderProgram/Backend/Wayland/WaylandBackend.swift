#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CWayland
import SheetCore
import SheetProtocol
import SheetRenderKit
import SheetSystem

/// `--backend wayland`: a client of the session's compositor (sway, labwc, Phosh, cage…), which
/// holds the display, so the sheet is a surface among its others.
///
/// With the wlr layer shell the surface is a layer surface on the overlay layer (`Layer`: over
/// every window, a fullscreen one too, as a kiosk's is), anchored to every
/// edge of the output (full output), exclusive zone −1, taking the keyboard while the sheet is
/// open (`WaylandBackend+Keyboard`). Without it, an xdg-shell
/// toplevel asked to be fullscreen, said in the log. Pixels are premultiplied ARGB8888 in wl_shm
/// buffers: the dim lets the windows below show through it, and a hidden sheet is transparent.
/// The input region is the region each state names (`State.region`): the whole output while a
/// modal sheet is shown, the card while a non-modal one is, the bar or the edge band while it
/// is closed, nothing when nothing opens it; the windows below take every other touch.
///
/// The touches the compositor gives the surface (`wl_touch`, and `wl_pointer` as one finger
/// held while the left button is) and its keys (`wl_keyboard`) are forwarded to the daemon
/// (`InputForwarder`), the touches in the surface's pixels: the compositor has already rotated, scaled and placed them for the output,
/// and the surface's size is what `SetScreen` tells the daemon.
///
/// Frames are paced by frame callbacks (one commit in flight), drawn into a buffer the
/// compositor has released, with only the rows that changed since that buffer last showed
/// damaged. The output's scale sets the buffer scale; the size in pixels is what `SetScreen`
/// tells the daemon.
final class WaylandBackend: Backend {
    let name = "wayland"
    let display: OpaquePointer
    private let painter: Painter
    private let looks: Looks
    let log: Log

    // Globals.
    private var registry: OpaquePointer?
    private var compositor: OpaquePointer?
    private var compositorVersion: UInt32 = 0
    private var shm: OpaquePointer?
    /// Every output, with what it said of itself (only ever added to), and which of them the
    /// sheet is on: the one `--wayland-output` names, else the first (`chooseOutput`).
    var outputs: [Output] = []
    var chosenOutput: Int?
    var output: OpaquePointer? { chosenOutput.map { outputs[$0].proxy } }
    let outputName: String?
    var xdgOutputManager: OpaquePointer?
    private var layerShell: OpaquePointer?
    var layerShellVersion: UInt32 = 0
    var wmBase: OpaquePointer?
    var seat: OpaquePointer?
    var touch: OpaquePointer?
    var pointer: OpaquePointer?
    var keyboard: OpaquePointer?
    /// The compositor's keymap, and the modifiers forwarded as held.
    let keymap = WaylandKeymap()
    var forwardedModifiers: KeyModifiers = []

    // The surface and its role.
    var surface: OpaquePointer?
    var layerSurface: OpaquePointer?
    /// `--wayland-layer`, the layer the surface is on now and the one the newest update heard
    /// wants (`WaylandBackend+Layer`).
    let layer: Layer
    var shownLayer: Layer = .overlay
    var heardLayer: Layer?
    /// What the layer surface last asked of the keyboard.
    private var keyboardInteractivity = ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE.rawValue
    /// The open sheet was touched or clicked since it opened (a non-modal one asks for the
    /// keyboard then).
    var touchedWhileOpen = false
    private var xdgSurface: OpaquePointer?
    private var toplevel: OpaquePointer?
    private var emptyRegion: OpaquePointer?

    /// What the sheet's output said (the defaults before it says: scale 1, 60 Hz), and the
    /// role's configure.
    var outputScale: Int32 { chosenOutput.map { outputs[$0].scale } ?? 1 }
    private var outputMode: (width: Int32, height: Int32) { chosenOutput.map { outputs[$0].mode } ?? (0, 0) }
    /// The current mode's refresh rate (60 until the compositor says).
    var refreshRate: Int? { chosenOutput.map { outputs[$0].refresh } ?? 60 }
    /// The output's transform (`wl_output.transform`): a quarter turn swaps its mode's sides.
    private var outputTransform: Int32 { chosenOutput.map { outputs[$0].transform } ?? 0 }
    var configuredSize: (width: Int32, height: Int32) = (0, 0)
    var pendingSerial: UInt32?
    var closed = false

    /// The size in buffer pixels, and the buffers of that size.
    var size: (width: Int, height: Int) = (0, 0)
    var buffers: [ShmBuffer] = []
    var frameCallback: OpaquePointer?
    var frameDone = false
    /// The input region set, in surface coordinates; nil before the first frame.
    private var inputRegion: (x: Int32, y: Int32, width: Int32, height: Int32)?

    /// Where the compositor's touches go; nil: nowhere (`--no-forward-touch`).
    let forwarder: InputForwarder?
    /// The compositor's touch points by slot (`InputForwarder.slots`), the pointer's among them.
    var touchIDs = [Int32?](repeating: nil, count: InputForwarder.slots)
    /// The contacts of the compositor's touch frame being gathered, and the frame itself:
    /// kept, so that a frame allocates no array.
    var touchFrame = PluginContacts()
    /// The pointer's position (surface pixels), and whether its left button holds a finger.
    var pointerPosition = (x: 0.0, y: 0.0)
    var pointerDown = false
    /// The compositor's time of the latest touch or pointer event (milliseconds): what a
    /// frame is stamped with, and an event that carries no time of its own (a cancel, a leave).
    var inputTime: UInt32 = 0
    /// The pointer's id among the touch points': no touch point of the compositor has it.
    static let pointerID = Int32.min
    /// The state and content last shown, drawn again when the compositor configures the
    /// surface anew (a window mapped, tiled or made fullscreen waits for that commit).
    var lastShown: (state: SheetState, content: SheetContent?)?
    /// The scene on the surface now: what the compositor's damage is counted from.
    private var shownScene: SheetScene?

    var displaySize: (width: Int, height: Int)? { size }
    var displayScale: Double? { Double(outputScale) }
    var eventDescriptor: Int32? { wl_display_get_fd(display) }
    var isReady: Bool { frameCallback == nil && buffers.contains { !$0.busy } }
    private(set) var method = ""

    /// One wl_shm buffer over its own memory file.
    final class ShmBuffer {
        let buffer: OpaquePointer
        let map: UnsafeMutableRawPointer
        let length: Int
        let canvas: Canvas
        var busy = false
        /// What the buffer holds, for damage.
        var scene: SheetScene?

        init(buffer: OpaquePointer, map: UnsafeMutableRawPointer, length: Int, canvas: Canvas) {
            self.buffer = buffer
            self.map = map
            self.length = length
            self.canvas = canvas
        }

        deinit {
            wl_buffer_destroy(buffer)
            munmap(map, length)
        }
    }

    /// Which role the surface takes: the layer shell when the compositor offers it (`auto`),
    /// or a fullscreen xdg-shell window.
    enum Shell: String, CaseIterable, ExpressibleByArgument {
        case auto, layer, xdg
    }

    /// Connects to the compositor named by WAYLAND_DISPLAY (or `wayland-0`) and waits for the
    /// surface's first configure.
    init(shell: Shell, layer: Layer = .overlay, output outputName: String? = nil, looks: Looks, painter: Painter,
         forwarder: InputForwarder?, log: Log) throws(RenderError) {
        self.forwarder = forwarder
        self.layer = layer
        self.outputName = outputName
        guard let display = wl_display_connect(nil) else {
            let name = getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? "wayland-0"
            throw .unavailable("no Wayland compositor on \(name) (\(String(cString: strerror(errno))))")
        }
        self.display = display
        self.looks = looks
        self.painter = painter
        self.log = log
        let context = Unmanaged.passUnretained(self).toOpaque()
        registry = wl_display_get_registry(display)
        wl_registry_add_listener(registry, Listeners.registry, context)
        try roundtrip("listing the compositor's globals")
        guard compositor != nil, compositorVersion >= 3 else {
            throw .unavailable("the compositor has no wl_compositor of version 3 or later")
        }
        guard shm != nil else { throw .unavailable("the compositor has no wl_shm") }
        guard layerShell != nil || wmBase != nil else {
            throw .unavailable("the compositor has neither the wlr layer shell nor xdg-shell")
        }
        switch shell {
        case .auto: break
        case .layer: guard layerShell != nil else { throw .unavailable("the compositor has no wlr layer shell (zwlr_layer_shell_v1)") }
        case .xdg:
            guard wmBase != nil else { throw .unavailable("the compositor has no xdg-shell (xdg_wm_base)") }
            layerShell = nil
        }
        // The outputs' modes, scales and names arrive after their binds.
        try chooseOutput()
        surface = wl_compositor_create_surface(compositor)
        emptyRegion = wl_compositor_create_region(compositor)
        if let layerShell {
            layerSurface = zwlr_layer_shell_v1_get_layer_surface(layerShell, surface, output, layer.value, "sheetd")
            shownLayer = layer
            zwlr_layer_surface_v1_add_listener(layerSurface, Listeners.layerSurface, context)
            let edges = ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP.rawValue | ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM.rawValue
                | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT.rawValue | ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT.rawValue
            zwlr_layer_surface_v1_set_anchor(layerSurface, edges)
            zwlr_layer_surface_v1_set_size(layerSurface, 0, 0)
            zwlr_layer_surface_v1_set_exclusive_zone(layerSurface, -1)
            zwlr_layer_surface_v1_set_keyboard_interactivity(layerSurface, ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE.rawValue)
            method = layer == .overlay || layerShellVersion < 2
                ? "a layer surface on the \(layer) layer, ARGB8888 shm buffers"
                : "a layer surface on the top layer (overlay while a modal sheet is open), ARGB8888 shm buffers"
        } else {
            if shell == .auto { log.say("sheet-render: the compositor has no wlr layer shell; drawing in a fullscreen xdg-shell window instead") }
            xdgSurface = xdg_wm_base_get_xdg_surface(wmBase, surface)
            xdg_surface_add_listener(xdgSurface, Listeners.xdgSurface, context)
            toplevel = xdg_surface_get_toplevel(xdgSurface)
            xdg_toplevel_add_listener(toplevel, Listeners.toplevel, context)
            xdg_toplevel_set_title(toplevel, "sheetd")
            xdg_toplevel_set_app_id(toplevel, "io.sheetd.render")
            xdg_toplevel_set_fullscreen(toplevel, output)
            method = "a fullscreen xdg-shell window, ARGB8888 shm buffers"
        }
        wl_surface_set_buffer_scale(surface, outputScale)
        // The initial commit, without a buffer, asks for the first configure.
        wl_surface_commit(surface)
        while pendingSerial == nil && !closed { try roundtrip("waiting for the surface's first configure") }
        if closed { throw .unavailable("the compositor closed the surface before showing it") }
        try applyConfigure()
    }

    deinit {
        // The compositor forgets every object of a client that goes; the buffers' memory is ours.
        buffers = []
        wl_display_flush(display)
        wl_display_disconnect(display)
    }

    func show(_ state: SheetState, content: SheetContent?) throws(RenderError) -> Presentation {
        precondition(isReady, "a frame while one is in flight")
        if pendingSerial != nil { try applyConfigure() }
        var look = try looks.look(width: size.width, height: size.height)
        look.seeThrough = true
        let scene = SheetScene(state, width: size.width, height: size.height, content: content, look: look)
        lastShown = (state, content)
        // The region follows the state even when the picture does not (a presentation that
        // changed while the sheet is hidden), in the display's pixels when they are not the
        // daemon's (SetScreen refused).
        setInputRegion(Self.displayRegion(state, width: size.width, height: size.height))
        if state.isClosed { touchedWhileOpen = false }
        // Asked for with the next commit, which the picture may not need.
        if heardLayer == nil { heardLayer = layer(for: state) }
        let layered = moveLayer()
        if askForKeyboard(as: state) || layered, scene.damage(since: shownScene) == nil { wl_surface_commit(surface) }
        // What differs from the frame on the screen: the compositor's damage. What differs
        // from the buffer's last frame: what is drawn again (the buffers take turns).
        guard let rows = scene.damage(since: shownScene) else { return .shown(rows: nil) }
        guard let target = buffers.first(where: { !$0.busy }) else { preconditionFailure("isReady without a free buffer") }
        if let redraw = scene.damage(since: target.scene) { painter.draw(scene, into: target.canvas, rows: redraw) }
        target.scene = scene

        wl_surface_attach(surface, target.buffer, 0, 0)
        if compositorVersion >= 4 {
            wl_surface_damage_buffer(surface, 0, Int32(rows.lowerBound), Int32(size.width), Int32(rows.count))
        } else {
            // Surface coordinates: whole logical rows around the damaged buffer rows.
            let scale = Int(outputScale)
            let top = rows.lowerBound / scale, bottom = (rows.upperBound + scale - 1) / scale
            wl_surface_damage(surface, 0, Int32(top), Int32(size.width / scale), Int32(bottom - top))
        }
        frameCallback = wl_surface_frame(surface)
        wl_callback_add_listener(frameCallback, Listeners.frame, Unmanaged.passUnretained(self).toOpaque())
        wl_surface_commit(surface)
        target.busy = true
        shownScene = scene
        try flush()
        return .queued(rows: rows)
    }

    /// `state`'s region on a display `width`×`height`, scaled as `SheetScene` scales the sheet
    /// to a display of another size (heights by the height, the width by the width).
    static func displayRegion(_ state: SheetState, width: Int, height: Int) -> ScreenRegion {
        let region = state.regionInPixels
        guard state.screen.widthInPixels != width || state.screen.heightInPixels != height else { return region }
        let x = Double(width) / Double(max(1, state.screen.widthInPixels))
        let y = Double(height) / Double(max(1, state.screen.heightInPixels))
        return ScreenRegion(x: region.x * x, y: region.y * y, width: region.width * x, height: region.height * y)
    }

    /// Takes touches in `region` (screen pixels) only, in whole surface units around it.
    private func setInputRegion(_ region: ScreenRegion) {
        let scale = Double(outputScale)
        var rect: (x: Int32, y: Int32, width: Int32, height: Int32) = (0, 0, 0, 0)
        if !region.isEmpty {
            let left = (region.x / scale).rounded(.down), top = (region.y / scale).rounded(.down)
            let right = ((region.x + region.width) / scale).rounded(.up), bottom = ((region.y + region.height) / scale).rounded(.up)
            rect = (Int32(left), Int32(top), Int32(right - left), Int32(bottom - top))
        }
        guard inputRegion == nil || inputRegion! != rect else { return }
        inputRegion = rect
        let whole = rect == (0, 0, Int32(size.width / Int(outputScale)), Int32(size.height / Int(outputScale)))
        if rect.width <= 0 || rect.height <= 0 {
            wl_surface_set_input_region(surface, emptyRegion)
        } else if whole {
            wl_surface_set_input_region(surface, nil)
        } else {
            let region = wl_compositor_create_region(compositor)
            wl_region_add(region, rect.x, rect.y, rect.width, rect.height)
            wl_surface_set_input_region(surface, region)
            wl_region_destroy(region)
        }
    }

    /// The sheet was touched: a non-modal one asks for the keyboard now, with a commit of its own.
    func touchedSheet() {
        guard !touchedWhileOpen, let (state, _) = lastShown else { return }
        touchedWhileOpen = true
        if askForKeyboard(as: state) { wl_surface_commit(surface) }
    }

    func handleEvent() throws(RenderError) -> Int64? {
        frameDone = false
        if wl_display_dispatch(display) < 0 { throw connectionError("reading the compositor's events") }
        if closed { throw .unavailable("the compositor closed the sheet's surface (its output went away?)") }
        // A new configure is answered with a commit of the frame on the screen, at the new size
        // if it changed: the compositor may hold the surface back until then.
        if pendingSerial != nil, isReady, let (state, content) = lastShown {
            shownScene = nil
            _ = try show(state, content: content)
        }
        try flush()
        guard frameDone else { return nil }
        return monotonicMicroseconds()
    }

    /// Asks the compositor for the keyboard as `state` wants it (`keyboardInteractivity(for:)`);
    /// true when that changed, for the next commit to carry.
    func askForKeyboard(as state: SheetState) -> Bool {
        guard let layerSurface else { return false }
        let wanted = keyboardInteractivity(for: state)
        guard wanted != keyboardInteractivity else { return false }
        zwlr_layer_surface_v1_set_keyboard_interactivity(layerSurface, wanted)
        keyboardInteractivity = wanted
        return true
    }

    func finish() throws(RenderError) -> Bool {
        // Leave nothing on the screen: the surface goes with the connection.
        if let surface {
            wl_surface_attach(surface, nil, 0, 0)
            wl_surface_commit(surface)
        }
        wl_display_flush(display)
        return false
    }

    // MARK: Events

    fileprivate func global(name: UInt32, interface: String, version: UInt32) {
        switch interface {
        case "wl_compositor" where compositor == nil:
            compositorVersion = min(version, 4)
            compositor = bind(name, sheet_wl_compositor_interface(), compositorVersion)
        case "wl_shm" where shm == nil:
            shm = bind(name, sheet_wl_shm_interface(), 1)
        case "wl_output":
            guard let proxy = bind(name, sheet_wl_output_interface(), min(version, 2)) else { return }
            outputs.append(Output(proxy: proxy))
            wl_output_add_listener(proxy, Listeners.output, Unmanaged.passUnretained(self).toOpaque())
        case "zxdg_output_manager_v1" where xdgOutputManager == nil:
            // Version 2: each output's name.
            xdgOutputManager = bind(name, sheet_zxdg_output_manager_v1_interface(), min(version, 2))
        case "zwlr_layer_shell_v1" where layerShell == nil:
            // Version 4 for the keyboard `on_demand` (a non-modal sheet's).
            layerShellVersion = min(version, 4)
            layerShell = bind(name, sheet_zwlr_layer_shell_v1_interface(), layerShellVersion)
        case "wl_seat" where seat == nil && forwarder != nil:
            seat = bind(name, sheet_wl_seat_interface(), min(version, 5))
            wl_seat_add_listener(seat, Listeners.seat, Unmanaged.passUnretained(self).toOpaque())
        case "xdg_wm_base" where wmBase == nil:
            wmBase = bind(name, sheet_xdg_wm_base_interface(), 1)
            xdg_wm_base_add_listener(wmBase, Listeners.wmBase, Unmanaged.passUnretained(self).toOpaque())
        default:
            break
        }
    }

    private func bind(_ name: UInt32, _ interface: UnsafePointer<wl_interface>, _ version: UInt32) -> OpaquePointer? {
        OpaquePointer(wl_registry_bind(registry, name, interface, version))
    }

    /// What an output said of itself, kept for each: the sheet's output's is the sheet's.
    fileprivate func outputSaid(_ proxy: OpaquePointer?, _ change: (inout Output) -> Void) {
        guard let index = outputs.firstIndex(where: { $0.proxy == proxy }) else { return }
        change(&outputs[index])
    }

    // MARK: Sizes and buffers

    /// Acknowledges the newest configure and makes buffers for its size (the output's mode when
    /// the compositor leaves the size to us), the output's scale applied.
    private func applyConfigure() throws(RenderError) {
        guard let serial = pendingSerial else { return }
        pendingSerial = nil
        if let layerSurface { zwlr_layer_surface_v1_ack_configure(layerSurface, serial) }
        if let xdgSurface { xdg_surface_ack_configure(xdgSurface, serial) }
        let scale = Int(outputScale)
        var width = Int(configuredSize.width) * scale, height = Int(configuredSize.height) * scale
        if width <= 0 || height <= 0 {
            (width, height) = (Int(outputMode.width), Int(outputMode.height))
            // A mode is the panel's own; a quarter turn (90, 270 and their flips) swaps it.
            if outputTransform & 1 == 1 { swap(&width, &height) }
        }
        // What the daemon accepts for SetScreen, and a surface of whole logical pixels.
        guard (64...16384).contains(width), (64...16384).contains(height) else {
            throw .unavailable("the compositor offers \(width)x\(height) pixels; the sheet needs 64 to 16384 a side")
        }
        width -= width % scale
        height -= height % scale
        guard (width, height) != size else { return }
        if size != (0, 0) { log.say("sheet-render: the compositor resized the surface to \(width)x\(height)") }
        size = (width, height)
        buffers = []
        shownScene = nil
        for _ in 0..<2 { buffers.append(try makeBuffer()) }
    }

    private func makeBuffer() throws(RenderError) -> ShmBuffer {
        let stride = size.width * 4, length = stride * size.height
        let descriptor = sheet_memfd("sheet-render")
        guard descriptor >= 0 else { throw .system("a \(length)-byte memory file for a wl_shm buffer") }
        defer { close(descriptor) }
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw .system("sizing a wl_shm buffer to \(length) bytes") }
        guard let map = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), map != MAP_FAILED else {
            throw .system("mapping a wl_shm buffer")
        }
        let pool = wl_shm_create_pool(shm, descriptor, Int32(length))
        let buffer = wl_shm_pool_create_buffer(pool, 0, Int32(size.width), Int32(size.height), Int32(stride), WL_SHM_FORMAT_ARGB8888.rawValue)
        wl_shm_pool_destroy(pool)
        guard let buffer else {
            munmap(map, length)
            throw connectionError("creating a wl_shm buffer")
        }
        wl_buffer_add_listener(buffer, Listeners.buffer, Unmanaged.passUnretained(self).toOpaque())
        // Transparent until drawn.
        map.initializeMemory(as: UInt8.self, repeating: 0, count: length)
        let canvas = Canvas(wrapping: map, width: size.width, height: size.height, stride: stride, format: .argb8888)
        return ShmBuffer(buffer: buffer, map: map, length: length, canvas: canvas)
    }

    // MARK: The connection

    func roundtrip(_ what: String) throws(RenderError) {
        if wl_display_roundtrip(display) < 0 { throw connectionError(what) }
    }

    private func flush() throws(RenderError) {
        // EAGAIN: the socket is full; what is left goes with the next flush.
        if wl_display_flush(display) < 0 && errno != EAGAIN { throw connectionError("writing to the compositor") }
    }

    /// The connection's error: a protocol error names the interface, the object and the code.
    private func connectionError(_ what: String) -> RenderError {
        let code = wl_display_get_error(display)
        if code == EPROTO {
            var interface: UnsafePointer<wl_interface>?
            var id: UInt32 = 0
            let error = wl_display_get_protocol_error(display, &interface, &id)
            let name = interface.map { String(cString: $0.pointee.name) } ?? "an unknown interface"
            return RenderError("wayland: \(what): protocol error \(error) on \(name)@\(id)", status: 76)
        }
        return RenderError("wayland: \(what): \(String(cString: strerror(code == 0 ? errno : code)))", status: 74)
    }
}

/// The listeners handed to libwayland: C function pointers that find the backend through the
/// proxy's user data. They live as long as the process.
enum Listeners {
    static func backend(_ data: UnsafeMutableRawPointer?) -> WaylandBackend {
        Unmanaged<WaylandBackend>.fromOpaque(data!).takeUnretainedValue()
    }

    nonisolated(unsafe) static let registry = zeroedForever(wl_registry_listener.self) {
        $0.global = { data, _, name, interface, version in
            backend(data).global(name: name, interface: String(cString: interface!), version: version)
        }
        $0.global_remove = { _, _, _ in }
    }

    nonisolated(unsafe) static let output = zeroedForever(wl_output_listener.self) {
        $0.geometry = { data, proxy, _, _, _, _, _, _, _, transform in backend(data).outputSaid(proxy) { $0.transform = transform } }
        $0.mode = { data, proxy, flags, width, height, refresh in
            guard flags & WL_OUTPUT_MODE_CURRENT.rawValue != 0 else { return }
            backend(data).outputSaid(proxy) {
                $0.mode = (width, height)
                $0.refresh = RenderProgram.refreshRate(millihertz: Int64(refresh))
            }
        }
        $0.done = { _, _ in }
        $0.scale = { data, proxy, factor in backend(data).outputSaid(proxy) { $0.scale = max(1, min(factor, 16)) } }
        $0.name = { _, _, _ in }
        $0.description = { _, _, _ in }
    }

    nonisolated(unsafe) static let layerSurface = zeroedForever(zwlr_layer_surface_v1_listener.self) {
        $0.configure = { data, _, serial, width, height in backend(data).configure(serial: serial, width: width, height: height) }
        $0.closed = { data, _ in backend(data).closedByCompositor() }
    }

    nonisolated(unsafe) static let wmBase = zeroedForever(xdg_wm_base_listener.self) {
        $0.ping = { data, _, serial in backend(data).ping(serial) }
    }

    nonisolated(unsafe) static let xdgSurface = zeroedForever(xdg_surface_listener.self) {
        $0.configure = { data, _, serial in backend(data).xdgConfigure(serial: serial) }
    }

    nonisolated(unsafe) static let toplevel = zeroedForever(xdg_toplevel_listener.self) {
        $0.configure = { data, _, width, height, _ in backend(data).toplevelSize(width: width, height: height) }
        $0.close = { data, _ in backend(data).closedByCompositor() }
        $0.configure_bounds = { _, _, _, _ in }
        $0.wm_capabilities = { _, _, _ in }
    }

    nonisolated(unsafe) static let seat = zeroedForever(wl_seat_listener.self) {
        $0.capabilities = { data, _, capabilities in backend(data).seatCapabilities(capabilities) }
        $0.name = { _, _, _ in }
    }

    nonisolated(unsafe) static let touch = zeroedForever(wl_touch_listener.self) {
        $0.down = { data, _, _, time, _, id, x, y in backend(data).touchDown(id: id, x: x, y: y, time: time) }
        $0.up = { data, _, _, time, id in backend(data).touchUp(id: id, time: time) }
        $0.motion = { data, _, time, id, x, y in backend(data).touchMotion(id: id, x: x, y: y, time: time) }
        $0.frame = { data, _ in backend(data).touchFrameEnded() }
        $0.cancel = { data, _ in backend(data).touchCancelled() }
        $0.shape = { _, _, _, _, _ in }
        $0.orientation = { _, _, _, _ in }
    }

    nonisolated(unsafe) static let keyboard = zeroedForever(wl_keyboard_listener.self) {
        $0.keymap = { data, _, format, descriptor, size in
            backend(data).keyboardKeymap(format: format, descriptor: descriptor, size: size)
        }
        $0.enter = { data, _, _, _, _ in backend(data).keyboardEntered() }
        $0.leave = { data, _, _, _ in backend(data).keyboardLeft() }
        $0.key = { data, _, _, _, key, state in
            backend(data).keyboardKey(key, pressed: state == WL_KEYBOARD_KEY_STATE_PRESSED.rawValue)
        }
        $0.modifiers = { data, _, _, depressed, latched, locked, group in
            backend(data).keyboardModifiers(depressed: depressed, latched: latched, locked: locked, group: group)
        }
        $0.repeat_info = { _, _, _, _ in }
    }

    nonisolated(unsafe) static let pointer = zeroedForever(wl_pointer_listener.self) {
        $0.enter = { data, _, _, _, x, y in backend(data).pointerMotion(x: x, y: y) }
        $0.leave = { data, _, _, _ in backend(data).pointerLifted(as: .cancel) }
        $0.motion = { data, _, time, x, y in backend(data).pointerMotion(x: x, y: y, time: time) }
        $0.button = { data, _, _, time, button, state in
            backend(data).pointerButton(button, pressed: state == WL_POINTER_BUTTON_STATE_PRESSED.rawValue, time: time)
        }
        $0.axis = { _, _, _, _, _ in }
        $0.frame = { _, _ in }
        $0.axis_source = { _, _, _ in }
        $0.axis_stop = { _, _, _, _ in }
        $0.axis_discrete = { _, _, _, _ in }
        $0.axis_value120 = { _, _, _, _ in }
    }

    nonisolated(unsafe) static let buffer = zeroedForever(wl_buffer_listener.self) {
        $0.release = { data, buffer in backend(data).release(buffer) }
    }

    nonisolated(unsafe) static let frame = zeroedForever(wl_callback_listener.self) {
        $0.done = { data, callback, _ in backend(data).frame(callback) }
    }
}
