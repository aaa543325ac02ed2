import Foundation
import SheetCore
import Testing
@testable import SheetRecordings

/// Devices that are not plain protocol-B touchscreens: protocol A (read through libmtdev, as
/// libinput reads it), devices that cannot place a touch, and devices that send other than they
/// declare.
@Suite struct OddDeviceTests {
    /// Every contact a recording's events decode to, frame by frame.
    private func decode(_ events: [KernelEvent], device: DeviceDescription,
                        screen: ScreenSize = ScreenSize(widthInPixels: 1000, heightInPixels: 1000)) -> (contacts: [Contact], decoder: MultitouchDecoder) {
        var decoder = MultitouchDecoder(device: device, screen: screen)
        var frame = TouchFrame(time: .zero)
        var contacts: [Contact] = []
        for event in events where decoder.feed(event, into: &frame) {
            contacts += frame.contacts
            frame.removeAll()
        }
        return (contacts, decoder)
    }

    // MARK: Protocol A

    @Test func theNTrigPanelSpeaksProtocolAAndIsReadThroughMtdev() throws {
        let (events, source) = try readAll(trace("ts-ntrig.1-finger-drag-nw-se.events"))
        #expect(source.device.kind == .touchscreen)
        #expect(source.device.speaksProtocolA)
        #expect(source.device.slotCount == 10, "libinput's slots for a protocol-A device")
        #expect(events.contains { $0.type == EventCode.EV_SYN && $0.code == EventCode.SYN_MT_REPORT })
        let (contacts, decoder) = decode(events, device: source.device)
        #expect(decoder.readsProtocolA)
        #expect(contacts.filter { $0.phase == .down }.count == 1)
        #expect(contacts.last?.phase == .up)
        #expect(contacts.allSatisfy { $0.slot == 0 })
        // Dragged from the top left towards the bottom right of a 9600 x 7200 panel.
        let first = try #require(contacts.first), last = try #require(contacts.last)
        #expect(abs(first.positionInPixels.x - 205 * 1000 / 9601) < 0.01 && abs(first.positionInPixels.y - 183 * 1000 / 7201) < 0.01)
        #expect(last.positionInPixels.x > 900 && last.positionInPixels.y > 900)
        #expect(contacts.count { $0.phase == .move } == 91)
        #expect(decoder.axisWarnings.isEmpty)
    }

    /// What libinput 1.22.1 reported for these recordings, played through uinput in the e2e VM
    /// (`libinput debug-events`, kept beside them; the `libinput` e2e scenario makes it afresh
    /// and compares it with `sheetctl replay --contacts`): touch by touch, the same slots, and
    /// the same positions in per cent of the screen to the printed hundredth.
    @Test(arguments: ["ts-ntrig.1-finger-drag-nw-se", "ts-ntrig.2-fingers-touch-release"])
    func protocolATouchesAreTheOnesLibinputReported(_ name: String) throws {
        let log = try String(contentsOfFile: trace("\(name).libinput.txt"), encoding: .utf8)
        var theirs: [(phase: ContactPhase, slot: Int, x: Double?, y: Double?)] = []
        for line in log.split(separator: "\n") {
            let phases: [(String, ContactPhase)] = [("TOUCH_DOWN", .down), ("TOUCH_MOTION", .move), ("TOUCH_UP", .up), ("TOUCH_CANCEL", .cancel)]
            guard let phase = phases.first(where: { line.contains($0.0) })?.1,
                  let tab = line.firstIndex(of: "\t") else { continue }
            // "SLOT (SEAT-SLOT) X/Y (XMM/YMM mm)", the numbers padded with spaces (%5.2f).
            let fields = line[line.index(after: tab)...].filter { $0 != " " }
            let slot = try #require(Int(fields.prefix { $0 != "(" }))
            let afterSeat = fields.drop { $0 != ")" }.dropFirst()
            let position = afterSeat.prefix { $0 != "(" }.split(separator: "/").compactMap { Double($0) }
            theirs.append((phase, slot, position.count == 2 ? position[0] : nil, position.count == 2 ? position[1] : nil))
        }
        let (events, source) = try readAll(trace("\(name).events"))
        let (ours, _) = decode(events, device: source.device, screen: ScreenSize(widthInPixels: 100, heightInPixels: 100))
        #expect(theirs.count == ours.count)
        #expect(theirs.count > 20)
        for (index, (a, b)) in zip(theirs, ours).enumerated() {
            #expect(a.phase == b.phase && a.slot == b.slot, "touch event \(index)")
            if let x = a.x, let y = a.y {
                #expect(abs(x - b.positionInPixels.x) <= 0.0051 && abs(y - b.positionInPixels.y) <= 0.0051,
                        "touch event \(index): libinput (\(x), \(y)), sheetd \(b.positionInPixels)")
            }
        }
    }

    @Test func twoProtocolAFingersKeepTheirOwnSlots() throws {
        let (events, source) = try readAll(trace("ts-ntrig.2-fingers-touch-release.events"))
        let (contacts, _) = decode(events, device: source.device)
        #expect(contacts.filter { $0.phase != .move }.map { "\($0.phase) \($0.slot)" } == ["down 0", "down 1", "up 0", "up 1"])
        // The second finger moves without taking the first's place.
        let second = contacts.filter { $0.slot == 1 }
        #expect(second.allSatisfy { $0.positionInPixels.x > 700 && $0.positionInPixels.y < 400 })
    }

    /// A protocol-A device repeats every contact each frame, in any order; mtdev matches them
    /// to the last frame's, so two fingers that change places in the report do not swap.
    @Test func contactsReportedInAnotherOrderAreStillTheSameFingers() {
        let device = DeviceDescription(
            name: "type A", properties: [EventCode.INPUT_PROP_DIRECT],
            codes: [1: [Int(EventCode.BTN_TOUCH)], 3: [0x35, 0x36]],
            absinfo: [0x35: AbsInfo(minimum: 0, maximum: 999), 0x36: AbsInfo(minimum: 0, maximum: 999)])
        #expect(device.speaksProtocolA)
        var events: [KernelEvent] = []
        var time: Int64 = 0
        func frame(_ points: [(Int32, Int32)]) {
            time += 10_000
            for (x, y) in points {
                events.append(KernelEvent(time: Timestamp(microseconds: time), type: 3, code: 0x35, value: x))
                events.append(KernelEvent(time: Timestamp(microseconds: time), type: 3, code: 0x36, value: y))
                events.append(KernelEvent(time: Timestamp(microseconds: time), type: 0, code: EventCode.SYN_MT_REPORT, value: 0))
            }
            if points.isEmpty { events.append(KernelEvent(time: Timestamp(microseconds: time), type: 0, code: EventCode.SYN_MT_REPORT, value: 0)) }
            events.append(KernelEvent(time: Timestamp(microseconds: time), type: 1, code: EventCode.BTN_TOUCH, value: points.isEmpty ? 0 : 1))
            events.append(KernelEvent(time: Timestamp(microseconds: time), type: 0, code: EventCode.SYN_REPORT, value: 0))
        }
        frame([(100, 100), (800, 800)])
        frame([(805, 805), (102, 102)])
        frame([(104, 104), (810, 810)])
        frame([])
        let (contacts, _) = decode(events, device: device)
        #expect(contacts.filter { $0.phase == .down }.count == 2)
        #expect(contacts.filter { $0.phase == .up }.count == 2)
        let slotOfNearOrigin = contacts.first { $0.phase == .down && $0.positionInPixels.x < 500 }?.slot
        #expect(contacts.filter { $0.slot == slotOfNearOrigin }.allSatisfy { $0.positionInPixels.x < 500 })
    }

    /// Codes no kernel sends (an ABS code past ABS_MAX, a key past KEY_MAX) in a recording of
    /// a protocol-A device are dropped before libmtdev, which indexes its tables by code
    /// (`make fuzz` found the write past its table); the touches around them decode as ever.
    @Test func codesPastTheirTypesLastNeverReachMtdev() {
        let device = DeviceDescription(
            name: "type A", properties: [EventCode.INPUT_PROP_DIRECT],
            codes: [1: [Int(EventCode.BTN_TOUCH)], 3: [0x35, 0x36]],
            absinfo: [0x35: AbsInfo(minimum: 0, maximum: 999), 0x36: AbsInfo(minimum: 0, maximum: 999)])
        var events: [KernelEvent] = []
        for (step, odd) in [(UInt16(3), UInt16(0x6300)), (3, 0x40), (1, 0xffff), (0x1f, 7), (0xffff, 0)].enumerated() {
            let time = Timestamp(microseconds: Int64(step) * 10_000)
            events.append(KernelEvent(time: time, type: odd.0, code: odd.1, value: 12345))
            events.append(KernelEvent(time: time, type: 3, code: 0x35, value: Int32(100 + step * 10)))
            events.append(KernelEvent(time: time, type: 3, code: 0x36, value: 500))
            events.append(KernelEvent(time: time, type: 0, code: EventCode.SYN_MT_REPORT, value: 0))
            if step == 0 { events.append(KernelEvent(time: time, type: 1, code: EventCode.BTN_TOUCH, value: 1)) }
            events.append(KernelEvent(time: time, type: 0, code: EventCode.SYN_REPORT, value: 0))
        }
        let (contacts, _) = decode(events, device: device)
        #expect(contacts.map(\.phase) == [.down, .move, .move, .move, .move])
        #expect(abs((contacts.last?.positionInPixels.x ?? 0) - 140) < 0.001)
    }

    // MARK: Devices that cannot place a touch

    @Test func withoutAPairOfPositionAxesADeviceIsNoTouchscreen() {
        let buttons = DeviceDescription(name: "buttons", properties: [EventCode.INPUT_PROP_DIRECT], codes: [1: [Int(EventCode.BTN_TOUCH)]])
        #expect(buttons.kind == .other)
        #expect(buttons.positionProblem?.contains("neither ABS_X and ABS_Y nor ABS_MT_POSITION_X and ABS_MT_POSITION_Y") == true)
        let half = DeviceDescription(name: "half", properties: [EventCode.INPUT_PROP_DIRECT], codes: [1: [Int(EventCode.BTN_TOUCH)], 3: [0]],
                                     absinfo: [0: AbsInfo(minimum: 0, maximum: 100)], udevKind: .touchscreen)
        #expect(half.kind == .other, "udev's word does not make up for a missing axis")
        #expect(half.positionProblem?.hasSuffix("(only ABS_X)") == true)
        let flat = DeviceDescription(name: "flat", properties: [EventCode.INPUT_PROP_DIRECT], codes: [1: [Int(EventCode.BTN_TOUCH)], 3: [0, 1]],
                                     absinfo: [0: AbsInfo(minimum: 0, maximum: 100), 1: AbsInfo(minimum: 50, maximum: 50)])
        #expect(flat.kind == .other)
        #expect(flat.positionProblem == "ABS_Y's range 50…50 has no width")
    }

    @Test func aRecordingOfSuchADeviceIsRefusedWithWhatItLacks() throws {
        let path = try temporaryFile("zero.evemu", """
            N: Zero
            I: 0003 0001 0001 0001
            P: 02 00 00 00 00 00 00 00
            B: 03 03 00 00 00 00 00 00 00
            A: 00 100 100 0 0
            A: 01 0 500 0 0
            E: 0.000 0003 0000 100
            E: 0.000 0000 0000 0

            """)
        let source = try Recording.open(path)
        #expect(throws: RecordingError(file: path, line: nil, reason: "\"Zero\" is not a touchscreen or touchpad: ABS_X's range 100…100 has no width")) {
            try Recording.requireTouch(source)
        }
    }

    // MARK: Devices that send other than they declare

    /// The eGalax controller of the fixtures declares ABS_X and ABS_Y (42…1981) and sends its
    /// positions on ABS_Z and ABS_RX: every touch has the position axes' start value, 0, which
    /// lies before their range. Said once; the touches are clamped to the screen's corner, not
    /// placed at negative coordinates.
    @Test func theEGalaxThatSendsOnOtherAxesIsNamedAndClamped() throws {
        let (events, source) = try readAll(trace("ts-egalax-usb.events"))
        let (contacts, decoder) = decode(events, device: source.device)
        #expect(contacts.filter { $0.phase == .down }.count == 2)
        #expect(contacts.allSatisfy { $0.positionInPixels == Point(x: 0, y: 0) })
        #expect(decoder.axisWarnings == [AxisWarning(device: "eGalax Inc. USB TouchController", axes: [EventCode.ABS_X, EventCode.ABS_Y],
                                                     problem: .neverMoved(movedInstead: [2, 3]))])
        #expect(decoder.axisWarnings[0].description.contains("ABS_X and ABS_Y have never moved, while ABS_Z and ABS_RX did"))
    }

    @Test func aPositionOutsideItsRangeIsSaidOnceAndHeldToTheScreen() {
        let device = DeviceDescription(
            name: "overshoot", properties: [EventCode.INPUT_PROP_DIRECT], codes: [1: [Int(EventCode.BTN_TOUCH)], 3: [0, 1]],
            absinfo: [0: AbsInfo(minimum: 0, maximum: 999), 1: AbsInfo(minimum: 0, maximum: 999)])
        var events: [KernelEvent] = []
        var time: Int64 = 0
        func frame(_ x: Int32, _ y: Int32, touch: Int32? = nil) {
            time += 10_000
            events.append(KernelEvent(time: Timestamp(microseconds: time), type: 3, code: 0, value: x))
            events.append(KernelEvent(time: Timestamp(microseconds: time), type: 3, code: 1, value: y))
            if let touch { events.append(KernelEvent(time: Timestamp(microseconds: time), type: 1, code: EventCode.BTN_TOUCH, value: touch)) }
            events.append(KernelEvent(time: Timestamp(microseconds: time), type: 0, code: 0, value: 0))
        }
        frame(500, 500, touch: 1)
        frame(1200, 500)
        frame(1300, -40)
        frame(-7, 2000, touch: 0)
        let (contacts, decoder) = decode(events, device: device)
        #expect(contacts.map(\.positionInPixels) == [Point(x: 500, y: 500), Point(x: 999, y: 500), Point(x: 999, y: 0), Point(x: 0, y: 999)])
        #expect(decoder.axisWarnings.map(\.problem) == [.outsideRange(value: 1200, minimum: 0, maximum: 999),
                                                        .outsideRange(value: -40, minimum: 0, maximum: 999)])
        #expect(decoder.axisWarnings.map(\.axes) == [[0], [1]])
        #expect(decoder.axisWarnings[0].description == "\"overshoot\": ABS_X sent 1200, outside the range 0…999 it declares; its touches are clamped to the screen")
    }
}
