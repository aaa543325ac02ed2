// sheet-wayland-probe X Y: a window below the sheet, for the Wayland test.
// sheet-wayland-probe --window: only the window, open until the process is stopped (for the
// README's screenshot).
// sheet-wayland-probe --touch-window FILE: the window alone, writing `down X Y` to FILE for
// each touch the compositor gives it and `key NAME` for each key pressed while it has the
// keyboard (NAME: what the key types, as xkbcommon names it)
// (the e2e run's window beneath a non-modal sheet). --key-window FILE: the same, shown once the
// seat has a keyboard and the window has bound it (the keys test's window beneath the sheet).
// sheet-wayland-probe --fullscreen-window: a window that asks to be fullscreen (a kiosk's app),
// green (0x20c040) where the others are grey, `shown` printed once the compositor shows it at
// the size it asked for and said it is fullscreen, open until the process is stopped.
// sheet-wayland-probe --pointer: a mouse that stays plugged: a virtual pointer added to the
// seat, `plugged` printed once the compositor has it, kept until the process is stopped (so
// that every client has bound its wl_pointer before a click comes).
// sheet-wayland-probe --drag W H X0 Y0 X1 Y1 MS HOLD: a finger of the virtual pointer: pressed
// at (X0, Y0) of a layout W×H (the outputs' logical size, rotated as they are), moved to
// (X1, Y1) in steps of 10 ms over MS milliseconds, held still HOLD ms, released. The steps are
// paced on the clock, as a hand paces them: the sheet reads their speed.
//
// Opens an xdg-shell window on the compositor of WAYLAND_DISPLAY, adds a virtual pointer to the
// seat (sway headless has no input devices), moves it to the output's pixel (X, Y) and clicks
// the left button. Prints `reached` when the window got the press, `missed` when another
// surface took it (the sheet's, when its input region covers the point), and exits 0; 69 when
// the compositor lacks what the probe needs.
//
// No waiting on time: after the click a roundtrip returns only once the compositor has handled
// the click, and the events it sent the window came before the roundtrip's answer.
#if canImport(Glibc)
import Glibc
#endif
import CWayland
import CXKBCommon
import SheetSystem

final class Probe {
    let display: OpaquePointer
    var registry: OpaquePointer?
    var compositor: OpaquePointer?
    var shm: OpaquePointer?
    var wmBase: OpaquePointer?
    var seat: OpaquePointer?
    var pointerManager: OpaquePointer?
    var output: OpaquePointer?
    var outputSize: (width: Int32, height: Int32) = (0, 0)
    /// The output is turned a quarter (90° or 270°): its layout is its mode's sides swapped.
    var quarterTurned = false
    var pointer: OpaquePointer?
    var touch: OpaquePointer?
    var keyboard: OpaquePointer?
    let keys = xkb_context_new(XKB_CONTEXT_NO_FLAGS)
    var keymap: OpaquePointer?

    func readKeymap(_ descriptor: Int32, _ size: UInt32) {
        defer { close(descriptor) }
        guard let map = mmap(nil, Int(size), PROT_READ, MAP_PRIVATE, descriptor, 0), map != MAP_FAILED else { return }
        defer { munmap(map, Int(size)) }
        keymap = xkb_keymap_new_from_string(keys, map.assumingMemoryBound(to: CChar.self), XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS)
    }

    /// What the key types at its first level, by name (`Tab`, `x`).
    func name(of key: UInt32) -> String {
        var symbols: UnsafePointer<xkb_keysym_t>?
        guard let keymap, xkb_keymap_key_get_syms_by_level(keymap, key + 8, 0, 0, &symbols) > 0, let symbol = symbols?[0] else {
            return "code-\(key)"
        }
        var name = [CChar](repeating: 0, count: 64)
        xkb_keysym_get_name(symbol, &name, name.count)
        return String(cString: name)
    }
    /// Where `--touch-window` writes each touch it gets.
    var touchLog: Int32 = -1
    var surface: OpaquePointer?
    var configured: UInt32?
    var windowSize: (width: Int32, height: Int32) = (0, 0)
    /// The compositor's last configure said the window is fullscreen.
    var fullscreen = false
    var shown = false
    var entered = false
    var pressed = false

    init(display: OpaquePointer) { self.display = display }

    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    func roundtrip() {
        guard wl_display_roundtrip(display) >= 0 else { fail("the compositor closed the connection (error \(wl_display_get_error(display)))") }
    }

    func global(_ name: UInt32, _ interface: String, _ version: UInt32) {
        func bind(_ type: UnsafePointer<wl_interface>, _ version: UInt32) -> OpaquePointer? {
            OpaquePointer(wl_registry_bind(registry, name, type, version))
        }
        switch interface {
        case "wl_compositor": compositor = bind(sheet_wl_compositor_interface(), 4)
        case "wl_shm": shm = bind(sheet_wl_shm_interface(), 1)
        case "xdg_wm_base":
            wmBase = bind(sheet_xdg_wm_base_interface(), 1)
            xdg_wm_base_add_listener(wmBase, Listeners.wmBase, context)
        case "wl_seat" where seat == nil:
            seat = bind(sheet_wl_seat_interface(), min(version, 5))
            wl_seat_add_listener(seat, Listeners.seat, context)
        case "wl_output" where output == nil:
            output = bind(sheet_wl_output_interface(), 1)
            wl_output_add_listener(output, Listeners.output, context)
        case "zwlr_virtual_pointer_manager_v1": pointerManager = bind(sheet_zwlr_virtual_pointer_manager_v1_interface(), 1)
        default: break
        }
    }

    func capabilities(_ caps: UInt32) {
        if touchLog >= 0, caps & WL_SEAT_CAPABILITY_TOUCH.rawValue != 0, touch == nil {
            touch = wl_seat_get_touch(seat)
            wl_touch_add_listener(touch, Listeners.touch, context)
        }
        if touchLog >= 0, caps & WL_SEAT_CAPABILITY_KEYBOARD.rawValue != 0, keyboard == nil {
            keyboard = wl_seat_get_keyboard(seat)
            wl_keyboard_add_listener(keyboard, Listeners.keyboard, context)
        }
        if caps & WL_SEAT_CAPABILITY_POINTER.rawValue != 0, pointer == nil {
            pointer = wl_seat_get_pointer(seat)
            wl_pointer_add_listener(pointer, Listeners.pointer, context)
        }
    }

    /// A window with a grey buffer of the size the compositor asks for, shown: sway configures
    /// a new window again when it tiles it, and the window is under the cursor only once a
    /// frame callback of the commit that answers the last configure is done.
    func openWindow(fullscreen: Bool = false) {
        surface = wl_compositor_create_surface(compositor)
        let xdgSurface = xdg_wm_base_get_xdg_surface(wmBase, surface)
        xdg_surface_add_listener(xdgSurface, Listeners.xdgSurface, context)
        let toplevel = xdg_surface_get_toplevel(xdgSurface)
        xdg_toplevel_add_listener(toplevel, Listeners.toplevel, context)
        xdg_toplevel_set_title(toplevel, "sheetd probe")
        if fullscreen { xdg_toplevel_set_fullscreen(toplevel, nil) }
        wl_surface_commit(surface)
        while true {
            if let serial = configured {
                configured = nil
                xdg_surface_ack_configure(xdgSurface, serial)
                let frame = wl_surface_frame(surface)
                wl_callback_add_listener(frame, Listeners.frame, context)
                shown = false
                let (width, height) = windowSize.width > 0 && windowSize.height > 0 ? windowSize : (320, 240)
                wl_surface_attach(surface, makeBuffer(width: width, height: height, colour: fullscreen ? 0xFF20_C040 : 0xFF80_8080), 0, 0)
                wl_surface_damage_buffer(surface, 0, 0, width, height)
                wl_surface_commit(surface)
            }
            dispatch()
            if shown && configured == nil {
                roundtrip()
                if configured == nil { return }
            }
        }
    }

    func makeBuffer(width: Int32, height: Int32, colour: UInt32 = 0xFF80_8080) -> OpaquePointer? {
        let stride = width * 4, length = Int(stride * height)
        let descriptor = sheet_memfd("sheet-wayland-probe")
        guard descriptor >= 0, ftruncate(descriptor, off_t(length)) == 0,
              let map = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), map != MAP_FAILED else {
            fail("a \(length)-byte buffer: \(String(cString: strerror(errno)))")
        }
        map.initializeMemory(as: UInt32.self, repeating: colour, count: length / 4)
        let pool = wl_shm_create_pool(shm, descriptor, Int32(length))
        defer {
            wl_shm_pool_destroy(pool)
            close(descriptor)
        }
        return wl_shm_pool_create_buffer(pool, 0, width, height, stride, WL_SHM_FORMAT_XRGB8888.rawValue)
    }

    /// Reads and handles the compositor's events, giving up after 30 s of silence.
    func dispatch() {
        guard wl_display_flush(display) >= 0 else { fail("writing to the compositor: \(String(cString: strerror(errno)))") }
        var ready = pollfd.readable(wl_display_get_fd(display))
        guard poll(&ready, 1, 30_000) == 1 else { fail("no event from the compositor within 30 s") }
        guard wl_display_dispatch(display) >= 0 else { fail("the compositor closed the connection") }
    }

    func drag(extents: (UInt32, UInt32), from: (Double, Double), to: (Double, Double), milliseconds: Int, hold: Int) {
        guard let pointerManager else { fail("the compositor has no wlr virtual pointer") }
        let virtual = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(pointerManager, seat)
        roundtrip()
        var time: UInt32 = 0
        func move(_ x: Double, _ y: Double) {
            time += 10
            zwlr_virtual_pointer_v1_motion_absolute(virtual, time, UInt32(x.rounded()), UInt32(y.rounded()), extents.0, extents.1)
            zwlr_virtual_pointer_v1_frame(virtual)
            roundtrip()
        }
        func pause(_ milliseconds: Int) {
            var interval = timespec.of(seconds: milliseconds / 1000, nanoseconds: (milliseconds % 1000) * 1_000_000)
            var left = timespec()
            while nanosleep(&interval, &left) != 0 && errno == EINTR { interval = left }
        }
        // The new device gives the seat a pointer; every client binds its wl_pointer when it
        // reads that, on its own time. A hand's pause before touching lets them.
        pause(200)
        move(from.0 + 1, from.1)
        move(from.0, from.1)
        zwlr_virtual_pointer_v1_button(virtual, time, 0x110, 1)
        zwlr_virtual_pointer_v1_frame(virtual)
        roundtrip()
        let steps = max(1, milliseconds / 10)
        for step in 1...steps {
            pause(10)
            let fraction = Double(step) / Double(steps)
            move(from.0 + (to.0 - from.0) * fraction, from.1 + (to.1 - from.1) * fraction)
        }
        pause(hold)
        time += UInt32(hold)
        zwlr_virtual_pointer_v1_button(virtual, time, 0x110, 0)
        zwlr_virtual_pointer_v1_frame(virtual)
        roundtrip()
        zwlr_virtual_pointer_v1_destroy(virtual)
        roundtrip()
    }

    func click(x: UInt32, y: UInt32) {
        guard let pointerManager else { fail("the compositor has no wlr virtual pointer") }
        let virtual = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(pointerManager, seat)
        // The new device gives the seat a pointer; the window binds it.
        roundtrip()
        roundtrip()
        guard pointer != nil else { fail("the seat has no pointer after adding a virtual one") }
        guard outputSize.width > 0, outputSize.height > 0 else { fail("the output has no current mode") }
        // The cursor stays where an earlier probe left it, and a move to where it already is
        // would not tell the new window it is under it: move beside the point first.
        var (width, height) = (UInt32(outputSize.width), UInt32(outputSize.height))
        if quarterTurned { swap(&width, &height) }
        zwlr_virtual_pointer_v1_motion_absolute(virtual, 0, x > 0 ? x - 1 : x + 1, y, width, height)
        zwlr_virtual_pointer_v1_frame(virtual)
        zwlr_virtual_pointer_v1_motion_absolute(virtual, 1, x, y, width, height)
        zwlr_virtual_pointer_v1_frame(virtual)
        zwlr_virtual_pointer_v1_button(virtual, 2, 0x110, 1)  // BTN_LEFT pressed
        zwlr_virtual_pointer_v1_frame(virtual)
        zwlr_virtual_pointer_v1_button(virtual, 3, 0x110, 0)
        zwlr_virtual_pointer_v1_frame(virtual)
        roundtrip()
    }
}

func fail(_ message: String) -> Never {
    say("sheet-wayland-probe: \(message)")
    exit(69)
}

func say(_ line: String, to descriptor: Int32 = 2) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}

func probe(_ data: UnsafeMutableRawPointer?) -> Probe { Unmanaged<Probe>.fromOpaque(data!).takeUnretainedValue() }

enum Listeners {
    nonisolated(unsafe) static let registry = zeroedForever(wl_registry_listener.self) {
        $0.global = { data, _, name, interface, version in probe(data).global(name, String(cString: interface!), version) }
        $0.global_remove = { _, _, _ in }
    }
    nonisolated(unsafe) static let wmBase = zeroedForever(xdg_wm_base_listener.self) {
        $0.ping = { data, base, serial in xdg_wm_base_pong(base, serial) }
    }
    nonisolated(unsafe) static let seat = zeroedForever(wl_seat_listener.self) {
        $0.capabilities = { data, _, caps in probe(data).capabilities(caps) }
        $0.name = { _, _, _ in }
    }
    nonisolated(unsafe) static let output = zeroedForever(wl_output_listener.self) {
        $0.geometry = { data, _, _, _, _, _, _, _, _, transform in probe(data).quarterTurned = transform & 1 == 1 }
        $0.mode = { data, _, flags, width, height, _ in
            if flags & WL_OUTPUT_MODE_CURRENT.rawValue != 0 { probe(data).outputSize = (width, height) }
        }
        $0.done = { _, _ in }
        $0.scale = { _, _, _ in }
        $0.name = { _, _, _ in }
        $0.description = { _, _, _ in }
    }
    nonisolated(unsafe) static let xdgSurface = zeroedForever(xdg_surface_listener.self) {
        $0.configure = { data, _, serial in probe(data).configured = serial }
    }
    nonisolated(unsafe) static let toplevel = zeroedForever(xdg_toplevel_listener.self) {
        $0.configure = { data, _, width, height, states in
            probe(data).windowSize = (width, height)
            // The states the compositor gives the window (xdg_toplevel.state, 32-bit values).
            if let states, let base = states.pointee.data {
                let values = UnsafeRawBufferPointer(start: base, count: states.pointee.size)
                probe(data).fullscreen = stride(from: 0, to: values.count - 3, by: 4)
                    .contains { values.loadUnaligned(fromByteOffset: $0, as: UInt32.self) == XDG_TOPLEVEL_STATE_FULLSCREEN.rawValue }
            }
        }
        $0.close = { _, _ in }
        $0.configure_bounds = { _, _, _, _ in }
        $0.wm_capabilities = { _, _, _ in }
    }
    nonisolated(unsafe) static let frame = zeroedForever(wl_callback_listener.self) {
        $0.done = { data, _, _ in probe(data).shown = true }
    }
    nonisolated(unsafe) static let touch = zeroedForever(wl_touch_listener.self) {
        $0.down = { data, _, _, _, _, _, x, y in
            say("down \(Int(Double(x) / 256)) \(Int(Double(y) / 256))", to: probe(data).touchLog)
        }
        $0.up = { _, _, _, _, _ in }
        $0.motion = { _, _, _, _, _, _ in }
        $0.frame = { _, _ in }
        $0.cancel = { _, _ in }
        $0.shape = { _, _, _, _, _ in }
        $0.orientation = { _, _, _, _ in }
    }
    nonisolated(unsafe) static let keyboard = zeroedForever(wl_keyboard_listener.self) {
        $0.keymap = { data, _, _, descriptor, size in probe(data).readKeymap(descriptor, size) }
        $0.enter = { _, _, _, _, _ in }
        $0.leave = { _, _, _, _ in }
        $0.key = { data, _, _, _, key, state in
            if state == WL_KEYBOARD_KEY_STATE_PRESSED.rawValue { say("key \(probe(data).name(of: key))", to: probe(data).touchLog) }
        }
        $0.modifiers = { _, _, _, _, _, _, _ in }
        $0.repeat_info = { _, _, _, _ in }
    }
    nonisolated(unsafe) static let pointer = zeroedForever(wl_pointer_listener.self) {
        $0.enter = { data, _, _, _, _, _ in probe(data).entered = true }
        $0.leave = { _, _, _, _ in }
        $0.motion = { _, _, _, _, _ in }
        $0.button = { data, _, _, _, button, state in
            if button == 0x110 && state == WL_POINTER_BUTTON_STATE_PRESSED.rawValue { probe(data).pressed = true }
        }
        $0.axis = { _, _, _, _, _ in }
        $0.frame = { _ , _ in }
        $0.axis_source = { _, _, _ in }
        $0.axis_stop = { _, _, _, _ in }
        $0.axis_discrete = { _, _, _, _ in }
        $0.axis_value120 = { _, _, _, _ in }
    }
}

/// The compositor of WAYLAND_DISPLAY with its globals bound (and the seat's devices, after
/// the second roundtrip); `touchLog`: where a window counts its touches, set before the seat
/// says what it has.
func connectProbe(touchLog: Int32 = -1) -> Probe {
    guard let display = wl_display_connect(nil) else { fail("no compositor on WAYLAND_DISPLAY (\(String(cString: strerror(errno))))") }
    let state = Probe(display: display)
    state.touchLog = touchLog
    state.registry = wl_display_get_registry(display)
    wl_registry_add_listener(state.registry, Listeners.registry, state.context)
    state.roundtrip()
    state.roundtrip()
    return state
}

let arguments = CommandLine.arguments
if arguments.count == 10, arguments[1] == "--drag" {
    let numbers = arguments.dropFirst(2).compactMap { Int($0) }
    guard numbers.count == 8, numbers.allSatisfy({ $0 >= 0 }) else {
        say("usage: sheet-wayland-probe --drag W H X0 Y0 X1 Y1 MS HOLD")
        exit(64)
    }
    let state = connectProbe()
    guard state.seat != nil else { fail("the compositor has no wl_seat") }
    state.drag(extents: (UInt32(numbers[0]), UInt32(numbers[1])), from: (Double(numbers[2]), Double(numbers[3])),
               to: (Double(numbers[4]), Double(numbers[5])), milliseconds: numbers[6], hold: numbers[7])
    say("dragged", to: 1)
    wl_display_disconnect(state.display)
    exit(0)
}
if arguments.count == 2, arguments[1] == "--pointer" {
    let state = connectProbe()
    guard let manager = state.pointerManager, let seat = state.seat else { fail("the compositor has no wl_seat or wlr virtual pointer") }
    _ = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(manager, seat)
    state.roundtrip()
    say("plugged", to: 1)
    while wl_display_dispatch(state.display) >= 0 {}
    exit(0)
}
if arguments.count == 3, arguments[1] == "--touch-window" || arguments[1] == "--key-window" {
    let log = open(arguments[2], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard log >= 0 else { fail("cannot open \(arguments[2])") }
    let state = connectProbe(touchLog: log)
    guard state.compositor != nil, state.shm != nil, state.wmBase != nil else { fail("the compositor lacks what a window needs") }
    state.openWindow()
    if arguments[1] == "--key-window" {
        while state.keyboard == nil { state.dispatch() }
        state.roundtrip()
    }
    say("shown", to: 1)
    while wl_display_dispatch(state.display) >= 0 {}
    exit(0)
}
if arguments.count == 2, arguments[1] == "--fullscreen-window" {
    let state = connectProbe()
    guard state.compositor != nil, state.shm != nil, state.wmBase != nil else { fail("the compositor lacks what a window needs") }
    state.openWindow(fullscreen: true)
    guard state.fullscreen else { fail("the compositor showed the window, but not fullscreen (\(state.windowSize.width)x\(state.windowSize.height))") }
    say("shown", to: 1)
    while wl_display_dispatch(state.display) >= 0 {}
    exit(0)
}
let windowOnly = arguments.count == 2 && arguments[1] == "--window"
guard windowOnly || arguments.count == 3, let x = UInt32(windowOnly ? "0" : arguments[1]), let y = UInt32(windowOnly ? "0" : arguments[2]) else {
    say("usage: sheet-wayland-probe X Y | --window")
    exit(64)
}
let state = connectProbe()
let display = state.display
guard state.compositor != nil, state.shm != nil, state.wmBase != nil, state.seat != nil else {
    fail("the compositor lacks wl_compositor, wl_shm, xdg_wm_base or wl_seat")
}
state.openWindow()
if windowOnly {
    say("shown", to: 1)
    while wl_display_dispatch(display) >= 0 {}
    exit(0)
}
state.click(x: x, y: y)
say(state.pressed ? "reached" : "missed", to: 1)
wl_display_disconnect(display)
