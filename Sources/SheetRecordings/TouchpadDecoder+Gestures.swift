#if canImport(Glibc)
import Glibc
#endif
import SheetCore

/// libinput's gesture rules for a touchpad (`evdev-mt-touchpad-gestures.c`): the finger count,
/// the choice between scroll, pinch and swipe, and the deltas of the gesture chosen, with the
/// scroll's axis constraints. The rules and their numbers are in `TouchpadDecoder`'s summary.
extension TouchpadDecoder {
    var activeCount: Int { touches.reduce(0) { $0 + ($1.isActive ? 1 : 0) } }

    mutating func handleFingerCount(at now: Int64, into contacts: inout [Contact]) {
        let active = activeCount
        guard active != fingerCount else {
            pendingFingerCount = 0
            return
        }
        if active == 0 {
            // Every finger lifted: the gesture ends now.
            end(cancelled: false, into: &contacts)
            fingerCount = 0
            pendingFingerCount = 0
        } else if !started {
            fingerCount = active
            pendingFingerCount = 0
            if gesture == .unknown || gesture == .pointerMotion { reset() }
        } else if active != pendingFingerCount {
            // A started gesture keeps its fingers for 100 ms before it gives way.
            pendingFingerCount = active
            switchDeadline = now &+ 100_000
        }
    }

    /// libinput's timers, fired in order when the frame at `now` shows they have passed.
    mutating func fireTimers(upTo now: Int64, into contacts: inout [Contact]) {
        while true {
            let hold = holdDeadline.flatMap { $0 <= now ? $0 : nil }
            let change = switchDeadline.flatMap { $0 <= now ? $0 : nil }
            if let hold, change.map({ hold <= $0 }) ?? true {
                holdDeadline = nil
                // Still undecided: the fingers hold still, a hold gesture starts (the sheet takes none).
                if gesture == .unknown {
                    gesture = .hold
                    started = true
                }
            } else if change != nil {
                switchDeadline = nil
                guard pendingFingerCount != 0 else { continue }
                end(cancelled: true, into: &contacts)
                fingerCount = pendingFingerCount
                pendingFingerCount = 0
            } else {
                return
            }
        }
    }

    mutating func reset() {
        gesture = .none
        holdDeadline = nil
    }

    /// Ends the gesture: a started scroll stops, a started swipe ends (cancelled or not).
    mutating func end(cancelled: Bool, into contacts: inout [Contact]) {
        if started {
            switch gesture {
            case .scroll: contact.apply(.scrollStop, screen: screen, into: &contacts)
            case .swipe: contact.apply(.swipeEnd(fingers: fingerCount, cancelled: cancelled), screen: screen, into: &contacts)
            default: break
            }
            started = false
        }
        reset()
    }

    mutating func postGesture(at now: Int64, into contacts: inout [Contact]) {
        guard fingerCount > 0, pendingFingerCount == 0, fingerCount <= 4 else { return }
        if gesture == .none { findGestureTouches(at: now) }
        if gesture == .unknown || gesture == .hold { detectMotionGesture(at: now, into: &contacts) }
        switch gesture {
        case .scroll: scroll(at: now, into: &contacts)
        case .swipe: swipe(into: &contacts)
        case .pinch: if touches.contains(where: { $0.isActive && $0.dirty }) { started = true }
        default: break
        }
    }

    mutating func findGestureTouches(at now: Int64) {
        var active = InlineArray<4, Int>(repeating: 0)
        var count = 0
        for index in touches.indices where touches[index].isActive && count < 4 {
            active[count] = index
            count += 1
        }
        guard count > 0 else { return }
        if count == 1 {
            first = active[0]
            touches[first].initial = (touches[first].x, touches[first].y)
            fingersDetected(at: now)
            return
        }
        if !gesturesEnabled {
            if count == 2 { gesture = .scroll }
            return
        }
        // Two fingers, or the topmost and the bottommost of more.
        var top = active[0], bottom = active[count > 2 ? 0 : 1]
        if count > 2 {
            for position in 1..<min(count, slotCount) {
                let index = active[position]
                if touches[index].y < touches[top].y { top = index } else if touches[index].y >= touches[bottom].y { bottom = index }
            }
            if top == bottom { return }
        }
        initialTime = now
        first = top
        second = bottom
        touches[first].initial = (touches[first].x, touches[first].y)
        touches[second].initial = (touches[second].x, touches[second].y)
        fingersDetected(at: now)
    }

    /// Fingers found: undecided until they move; held still, a hold after 40 ms (one or two
    /// fingers) or 180 ms (libinput's hold timer, tapping off).
    mutating func fingersDetected(at now: Int64) {
        if gesturesEnabled { holdDeadline = now &+ (fingerCount <= 2 ? 40_000 : 180_000) }
        gesture = .unknown
    }

    func moved(_ index: Int) -> (x: Double, y: Double) {
        let touch = touches[index]
        return millimetres(dx: abs(touch.x - touch.initial.x), dy: abs(touch.y - touch.initial.y))
    }

    func movedDistance(_ index: Int) -> Double {
        let mm = moved(index)
        return (mm.x * mm.x + mm.y * mm.y).squareRoot()
    }

    func direction(_ index: Int) -> UInt32 {
        let touch = touches[index]
        let mm = millimetres(dx: touch.x - touch.initial.x, dy: touch.y - touch.initial.y)
        return Self.direction(x: mm.x, y: mm.y)
    }

    /// libinput's compass: a bit per octant (N = bit 0, clockwise), two octants when the
    /// motion is near their border, three for motions under 2 mm.
    static func direction(x: Double, y: Double) -> UInt32 {
        let n: UInt32 = 1, ne: UInt32 = 2, e: UInt32 = 4, se: UInt32 = 8, s: UInt32 = 16, sw: UInt32 = 32, w: UInt32 = 64, nw: UInt32 = 128
        if abs(x) < 2 && abs(y) < 2 {
            switch (x.sign, y.sign, x == 0, y == 0) {
            case (_, _, true, true): return 0xff
            case (.plus, .plus, false, false): return s | se | e
            case (.plus, .minus, false, false): return n | ne | e
            case (.minus, .plus, false, false): return s | sw | w
            case (.minus, .minus, false, false): return n | nw | w
            case (.plus, _, false, true): return ne | e | se
            case (.minus, _, false, true): return nw | w | sw
            case (_, .plus, true, false): return se | s | sw
            default: return ne | n | nw
            }
        }
        var r = atan2(y, x)
        r = fmod(r + 2.5 * Double.pi, 2 * Double.pi)
        r *= 4 / Double.pi
        let d1 = Int(r + 0.9) % 8, d2 = Int(r + 0.1) % 8
        return (1 << UInt32(d1)) | (1 << UInt32(d2))
    }

    static func sameDirections(_ a: UInt32, _ b: UInt32) -> Bool {
        ((a | (a >> 1)) & b) != 0 || ((b | (b >> 1)) & a) != 0 || ((a & 0x80) != 0 && (b & 0x01) != 0)
            || ((b & 0x80) != 0 && (a & 0x01) != 0)
    }

    mutating func detectMotionGesture(at now: Int64, into contacts: inout [Contact]) {
        let decided = detectedMotionGesture(at: now)
        guard decided != gesture else { return }
        // A hold gives way to what the fingers turn out to do; the undecided state just moves on.
        if gesture == .hold, decided != .unknown { end(cancelled: true, into: &contacts) }
        if decided != .pointerMotion { holdDeadline = nil }
        gesture = decided
    }

    func detectedMotionGesture(at now: Int64) -> GestureState {
        if fingerCount == 1 {
            // One finger moves the pointer (nothing for the sheet), once it moves.
            return touches[first].dirty && touches[first].delta != (0, 0) ? .pointerMotion : gesture
        }
        if gesturesEnabled && fingerCount > 2 && fingerCount > slotCount { return .swipe }
        let maxMove = 4.0 + 2.0 * Double(fingerCount - 2)
        let minMove = 1.5 + 0.5 * Double(fingerCount - 2)
        let firstMoved = movedDistance(first), secondMoved = movedDistance(second)
        let apart = millimetres(dx: abs(touches[first].x - touches[second].x), dy: abs(touches[first].y - touches[second].y))
        if firstMoved < 1 && secondMoved < 1 { return gesture }
        // The lower touch may be a thumb resting while the other moves.
        let fingerMoved = touches[first].y > touches[second].y ? secondMoved : firstMoved
        if (!gesturesEnabled || (apart.x < 40 && apart.y < 7)) && now &- initialTime > 150_000 {
            return fingerCount == 2 ? .scroll : .swipe
        }
        if firstMoved >= maxMove || secondMoved >= maxMove {
            if (!gesturesEnabled || fingerMoved < minMove) && fingerCount == 2 { return .scroll }
            if fingerMoved < minMove && fingerCount > 2 && gesturesEnabled { return .pinch }
        }
        if firstMoved < minMove || secondMoved < minMove { return gesture }
        if fingerCount > slotCount || Self.sameDirections(direction(first), direction(second)) {
            if fingerCount == 2 { return .scroll }
            if gesturesEnabled { return .swipe }
        }
        // Fingers moving apart: a pinch, which the sheet does not take.
        return .pinch
    }

    /// Whether the scroll's two fingers now move apart, libinput's second look at a scroll.
    func isPinch() -> Bool {
        guard Self.sameDirections(direction(first), direction(second)) == false else { return false }
        return movedDistance(first) >= 1.5 && movedDistance(second) >= 1.5
    }

    /// The mean delta of the active touches (the touches that moved, over all active ones),
    /// in device units.
    var meanDelta: (x: Double, y: Double) {
        var sum = (x: 0, y: 0), count = 0
        for touch in touches where touch.isActive {
            count += 1
            guard touch.dirty else { continue }
            let delta = touch.delta
            sum.x += delta.x
            sum.y += delta.y
        }
        return count == 0 ? (0, 0) : (Double(sum.x) / Double(count), Double(sum.y) / Double(count))
    }

    func unaccelerated(_ raw: (x: Double, y: Double)) -> Vector {
        Vector(dx: raw.x * xUnits, dy: raw.y * xyScale * xUnits)
    }

    mutating func scroll(at now: Int64, into contacts: inout [Contact]) {
        if gesturesEnabled, fingerCount == 2, now &- initialTime < 300_000, isPinch() {
            end(cancelled: true, into: &contacts)
            gesture = .pinch
            return
        }
        let raw = meanDelta
        var delta = unaccelerated(raw)
        guard delta.dx != 0 || delta.dy != 0 else { return }
        if !started {
            started = true
            scrollActive = (false, false)
            scrollDuration = (0, 0)
            scrollVector = (0, 0)
            scrollPreviousTime = 0
        }
        constrain(&delta, raw: raw, at: now)
        guard delta.dx != 0 || delta.dy != 0 else { return }
        contact.apply(.scroll(delta), screen: screen, into: &contacts)
    }

    /// libinput's scroll constraints: a vector of recent motion (mm, decaying over 100 ms)
    /// decides which axes scroll; until one axis has led for 100 ms the slope alone does.
    mutating func constrain(_ delta: inout Vector, raw: (x: Double, y: Double), at now: Int64) {
        if scrollActive.h && scrollActive.v { return }
        let active: Int64 = 100_000, inactive: Int64 = 50_000, timeout: Int64 = 100_000
        var interval: Int64 = scrollPreviousTime != 0 ? now &- scrollPreviousTime : 0
        if interval > timeout || interval < 0 { interval = 0 }
        scrollPreviousTime = now
        let mm = (x: raw.x / xResolution, y: raw.y / yResolution)
        var decay = 0.0
        if interval > 0 {
            let t = Double(interval), limit = Double(timeout)
            decay = t <= 0.33 * limit ? (limit / 2 - t) / (limit / 2) : (limit - t) / (limit * 2)
        }
        scrollVector = (scrollVector.x * decay + mm.x, scrollVector.y * decay + mm.y)
        let length = (scrollVector.x * scrollVector.x + scrollVector.y * scrollVector.y).squareRoot()
        let slope = scrollVector.x != 0 ? abs(scrollVector.y / scrollVector.x) : .infinity
        let degree75 = 3.73, degree60 = 1.73, degree30 = 0.57, degree15 = 0.27, minimum = 0.15
        if slope >= degree30 && length > minimum {
            scrollDuration.v = min(scrollDuration.v + interval, active)
            if slope >= degree75 { scrollDuration.h = scrollDuration.h > interval ? scrollDuration.h - interval : 0 }
        }
        if slope < degree60 && length > minimum {
            scrollDuration.h = min(scrollDuration.h + interval, active)
            if slope < degree15 { scrollDuration.v = scrollDuration.v > interval ? scrollDuration.v - interval : 0 }
        }
        if scrollDuration.h == active {
            scrollActive.h = true
            if scrollDuration.v < inactive { scrollActive.v = false }
        }
        if scrollDuration.v == active {
            scrollActive.v = true
            if scrollDuration.h < inactive { scrollActive.h = false }
        }
        if length > 5 && slope < degree60 && slope >= degree30 {
            scrollActive = (true, true)
        }
        if !scrollActive.h && scrollActive.v { delta.dx = 0 }
        if scrollActive.h && !scrollActive.v { delta.dy = 0 }
        if !scrollActive.h && !scrollActive.v {
            if slope >= degree60 { delta.dx = 0 }
            if slope < degree30 { delta.dy = 0 }
        }
    }

    mutating func swipe(into contacts: inout [Contact]) {
        let raw = meanDelta
        guard raw.x != 0 || raw.y != 0 else { return }
        started = true
        contact.apply(.swipe(fingers: fingerCount, unaccelerated(raw)), screen: screen, into: &contacts)
    }
}
