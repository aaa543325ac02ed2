#if canImport(Glibc)
import Glibc
#endif
import SheetCore

/// libinput's touchpad rules (as of 1.22, the version Debian 12 ships), applied to a pad's kernel
/// events, for what the sheet takes from a touchpad: two-finger scrolling and three-finger
/// swipes, as the `TouchpadMotion`s libinput itself would report for the same events. Live input
/// reads those from libinput; recordings and plugin touchpads come through here, and both end in
/// `TouchpadContact`.
///
/// What is followed (sources: libinput's `evdev-mt-touchpad.c`, `-gestures.c`, `filter-touchpad.c`):
/// - **Fingers down.** A slot's touch hovers from its tracking id until its pressure reaches 12 %
///   of the pressure range, and ends below 10 % (pads with `ABS_MT_PRESSURE`, or `ABS_PRESSURE`
///   without multitouch); other pads count `BTN_TOUCH` and `BTN_TOOL_*` fingers. Fingers beyond
///   the slots (`BTN_TOOL_TRIPLETAP` on a two-slot pad) are fake touches at the topmost real
///   touch. Semi-multitouch pads are single-touch pads with `BTN_TOOL_*` fingers. A touch whose
///   tool type is `MT_TOOL_PALM` takes no part.
/// - **Motion.** Each touch's delta is its last two positions; the history restarts when the
///   number of fingers changes (in that frame and the next, so two frames move nothing) or a
///   touch begins, and when a
///   touch jumps (over 20 mm in 12 ms, or 7 mm more than its last delta). Axes with fuzz get
///   libinput's elliptical hysteresis of fuzz units. A pad without a resolution is taken as
///   69 × 50 mm.
/// - **Gestures.** With two fingers, scrolling starts once both moved 1.5 mm the same way, or one
///   moved 4 mm while the other stayed within 1.5 mm, or, 150 ms after they came down, when they
///   are within 40 mm across and 7 mm up and down and one of them moved 1 mm. Fingers moving apart
///   are a pinch (nothing for the sheet); a scroll that turns out a pinch within 300 ms stops.
///   Three fingers are a swipe by the same tests (more fingers than slots: a swipe at once).
///   Semi-multitouch pads and one-slot pads scroll as soon as two fingers are down.
/// - **Deltas** are the mean of the fingers' deltas, in libinput's unaccelerated touchpad units:
///   1000 DPI times 0.9 × 0.2968 (about 10.5 units per mm). Scrolls keep to one axis as
///   libinput's scroll constraints decide, from a decaying vector of recent motion.
/// - **Ends.** Lifting every finger ends the scroll (its stop) or the swipe at once; a change of
///   finger count under a started gesture ends it (cancelled) when it has lasted 100 ms.
///
/// Not followed: tapping, clicks and the soft button areas, thumb and edge palm detection,
/// disable-while-typing, per-device quirks, hold gestures (the sheet takes none of these).
public struct TouchpadDecoder: Sendable {
    enum TouchState: UInt8, Sendable { case none, hovering, begin, update, maybeEnd, end }

    struct Touch: Sendable {
        var state = TouchState.none
        var x = 0, y = 0
        var pressure = 0
        var dirty = false
        var hasEnded = false
        var isPalm = false
        // The last two positions pushed, and how many have been (libinput keeps four).
        var historyCount = 0
        var last = (x: 0, y: 0, time: Int64(0))
        var previous = (x: 0, y: 0)
        /// The history restarts once more on the frame after a finger count change.
        var resetAgain = false
        var hysteresisCenter = (x: 0, y: 0)
        var lastJumpDistance = 0.0
        var initial = (x: 0, y: 0)

        var isActive: Bool { (state == .begin || state == .update) && !isPalm }

        mutating func push(time: Int64) {
            previous = (last.x, last.y)
            last = (x, y, time)
            historyCount = min(historyCount + 1, 4)
        }

        var delta: (x: Int, y: Int) { historyCount > 1 ? (last.x - previous.x, last.y - previous.y) : (0, 0) }
    }

    enum GestureState: UInt8, Sendable { case none, unknown, hold, pointerMotion, scroll, pinch, swipe }

    public let screen: ScreenSize
    var touches: [Touch]
    /// Slots the pad tracks as such (1 for semi-multitouch and single-touch pads).
    let slotCount: Int
    private let multitouch: Bool
    let gesturesEnabled: Bool
    private var currentSlot = 0
    private var fakeFingers: UInt8 = 0
    private static let fakeOverflow: UInt8 = 0x80
    private var fingersDown = 0, oldFingersDown = 0

    // The device's geometry, as libinput takes it.
    let xResolution: Double, yResolution: Double
    private let margin: (x: Int, y: Int)
    private let pressureThresholds: (high: Int, low: Int)?
    /// Device units (y scaled to x's resolution) to libinput's unaccelerated units.
    let xUnits: Double, xyScale: Double

    // Gesture state.
    var gesture = GestureState.none
    var started = false
    var fingerCount = 0
    var pendingFingerCount = 0
    var switchDeadline: Int64?
    var initialTime: Int64 = 0
    var first = 0, second = 0
    // Scroll constraints.
    var scrollActive = (h: false, v: false)
    var scrollDuration = (h: Int64(0), v: Int64(0))
    var scrollVector = (x: 0.0, y: 0.0)
    var scrollPreviousTime: Int64 = 0
    var holdDeadline: Int64?

    var contact = TouchpadContact()

    public init(device: DeviceDescription, screen: ScreenSize) {
        self.screen = screen
        let semi = device.isSemiMultitouch
        multitouch = device.hasMultitouch && !semi
        slotCount = multitouch ? max(1, min(device.slotCount, 64)) : 1
        var toolFingers = 1
        for (code, fingers) in [(EventCode.BTN_TOOL_QUINTTAP, 5), (EventCode.BTN_TOOL_QUADTAP, 4),
                                (EventCode.BTN_TOOL_TRIPLETAP, 3), (EventCode.BTN_TOOL_DOUBLETAP, 2)]
        where device.supports(type: EventCode.EV_KEY, code: code) {
            toolFingers = fingers
            break
        }
        touches = Array(repeating: Touch(), count: max(slotCount, toolFingers))
        gesturesEnabled = !semi && slotCount > 1

        let axes = device.positionAxes ?? (AbsInfo(minimum: 0, maximum: 0), AbsInfo(minimum: 0, maximum: 0))
        // libinput: a pad without a resolution is 69 x 50 mm (integer units per mm).
        let width = Int(axes.x.maximum) - Int(axes.x.minimum), height = Int(axes.y.maximum) - Int(axes.y.minimum)
        let xResolution = axes.x.resolution > 0 ? Int(axes.x.resolution) : max(1, abs(width) / 69)
        let yResolution = axes.y.resolution > 0 ? Int(axes.y.resolution) : max(1, abs(height) / 50)
        self.xResolution = Double(xResolution)
        self.yResolution = Double(yResolution)
        margin = (Int(max(0, axes.x.fuzz)), Int(max(0, axes.y.fuzz)))
        // filter-touchpad.c: normalise to 1000 DPI from the pad's DPI (an integer), then the
        // constant filter's baseline 0.9 times TP_MAGIC_SLOWDOWN 0.2968.
        let dpi = Double(Int(Double(xResolution) * 25.4))
        xUnits = 1000.0 / dpi * 0.9 * 0.2968
        xyScale = Double(xResolution) / Double(yResolution)

        let pressureCode = multitouch ? EventCode.ABS_MT_PRESSURE : EventCode.ABS_PRESSURE
        if let pressure = device.absinfo[Int(pressureCode)], pressure.maximum > pressure.minimum {
            let range = Double(Int(pressure.maximum) - Int(pressure.minimum))
            pressureThresholds = (Int(Double(pressure.minimum) + 0.12 * range), Int(Double(pressure.minimum) + 0.10 * range))
        } else {
            pressureThresholds = nil
        }
    }

    // MARK: Events

    /// Takes one `EV_ABS` or `EV_KEY` event of a frame.
    public mutating func feed(_ event: KernelEvent) {
        switch event.type {
        case EventCode.EV_ABS: absolute(code: event.code, value: Int(event.value))
        case EventCode.EV_KEY: key(code: event.code, pressed: event.value != 0)
        default: break
        }
    }

    private mutating func absolute(code: UInt16, value: Int) {
        if multitouch {
            switch code {
            case EventCode.ABS_MT_SLOT:
                currentSlot = value
            case EventCode.ABS_MT_TRACKING_ID:
                guard let index = slotIndex else { return }
                if value != -1 { newTouch(index) } else { endSequence(index) }
            case EventCode.ABS_MT_POSITION_X, EventCode.ABS_MT_POSITION_Y, EventCode.ABS_MT_PRESSURE,
                 EventCode.ABS_MT_TOOL_TYPE:
                guard let index = slotIndex else { return }
                Self.set(code, value, on: &touches[index])
            default:
                break
            }
        } else {
            // A single-touch device: its one touch, from the legacy axes (which a multitouch
            // device also sends, and which it ignores above).
            switch code {
            case EventCode.ABS_X, EventCode.ABS_Y, EventCode.ABS_PRESSURE: Self.set(code, value, on: &touches[0])
            default: break
            }
        }
    }

    /// One axis of a touch from its multitouch code or its single-touch one; the touch is
    /// marked changed.
    private static func set(_ code: UInt16, _ value: Int, on touch: inout Touch) {
        switch code {
        case EventCode.ABS_MT_POSITION_X, EventCode.ABS_X: touch.x = value
        case EventCode.ABS_MT_POSITION_Y, EventCode.ABS_Y: touch.y = value
        case EventCode.ABS_MT_PRESSURE, EventCode.ABS_PRESSURE: touch.pressure = value
        case EventCode.ABS_MT_TOOL_TYPE: touch.isPalm = value == Int(EventCode.MT_TOOL_PALM)
        default: return
        }
        touch.dirty = true
    }

    /// libinput takes the slot as given and clamps it to its last touch.
    private var slotIndex: Int? { currentSlot >= 0 ? min(currentSlot, touches.count - 1) : nil }

    private mutating func key(code: UInt16, pressed: Bool) {
        let shift: UInt8
        switch code {
        case EventCode.BTN_TOUCH:
            if !pressed { fakeFingers &= ~Self.fakeOverflow }
            shift = 0
        case EventCode.BTN_TOOL_FINGER: shift = 1
        case EventCode.BTN_TOOL_DOUBLETAP: shift = 2
        case EventCode.BTN_TOOL_TRIPLETAP: shift = 3
        case EventCode.BTN_TOOL_QUADTAP: shift = 4
        case EventCode.BTN_TOOL_QUINTTAP:
            if pressed { fakeFingers |= Self.fakeOverflow }
            return
        default:
            return
        }
        if pressed {
            fakeFingers &= ~Self.fakeOverflow
            fakeFingers |= 1 << shift
        } else {
            fakeFingers &= ~(1 << shift)
        }
    }

    /// The fingers `BTN_TOOL_*` says are down (nil past five), not counting `BTN_TOUCH`.
    private var fakeFingerCount: Int? {
        if fakeFingers & Self.fakeOverflow != 0 { return nil }
        let tools = fakeFingers >> 1
        return tools == 0 ? 0 : tools.trailingZeroBitCount + 1
    }

    private var fakeFingerTouching: Bool { fakeFingers & 1 != 0 }

    private mutating func newTouch(_ index: Int) {
        switch touches[index].state {
        case .begin, .update, .hovering:
            return
        case .maybeEnd:  // ended and began in one frame: carries on
            fingersDown += 1
            touches[index].state = .update
            touches[index].hasEnded = false
            return
        default:
            break
        }
        touches[index].historyCount = 0
        touches[index].dirty = true
        touches[index].hasEnded = false
        touches[index].state = .hovering
    }

    private mutating func beginTouch(_ index: Int) {
        touches[index].dirty = true
        touches[index].state = .begin
        fingersDown += 1
    }

    private mutating func maybeEndTouch(_ index: Int) {
        switch touches[index].state {
        case .none, .maybeEnd, .end:
            return
        case .hovering:
            touches[index].state = .none
        case .begin, .update:
            fingersDown -= 1
            touches[index].state = .maybeEnd
        }
        touches[index].dirty = true
    }

    private mutating func endSequence(_ index: Int) {
        touches[index].hasEnded = true
        maybeEndTouch(index)
    }

    // MARK: Frames

    /// Ends a frame (`SYN_REPORT` at `time`): adds the contacts the pad's gestures make. Time
    /// arithmetic wraps rather than traps, so a recording's absurd timestamps cannot stop it.
    public mutating func report(at time: Timestamp, into contacts: inout [Contact]) {
        let now = time.microseconds
        fireTimers(upTo: now, into: &contacts)
        preProcess()
        process(at: now, into: &contacts)
        postGesture(at: now, into: &contacts)
        for index in touches.indices where touches[index].dirty {
            if touches[index].state == .end {
                touches[index].state = touches[index].hasEnded ? .none : .hovering
            } else if touches[index].state == .begin {
                touches[index].state = .update
            }
            touches[index].dirty = false
        }
        oldFingersDown = fingersDown
    }

    /// Events were lost (`SYN_DROPPED`): the gesture is cancelled and every touch starts over; a
    /// finger still down comes back as a new touch.
    public mutating func resynchronise(into contacts: inout [Contact]) {
        contact.cancel(into: &contacts)
        gesture = .none
        started = false
        fingerCount = 0
        pendingFingerCount = 0
        switchDeadline = nil
        holdDeadline = nil
        fingersDown = 0
        oldFingersDown = 0
        for index in touches.indices {
            let stillDown = touches[index].state != .none && !touches[index].hasEnded
            touches[index] = Touch()
            if stillDown && index < slotCount { newTouch(index) }
        }
    }

    private mutating func preProcess() {
        processFakeTouches()
        if pressureThresholds != nil { unhoverByPressure() } else { unhoverByFakeFingers() }
        for index in touches.indices {
            if touches[index].state == .maybeEnd {
                touches[index].state = .end
                touches[index].dirty = true
            }
            if touches[index].state == .end && touches[index].historyCount > 0 {
                touches[index].x = touches[index].last.x
                touches[index].y = touches[index].last.y
            }
        }
    }

    private mutating func processFakeTouches() {
        guard let fake = fakeFingerCount else { return }
        for index in (multitouch ? slotCount : 0)..<touches.count {
            if index < fake { newTouch(index) } else { endSequence(index) }
        }
    }

    private mutating func unhoverByPressure() {
        guard let (high, low) = pressureThresholds else { return }
        let fake = fakeFingerCount ?? 0
        var realDown = 0
        for index in 0..<slotCount where touches[index].state != .none {
            if touches[index].dirty {
                if touches[index].state == .hovering {
                    if touches[index].pressure >= high {
                        touches[index].historyCount = 0
                        beginTouch(index)
                    }
                } else if fake <= slotCount || slotCount == 1, touches[index].pressure < low {
                    maybeEndTouch(index)
                }
            }
            if touches[index].state == .begin || touches[index].state == .update { realDown += 1 }
        }
        guard fake > slotCount, fingersDown > 0 else { return }
        // More fingers than slots: every finger is taken to press hard enough.
        if realDown > 0 {
            for index in touches.indices where touches[index].state == .hovering {
                touches[index].historyCount = 0
                beginTouch(index)
                if fingersDown >= fake { break }
            }
        }
        if fingersDown > fake || realDown == 0 {
            for index in touches.indices.reversed() {
                let state = touches[index].state
                if state == .hovering || state == .none || state == .maybeEnd { continue }
                maybeEndTouch(index)
                if realDown > 0 && fingersDown == fake { break }
            }
        }
    }

    private mutating func unhoverByFakeFingers() {
        guard let fake = fakeFingerCount else { return }
        if fingersDown == fake && ((fingersDown == 0 && !fakeFingerTouching) || (fingersDown > 0 && fakeFingerTouching)) {
            return
        }
        if fakeFingerTouching && fingersDown < fake {
            for index in touches.indices where touches[index].state == .hovering {
                beginTouch(index)
                if fingersDown >= fake { break }
            }
        }
        if fingersDown > fake || !fakeFingerTouching {
            for index in touches.indices.reversed() {
                let state = touches[index].state
                if state == .hovering || state == .none { continue }
                maybeEndTouch(index)
                if fakeFingerTouching && fingersDown == fake { break }
            }
        }
    }

    private mutating func process(at now: Int64, into contacts: inout [Contact]) {
        positionFakeTouches()
        let resetHistory = fingersDown != oldFingersDown
        for index in touches.indices where touches[index].state != .none {
            if resetHistory {
                touches[index].historyCount = 0
                touches[index].resetAgain = true
            } else if touches[index].resetAgain {
                touches[index].historyCount = 0
                touches[index].resetAgain = false
            }
            if touches[index].dirty {
                if detectJump(index, at: now) { touches[index].historyCount = 0 }
                applyHysteresis(index)
            }
            touches[index].push(time: now)
        }
        handleFingerCount(at: now, into: &contacts)
    }

    private mutating func positionFakeTouches() {
        guard let fake = fakeFingerCount, fake > slotCount, fingersDown > 0 else { return }
        var topmost: Int?
        for index in 0..<slotCount where touches[index].state != .end && touches[index].state != .none {
            if topmost == nil || touches[index].y < touches[topmost!].y { topmost = index }
        }
        guard let topmost else { return }
        for index in (multitouch ? slotCount : 1)..<touches.count where touches[index].state != .none {
            touches[index].x = touches[topmost].x
            touches[index].y = touches[topmost].y
            touches[index].pressure = touches[topmost].pressure
            if !touches[index].dirty { touches[index].dirty = touches[topmost].dirty }
        }
    }

    /// libinput's jump detection: normalised to a 12 ms frame, a delta over 20 mm, or 7 mm more
    /// than the last one. Frames more than 30 ms apart are not judged.
    private mutating func detectJump(_ index: Int, at now: Int64) -> Bool {
        let touch = touches[index]
        guard touch.historyCount > 0 else {
            touches[index].lastJumpDistance = 0
            return false
        }
        let interval = now &- touch.last.time
        guard interval > 0, Double(interval) <= 2.5 * 12_000 else { return false }
        let mm = millimetres(dx: abs(touch.x - touch.last.x), dy: abs(touch.y - touch.last.y))
        let distance = (mm.x * mm.x + mm.y * mm.y).squareRoot() * 12_000 / Double(interval)
        touches[index].lastJumpDistance = distance
        return distance > 20 || distance - touch.lastJumpDistance > 7
    }

    private mutating func applyHysteresis(_ index: Int) {
        var touch = touches[index]
        if margin.x > 0 && margin.y > 0 && touch.historyCount > 0 {
            (touch.x, touch.y) = Self.hysteresis(x: touch.x, y: touch.y, center: touch.hysteresisCenter, margin: margin)
        }
        touch.hysteresisCenter = (touch.x, touch.y)
        touches[index] = touch
    }

    /// libinput's elliptical hysteresis: a point inside the margin around `center` stays at the
    /// centre; one outside drags the centre along, the margin behind it.
    static func hysteresis(x: Int, y: Int, center: (x: Int, y: Int), margin: (x: Int, y: Int)) -> (Int, Int) {
        // In Double: two far-apart Int32 positions squared overflow an Int.
        let dx = x - center.x, dy = y - center.y
        let fx = Double(dx), fy = Double(dy)
        let a = Double(margin.x), b = Double(margin.y)
        let normalised = (fx * fx / (a * a) + fy * fy / (b * b)).squareRoot()
        if normalised < 1 { return center }
        let distance = (fx * fx + fy * fy).squareRoot()
        let marginDistance = distance / normalised
        let lagX: Double, lagY: Double
        if dx != 0 {
            let gradient = fy / fx
            lagX = marginDistance / (gradient * gradient + 1).squareRoot()
            lagY = ((marginDistance + lagX) * (marginDistance - lagX)).squareRoot()
        } else {
            lagX = 0
            lagY = marginDistance
        }
        return (Int(dx >= 0 ? Double(x) - lagX : Double(x) + lagX), Int(dy >= 0 ? Double(y) - lagY : Double(y) + lagY))
    }

    func millimetres(dx: Int, dy: Int) -> (x: Double, y: Double) {
        (Double(dx) / xResolution, Double(dy) / yResolution)
    }
}
