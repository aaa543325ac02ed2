#if canImport(Glibc)
import Glibc
#endif
import CLibInput
import Logging
import SheetCore
import SheetProtocol

/// Why an input backend could not start, naming the call and what it was given.
public enum InputError: Error, CustomStringConvertible, Equatable {
    case udev(call: String)
    case libinput(call: String, argument: String)
    case noDevices(String)

    public var description: String {
        switch self {
        case .udev(let call): "\(call) failed (is /sys mounted?)"
        case .libinput(let call, let argument): "\(call)(\(argument)) failed"
        case .noDevices(let detail): detail
        }
    }
}

/// Live input through libinput's C API: the udev backend (a seat, with hotplug) or the path
/// backend (named nodes).
///
/// Only touchscreens and touchpads are opened: `open_restricted` classifies a node from sysfs
/// before it opens anything and refuses the rest, so a keyboard's node is never opened. A node
/// that cannot be opened read-write is opened read-only (enough to read events).
///
/// Touchscreens give touch frames: DOWN/MOTION/UP/CANCEL are gathered until TOUCH_FRAME, with
/// the kernel's timestamps and positions from the `_transformed` calls (so a udev
/// `LIBINPUT_CALIBRATION_MATRIX` is honoured). Touchpads give one virtual contact that starts
/// at the screen's centre and moves with two-finger scrolling or a three-finger swipe, so the
/// sheet's release rules apply unchanged. A device that goes away cancels its touches.
public final class LibinputInput {
    public enum Mode: Sendable, Equatable {
        case udev(seat: String)
        case paths([String])
    }

    public let mode: Mode
    let logger: Logger
    let classifier: DeviceClassifier
    /// libinput's context (`LibinputContext`), or a test's events.
    private let source: any LibinputSource
    private var udev: OpaquePointer?

    /// Every device there, used or not, in the order seen.
    public private(set) var devices: [InputDevice] = []
    /// The same devices, each at a place that stays its own while it is there: the index that
    /// libinput's user data, the seat's slots, the pad and the frame counts keep. A device gone
    /// for good (`forget`) leaves its place empty for the next one, so no index ever moves
    /// under them and the list does not grow with plugging in and out.
    private var places: [Place?] = [] {
        didSet {
            devices = places.compactMap { $0 }.sorted { $0.seen < $1.seen }.map(\.device)
            devicesRevision &+= 1
        }
    }
    private struct Place {
        var device: InputDevice
        var seen: Int
    }
    private var seen = 0
    /// Counts the changes of `devices`, so that a caller can tell one without comparing lists.
    public private(set) var devicesRevision = 0
    /// What each event reads and changes (`TouchSeat`), held here between dispatches.
    private var seat = TouchSeat.make()
    /// Devices whose touches fell off the screen, said once each.
    private var warnedOffScreen = Set<Int>()
    static let seatSlots = 32

    /// The seat's touches between libinput's frames, and the frames each device sent. A
    /// dispatch takes it out of the input and puts it back, and hands it to each event as a
    /// local: a property of the class would take a run-time exclusivity check at each access,
    /// several for every event.
    struct TouchSeat {
        /// Per seat slot (libinput keeps a seat's slots in a 32-bit map): the device (its
        /// place) whose touch holds it, or nil, and the touch's last position.
        var slotDevice: [Int?] = []
        var slotPosition: [Point] = []
        /// The frame being gathered until libinput's TOUCH_FRAME.
        var frame = TouchFrame(time: .zero)
        /// Frames each device sent, by its place.
        var frameCounts: [Int] = []

        /// Empty lists, allocating nothing: what stands in for the seat while it is out.
        init() {}

        static func make() -> TouchSeat {
            var seat = TouchSeat()
            seat.slotDevice = [Int?](repeating: nil, count: LibinputInput.seatSlots)
            seat.slotPosition = [Point](repeating: .zero, count: LibinputInput.seatSlots)
            return seat
        }

        mutating func countFrame(of index: Int) {
            if index >= frameCounts.count { frameCounts += repeatElement(0, count: index + 1 - frameCounts.count) }
            frameCounts[index] += 1
        }
    }
    /// The contact touchpads drive, the device that drives it while it is down, and the
    /// contacts one of its motions makes.
    private var pad = TouchpadContact()
    private var padDevice: Int?
    private var padContacts: [Contact] = []

    /// Which key devices are read (set before the first dispatch: the udev seat opens its
    /// devices then).
    public var keyReading = KeyReading()
    /// Key devices let through `openRestricted`, by node: their kind and why they are read.
    private var keyDevices: [String: (kind: InputDeviceKind, reason: String)] = [:]
    /// The output the sheet lives on (`output:`): touchscreens on others are left to their panels.
    private let output: String?
    /// Keys read since the caller last took them (`takeKeys`), in order. Never logged.
    private var keyEvents: [KeyEvent] = []
    /// A key device went away since the last `takeKeys`: its keys held are let go.
    private var keyDeviceLost = false
    /// Knobs, read with libevdev beside libinput (made when first asked for).
    private lazy var knobs = KnobInput(libinputDescriptor: source.fileDescriptor, logger: logger)

    public init(mode: Mode, classifier: DeviceClassifier = DeviceClassifier(), keyReading: KeyReading = KeyReading(),
                output: String? = nil, logger: Logger) throws(InputError) {
        self.mode = mode
        self.output = output
        self.classifier = classifier
        self.keyReading = keyReading
        self.logger = logger
        let context: LibinputContext
        switch mode {
        case .udev:
            guard let udev = udev_new() else { throw .udev(call: "udev_new") }
            guard let made = LibinputContext(udev: udev) else { throw .libinput(call: "libinput_udev_create_context", argument: "") }
            context = made
        case .paths:
            guard let made = LibinputContext(udev: nil) else { throw .libinput(call: "libinput_path_create_context", argument: "") }
            context = made
        }
        source = context
        // From here the open and log callbacks find this input through the context.
        libinput_set_user_data(context.context, Unmanaged.passUnretained(self).toOpaque())
        installLogHandler(context.context)
        switch mode {
        case .udev(let seat):
            guard libinput_udev_assign_seat(context.context, seat) == 0 else {
                throw .libinput(call: "libinput_udev_assign_seat", argument: seat)
            }
        case .paths(let paths):
            var added = 0
            for path in paths {
                if libinput_path_add_device(context.context, path) != nil {
                    added += 1
                } else if !devices.contains(where: { $0.node == path }) {
                    note(InputDevice(node: path, name: "?", kind: .other, used: false,
                                     reason: "libinput could not add it (see the log above)"))
                }
            }
            if added == 0 { throw .noDevices("none of \(paths.joined(separator: ", ")) is a touchscreen or touchpad libinput can open") }
        }
    }

    /// Reads `source`'s events as libinput's (tests give their own); devices it adds are
    /// taken as they come, without the open callback's judgement.
    init(source: LibinputSource, mode: Mode = .paths([]), classifier: DeviceClassifier = DeviceClassifier(),
         keyReading: KeyReading = KeyReading(), output: String? = nil, logger: Logger) {
        self.mode = mode
        self.output = output
        self.classifier = classifier
        self.keyReading = keyReading
        self.logger = logger
        self.source = source
    }

    deinit {
        if let udev { udev_unref(udev) }
    }

    /// Readable when libinput has events: poll it, then call `dispatch`.
    public var fileDescriptor: Int32 { knobs.set >= 0 ? knobs.set : source.fileDescriptor }

    private func installLogHandler(_ context: OpaquePointer) {
        libinput_log_set_priority(context, LIBINPUT_LOG_PRIORITY_INFO)
        sheetd_libinput_log_set_handler(context)
    }

    /// A line libinput logged, formatted by CLibInput's handler, into this input's log.
    fileprivate func log(_ priority: libinput_log_priority, _ text: String) {
        switch priority {
        case LIBINPUT_LOG_PRIORITY_ERROR: logger.error("libinput: \(text)")
        case LIBINPUT_LOG_PRIORITY_INFO: logger.info("libinput: \(text)")
        default: logger.debug("libinput: \(text)")
        }
    }

    /// libinput's open callback: classify first, open only touch devices and the key devices
    /// `keyReading` lets through.
    func openRestricted(_ path: String, flags: Int32) -> Int32 {
        var keys = false
        if classifier.hasHeadphoneSwitch(node: path), let (name, kind) = classifier.classify(node: path), !kind.isTouch {
            // Whether headphones are plugged (speech: headset): libinput does not read this
            // switch, so it is read here, whole, as a knob is.
            if knobs.open(node: path) {
                let reason = "a headphone switch (SW_HEADPHONE_INSERT): read with libevdev, for speech while headphones are plugged"
                note(InputDevice(node: path, name: name, kind: .other, used: true, reason: reason))
                logger.notice("using \(path) \"\(name)\": \(reason)")
            } else {
                note(InputDevice(node: path, name: name, kind: .other, used: false, reason: "a headphone switch that cannot be opened (see the log)"))
            }
            return -ENODEV
        }
        if let (name, kind) = classifier.classify(node: path), !kind.isTouch {
            let knob = classifier.isKnob(node: path)
            let decision = kind == .keyboard || kind == .keys || kind == .other
                ? keyReading.decide(name: name, node: path, kind: kind, keyBits: classifier.keyBits(ofNode: path), isKnob: knob,
                                    udevOptIn: udevProperty(KeyReading.udevProperty, ofNode: path) == "1")
                : (read: false, reason: "a \(kind.rawValue): never opened")
            // What the configured key map reads is keys, whatever the standard map would say.
            let kind = decision.read && kind == .other ? InputDeviceKind.keys : kind
            guard decision.read else {
                note(InputDevice(node: path, name: name, kind: kind, used: false, reason: decision.reason))
                logger.info("skipped \(path) \"\(name)\": \(decision.reason)")
                return -ENODEV
            }
            if kind == .keys, knob {
                // libinput would take the push and drop the turn: the knob is read here, whole.
                if knobs.open(node: path) {
                    let reason = "a knob (REL_DIAL): read with libevdev for the focus, as libinput does not read a knob's turn"
                    note(InputDevice(node: path, name: name, kind: .keys, used: true, reason: reason))
                    logger.notice("using keys \(path) \"\(name)\": \(reason)")
                } else {
                    note(InputDevice(node: path, name: name, kind: .keys, used: false, reason: "a knob that cannot be opened (see the log)"))
                }
                return -ENODEV
            }
            keyDevices[path] = (kind, decision.reason)
            keys = true
        }
        var descriptor = open(path, flags)
        if descriptor < 0, errno == EACCES || errno == EPERM || errno == EROFS, flags & O_ACCMODE == O_RDWR {
            descriptor = open(path, (flags & ~O_ACCMODE) | O_RDONLY)
            if descriptor >= 0 { logger.info("\(path): opened read-only (no write permission)") }
        }
        if descriptor < 0 {
            let code = errno
            note(InputDevice(node: path, name: classifier.classify(node: path)?.name ?? "?", kind: .other, used: false,
                             reason: "cannot open: \(String(cString: strerror(code)))"))
            logger.warning("cannot open \(path): \(String(cString: strerror(code)))")
            return -code
        }
        let name = classifier.classify(node: path)?.name ?? "?"
        if !keys, let axes = EvdevAxes.description(of: descriptor, name: name), let problem = axes.positionProblem {
            close(descriptor)
            note(InputDevice(node: path, name: name, kind: .other, used: false, reason: problem))
            logger.warning("skipped \(path) \"\(name)\": \(problem); not a touchscreen or touchpad")
            return -ENODEV
        }
        return descriptor
    }

    /// The place of the device at `node`, if it is there.
    private func place(of node: String) -> Int? { places.firstIndex { $0?.device.node == node } }

    private func note(_ device: InputDevice) {
        if let index = place(of: device.node) {
            places[index]?.device = device
            return
        }
        seen += 1
        if let free = places.firstIndex(where: { $0 == nil }) {
            places[free] = Place(device: device, seen: seen)
        } else {
            places.append(Place(device: device, seen: seen))
        }
    }

    /// Forgets the devices at `nodes`, gone for good: their places are emptied, with what the
    /// seat counted of them, for the next devices to take.
    private func forget(_ nodes: [String], seat: inout TouchSeat) {
        for node in nodes {
            guard let index = place(of: node) else { continue }
            places[index] = nil
            warnedOffScreen.remove(index)
            if index < seat.frameCounts.count { seat.frameCounts[index] = 0 }
            for slot in seat.slotDevice.indices where seat.slotDevice[slot] == index { seat.slotDevice[slot] = nil }
            if padDevice == index { padDevice = nil }
        }
    }

    // MARK: Events

    /// Reads what libinput has and appends the touch frames it makes, in pixels of `screen`;
    /// true when `devices` changed on the way: a device added or removed, or one libinput
    /// asked to open and was refused (not a touch device, a failed open), which libinput never
    /// reports as added. Devices change only within libinput's calls, so the revision is
    /// compared here, once a dispatch.
    @discardableResult
    public func dispatch(screen: ScreenSize, into frames: inout TouchFrameBatch) -> Bool {
        let revision = devicesRevision
        var seat = TouchSeat()
        swap(&seat, &self.seat)
        defer { swap(&seat, &self.seat) }
        source.dispatch()
        var read = false
        while let event = source.next(screen: screen) {
            read = true
            handle(event, screen: screen, seat: &seat, into: &frames)
        }
        if !knobs.isEmpty {
            let before = keyEvents.count
            for node in knobs.read(into: &keyEvents, limit: Self.maximumKeysPerDispatch) {
                // A knob or a switch (both read with libevdev), named as it was when taken.
                let name = devices.first { $0.node == node }.map { " \"\($0.name)\"" } ?? ""
                logger.notice("\(node)\(name) removed")
                forget([node], seat: &seat)
                keyDeviceLost = true
                read = true
            }
            if keyEvents.count != before { read = true }
        }
        if !read { forgetRefusedDevicesGone(seat: &seat) }
        return devicesRevision != revision
    }

    /// Judges the seat's key devices again by `reading` (a reload changed the key map or
    /// `keys:`): when it differs, every device is closed and opened again (`libinput_suspend`,
    /// `libinput_resume`), so that a keyboard no longer let in is closed and one newly let in
    /// is read. Touches down are cancelled into `frames` and held keys let go, as at an unplug.
    /// True when it did.
    @discardableResult
    public func judgeKeysAgain(by reading: KeyReading, screen: ScreenSize, into frames: inout TouchFrameBatch) -> Bool {
        guard reading != keyReading else { return false }
        keyReading = reading
        let resumed = source.reopen {
            dispatch(screen: screen, into: &frames)
            let closed = knobs.closeAll()
            forget(closed, seat: &seat)
            if !closed.isEmpty { keyDeviceLost = true }
            keyDevices.removeAll()
        }
        if !resumed { logger.error("libinput_resume failed: input devices are not read again") }
        dispatch(screen: screen, into: &frames)
        return true
    }

    /// Whether headphones are plugged, when a headphone switch said so (or came or went) since
    /// the last call.
    public func takeHeadphones() -> Bool? { knobs.takeHeadphones() }

    /// Moves the keys read since the last call into `keys` (emptied first), in order; true
    /// when a key device went away meanwhile (the engine lets its held keys go).
    public func takeKeys(into keys: inout [KeyEvent]) -> Bool {
        keys.removeAll(keepingCapacity: true)
        guard !keyEvents.isEmpty || keyDeviceLost else { return false }
        keys.append(contentsOf: keyEvents)
        keyEvents.removeAll(keepingCapacity: true)
        defer { keyDeviceLost = false }
        return keyDeviceLost
    }

    /// Why the touchscreen at `node` is not read by a daemon living on `output`: it sits on
    /// another (`WL_OUTPUT`, held against the connectors sysfs lists now); nil: it is read.
    private func refusal(node: String, name: String, output: String) -> String? {
        let mapping = PanelMapping(sysfsRoot: classifier.sysfsRoot)
        let placement = mapping.place(seat: nil, output: udevProperty("WL_OUTPUT", ofNode: node))
        for problem in placement.problems { logger.warning("\(node) \"\(name)\": \(problem)") }
        return mapping.reads(placement, seat: nil, output: output).reason
    }

    /// A udev property of the device at `node` (`SHEETD_KEYS`, `WL_OUTPUT`), or nil.
    private func udevProperty(_ name: String, ofNode node: String) -> String? {
        var status = stat()
        guard stat(node, &status) == 0 else { return nil }
        if udev == nil { udev = udev_new() }
        guard let udev, let device = udev_device_new_from_devnum(udev, CChar(UInt8(ascii: "c")), status.st_rdev) else { return nil }
        defer { udev_device_unref(device) }
        return udev_device_get_property_value(device, name).map { String(cString: $0) }
    }

    /// A wake that gave no event is udev's word of a device libinput does not know: most often
    /// one it asked to open and was refused, now unplugged, of which libinput says nothing
    /// (it never added it). Such an entry goes once its node is gone, so that `ListDevices`
    /// and doctor list what is plugged in.
    private func forgetRefusedDevicesGone(seat: inout TouchSeat) {
        guard devices.contains(where: { !$0.used }) else { return }
        let gone = devices.filter { !$0.used && access($0.node, F_OK) != 0 }
        guard !gone.isEmpty else { return }
        // A device libinput used and removed was said so then.
        for device in gone where device.reason != Self.removedReason {
            logger.info("\(device.node) \"\(device.name)\" (not used) removed")
        }
        forget(gone.map(\.node), seat: &seat)
    }

    private func handle(_ event: LibinputEvent, screen: ScreenSize, seat: inout TouchSeat, into frames: inout TouchFrameBatch) {
        switch event {
        case .deviceAdded(let device):
            added(device)
        case .deviceRemoved(let device):
            removed(device, seat: &seat, into: &frames)
        case .touch(let touch, let device, let seatSlot, let eventPosition):
            guard let index = source.index(of: device), seatSlot >= 0, seatSlot < Self.seatSlots else { return }
            let slot = Int(seatSlot)
            seat.frame.source = .touchscreen
            switch touch {
            case .down, .motion:
                var position = eventPosition
                if !(0...Double(screen.widthInPixels)).contains(position.x) || !(0...Double(screen.heightInPixels)).contains(position.y) {
                    position = clamped(position, on: screen, device: index)
                }
                seat.slotPosition[slot] = position
                if touch == .down { seat.slotDevice[slot] = index }
                seat.frame.contacts.append(Contact(slot: slot, phase: touch == .down ? .down : .move, positionInPixels: position))
            case .up, .cancel:
                seat.frame.contacts.append(Contact(slot: slot, phase: touch == .up ? .up : .cancel, positionInPixels: seat.slotPosition[slot]))
                seat.slotDevice[slot] = nil
            }
        case .touchFrame(let device, let time):
            seat.frame.time = time
            if !seat.frame.contacts.isEmpty {
                if let index = source.index(of: device) { seat.countFrame(of: index) }
                frames.take(&seat.frame)
            }
        case .scroll(let device, let time, let horizontal, let vertical):
            guard let index = source.index(of: device) else { return }
            let delta = Vector(dx: horizontal ?? 0, dy: vertical ?? 0)
            // A zero on every axis it reports is libinput's "scroll stop": the fingers lifted.
            let stop = (horizontal != nil || vertical != nil) && delta.dx == 0 && delta.dy == 0
            padApply(stop ? .scrollStop : .scroll(delta), device: index, time: time, screen: screen, seat: &seat, into: &frames)
        case .swipe(let phase, let device, let time, let fingers, let delta, let cancelled):
            guard phase != .begin, let index = source.index(of: device) else { return }
            let motion: TouchpadMotion = phase == .update ? .swipe(fingers: fingers, delta) : .swipeEnd(fingers: fingers, cancelled: cancelled)
            padApply(motion, device: index, time: time, screen: screen, seat: &seat, into: &frames)
        case .key(let device, let time, let code, let pressed):
            guard source.index(of: device) != nil, code <= UInt32(UInt16.max), keyEvents.count < Self.maximumKeysPerDispatch else { return }
            keyEvents.append(KeyEvent(time: time, input: .key(UInt16(code)), action: pressed ? .press : .release))
        case .other:
            break
        }
    }

    /// Why a device libinput used and then removed is no longer used.
    static let removedReason = "removed"

    /// Keys kept between two `takeKeys`: more in one dispatch is no person typing.
    static let maximumKeysPerDispatch = 256

    /// A touch libinput puts off the screen (the device sent a position outside the range it
    /// declares): held to the screen's edge, and said once per device.
    private func clamped(_ position: Point, on screen: ScreenSize, device index: Int) -> Point {
        if warnedOffScreen.insert(index).inserted, let device = places[index]?.device {
            logger.warning("\(device.node) \"\(device.name)\": a touch at (\(position.x), \(position.y)) lies outside the \(screen.widthInPixels)x\(screen.heightInPixels) screen: the device sends positions outside the range it declares; its touches are clamped to the screen")
        }
        return Point(x: min(max(position.x, 0), Double(screen.widthInPixels)),
                     y: min(max(position.y, 0), Double(screen.heightInPixels)))
    }

    private func added(_ device: OpaquePointer) {
        let facts = source.facts(of: device)
        let name = facts.name
        let node = "/dev/input/" + facts.sysname
        let kind: InputDeviceKind
        let reason: String
        if let key = keyDevices[node], facts.keyboard {
            kind = key.kind
            reason = key.reason
        } else if facts.touch {
            kind = .touchscreen
            reason = "has libinput's touch capability"
            if let output, let refusal = refusal(node: node, name: name, output: output) {
                note(InputDevice(node: node, name: name, kind: kind, used: false, reason: refusal))
                logger.notice("skipped touchscreen \(node) \"\(name)\": \(refusal)")
                source.release(device)
                return
            }
        } else if facts.pointer, facts.twoFingerScroll {
            // A touchpad is what can scroll with two fingers: semi-multitouch pads have no
            // gesture capability (libinput turns gestures off on them) but scroll all the same.
            kind = .touchpad
            reason = facts.gesture
                ? "a touchpad: two-finger scroll and three-finger swipe pan the sheet"
                : "a touchpad without gestures (semi-multitouch): two-finger scroll pans the sheet"
            source.configureTouchpad(device)
        } else {
            note(InputDevice(node: node, name: name, kind: .other, used: false, reason: "neither touch capability nor two-finger scrolling"))
            logger.info("ignoring \(node) \"\(name)\": neither touch capability nor two-finger scrolling")
            source.release(device)
            return
        }
        note(InputDevice(node: node, name: name, kind: kind, used: true, reason: reason))
        let index = place(of: node)!
        source.setIndex(index, of: device)
        logger.notice("using \(kind.rawValue) \(node) \"\(name)\": \(reason)")
    }

    private func removed(_ device: OpaquePointer, seat: inout TouchSeat, into frames: inout TouchFrameBatch) {
        guard let index = source.index(of: device), let node = places[index]?.device.node else { return }
        source.setIndex(nil, of: device)
        places[index]?.device.used = false
        places[index]?.device.reason = Self.removedReason
        logger.notice("\(node) \"\(places[index]?.device.name ?? "")\" removed")
        if keyDevices.removeValue(forKey: node) != nil { keyDeviceLost = true }
        let now = Self.monotonicNow()
        var cancel = TouchFrame(time: now)
        for slot in seat.slotDevice.indices where seat.slotDevice[slot] == index {
            cancel.contacts.append(Contact(slot: slot, phase: .cancel, positionInPixels: seat.slotPosition[slot]))
            seat.slotDevice[slot] = nil
        }
        // Touches of this device gathered for a frame that will never come are dropped.
        seat.frame.contacts.removeAll { contact in cancel.contacts.contains { $0.slot == contact.slot } }
        if !cancel.contacts.isEmpty {
            logger.notice("cancelled \(cancel.contacts.count) touch(es) of the removed device")
            frames.append(cancel)
        }
        if padDevice == index {
            padContacts.removeAll(keepingCapacity: true)
            pad.cancel(into: &padContacts)
            padDevice = nil
            frames.append(time: now, source: .touchpad, contacts: padContacts)
        }
    }

    /// One touchpad motion into the shared contact; a second pad is ignored while one drives it.
    private func padApply(_ motion: TouchpadMotion, device: Int, time: Timestamp, screen: ScreenSize,
                          seat: inout TouchSeat, into frames: inout TouchFrameBatch) {
        guard padDevice == nil || padDevice == device else { return }
        padContacts.removeAll(keepingCapacity: true)
        pad.apply(motion, screen: screen, into: &padContacts)
        padDevice = pad.isDown ? device : nil
        if !padContacts.isEmpty {
            seat.countFrame(of: device)
            frames.append(time: time, source: .touchpad, contacts: padContacts)
        }
    }

    /// The frames each device used has sent, as `GetStats` reports them.
    public var framesRead: [DeviceFrames] {
        let frameCounts = seat.frameCounts
        return places.indices.compactMap { index -> (place: Place, frames: Int)? in
            guard let place = places[index] else { return nil }
            let frames = index < frameCounts.count ? frameCounts[index] : 0
            return place.device.used || frames > 0 ? (place, frames) : nil
        }.sorted { $0.place.seen < $1.place.seen }.map {
            DeviceFrames(node: $0.place.device.node, name: $0.place.device.name, frames: $0.frames)
        }
    }

    /// CLOCK_MONOTONIC, the clock of libinput's event times.
    public static func monotonicNow() -> Timestamp {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Timestamp(microseconds: Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000)
    }
}

/// Asks the kernel to wake the calling thread within `nanoseconds` of its timers (the default
/// slack is 50 µs), for the thread that waits on input and animation deadlines.
public func reduceTimerSlack(toNanoseconds nanoseconds: UInt = 1000) {
    _ = sheetd_set_timer_slack(nanoseconds)
}

/// libinput's log lines, formatted in C (CLibInput's `sheetd_libinput_log`), for the input whose
/// context logged them.
@_cdecl("sheetd_libinput_log_line")
func libinputLogLine(_ context: OpaquePointer?, _ priority: libinput_log_priority, _ line: UnsafePointer<CChar>?) {
    guard let context, let line, let input = libinput_get_user_data(context) else { return }
    Unmanaged<LibinputInput>.fromOpaque(input).takeUnretainedValue().log(priority, String(cString: line).trimmingNewline)
}
