import Testing
import SheetCore
@testable import SheetRecordings

/// A touchpad's kernel events built frame by frame from where its fingers are, as the kernel
/// sends them: slots and tracking ids, `BTN_TOUCH` and the `BTN_TOOL_*` finger count.
private struct PadScript {
    var device: DeviceDescription
    var events: [KernelEvent] = []
    var time: Int64 = 0
    private var fingers: [Int: (x: Int32, y: Int32)] = [:]
    private var nextID: Int32 = 1
    private var slot = 0

    /// A 100 x 60 mm pad of 10 units per mm (`slots` slots), optionally with pressure.
    init(slots: Int = 3, pressure: Bool = false, semi: Bool = false, fuzz: Int32 = 0) {
        var abs: Set<Int> = [0x00, 0x01, 0x2f, 0x35, 0x36, 0x39]
        var absinfo: [Int: AbsInfo] = [
            0x00: AbsInfo(minimum: 0, maximum: 1000, fuzz: fuzz, resolution: 10), 0x01: AbsInfo(minimum: 0, maximum: 600, fuzz: fuzz, resolution: 10),
            0x35: AbsInfo(minimum: 0, maximum: 1000, fuzz: fuzz, resolution: 10), 0x36: AbsInfo(minimum: 0, maximum: 600, fuzz: fuzz, resolution: 10),
            0x2f: AbsInfo(minimum: 0, maximum: Int32(slots - 1)), 0x39: AbsInfo(minimum: 0, maximum: 65535),
        ]
        if pressure {
            abs.formUnion([0x18, 0x3a])
            absinfo[0x18] = AbsInfo(minimum: 0, maximum: 100)
            absinfo[0x3a] = AbsInfo(minimum: 0, maximum: 100)
        }
        device = DeviceDescription(
            name: "test pad", properties: semi ? [0, 3] : [0],
            codes: [1: [0x110, 0x145, 0x14a, 0x14d, 0x14e, 0x14f], 3: abs], absinfo: absinfo, udevKind: .touchpad)
    }

    private mutating func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(KernelEvent(time: Timestamp(microseconds: time), type: type, code: code, value: value))
    }

    /// One frame `milliseconds` after the last: the fingers now down and where (by slot), each
    /// with `pressure` when the pad has it.
    mutating func frame(after milliseconds: Int64 = 10, _ now: [Int: (Int32, Int32)], pressure: Int32 = 50) {
        time += milliseconds * 1000
        let before = fingers.count
        for slot in fingers.keys.sorted() where now[slot] == nil {
            select(slot)
            emit(3, 0x39, -1)
            fingers[slot] = nil
        }
        for slot in now.keys.sorted() {
            let (x, y) = now[slot]!
            select(slot)
            if fingers[slot] == nil {
                emit(3, 0x39, nextID)
                nextID += 1
            }
            if fingers[slot]?.x != x { emit(3, 0x35, x) }
            if fingers[slot]?.y != y { emit(3, 0x36, y) }
            if device.absinfo[0x3a] != nil { emit(3, 0x3a, pressure) }
            fingers[slot] = (x, y)
        }
        let tools: [UInt16] = [0x145, 0x14d, 0x14e, 0x14f, 0x148]
        if before != fingers.count {
            if before > 0 { emit(1, tools[min(before, 5) - 1], 0) }
            if (before > 0) != (fingers.count > 0) { emit(1, 0x14a, fingers.isEmpty ? 0 : 1) }
            if !fingers.isEmpty { emit(1, tools[min(fingers.count, 5) - 1], 1) }
        }
        if let first = fingers.keys.min() {
            emit(3, 0x00, fingers[first]!.x)
            emit(3, 0x01, fingers[first]!.y)
            if device.absinfo[0x18] != nil { emit(3, 0x18, pressure) }
        }
        emit(0, 0, 0)
    }

    private mutating func select(_ slot: Int) {
        if slot != self.slot { emit(3, 0x2f, Int32(slot)) }
        self.slot = slot
    }

    /// Fingers in `slots`, side by side, moved by (dx, dy) units a frame for `frames` frames
    /// from (x, y), then lifted.
    mutating func stroke(slots: [Int], from x: Int32, _ y: Int32, by dx: Int32, _ dy: Int32, frames: Int, spacing: Int32 = 200) {
        for step in 0...Int32(frames) {
            var now: [Int: (Int32, Int32)] = [:]
            for (index, slot) in slots.enumerated() { now[slot] = (x + Int32(index) * spacing + dx * step, y + dy * step) }
            frame(now)
        }
        frame([:])
    }

    /// The contacts of each frame the decoder ends, with its time in ms.
    func decoded(screen: ScreenSize = ScreenSize(widthInPixels: 1000, heightInPixels: 800)) -> [(ms: Int64, contacts: [Contact])] {
        var decoder = MultitouchDecoder(device: device, screen: screen)
        var frame = TouchFrame(time: .zero)
        var out: [(ms: Int64, contacts: [Contact])] = []
        for event in events where decoder.feed(event, into: &frame) {
            if !frame.isEmpty {
                #expect(frame.source == .touchpad)
                out.append((frame.time.microseconds / 1000, frame.contacts))
            }
            frame.removeAll()
        }
        return out
    }
}

/// libinput's unaccelerated touchpad units per millimetre: 1000 DPI, times 0.9 x 0.2968.
private let unitsPerMillimetre = 1000 / 25.4 * 0.9 * 0.2968

@Suite struct TouchpadDecoderTests {
    @Test func twoFingersMovingTogetherScrollInLibinputsUnits() {
        var pad = PadScript()
        pad.stroke(slots: [0, 1], from: 400, 200, by: 0, 10, frames: 20)
        let frames = pad.decoded()
        // Undecided until both fingers have moved 1.5 mm the same way (the second frame of
        // motion); from there every 1 mm frame scrolls by libinput's 10.5 units.
        let first = try! #require(frames.first)
        #expect(first.ms == 30)
        #expect(first.contacts.map(\.phase) == [.down, .move])
        #expect(first.contacts.allSatisfy { $0.slot == TouchpadContact.slot })
        #expect(first.contacts[0].positionInPixels == Point(x: 500, y: 400))
        #expect(abs(first.contacts[1].positionInPixels.y - (400 + unitsPerMillimetre)) < 1e-9)
        let moves = frames.flatMap(\.contacts).filter { $0.phase == .move }
        #expect(moves.count == 19)
        #expect(abs(moves.last!.positionInPixels.y - (400 + 19 * unitsPerMillimetre)) < 1e-6)
        #expect(moves.allSatisfy { $0.positionInPixels.x == 500 })
        #expect(frames.last!.contacts.map(\.phase) == [.up], "the scroll stop when the fingers lift")
    }

    @Test func aTwoFingerTapMovesNothing() {
        var pad = PadScript()
        pad.frame([0: (400, 300), 1: (600, 300)])
        pad.frame([0: (401, 300), 1: (600, 301)])
        pad.frame([:])
        #expect(pad.decoded().isEmpty)
    }

    @Test func fingersMovingApartAreAPinchTheSheetDoesNotTake() {
        var pad = PadScript()
        for step: Int32 in 0...15 { pad.frame([0: (400 - step * 10, 300), 1: (600 + step * 10, 300)]) }
        pad.frame([:])
        #expect(pad.decoded().isEmpty)
    }

    @Test func threeFingersSwipeAndEndWithTheirLift() {
        var pad = PadScript()
        pad.stroke(slots: [0, 1, 2], from: 300, 100, by: 0, 15, frames: 20, spacing: 150)
        let contacts = pad.decoded().flatMap(\.contacts)
        #expect(contacts.first?.phase == .down)
        #expect(contacts.last?.phase == .up)
        let moves = contacts.filter { $0.phase == .move }
        // Three fingers need 2 mm each before the swipe is known (the second frame of motion).
        #expect(moves.count == 19)
        #expect(abs(moves.last!.positionInPixels.y - (400 + 19 * 1.5 * unitsPerMillimetre)) < 1e-6)
    }

    @Test func fourFingersSwipeButMoveNothing() {
        var pad = PadScript(slots: 4)
        pad.stroke(slots: [0, 1, 2, 3], from: 200, 100, by: 0, 15, frames: 20, spacing: 150)
        #expect(pad.decoded().isEmpty)
    }

    @Test func aThirdFingerUnderAScrollStopsItAfter100Milliseconds() {
        var pad = PadScript()
        var y: Int32 = 100
        for _ in 0..<8 {
            pad.frame([0: (400, y), 1: (600, y)])
            y += 10
        }
        // The third finger: libinput keeps the scroll's two fingers for 100 ms, posting nothing,
        // then stops it; the three fingers then swipe.
        for _ in 0..<20 {
            pad.frame([0: (400, y), 1: (600, y), 2: (500, y + 50)])
            y += 10
        }
        pad.frame([:])
        let frames = pad.decoded()
        let ends = frames.filter { $0.contacts.contains { $0.phase == .up || $0.phase == .cancel } }
        #expect(ends.count == 2)
        #expect(ends.first.map(\.ms) == 190, "the scroll stops at the first frame 100 ms after the third finger")
        #expect(ends.first?.contacts.first?.phase == .up)
        let downs = frames.flatMap(\.contacts).filter { $0.phase == .down }
        #expect(downs.count == 2, "a scroll, then a swipe")
        #expect(frames.last?.contacts.map(\.phase) == [.up])
    }

    @Test func aLiftWhileTheCountIsDebouncedEndsTheScrollAtOnce() {
        var pad = PadScript()
        for step: Int32 in 0..<8 { pad.frame([0: (400, 100 + step * 10), 1: (600, 100 + step * 10)]) }
        pad.frame([0: (400, 180)])
        pad.frame([:])
        let frames = pad.decoded()
        #expect(frames.last?.contacts.map(\.phase) == [.up])
        #expect(frames.last?.ms == 100)
    }

    @Test func semiMultitouchPadsScrollAsSoonAsTwoFingersAreDown() {
        var pad = PadScript(slots: 2, semi: true)
        pad.frame([0: (400, 300), 1: (600, 300)])
        pad.frame([0: (400, 302), 1: (600, 302)])
        pad.frame([0: (400, 304), 1: (600, 304)])
        pad.frame([0: (400, 306), 1: (600, 306)])
        pad.frame([:])
        let contacts = pad.decoded().flatMap(\.contacts)
        // No threshold: the first 0.2 mm a delta is taken for already scrolls (libinput turns
        // gestures off on such pads). The frame the fingers land and the next move nothing: the
        // motion history starts over on both after a change of finger count.
        #expect(contacts.map(\.phase) == [.down, .move, .move, .up])
        #expect(abs(contacts[1].positionInPixels.y - (400 + 0.2 * unitsPerMillimetre)) < 1e-9)
    }

    @Test func fingersPressingTooLightlyAreNotDown() {
        var pad = PadScript(pressure: true)
        // 100-step pressure: a touch begins at 12, so 11 hovers and moves nothing.
        for step: Int32 in 0..<10 { pad.frame([0: (400, 100 + step * 10), 1: (600, 100 + step * 10)], pressure: 11) }
        pad.frame([:])
        #expect(pad.decoded().isEmpty)
        var pressed = PadScript(pressure: true)
        for step: Int32 in 0..<10 { pressed.frame([0: (400, 100 + step * 10), 1: (600, 100 + step * 10)], pressure: 12) }
        pressed.frame([:])
        #expect(!pressed.decoded().isEmpty)
    }

    @Test func aScrollMostlyDownKeepsToTheVerticalAxis() {
        var pad = PadScript()
        var x: Int32 = 400
        for step: Int32 in 0..<25 {
            pad.frame([0: (x, 100 + step * 15), 1: (x + 200, 100 + step * 15)])
            x += step % 2 == 0 ? 4 : -2
        }
        pad.frame([:])
        let moves = pad.decoded().flatMap(\.contacts).filter { $0.phase == .move }
        #expect(moves.count > 10)
        #expect(moves.allSatisfy { $0.positionInPixels.x == 500 }, "sideways wobble is constrained away")
    }

    @Test func aJumpOfAFingerMovesNothingThatFrame() {
        var pad = PadScript()
        for step: Int32 in 0..<6 { pad.frame([0: (400, 100 + step * 10), 1: (600, 100 + step * 10)]) }
        pad.frame([0: (400, 450), 1: (600, 160)])  // 30 mm in 10 ms: a jump
        pad.frame([:])
        let moves = pad.decoded().flatMap(\.contacts).filter { $0.phase == .move }
        // Fingers 1 mm a frame: four 1 mm scrolls from the second frame of motion. In the jump's
        // frame the jumping finger's delta is dropped, so the mean is the other finger's 1 mm
        // over two fingers.
        #expect(abs(moves.last!.positionInPixels.y - (400 + 4.5 * unitsPerMillimetre)) < 1e-6)
    }

    @Test func hysteresisHoldsAPointInsideTheMarginAndDragsItOutside() {
        #expect(TouchpadDecoder.hysteresis(x: 3, y: 0, center: (0, 0), margin: (8, 8)) == (0, 0))
        #expect(TouchpadDecoder.hysteresis(x: 20, y: 0, center: (0, 0), margin: (8, 8)) == (12, 0))
        #expect(TouchpadDecoder.hysteresis(x: 0, y: -20, center: (0, 0), margin: (8, 8)) == (0, -12))
        // Positions at the ends of the kernel's Int32 range: no overflow.
        let far = TouchpadDecoder.hysteresis(x: Int(Int32.max), y: Int(Int32.max), center: (Int(Int32.min), Int(Int32.min)), margin: (8, 8))
        #expect(far.0 < Int(Int32.max) && far.0 > Int(Int32.max) - 8 && far.1 > Int(Int32.max) - 8)
    }

    @Test func directionsAreLibinputsCompassOctants() {
        #expect(TouchpadDecoder.direction(x: 0, y: -5) == 1)  // north
        #expect(TouchpadDecoder.direction(x: 5, y: 0) == 4)  // east
        #expect(TouchpadDecoder.direction(x: 0.5, y: 0.5) == 16 | 8 | 4)  // small: three octants
        #expect(TouchpadDecoder.sameDirections(TouchpadDecoder.direction(x: 0, y: 5), TouchpadDecoder.direction(x: 1, y: 5)))
        #expect(!TouchpadDecoder.sameDirections(TouchpadDecoder.direction(x: -5, y: 0), TouchpadDecoder.direction(x: 5, y: 0)))
    }

    /// What libinput 1.22.1 itself reported for this recording, played through uinput in the e2e
    /// VM (`libinput debug-events --verbose`): its scroll values, vertical and horizontal.
    @Test func theAlpsTapScrollsExactlyAsLibinputReportedIt() throws {
        let (events, source) = try readAll(trace("tp-alps-glidepoint.2-finger-tap.evemu"))
        var decoder = MultitouchDecoder(device: source.device, screen: ScreenSize(widthInPixels: 1000, heightInPixels: 800))
        var frame = TouchFrame(time: .zero)
        var contacts: [Contact] = []
        for event in events where decoder.feed(event, into: &frame) {
            contacts += frame.contacts
            frame.removeAll()
        }
        var deltas: [(Double, Double)] = []
        for (before, after) in zip(contacts, contacts.dropFirst()) where after.phase == .move {
            deltas.append((after.positionInPixels.y - before.positionInPixels.y, after.positionInPixels.x - before.positionInPixels.x))
        }
        let libinput: [(Double, Double)] = [(3.38, 0), (1.88, -1.88), (2.63, -3.01), (-7.14, 0), (-7.89, 0), (-5.26, 0), (1.13, 0)]
        #expect(deltas.count == libinput.count)
        for (ours, theirs) in zip(deltas, libinput) {
            #expect(abs(ours.0 - theirs.0) < 0.006 && abs(ours.1 - theirs.1) < 0.006, "\(ours) against libinput's \(theirs)")
        }
        #expect(contacts.last?.phase == .up, "and its scroll stop")
    }

    @Test func anyEventsWithAnyTimesNeitherTrapNorLeaveAContactDown() {
        var generator = SplitMix(seed: 12)
        for semi in [false, true] {
            let pad = PadScript(slots: 3, pressure: !semi, semi: semi, fuzz: 8)
            var decoder = MultitouchDecoder(device: pad.device, screen: ScreenSize(widthInPixels: 1000, heightInPixels: 800))
            var frame = TouchFrame(time: .zero)
            var down = false
            let codes: [(UInt16, UInt16)] = [(3, 0x2f), (3, 0x39), (3, 0x35), (3, 0x36), (3, 0x3a), (3, 0x37), (3, 0x00), (3, 0x01),
                                             (3, 0x18), (1, 0x14a), (1, 0x145), (1, 0x14d), (1, 0x14e), (1, 0x14f), (1, 0x148),
                                             (0, 0), (0, 0), (0, 3)]
            var time: Int64 = 0
            for _ in 0..<50_000 {
                let (type, code) = codes[Int(generator.next() % UInt64(codes.count))]
                let roll = generator.next() % 100
                time = roll == 0 ? Int64(bitPattern: generator.next()) : time &+ Int64(generator.next() % 20_000)
                let value = roll == 1 ? Int32(truncatingIfNeeded: generator.next()) : Int32(generator.next() % 1100) - 50
                if decoder.feed(KernelEvent(time: Timestamp(microseconds: time), type: type, code: code, value: value), into: &frame) {
                    for contact in frame.contacts {
                        #expect(contact.slot == TouchpadContact.slot)
                        #expect((contact.phase == .down) != down, "downs and ends alternate")
                        down = contact.phase == .down || contact.phase == .move
                    }
                    frame.removeAll()
                }
            }
        }
    }

    @Test func lostEventsCancelTheScroll() {
        var pad = PadScript()
        for step: Int32 in 0..<6 { pad.frame([0: (400, 100 + step * 10), 1: (600, 100 + step * 10)]) }
        pad.events.append(KernelEvent(time: Timestamp(microseconds: pad.time + 1000), type: 0, code: 3, value: 0))
        pad.events.append(KernelEvent(time: Timestamp(microseconds: pad.time + 2000), type: 0, code: 0, value: 0))
        let frames = pad.decoded()
        #expect(frames.last?.contacts.map(\.phase) == [.cancel])
    }
}
