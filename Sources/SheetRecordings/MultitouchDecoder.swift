import SheetCore

/// Turns a device's kernel events into touch frames, as libinput would see them.
///
/// Touchscreens (multitouch protocol B, or single-touch BTN_TOUCH + ABS_X/ABS_Y): each slot's
/// contact becomes down / move / up at the `SYN_REPORT` that ends its frame; positions map to
/// the screen as libinput's `_transformed()` calls do, `px = (v − min) · W / (max − min + 1)`.
/// - A tracking id replaced by another in one frame is an up and a down.
/// - A contact whose `ABS_MT_TOOL_TYPE` turns to `MT_TOOL_PALM` is cancelled (libinput's palm
///   handling, `evdev-fallback.c`) and ignored until it lifts, even if it turns back into a
///   finger; a palm in the frame that lifts it is a cancel too, not an up (no fling from a
///   palm). A new contact in a slot whose tool type is still a palm is ignored from the start:
///   the kernel sends the tool type only when it changes, and libinput reads the slot's type
///   when the tracking id arrives.
/// - `SYN_DROPPED`: events up to and including the next `SYN_REPORT` are dropped; every contact
///   is cancelled there (libinput ends touches on a resync). A slot that still holds a contact
///   afterwards comes back as a new touch when it next moves; `-1` or `BTN_TOUCH 0` clears it.
/// - Unknown types and codes are ignored.
///
/// Protocol A (contacts closed by `SYN_MT_REPORT`, no slots) goes through libmtdev first, as
/// in libinput: `ProtocolATranslator`.
///
/// Touchpads go through `TouchpadDecoder`: libinput's own rules for two-finger scrolling and
/// three-finger swipes, so a recording or a plugin pad moves the card as the same pad does live.
public struct MultitouchDecoder: Sendable {
    public let device: DeviceDescription
    public let screen: ScreenSize
    public let source: TouchSource

    /// Frames (SYN_REPORT) seen, and SYN_DROPPED seen.
    public private(set) var framesSeen = 0
    public private(set) var droppedEvents = 0
    public private(set) var palmsCancelled = 0

    struct Slot: Sendable {
        var trackingID: Int32 = -1
        var x: Int32 = 0
        var y: Int32 = 0
        var isPalm = false
        /// The slot's last `ABS_MT_TOOL_TYPE` was `MT_TOOL_PALM` (kept across contacts).
        var toolIsPalm = false
        /// Reported down to the engine and not yet up.
        var announced = false
        /// Holds a contact of before a SYN_DROPPED: it comes back only when it moves.
        var unsynced = false
        var began = false
        var ended = false
        var moved = false
        var becamePalm = false
    }

    private var slots: [Slot]
    private var currentSlot = 0
    private let multitouch: Bool
    private var dropping = false
    private var cancelAllAtReport = false
    private var touchDown = false

    // Axis mapping.
    private let xMinimum: Double, yMinimum: Double
    private let xPixelsPerUnit: Double, yPixelsPerUnit: Double
    /// libinput's touchpad handling, for touchpads.
    private var pad: TouchpadDecoder?
    /// libmtdev, for a protocol-A device.
    private let protocolA: ProtocolATranslator?
    /// Whether the device speaks multitouch protocol A and is read through libmtdev.
    public let readsProtocolA: Bool
    /// Feeding what libmtdev made of an event (protocol B) back through `feed`.
    private var translating = false
    private var axisCheck: AxisCheck

    /// What the touchscreen sent against what it declares, each problem once, in the order met.
    public var axisWarnings: [AxisWarning] { axisCheck.warnings }
    private var axisWarningsTaken = 0

    /// The axis warnings met since the last call, each handed out once (empty, with no copy,
    /// on the frames where nothing new was met).
    public mutating func takeNewAxisWarnings() -> [AxisWarning] {
        guard axisCheck.warnings.count > axisWarningsTaken else { return [] }
        defer { axisWarningsTaken = axisCheck.warnings.count }
        return Array(axisCheck.warnings[axisWarningsTaken...])
    }

    public init(device: DeviceDescription, screen: ScreenSize) {
        self.device = device
        self.screen = screen
        self.source = device.kind == .touchpad ? .touchpad : .touchscreen
        multitouch = device.hasMultitouch
        protocolA = device.speaksProtocolA ? ProtocolATranslator(device: device) : nil
        readsProtocolA = protocolA != nil
        axisCheck = AxisCheck(device: device)
        // A slot starts at the axes' zero held to their ranges: a device that never sends its
        // position (`AxisWarning.Problem.neverMoved`) still touches the screen.
        var start = Slot()
        start.x = AxisCheck.held(0, axisCheck.x)
        start.y = AxisCheck.held(0, axisCheck.y)
        slots = Array(repeating: start, count: max(1, min(device.slotCount, 64)))
        let axes = device.positionAxes ?? (AbsInfo(minimum: 0, maximum: 0), AbsInfo(minimum: 0, maximum: 0))
        xMinimum = Double(axes.x.minimum)
        yMinimum = Double(axes.y.minimum)
        let xRange = Double(Int64(axes.x.maximum) - Int64(axes.x.minimum) + 1)
        let yRange = Double(Int64(axes.y.maximum) - Int64(axes.y.minimum) + 1)
        xPixelsPerUnit = xRange > 0 ? Double(screen.widthInPixels) / xRange : 0
        yPixelsPerUnit = yRange > 0 ? Double(screen.heightInPixels) / yRange : 0
        pad = source == .touchpad ? TouchpadDecoder(device: device, screen: screen) : nil
    }

    /// Feeds one event. Returns true when a frame ended: `frame` then holds its contacts (maybe
    /// none) stamped with the frame's time. The caller empties `frame` before the next frame.
    public mutating func feed(_ event: KernelEvent, into frame: inout TouchFrame) -> Bool {
        if readsProtocolA && !translating { return translate(event, into: &frame) }
        switch event.type {
        case EventCode.EV_SYN:
            switch event.code {
            case EventCode.SYN_REPORT:
                return report(at: event.time, into: &frame)
            case EventCode.SYN_DROPPED:
                droppedEvents += 1
                dropping = true
                return false
            default:
                return false
            }
        case _ where dropping:
            return false
        case _ where pad != nil:
            pad!.feed(event)
        case EventCode.EV_ABS:
            absolute(code: event.code, value: event.value)
        case EventCode.EV_KEY:
            key(code: event.code, value: event.value)
        default:
            break
        }
        return false
    }

    /// A protocol-A event through libmtdev, and what it releases (a frame's worth of protocol
    /// B at its `SYN_REPORT`) through the protocol-B rules.
    private mutating func translate(_ event: KernelEvent, into frame: inout TouchFrame) -> Bool {
        guard let protocolA else { return false }
        protocolA.put(event)
        translating = true
        defer { translating = false }
        var ended = false
        while let converted = protocolA.next() {
            if feed(converted, into: &frame) { ended = true }
        }
        return ended
    }

    private mutating func absolute(code: UInt16, value: Int32) {
        if multitouch {
            switch code {
            case EventCode.ABS_MT_SLOT:
                currentSlot = value >= 0 && Int(value) < slots.count ? Int(value) : -1
            case EventCode.ABS_MT_TRACKING_ID:
                guard currentSlot >= 0 else { return }
                var slot = slots[currentSlot]
                if value < 0 {
                    if slot.trackingID >= 0 { slot.ended = true }
                    slot.unsynced = false
                } else if value != slot.trackingID || slot.unsynced {
                    if slot.trackingID >= 0 && !slot.unsynced { slot.ended = true }
                    slot.began = true
                    slot.isPalm = slot.toolIsPalm
                    slot.unsynced = false
                }
                slot.trackingID = value
                slots[currentSlot] = slot
            case EventCode.ABS_MT_POSITION_X:
                guard currentSlot >= 0 else { return }
                slots[currentSlot].x = axisCheck.x(value)
                slots[currentSlot].moved = true
            case EventCode.ABS_MT_POSITION_Y:
                guard currentSlot >= 0 else { return }
                slots[currentSlot].y = axisCheck.y(value)
                slots[currentSlot].moved = true
            case EventCode.ABS_MT_TOOL_TYPE:
                guard currentSlot >= 0 else { return }
                slots[currentSlot].toolIsPalm = value == EventCode.MT_TOOL_PALM
                if value == EventCode.MT_TOOL_PALM, !slots[currentSlot].isPalm {
                    slots[currentSlot].isPalm = true
                    slots[currentSlot].becamePalm = true
                }
            default:
                break
            }
        } else {
            switch code {
            case EventCode.ABS_X:
                slots[0].x = axisCheck.x(value)
                slots[0].moved = true
            case EventCode.ABS_Y:
                slots[0].y = axisCheck.y(value)
                slots[0].moved = true
            default:
                axisCheck.other(code)
            }
        }
    }

    private mutating func key(code: UInt16, value: Int32) {
        switch code {
        case EventCode.BTN_TOUCH:
            let down = value != 0
            if !multitouch, down != touchDown {
                if down { slots[0].began = true; slots[0].trackingID = 0 } else { slots[0].ended = true; slots[0].trackingID = -1 }
            }
            if multitouch, !down {
                for index in slots.indices where slots[index].unsynced {
                    slots[index].unsynced = false
                    slots[index].trackingID = -1
                }
            }
            touchDown = down
        default:
            break
        }
    }

    /// Where a slot's contact is on the screen (its position was held to the axes' ranges).
    private func screenPoint(_ slot: Slot) -> Point {
        Point(x: (Double(slot.x) - xMinimum) * xPixelsPerUnit, y: (Double(slot.y) - yMinimum) * yPixelsPerUnit)
    }

    private mutating func report(at time: Timestamp, into frame: inout TouchFrame) -> Bool {
        framesSeen += 1
        frame.time = time
        frame.source = source
        if dropping {
            // The end of a SYN_DROPPED: forget this frame, cancel every contact, and take what
            // the slots still hold as unsynced.
            dropping = false
            for index in slots.indices {
                var slot = slots[index]
                if slot.announced && source == .touchscreen {
                    frame.contacts.append(Contact(slot: index, phase: .cancel, positionInPixels: screenPoint(slot)))
                }
                slot.announced = false
                slot.unsynced = slot.trackingID >= 0
                slot.began = false; slot.ended = false; slot.moved = false; slot.becamePalm = false
                slots[index] = slot
            }
            pad?.resynchronise(into: &frame.contacts)
            return true
        }
        if pad != nil {
            pad!.report(at: time, into: &frame.contacts)
        } else {
            screenReport(into: &frame)
        }
        return true
    }

    private mutating func screenReport(into frame: inout TouchFrame) {
        for index in slots.indices {
            var slot = slots[index]
            if slot.ended && slot.announced {
                // A palm in the lifting frame: cancelled, as libinput does, so it flings nothing.
                if slot.becamePalm { palmsCancelled += 1 }
                frame.contacts.append(Contact(slot: index, phase: slot.becamePalm ? .cancel : .up,
                                              positionInPixels: screenPoint(slot)))
                slot.announced = false
            }
            if slot.unsynced && slot.moved && slot.trackingID >= 0 {
                slot.unsynced = false
                slot.began = true
            }
            if slot.began && slot.trackingID >= 0 && !slot.isPalm {
                if !axisCheck.positionSent { axisCheck.touchBegan() }
                frame.contacts.append(Contact(slot: index, phase: .down, positionInPixels: screenPoint(slot)))
                slot.announced = true
            } else if slot.becamePalm && slot.announced {
                frame.contacts.append(Contact(slot: index, phase: .cancel, positionInPixels: screenPoint(slot)))
                slot.announced = false
                palmsCancelled += 1
            } else if slot.moved && slot.announced {
                frame.contacts.append(Contact(slot: index, phase: .move, positionInPixels: screenPoint(slot)))
            }
            slot.began = false; slot.ended = false; slot.moved = false; slot.becamePalm = false
            slots[index] = slot
        }
    }
}
