import Logging
import SheetCore
import SheetProtocol
import SheetTestSupport
@testable import SheetInput
import Testing

/// libinput's events as a test writes them: devices with the capabilities libinput would say,
/// and a queue of events. What `LibinputInput` makes of them — touch frames from the seat's
/// slots, devices judged, a device unplugged mid-touch, touchpads, keys — on a machine with no
/// input devices (the e2e VM feeds the same code through uinput and libinput).
final class ScriptedLibinput: LibinputSource {
    final class Device {
        var facts: LibinputDeviceFacts
        var index: Int?
        var configured = false
        var released = false

        init(_ facts: LibinputDeviceFacts) { self.facts = facts }

        var pointer: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }
    }

    private(set) var devices: [Device] = []
    var queue: [LibinputEvent] = []
    private(set) var reopened = 0
    let fileDescriptor: Int32 = -1

    func dispatch() {}

    func next(screen: ScreenSize) -> LibinputEvent? { queue.isEmpty ? nil : queue.removeFirst() }

    private func device(_ pointer: OpaquePointer) -> Device {
        Unmanaged<Device>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    func facts(of device: OpaquePointer) -> LibinputDeviceFacts { self.device(device).facts }
    func index(of device: OpaquePointer) -> Int? { self.device(device).index }
    func setIndex(_ index: Int?, of device: OpaquePointer) { self.device(device).index = index }
    func configureTouchpad(_ device: OpaquePointer) { self.device(device).configured = true }
    func release(_ device: OpaquePointer) { self.device(device).released = true }

    func reopen(between: () -> Void) -> Bool {
        reopened += 1
        between()
        return true
    }

    /// A device plugged in: queued as libinput's DEVICE_ADDED.
    @discardableResult
    func plug(_ sysname: String, _ name: String, touch: Bool = false, keyboard: Bool = false, pointer: Bool = false,
              gesture: Bool = false, twoFingerScroll: Bool = false) -> Device {
        let device = Device(LibinputDeviceFacts(name: name, sysname: sysname, touch: touch, keyboard: keyboard, pointer: pointer,
                                                gesture: gesture, twoFingerScroll: twoFingerScroll))
        devices.append(device)
        queue.append(.deviceAdded(device.pointer))
        return device
    }

    func unplug(_ device: Device) { queue.append(.deviceRemoved(device.pointer)) }

    func touch(_ kind: LibinputEvent.Touch, _ device: Device, slot: Int32, x: Double = 0, y: Double = 0) {
        queue.append(.touch(kind, device: device.pointer, seatSlot: slot, position: Point(x: x, y: y)))
    }

    func frame(_ device: Device, milliseconds: Int64) {
        queue.append(.touchFrame(device.pointer, time: Timestamp(microseconds: milliseconds * 1000)))
    }

    func scroll(_ device: Device, milliseconds: Int64, dx: Double? = nil, dy: Double?) {
        queue.append(.scroll(device.pointer, time: Timestamp(microseconds: milliseconds * 1000), horizontal: dx, vertical: dy))
    }

    func key(_ device: Device, _ code: UInt32, pressed: Bool, milliseconds: Int64) {
        queue.append(.key(device.pointer, time: Timestamp(microseconds: milliseconds * 1000), code: code, pressed: pressed))
    }
}

@Suite struct LibinputEventTests {
    let screen = ScreenSize(widthInPixels: 1080, heightInPixels: 1920)

    /// Each libinput frame (TOUCH_FRAME) makes one touch frame, with the contacts of its
    /// events, at the frame's time; up and cancel keep the slot's last position.
    @Test func eachLibinputFrameIsOneTouchFrame() throws {
        let source = ScriptedLibinput()
        let input = LibinputInput(source: source, logger: Logger(label: "test"))
        let panel = source.plug("event3", "ILITEK Multi-Touch", touch: true)
        source.touch(.down, panel, slot: 0, x: 500, y: 1800)
        source.touch(.down, panel, slot: 1, x: 600, y: 1700)
        source.frame(panel, milliseconds: 1000)
        source.touch(.motion, panel, slot: 0, x: 500, y: 1500)
        source.frame(panel, milliseconds: 1016)
        source.touch(.up, panel, slot: 0)
        source.touch(.cancel, panel, slot: 1)
        source.frame(panel, milliseconds: 1033)
        source.frame(panel, milliseconds: 1050)
        var frames = TouchFrameBatch()
        #expect(input.dispatch(screen: screen, into: &frames), "a device was added")
        #expect(input.devices == [InputDevice(node: "/dev/input/event3", name: "ILITEK Multi-Touch", kind: .touchscreen, used: true,
                                              reason: "has libinput's touch capability")])
        try #require(frames.count == 3, "an empty TOUCH_FRAME makes no frame")
        #expect(frames[0].time == Timestamp(microseconds: 1_000_000) && frames[0].source == .touchscreen)
        #expect(frames[0].contacts == [Contact(slot: 0, phase: .down, positionInPixels: Point(x: 500, y: 1800)),
                                       Contact(slot: 1, phase: .down, positionInPixels: Point(x: 600, y: 1700))])
        #expect(frames[1].contacts == [Contact(slot: 0, phase: .move, positionInPixels: Point(x: 500, y: 1500))])
        #expect(frames[2].contacts == [Contact(slot: 0, phase: .up, positionInPixels: Point(x: 500, y: 1500)),
                                       Contact(slot: 1, phase: .cancel, positionInPixels: Point(x: 600, y: 1700))])
        #expect(input.framesRead == [DeviceFrames(node: "/dev/input/event3", name: "ILITEK Multi-Touch", frames: 3)])
        var more = TouchFrameBatch()
        #expect(!input.dispatch(screen: screen, into: &more) && more.isEmpty)
    }

    /// A daemon that lives on one output (`output:`) leaves a touchscreen on another to its
    /// panel: one without WL_OUTPUT is on the first connected display.
    @Test func aTouchscreenOnAnotherOutputIsLeftToItsPanel() throws {
        let sysfs = try sysfsWithConnectors([("card0-HDMI-A-1", "connected"), ("card0-HDMI-A-2", "connected")])
        for (output, used) in [("HDMI-A-2", false), ("HDMI-A-1", true)] {
            let source = ScriptedLibinput()
            let input = LibinputInput(source: source, classifier: DeviceClassifier(sysfsRoot: sysfs.path), output: output,
                                      logger: Logger(label: "test"))
            let panel = source.plug("event3", "front panel", touch: true)
            source.touch(.down, panel, slot: 0, x: 500, y: 1800)
            source.frame(panel, milliseconds: 1000)
            var frames = TouchFrameBatch()
            input.dispatch(screen: screen, into: &frames)
            #expect(input.devices.map { $0.used } == [used] && frames.count == (used ? 1 : 0), "\(output): \(input.devices)")
            if !used { #expect(input.devices.first?.reason == "on output HDMI-A-1, not HDMI-A-2 where this sheet lives") }
        }
    }

    /// A device that puts touches off the screen has them held to its edge, said once; a seat
    /// slot beyond libinput's 32 is passed over.
    @Test func touchesOffTheScreenAreClampedAndSaidOnce() throws {
        let source = ScriptedLibinput()
        let log = LogCapture()
        let input = LibinputInput(source: source, logger: log.logger)
        let panel = source.plug("event4", "eGalax", touch: true)
        source.touch(.down, panel, slot: 0, x: -12, y: 2000)
        source.touch(.down, panel, slot: 32, x: 10, y: 10)
        source.frame(panel, milliseconds: 10)
        source.touch(.motion, panel, slot: 0, x: 1100, y: 900)
        source.frame(panel, milliseconds: 20)
        var frames = TouchFrameBatch()
        input.dispatch(screen: screen, into: &frames)
        try #require(frames.count == 2)
        #expect(frames[0].contacts == [Contact(slot: 0, phase: .down, positionInPixels: Point(x: 0, y: 1920))])
        #expect(frames[1].contacts == [Contact(slot: 0, phase: .move, positionInPixels: Point(x: 1080, y: 900))])
        let warnings = log.lines.filter { $0.level == .warning }
        #expect(warnings.count == 1 && warnings[0].message.hasPrefix("/dev/input/event4 \"eGalax\": a touch at (-12.0, 2000.0) lies outside the 1080x1920 screen"),
                "\(warnings)")
    }

    /// A device unplugged with fingers down: its touches are cancelled at once, a frame of its
    /// that will never end is dropped, and another device's touch goes on.
    @Test func aDeviceUnpluggedMidTouchCancelsOnlyItsTouches() throws {
        let source = ScriptedLibinput()
        let input = LibinputInput(source: source, logger: Logger(label: "test"))
        let first = source.plug("event3", "first", touch: true)
        let second = source.plug("event5", "second", touch: true)
        source.touch(.down, first, slot: 0, x: 100, y: 100)
        source.frame(first, milliseconds: 10)
        source.touch(.down, second, slot: 1, x: 900, y: 900)
        source.frame(second, milliseconds: 12)
        source.touch(.motion, first, slot: 0, x: 100, y: 120)
        source.unplug(first)
        source.touch(.motion, second, slot: 1, x: 900, y: 880)
        source.frame(second, milliseconds: 20)
        var frames = TouchFrameBatch()
        input.dispatch(screen: screen, into: &frames)
        try #require(frames.count == 4, "\(Array(frames).map(\.contacts))")
        #expect(frames[2].contacts == [Contact(slot: 0, phase: .cancel, positionInPixels: Point(x: 100, y: 120))])
        #expect(frames[3].contacts == [Contact(slot: 1, phase: .move, positionInPixels: Point(x: 900, y: 880))],
                "the first device's unfinished motion is dropped")
        #expect(input.devices[0].used == false && input.devices[0].reason == "removed")
        #expect(input.devices[1].used)
        #expect(source.devices[0].index == nil, "the removed device's index is taken back")
    }

    /// A device gone for good leaves the others where they are. The list once closed up over a
    /// forgotten mouse, and the touchscreen after it kept a place past the list's end: the
    /// daemon stopped when it was unplugged (seen in the e2e VM, a keyboard unplugged after a
    /// knob). Its touch is cancelled now, and a new device takes the empty place.
    @Test func aDeviceForgottenLeavesTheOthersWhereTheyAre() throws {
        let source = ScriptedLibinput()
        let input = LibinputInput(source: source, logger: Logger(label: "test"))
        source.plug("event3", "first", touch: true)
        source.plug("event-gone", "USB Mouse", pointer: true)
        let second = source.plug("event5", "second", touch: true)
        var frames = TouchFrameBatch()
        input.dispatch(screen: screen, into: &frames)
        // Nothing to read: the mouse, not used and its node not there (no machine has it), is
        // forgotten.
        input.dispatch(screen: screen, into: &frames)
        #expect(input.devices.map(\.name) == ["first", "second"])
        source.touch(.down, second, slot: 1, x: 900, y: 900)
        source.frame(second, milliseconds: 12)
        source.unplug(second)
        frames = TouchFrameBatch()
        input.dispatch(screen: screen, into: &frames)
        #expect(Array(frames).map(\.contacts) == [[Contact(slot: 1, phase: .down, positionInPixels: Point(x: 900, y: 900))],
                                                   [Contact(slot: 1, phase: .cancel, positionInPixels: Point(x: 900, y: 900))]])
        #expect(input.devices.map(\.used) == [true, false])
        #expect(input.framesRead.map(\.frames) == [0, 1])
        let third = source.plug("event7", "third", touch: true)
        input.dispatch(screen: screen, into: &frames)
        #expect(third.index == 1, "the mouse's place")
        #expect(input.devices.map(\.name) == ["first", "second", "third"])
    }

    /// Touchscreens by libinput's touch capability, touchpads by two-finger scrolling (with
    /// natural scrolling turned off), anything else listed as not used and given back.
    @Test func devicesAreJudgedByWhatLibinputSays() {
        let source = ScriptedLibinput()
        let input = LibinputInput(source: source, logger: Logger(label: "test"))
        source.plug("event1", "Synaptics TM3276", pointer: true, gesture: true, twoFingerScroll: true)
        source.plug("event2", "Elan semi-mt", pointer: true, twoFingerScroll: true)
        source.plug("event6", "USB Mouse", pointer: true)
        source.plug("event7", "AT keyboard", keyboard: true)
        var frames = TouchFrameBatch()
        input.dispatch(screen: screen, into: &frames)
        #expect(input.devices.map(\.kind) == [.touchpad, .touchpad, .other, .other])
        #expect(input.devices.map(\.used) == [true, true, false, false])
        #expect(input.devices[0].reason == "a touchpad: two-finger scroll and three-finger swipe pan the sheet")
        #expect(input.devices[1].reason == "a touchpad without gestures (semi-multitouch): two-finger scroll pans the sheet")
        #expect(input.devices[2].reason == "neither touch capability nor two-finger scrolling")
        #expect(source.devices.map(\.configured) == [true, true, false, false])
        #expect(source.devices.map(\.released) == [false, false, true, true])
        #expect(source.devices.map(\.index) == [0, 1, nil, nil])
    }

    /// Two-finger scrolling drives one contact from the screen's centre until libinput's scroll
    /// stop (zero on the axes it has); a second touchpad is ignored while the first drives it.
    @Test func aTouchpadsScrollDrivesOneContactUntilItStops() throws {
        let source = ScriptedLibinput()
        let input = LibinputInput(source: source, logger: Logger(label: "test"))
        let pad = source.plug("event1", "pad", pointer: true, twoFingerScroll: true)
        let other = source.plug("event2", "other pad", pointer: true, twoFingerScroll: true)
        source.scroll(pad, milliseconds: 10, dy: 6)
        source.scroll(other, milliseconds: 12, dy: 50)
        source.scroll(pad, milliseconds: 20, dy: 6)
        source.scroll(pad, milliseconds: 30, dx: 0, dy: 0)
        source.scroll(other, milliseconds: 40, dy: 5)
        var frames = TouchFrameBatch()
        input.dispatch(screen: screen, into: &frames)
        let phases = frames.map { $0.contacts.map(\.phase) }
        #expect(frames.allSatisfy { $0.source == .touchpad })
        #expect(phases == [[.down, .move], [.move], [.up], [.down, .move]], "down at the centre, then moved by the delta")
        let upAt = try #require(phases.firstIndex(of: [.up]))
        #expect(frames[upAt].time == Timestamp(microseconds: 30_000), "the stop lifts the contact")
        #expect(frames[0].time == Timestamp(microseconds: 10_000))
        #expect(!frames.contains { $0.time == Timestamp(microseconds: 12_000) }, "the other pad waits while the first is down")
        #expect(frames.last?.time == Timestamp(microseconds: 40_000) && frames.last?.contacts.first?.phase == .down,
                "then it may drive the contact")
        #expect(input.framesRead.map(\.frames).reduce(0, +) == frames.count)
    }

    /// Keys of a device in use are kept in order, never more than a dispatch's limit; a key of
    /// a device not in use is dropped.
    @Test func keysAreKeptInOrderWithinTheLimit() {
        let source = ScriptedLibinput()
        let input = LibinputInput(source: source, logger: Logger(label: "test"))
        let panel = source.plug("event3", "panel with buttons", touch: true, keyboard: true)
        let keyboard = source.plug("event7", "AT keyboard", keyboard: true)
        source.key(keyboard, 15, pressed: true, milliseconds: 1)
        source.key(panel, 28, pressed: true, milliseconds: 2)
        source.key(panel, 28, pressed: false, milliseconds: 3)
        source.key(panel, 70_000, pressed: true, milliseconds: 4)
        for index in 0..<300 { source.key(panel, 103, pressed: index % 2 == 0, milliseconds: 5 + Int64(index)) }
        var frames = TouchFrameBatch()
        input.dispatch(screen: screen, into: &frames)
        var keys: [KeyEvent] = []
        #expect(input.takeKeys(into: &keys) == false, "no key device went away")
        #expect(keys.count == LibinputInput.maximumKeysPerDispatch)
        #expect(keys.prefix(2) == [KeyEvent(time: Timestamp(microseconds: 2000), input: .key(28), action: .press),
                                   KeyEvent(time: Timestamp(microseconds: 3000), input: .key(28), action: .release)])
        #expect(keys[2] == KeyEvent(time: Timestamp(microseconds: 5000), input: .key(103), action: .press))
        #expect(input.takeKeys(into: &keys) == false && keys.isEmpty)
    }

    /// A changed key map has every device closed and opened again; the same one does nothing.
    @Test func aChangedKeyReadingReopensTheDevices() {
        let source = ScriptedLibinput()
        let input = LibinputInput(source: source, logger: Logger(label: "test"))
        var frames = TouchFrameBatch()
        #expect(!input.judgeKeysAgain(by: KeyReading(), screen: screen, into: &frames))
        #expect(source.reopened == 0)
        #expect(input.judgeKeysAgain(by: KeyReading(optedIn: ["/dev/input/event7"]), screen: screen, into: &frames))
        #expect(source.reopened == 1 && input.keyReading.optedIn == ["/dev/input/event7"])
    }
}
