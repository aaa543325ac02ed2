import SheetCore
import SheetProtocol
import SheetRecordings

/// The devices that plugins feed over `io.sheetd.Input`, each checked frame by frame and
/// decoded as a kernel device's events are.
///
/// A plugin's frame becomes the evdev events a multitouch protocol-B device would send for it
/// (slot, tracking id, position, a palm tool type for a cancel, and for a touchpad `BTN_TOUCH`
/// and the `BTN_TOOL_*` finger count, `SYN_REPORT`), and those go through `MultitouchDecoder`,
/// the decoder of every recording: a touchscreen's fingers map onto the screen, a touchpad's
/// fingers scroll and swipe by libinput's rules, as a replay and a real pad do. Positions are carried in 2²⁰ steps across the declared range (a
/// millionth of it, 0.002 px on a 2K screen).
///
/// A frame is checked whole before anything of it is used: a refused frame changes nothing,
/// and the device stays usable. Plugin touches take the engine's slots 12 to 30, so they never
/// meet libinput's seat slots (from 0) or its touchpad contact (31).
///
/// Owned by the engine's loop; not thread-safe.
public final class PluginInput {
    /// Why a frame was refused, naming its sequence number.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public var device: Int
        public var sequence: Int64
        public var reason: String
        /// No such device is open on the connection.
        public var unknownDevice = false

        public var description: String { "device \(device), frame \(sequence): \(reason)" }
    }

    /// Why a device could not be opened.
    public enum OpenRefusal: Error, Equatable {
        case tooManyDevices(limit: Int)
        case invalid(parameter: String, reason: String)
    }

    /// Engine slots for plugin touches.
    public static let engineSlots = 12...30
    static let allEngineSlots: UInt32 = (1 << engineSlots.count) - 1
    /// Fixed-point steps across a declared range.
    static let steps: Int32 = 1 << 20

    struct SlotState {
        var down = false
        /// Down before the engine lost its touches (a new screen, a reload): comes back as a
        /// new touch when it next moves, as libinput resyncs a slot.
        var resync = false
        /// The last event for this slot set a palm tool type (a cancel).
        var palmTool = false
        /// The engine slot of the contact the engine holds for this slot.
        var engineSlot: Int?
    }

    struct Device {
        let id: Int
        let owner: UInt64
        let pid: Int32
        let uid: UInt32
        let declaration: PluginDevice
        var decoder: MultitouchDecoder
        var slots: [SlotState]
        var nextTrackingID: Int32 = 1
        /// A touchpad's fingers as its `BTN_TOOL_*` keys last said, and the engine slot of the
        /// contact its scrolls and swipes drive.
        var toolFingers = 0
        var padEngineSlot: Int?
        var lastTime: Int64?
        /// Its own clock's times onto the monotonic clock.
        var own = OwnClockMapping()
        var rate: FrameRate
        /// Frames accepted.
        var framesRead = 0
    }

    /// A device of keys (`OpenKeys`): its keys go to the engine's key map, not the decoder.
    struct KeyDevice {
        let id: Int
        let owner: UInt64
        let pid: Int32
        let uid: UInt32
        let name: String
        let clock: PluginClock
        var lastTime: Int64?
        var own = OwnClockMapping()
        var rate: FrameRate
        var framesRead = 0
    }

    private var devices: [Int: Device] = [:]
    private var keyDevices: [Int: KeyDevice] = [:]
    /// Keys fed since the loop last took them (`takeKeys`), and whether a key device closed.
    private var keyEvents: [KeyEvent] = []
    private var keyDeviceClosed = false
    private var order: [Int] = []
    private var nextID = 1
    /// The engine slots plugin contacts hold: bit n for slot `engineSlots.lowerBound + n`.
    private var usedEngineSlots: UInt32 = 0
    private var screen: ScreenSize
    private var events: [KernelEvent] = []
    private var decoded = TouchFrame(time: .zero)

    public init(screen: ScreenSize) {
        self.screen = screen
    }

    public var isEmpty: Bool { devices.isEmpty && keyDevices.isEmpty }

    /// The open devices, for `ListDevices`, in the order they were opened.
    public var reports: [InputDevice] {
        order.compactMap { id in
            if let device = devices[id] {
                let what = device.declaration.forwards == .compositor
                    ? "the compositor's touches that reach the sheet, forwarded over io.sheetd.Input by pid \(device.pid)"
                    : "fed over io.sheetd.Input by pid \(device.pid)"
                return InputDevice(node: "plugin:\(device.id)", name: device.declaration.name,
                                   kind: device.declaration.kind == .touchpad ? .touchpad : .touchscreen, used: true,
                                   reason: what, pid: device.pid, uid: device.uid)
            }
            return keyDevices[id].map { keys in
                InputDevice(node: "plugin:\(keys.id)", name: keys.name, kind: .keys, used: true,
                            reason: "keys fed over io.sheetd.Input by pid \(keys.pid), for the focus", pid: keys.pid, uid: keys.uid)
            }
        }
    }

    /// The open device that forwards a compositor's touches (the first opened), if one does:
    /// while it is open the seat's own touchscreens are left to the compositor (`SeatTouchGate`).
    public var compositorForwarder: (node: String, name: String, pid: Int32)? {
        for id in order {
            if let device = devices[id], device.declaration.forwards == .compositor {
                return ("plugin:\(device.id)", device.declaration.name, device.pid)
            }
        }
        return nil
    }

    /// The frames each open device has sent that were accepted, as `GetStats` reports them.
    public var framesRead: [DeviceFrames] {
        order.compactMap { id in
            if let device = devices[id] { return DeviceFrames(node: "plugin:\(id)", name: device.declaration.name, frames: device.framesRead) }
            return keyDevices[id].map { DeviceFrames(node: "plugin:\(id)", name: $0.name, frames: $0.framesRead) }
        }
    }

    /// An `io.sheetd.Input` call from the connection `owner` (the process `pid` of user `uid`),
    /// answered as the wire answers it; the frames it makes (a frame, a close's cancels) go
    /// into `frames`. The daemon and the fuzzing harness both answer calls through this.
    public func perform(_ request: InputRequest, owner: UInt64, pid: Int32, uid: UInt32, now: Timestamp,
                        into frames: inout TouchFrameBatch) -> InputResult {
        switch request {
        case .open(let declaration):
            switch open(declaration, owner: owner, pid: pid, uid: uid, now: now) {
            case .success(let id): return .opened(device: id)
            case .failure(.tooManyDevices(let limit)): return .tooManyDevices(limit: limit)
            case .failure(.invalid(let parameter, let reason)): return .invalidParameter(parameter, reason: reason)
            }
        case .frame(let device, let frame):
            do {
                try feed(frame, device: device, owner: owner, now: now, into: &frames)
            } catch {
                return error.unknownDevice ? .noSuchDevice(device)
                    : .invalidFrame(device: device, sequence: error.sequence, reason: error.reason)
            }
            return .done
        case .close(let device):
            return close(device: device, owner: owner, now: now, into: &frames) ? .done : .noSuchDevice(device)
        case .openKeys(let name, let clock):
            guard devices.count + keyDevices.count < PluginDevice.Limits.devices else {
                return .tooManyDevices(limit: PluginDevice.Limits.devices)
            }
            let id = nextID
            nextID += 1
            keyDevices[id] = KeyDevice(id: id, owner: owner, pid: pid, uid: uid, name: name, clock: clock, rate: FrameRate(now: now))
            order.append(id)
            return .opened(device: id)
        case .keys(let device, let report):
            do {
                try feed(report, device: device, owner: owner, now: now)
            } catch {
                return error.unknownDevice ? .noSuchDevice(device)
                    : .invalidFrame(device: device, sequence: error.sequence, reason: error.reason)
            }
            return .done
        }
    }

    /// Checks a key report and, when it holds, keeps its keys for the loop (`takeKeys`),
    /// stamped on the monotonic clock: a press or a release each, a knob's steps one press each,
    /// the kernel's repeats dropped (the engine repeats by its clock).
    func feed(_ report: PluginKeyReport, device id: Int, owner: UInt64, now: Timestamp) throws(Refusal) {
        guard var device = keyDevices[id], device.owner == owner else {
            throw Refusal(device: id, sequence: report.sequence, reason: "no device \(id) is open on this connection", unknownDevice: true)
        }
        // Whatever is refused, a key it releases is released (now): no refusal leaves a key
        // held, repeating for ever.
        func refuse(_ reason: String) -> Refusal {
            for case .key(let code, 0) in report.keys {
                keyEvents.append(KeyEvent(time: now, input: .key(code), action: .release))
            }
            return Refusal(device: id, sequence: report.sequence, reason: reason)
        }
        let limits = PluginDevice.Limits.self
        let time = report.timeInMicroseconds
        if time < 0 { throw refuse("a time below zero (\(time) µs)") }
        if let last = device.lastTime, time < last {
            throw refuse("time runs backwards: \(time) µs is \(last - time) µs before the last report's")
        }
        if let reason = device.rate.refusal(time: time, now: now, what: "reports") { throw refuse(reason) }
        if device.clock == .monotonic, time > now.microseconds + limits.futureMicroseconds {
            throw refuse("a time \(time - now.microseconds) µs in the future of CLOCK_MONOTONIC")
        }
        guard keyEvents.count + report.keys.count * Int(PluginKeyReport.maximumDialSteps) <= 4096 else {
            throw refuse("keys arrive faster than the daemon takes them")
        }
        device.rate.take(time: time, now: now)
        device.framesRead += 1
        device.lastTime = time
        let stamp = Timestamp(microseconds: Self.monotonic(time, clock: device.clock, own: &device.own, now: now))
        keyDevices[id] = device
        for key in report.keys {
            switch key {
            case .key(let code, let value) where value != 2:
                keyEvents.append(KeyEvent(time: stamp, input: .key(code), action: value == 1 ? .press : .release))
            case .key:
                break
            case .dial(let steps):
                for _ in 0..<steps.magnitude { keyEvents.append(KeyEvent(time: stamp, input: steps > 0 ? .dialUp : .dialDown, action: .press)) }
            }
        }
    }

    /// Moves the keys fed since the last call into `keys` (emptied first); true when a key
    /// device closed meanwhile (the engine lets its held keys go).
    public func takeKeys(into keys: inout [KeyEvent]) -> Bool {
        keys.removeAll(keepingCapacity: true)
        guard !keyEvents.isEmpty || keyDeviceClosed else { return false }
        keys.append(contentsOf: keyEvents)
        keyEvents.removeAll(keepingCapacity: true)
        defer { keyDeviceClosed = false }
        return keyDeviceClosed
    }


    /// A device's time on the monotonic clock: its own when it is monotonic (never past now),
    /// else mapped by `own` (`OwnClockMapping`).
    static func monotonic(_ time: Int64, clock: PluginClock, own: inout OwnClockMapping, now: Timestamp) -> Int64 {
        switch clock {
        case .monotonic: min(time, now.microseconds)
        case .own: own.map(time, now: now.microseconds)
        }
    }

    /// Opens a device for the connection `owner`; its id, unique for the daemon's life.
    public func open(_ declaration: PluginDevice, owner: UInt64, pid: Int32, uid: UInt32,
                     now: Timestamp) -> Result<Int, OpenRefusal> {
        if let refusal = declaration.refusal { return .failure(.invalid(parameter: refusal.parameter, reason: refusal.reason)) }
        guard devices.count + keyDevices.count < PluginDevice.Limits.devices else {
            return .failure(.tooManyDevices(limit: PluginDevice.Limits.devices))
        }
        let id = nextID
        nextID += 1
        devices[id] = Device(id: id, owner: owner, pid: pid, uid: uid, declaration: declaration,
                             decoder: Self.decoder(for: declaration, screen: screen),
                             slots: Array(repeating: SlotState(), count: declaration.slots), rate: FrameRate(now: now))
        order.append(id)
        return .success(id)
    }

    /// The evdev device a declaration stands for: protocol-B axes of 2²⁰ steps, a resolution
    /// from the size in millimetres (none: the decoder takes libinput's fallback size).
    static func decoder(for declaration: PluginDevice, screen: ScreenSize) -> MultitouchDecoder {
        func axis(_ millimetres: Double?) -> AbsInfo {
            let resolution = millimetres.map { Int32((Double(steps) / $0).rounded()) } ?? 0
            return AbsInfo(minimum: 0, maximum: steps - 1, resolution: max(0, resolution))
        }
        let size = declaration.sizeInMillimetres
        let pad = declaration.kind == .touchpad
        let description = DeviceDescription(
            name: declaration.name,
            properties: pad ? [EventCode.INPUT_PROP_POINTER] : [EventCode.INPUT_PROP_DIRECT],
            codes: [Int(EventCode.EV_ABS): [Int(EventCode.ABS_MT_SLOT), Int(EventCode.ABS_MT_POSITION_X), Int(EventCode.ABS_MT_POSITION_Y),
                                            Int(EventCode.ABS_MT_TRACKING_ID), Int(EventCode.ABS_MT_TOOL_TYPE)],
                    Int(EventCode.EV_KEY): pad ? Set([EventCode.BTN_TOUCH, EventCode.BTN_TOOL_FINGER, EventCode.BTN_TOOL_DOUBLETAP,
                                                      EventCode.BTN_TOOL_TRIPLETAP, EventCode.BTN_TOOL_QUADTAP,
                                                      EventCode.BTN_TOOL_QUINTTAP].map(Int.init)) : []],
            absinfo: [Int(EventCode.ABS_MT_SLOT): AbsInfo(minimum: 0, maximum: Int32(declaration.slots - 1)),
                      Int(EventCode.ABS_MT_POSITION_X): axis(size?.width), Int(EventCode.ABS_MT_POSITION_Y): axis(size?.height)],
            udevKind: declaration.kind == .touchpad ? .touchpad : .touchscreen)
        return MultitouchDecoder(device: description, screen: screen)
    }

    /// Checks a frame and, when it holds, appends the touch frame it makes (stamped on the
    /// monotonic clock) to `frames`. `now` is the monotonic time it arrived.
    public func feed(_ frame: PluginFrame, device id: Int, owner: UInt64, now: Timestamp,
                     into frames: inout TouchFrameBatch) throws(Refusal) {
        // Taken out of the table while it changes (and put back on every way out), so that its
        // slots and decoder are changed in place, not copied, frame after frame. The owner is
        // checked on what was taken out: `devices[id]?.owner` would copy the device (and retain
        // each of its references) to read one field.
        guard var device = devices.removeValue(forKey: id) else {
            throw Refusal(device: id, sequence: frame.sequence, reason: "no device \(id) is open on this connection", unknownDevice: true)
        }
        defer { devices[id] = device }
        guard device.owner == owner else {
            throw Refusal(device: id, sequence: frame.sequence, reason: "no device \(id) is open on this connection", unknownDevice: true)
        }
        // Whatever is refused, a finger it lifts ends: cancelled (no tap, no fling), so that no
        // refusal leaves a finger down.
        func refuse(_ reason: String) -> Refusal {
            cancelLifts(of: frame, on: &device, now: now, into: &frames)
            return Refusal(device: id, sequence: frame.sequence, reason: reason)
        }
        let limits = PluginDevice.Limits.self
        // The time, then the rate by it (`FrameRate`).
        let time = frame.timeInMicroseconds
        if time < 0 { throw refuse("a time below zero (\(time) µs)") }
        if let last = device.lastTime, time < last {
            throw refuse("time runs backwards: \(time) µs is \(last - time) µs before the last frame's")
        }
        if let reason = device.rate.refusal(time: time, now: now, what: "frames") { throw refuse(reason) }
        if device.declaration.clock == .monotonic, time > now.microseconds + limits.futureMicroseconds {
            throw refuse("a time \(time - now.microseconds) µs in the future of CLOCK_MONOTONIC")
        }
        // The contacts, against the slots as they are.
        let declaration = device.declaration
        if frame.contacts.count > declaration.slots {
            throw refuse("\(frame.contacts.count) contacts; the device has \(declaration.slots) slot(s)")
        }
        var seen: UInt32 = 0
        var downs = 0
        for (index, contact) in frame.contacts.enumerated() {
            guard (0..<declaration.slots).contains(contact.slot) else {
                throw refuse("contacts[\(index)]: slot \(contact.slot) is out of range 0 to \(declaration.slots - 1)")
            }
            guard seen & (1 << UInt32(contact.slot)) == 0 else { throw refuse("contacts[\(index)]: slot \(contact.slot) twice in one frame") }
            seen |= 1 << UInt32(contact.slot)
            guard contact.x.isFinite, contact.y.isFinite else { throw refuse("contacts[\(index)]: a position that is not a number") }
            guard declaration.x.contains(contact.x), declaration.y.contains(contact.y) else {
                throw refuse("contacts[\(index)]: (\(contact.x), \(contact.y)) is outside the device's range x \(declaration.x.lowerBound) to \(declaration.x.upperBound), y \(declaration.y.lowerBound) to \(declaration.y.upperBound)")
            }
            let down = device.slots[contact.slot].down
            switch contact.phase {
            case .down where down: throw refuse("contacts[\(index)]: slot \(contact.slot) is down already")
            case .move where !down, .up where !down, .cancel where !down:
                throw refuse("contacts[\(index)]: \(contact.phase == .up ? "an" : "a") \(contact.phase.name) for slot \(contact.slot), which is not down")
            case .down: downs += 1
            default: break
            }
        }
        if downs > 0, declaration.kind == .touchscreen {
            let free = Self.engineSlots.count - usedEngineSlots.nonzeroBitCount
            guard downs <= free else { throw refuse("every one of the \(Self.engineSlots.count) engine slots for plugin touches is taken") }
        }
        // Accepted: the clock, then the events.
        device.rate.take(time: time, now: now)
        device.framesRead += 1
        device.lastTime = time
        let monotonic = Self.monotonic(time, clock: declaration.clock, own: &device.own, now: now)
        events.removeAll(keepingCapacity: true)
        let stamp = Timestamp(microseconds: monotonic)
        for contact in frame.contacts {
            let slot = contact.slot
            var state = device.slots[slot]
            var phase = contact.phase
            if state.resync {
                // The engine lost this touch: a move brings it back as a new one.
                state.resync = false
                if phase == .move { phase = .down } else { state.down = false; device.slots[slot] = state; continue }
            }
            events.append(Self.event(stamp, EventCode.EV_ABS, EventCode.ABS_MT_SLOT, Int32(slot)))
            switch phase {
            case .down:
                if state.palmTool {
                    events.append(Self.event(stamp, EventCode.EV_ABS, EventCode.ABS_MT_TOOL_TYPE, 0))
                    state.palmTool = false
                }
                events.append(Self.event(stamp, EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, device.nextTrackingID))
                device.nextTrackingID = device.nextTrackingID == Int32.max ? 1 : device.nextTrackingID + 1
                appendPosition(contact, of: declaration, at: stamp)
                state.down = true
            case .move:
                appendPosition(contact, of: declaration, at: stamp)
            case .up, .cancel:
                if phase == .cancel {
                    // A palm in the lifting frame: the decoder's cancel, no fling.
                    events.append(Self.event(stamp, EventCode.EV_ABS, EventCode.ABS_MT_TOOL_TYPE, EventCode.MT_TOOL_PALM))
                    state.palmTool = true
                }
                events.append(Self.event(stamp, EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, -1))
                state.down = false
            }
            device.slots[slot] = state
        }
        if declaration.kind == .touchpad { appendFingerCount(of: &device, at: stamp) }
        events.append(Self.event(stamp, EventCode.EV_SYN, EventCode.SYN_REPORT, 0))
        for event in events {
            decoded.removeAll()
            if device.decoder.feed(event, into: &decoded) { emit(&device, into: &frames) }
        }
    }

    private func appendPosition(_ contact: PluginContact, of declaration: PluginDevice, at time: Timestamp) {
        func step(_ value: Double, _ range: ClosedRange<Double>) -> Int32 {
            let scaled = ((value - range.lowerBound) / (range.upperBound - range.lowerBound) * Double(Self.steps)).rounded()
            return Int32(min(Double(Self.steps - 1), max(0, scaled)))
        }
        events.append(Self.event(time, EventCode.EV_ABS, EventCode.ABS_MT_POSITION_X, step(contact.x, declaration.x)))
        events.append(Self.event(time, EventCode.EV_ABS, EventCode.ABS_MT_POSITION_Y, step(contact.y, declaration.y)))
    }

    /// A touchpad's `BTN_TOUCH` and `BTN_TOOL_*` keys for the fingers now down, when they changed.
    private func appendFingerCount(of device: inout Device, at time: Timestamp) {
        let fingers = device.slots.reduce(0) { $0 + ($1.down ? 1 : 0) }
        guard fingers != device.toolFingers else { return }
        func tool(_ fingers: Int) -> UInt16 {
            [EventCode.BTN_TOOL_FINGER, EventCode.BTN_TOOL_DOUBLETAP, EventCode.BTN_TOOL_TRIPLETAP,
             EventCode.BTN_TOOL_QUADTAP, EventCode.BTN_TOOL_QUINTTAP][min(fingers, 5) - 1]
        }
        if device.toolFingers > 0 { events.append(Self.event(time, EventCode.EV_KEY, tool(device.toolFingers), 0)) }
        if (device.toolFingers > 0) != (fingers > 0) {
            events.append(Self.event(time, EventCode.EV_KEY, EventCode.BTN_TOUCH, fingers > 0 ? 1 : 0))
        }
        if fingers > 0 { events.append(Self.event(time, EventCode.EV_KEY, tool(fingers), 1)) }
        device.toolFingers = fingers
    }

    private static func event(_ time: Timestamp, _ type: UInt16, _ code: UInt16, _ value: Int32) -> KernelEvent {
        KernelEvent(time: time, type: type, code: code, value: value)
    }

    /// Hands the decoder's frame on with engine slots in place of the device's (in place:
    /// `decoded` is the decoder's own frame, emptied before its next use).
    private func emit(_ device: inout Device, into frames: inout TouchFrameBatch) {
        var kept = 0
        for index in decoded.contacts.indices {
            var contact = decoded.contacts[index]
            // The decoder's slots are the device's (its ABS_MT_SLOT range is the declared one),
            // or a touchpad's one contact.
            let pad = decoded.source == .touchpad && contact.slot == TouchpadContact.slot
            guard pad || device.slots.indices.contains(contact.slot) else { continue }
            var held = pad ? device.padEngineSlot : device.slots[contact.slot].engineSlot
            if contact.phase == .down {
                let freeBits = ~usedEngineSlots & Self.allEngineSlots
                guard freeBits != 0 else { continue }
                let bit = freeBits.trailingZeroBitCount
                usedEngineSlots |= 1 << bit
                held = Self.engineSlots.lowerBound + bit
            } else if held == nil {
                continue
            }
            guard let engineSlot = held else { continue }
            if contact.phase == .up || contact.phase == .cancel {
                held = nil
                release(engineSlot: engineSlot)
            }
            if pad { device.padEngineSlot = held } else { device.slots[contact.slot].engineSlot = held }
            contact.slot = engineSlot
            decoded.contacts[kept] = contact
            kept += 1
        }
        guard kept > 0 else { return }
        frames.append(time: decoded.time, source: decoded.source, contacts: decoded.contacts[..<kept])
    }

    /// The fingers a refused `frame` lifts (an `up` or `cancel` for a slot that is down),
    /// cancelled at the device's last accepted time: the rest of the frame is not used.
    private func cancelLifts(of frame: PluginFrame, on device: inout Device, now: Timestamp, into frames: inout TouchFrameBatch) {
        let lifted = frame.contacts.filter { contact in
            (contact.phase == .up || contact.phase == .cancel) && device.slots.indices.contains(contact.slot) && device.slots[contact.slot].down
        }
        guard !lifted.isEmpty else { return }
        let stamp = Timestamp(microseconds: Self.monotonic(device.lastTime ?? 0, clock: device.declaration.clock, own: &device.own, now: now))
        events.removeAll(keepingCapacity: true)
        for contact in lifted {
            events.append(Self.event(stamp, EventCode.EV_ABS, EventCode.ABS_MT_SLOT, Int32(contact.slot)))
            events.append(Self.event(stamp, EventCode.EV_ABS, EventCode.ABS_MT_TOOL_TYPE, EventCode.MT_TOOL_PALM))
            events.append(Self.event(stamp, EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, -1))
            device.slots[contact.slot].palmTool = true
            device.slots[contact.slot].down = false
        }
        if device.declaration.kind == .touchpad { appendFingerCount(of: &device, at: stamp) }
        events.append(Self.event(stamp, EventCode.EV_SYN, EventCode.SYN_REPORT, 0))
        for event in events {
            decoded.removeAll()
            if device.decoder.feed(event, into: &decoded) { emit(&device, into: &frames) }
        }
    }

    private func release(engineSlot: Int) {
        usedEngineSlots &= ~(1 << (engineSlot - Self.engineSlots.lowerBound))
    }

    /// Closes a device: its touches down are cancelled (appended to `frames`).
    public func close(device id: Int, owner: UInt64, now: Timestamp, into frames: inout TouchFrameBatch) -> Bool {
        if let keys = keyDevices[id], keys.owner == owner {
            keyDevices[id] = nil
            order.removeAll { $0 == id }
            keyDeviceClosed = true
            return true
        }
        guard var device = devices[id], device.owner == owner else { return false }
        // A dropped stream, as the kernel's SYN_DROPPED: the decoder cancels every contact
        // (and a touchpad's pan) without a lift, so nothing flings.
        let stamp = now
        decoded.removeAll()
        _ = device.decoder.feed(Self.event(stamp, EventCode.EV_SYN, EventCode.SYN_DROPPED, 0), into: &decoded)
        if device.decoder.feed(Self.event(stamp, EventCode.EV_SYN, EventCode.SYN_REPORT, 0), into: &decoded) {
            emit(&device, into: &frames)
        }
        for slot in device.slots { if let held = slot.engineSlot { release(engineSlot: held) } }
        if let held = device.padEngineSlot { release(engineSlot: held) }
        devices[id] = nil
        order.removeAll { $0 == id }
        return true
    }

    /// Closes every device of a connection that went away; how many there were.
    @discardableResult
    public func closeAll(owner: UInt64, now: Timestamp, into frames: inout TouchFrameBatch) -> Int {
        let owned = order.filter { devices[$0]?.owner == owner || keyDevices[$0]?.owner == owner }
        for id in owned { _ = close(device: id, owner: owner, now: now, into: &frames) }
        return owned.count
    }

    /// The engine dropped every touch (a new engine for a new screen or a reload): fingers
    /// still down come back as new touches when they move.
    public func resync(screen: ScreenSize) {
        self.screen = screen
        usedEngineSlots = 0
        for id in order {
            guard var device = devices[id] else { continue }
            device.decoder = Self.decoder(for: device.declaration, screen: screen)
            device.toolFingers = 0
            device.padEngineSlot = nil
            for index in device.slots.indices { device.slots[index].engineSlot = nil }
            for index in device.slots.indices where device.slots[index].down {
                device.slots[index].resync = true
                device.slots[index].palmTool = false
            }
            devices[id] = device
        }
    }
}

/// A plugin device's rate, in two token buckets (docs/protocol.md): frames per second of the
/// device's own time (`framesPerSecond`, a burst of `frameBurst`), so that frames a stall held
/// back and sent at once are taken when they were made as far apart as real hardware makes
/// them; and frames per second of arrival (`arrivalsPerSecond`, a backlog of `backlogFrames`),
/// so that no claim about times lets a device flood the daemon. Only a frame taken changes them.
struct FrameRate {
    private var own = Double(PluginDevice.Limits.frameBurst)
    private var ownTime: Int64?
    private var arrivals = Double(PluginDevice.Limits.backlogFrames)
    private var arrived: Int64

    init(now: Timestamp) { arrived = now.microseconds }

    /// The buckets as they stand for a frame of the device's `time` (never before the last
    /// one's) arriving at `now`.
    private func refilled(time: Int64, now: Timestamp) -> (own: Double, arrivals: Double) {
        let limits = PluginDevice.Limits.self
        let made = Double(max(0, time - (ownTime ?? time))) / 1_000_000
        let waited = Double(max(0, now.microseconds - arrived)) / 1_000_000
        return (min(Double(limits.frameBurst), own + made * Double(limits.framesPerSecond)),
                min(Double(limits.backlogFrames), arrivals + waited * Double(limits.arrivalsPerSecond)))
    }

    /// Why a frame of the device's `time` arriving at `now` is refused, or nil. `what`:
    /// `frames` or `reports`, for the reason.
    func refusal(time: Int64, now: Timestamp, what: String) -> String? {
        let limits = PluginDevice.Limits.self
        let (own, arrivals) = refilled(time: time, now: now)
        if own < 1 { return "more than \(limits.framesPerSecond) \(what) a second of the device's own time" }
        if arrivals < 1 {
            return "more than \(limits.backlogFrames) \(what) at once (after a backlog, at most \(limits.arrivalsPerSecond) a second)"
        }
        return nil
    }

    /// The frame of `time` that arrived at `now` was taken.
    mutating func take(time: Int64, now: Timestamp) {
        (own, arrivals) = refilled(time: time, now: now)
        own -= 1
        arrivals -= 1
        ownTime = time
        arrived = now.microseconds
    }
}
