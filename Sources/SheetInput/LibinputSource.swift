#if canImport(Glibc)
import Glibc
#endif
import CLibInput
import SheetCore
import SheetSystem

/// One libinput event read into values: what `LibinputInput` uses of it. The seam between
/// libinput's context (`LibinputContext`) and what the input makes of its events, so that a
/// test can give events of its own. A plain value of a few words: reading one allocates
/// nothing. Devices are libinput's `libinput_device`, as the source knows them; times are
/// CLOCK_MONOTONIC, of the evdev frame (SYN_REPORT) the event came in.
enum LibinputEvent {
    enum Touch { case down, motion, up, cancel }
    enum Swipe { case begin, update, end }

    case deviceAdded(OpaquePointer)
    case deviceRemoved(OpaquePointer)
    /// A touch in the seat's slot; down and motion at a position in the screen's pixels. Its
    /// time is its frame's (`touchFrame`): libinput stamps every event of an evdev frame with it.
    case touch(Touch, device: OpaquePointer, seatSlot: Int32, position: Point)
    case touchFrame(OpaquePointer, time: Timestamp)
    /// Two-finger scrolling: each axis the event has, with its value.
    case scroll(OpaquePointer, time: Timestamp, horizontal: Double?, vertical: Double?)
    /// A swipe's fingers, its unaccelerated motion (updates), whether it ended cancelled.
    case swipe(Swipe, device: OpaquePointer, time: Timestamp, fingers: Int, delta: Vector, cancelled: Bool)
    /// A key's kernel code and whether it went down.
    case key(OpaquePointer, time: Timestamp, code: UInt32, pressed: Bool)
    case other
}

/// What a device can do, as libinput says it.
struct LibinputDeviceFacts {
    var name: String
    /// The node's name under /dev/input (`event5`).
    var sysname: String
    var touch = false
    var keyboard = false
    var pointer = false
    var gesture = false
    /// Two-finger scrolling is among its scroll methods: a touchpad.
    var twoFingerScroll = false
}

/// Where `LibinputInput` reads events and asks about devices.
protocol LibinputSource: AnyObject {
    /// Readable when events wait.
    var fileDescriptor: Int32 { get }
    /// Reads what the kernel has into events (libinput_dispatch).
    func dispatch()
    /// The next event, its positions in `screen`'s pixels; nil when none is left.
    func next(screen: ScreenSize) -> LibinputEvent?
    func facts(of device: OpaquePointer) -> LibinputDeviceFacts
    /// The place in `LibinputInput` (its own while the device is there) kept with a device
    /// used, or nil.
    func index(of device: OpaquePointer) -> Int?
    func setIndex(_ index: Int?, of device: OpaquePointer)
    /// A touchpad's scrolling as the sheet needs it: two fingers, not natural (the virtual
    /// contact moves as the fingers do).
    func configureTouchpad(_ device: OpaquePointer)
    /// A device of a path context that is not used is given back (udev contexts keep theirs).
    func release(_ device: OpaquePointer)
    /// Closes every device and opens them again (libinput_suspend, libinput_resume); false
    /// when resuming failed.
    func reopen(between: () -> Void) -> Bool
}

/// libinput's context: the events it reads, the devices it has. Its user data is the
/// `LibinputInput` that owns it, whose `openRestricted` judges each device libinput opens.
final class LibinputContext: LibinputSource {
    let context: OpaquePointer
    let paths: Bool
    /// The callbacks libinput opens and closes devices through, kept until the context goes.
    private let interface: UnsafeMutablePointer<libinput_interface>

    /// The udev context of a seat's context, unreferenced after libinput's.
    private let udev: OpaquePointer?

    /// A context of `udev`'s seats (its reference taken over), or of paths added one by one
    /// when it is nil; nil when libinput refuses.
    init?(udev: OpaquePointer?) {
        self.udev = udev
        interface = .allocate(capacity: 1)
        interface.initialize(to: zeroed(libinput_interface.self) {
            $0.open_restricted = { path, flags, userData in
                guard let path, let userData else { return -EINVAL }
                let input = Unmanaged<LibinputInput>.fromOpaque(userData).takeUnretainedValue()
                return input.openRestricted(String(cString: path), flags: flags)
            }
            $0.close_restricted = { descriptor, _ in close(descriptor) }
        })
        let made = if let udev { libinput_udev_create_context(interface, nil, udev) } else { libinput_path_create_context(interface, nil) }
        guard let context = made else {
            interface.deinitialize(count: 1)
            interface.deallocate()
            if let udev { udev_unref(udev) }
            return nil
        }
        self.context = context
        paths = udev == nil
    }

    deinit {
        // libinput closes its devices through the interface: it goes last.
        libinput_unref(context)
        interface.deinitialize(count: 1)
        interface.deallocate()
        if let udev { udev_unref(udev) }
    }

    var fileDescriptor: Int32 { libinput_get_fd(context) }

    func dispatch() { libinput_dispatch(context) }

    func next(screen: ScreenSize) -> LibinputEvent? {
        guard let event = libinput_get_event(context) else { return nil }
        defer { libinput_event_destroy(event) }
        let type = libinput_event_get_type(event)
        let device = libinput_event_get_device(event)!
        switch type {
        case LIBINPUT_EVENT_DEVICE_ADDED:
            return .deviceAdded(device)
        case LIBINPUT_EVENT_DEVICE_REMOVED:
            return .deviceRemoved(device)
        case LIBINPUT_EVENT_TOUCH_FRAME:
            let touch = libinput_event_get_touch_event(event)!
            return .touchFrame(device, time: Timestamp(microseconds: Int64(libinput_event_touch_get_time_usec(touch))))
        case LIBINPUT_EVENT_TOUCH_DOWN, LIBINPUT_EVENT_TOUCH_MOTION:
            let touch = libinput_event_get_touch_event(event)!
            let position = Point(x: libinput_event_touch_get_x_transformed(touch, UInt32(screen.widthInPixels)),
                                 y: libinput_event_touch_get_y_transformed(touch, UInt32(screen.heightInPixels)))
            return .touch(type == LIBINPUT_EVENT_TOUCH_DOWN ? .down : .motion, device: device,
                          seatSlot: libinput_event_touch_get_seat_slot(touch), position: position)
        case LIBINPUT_EVENT_TOUCH_UP, LIBINPUT_EVENT_TOUCH_CANCEL:
            let touch = libinput_event_get_touch_event(event)!
            return .touch(type == LIBINPUT_EVENT_TOUCH_UP ? .up : .cancel, device: device,
                          seatSlot: libinput_event_touch_get_seat_slot(touch), position: Point(x: 0, y: 0))
        case LIBINPUT_EVENT_POINTER_SCROLL_FINGER:
            let pointer = libinput_event_get_pointer_event(event)!
            let horizontal = libinput_event_pointer_has_axis(pointer, LIBINPUT_POINTER_AXIS_SCROLL_HORIZONTAL) != 0
                ? libinput_event_pointer_get_scroll_value(pointer, LIBINPUT_POINTER_AXIS_SCROLL_HORIZONTAL) : nil
            let vertical = libinput_event_pointer_has_axis(pointer, LIBINPUT_POINTER_AXIS_SCROLL_VERTICAL) != 0
                ? libinput_event_pointer_get_scroll_value(pointer, LIBINPUT_POINTER_AXIS_SCROLL_VERTICAL) : nil
            return .scroll(device, time: Timestamp(microseconds: Int64(libinput_event_pointer_get_time_usec(pointer))),
                           horizontal: horizontal, vertical: vertical)
        case LIBINPUT_EVENT_GESTURE_SWIPE_BEGIN, LIBINPUT_EVENT_GESTURE_SWIPE_UPDATE, LIBINPUT_EVENT_GESTURE_SWIPE_END:
            let gesture = libinput_event_get_gesture_event(event)!
            let phase: LibinputEvent.Swipe = type == LIBINPUT_EVENT_GESTURE_SWIPE_BEGIN ? .begin
                : type == LIBINPUT_EVENT_GESTURE_SWIPE_UPDATE ? .update : .end
            let delta = phase == .update ? Vector(dx: libinput_event_gesture_get_dx_unaccelerated(gesture),
                                                  dy: libinput_event_gesture_get_dy_unaccelerated(gesture)) : Vector(dx: 0, dy: 0)
            return .swipe(phase, device: device, time: Timestamp(microseconds: Int64(libinput_event_gesture_get_time_usec(gesture))),
                          fingers: Int(libinput_event_gesture_get_finger_count(gesture)), delta: delta,
                          cancelled: phase == .end && libinput_event_gesture_get_cancelled(gesture) != 0)
        case LIBINPUT_EVENT_KEYBOARD_KEY:
            guard let keyboard = libinput_event_get_keyboard_event(event) else { return .other }
            return .key(device, time: Timestamp(microseconds: Int64(libinput_event_keyboard_get_time_usec(keyboard))),
                        code: libinput_event_keyboard_get_key(keyboard),
                        pressed: libinput_event_keyboard_get_key_state(keyboard) == LIBINPUT_KEY_STATE_PRESSED)
        default:
            return .other
        }
    }

    func facts(of device: OpaquePointer) -> LibinputDeviceFacts {
        LibinputDeviceFacts(
            name: String(cString: libinput_device_get_name(device)),
            sysname: String(cString: libinput_device_get_sysname(device)),
            touch: libinput_device_has_capability(device, LIBINPUT_DEVICE_CAP_TOUCH) != 0,
            keyboard: libinput_device_has_capability(device, LIBINPUT_DEVICE_CAP_KEYBOARD) != 0,
            pointer: libinput_device_has_capability(device, LIBINPUT_DEVICE_CAP_POINTER) != 0,
            gesture: libinput_device_has_capability(device, LIBINPUT_DEVICE_CAP_GESTURE) != 0,
            twoFingerScroll: libinput_device_config_scroll_get_methods(device) & LIBINPUT_CONFIG_SCROLL_2FG.rawValue != 0)
    }

    func index(of device: OpaquePointer) -> Int? {
        guard let raw = libinput_device_get_user_data(device) else { return nil }
        return Int(bitPattern: raw) - 1
    }

    func setIndex(_ index: Int?, of device: OpaquePointer) {
        libinput_device_set_user_data(device, index.flatMap { UnsafeMutableRawPointer(bitPattern: $0 + 1) })
    }

    func configureTouchpad(_ device: OpaquePointer) {
        _ = libinput_device_config_scroll_set_natural_scroll_enabled(device, 0)
        _ = libinput_device_config_scroll_set_method(device, LIBINPUT_CONFIG_SCROLL_2FG)
    }

    func release(_ device: OpaquePointer) {
        if paths { libinput_path_remove_device(device) }
    }

    func reopen(between: () -> Void) -> Bool {
        libinput_suspend(context)
        between()
        return libinput_resume(context) == 0
    }
}
