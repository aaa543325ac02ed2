#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import SheetCore
@testable import SheetInput
import SheetProtocol
import Testing

/// libudev enumerates the seat's devices from /sys/class/input; it needs no running udevd, and
/// on a machine (or container) with no input devices the seat is simply empty.
let sysfsHasInputClass = access("/sys/class/input", F_OK) == 0

/// This machine has /sys/class/input but no input devices in it (a container, a CI runner).
let sysfsHasNoInputDevices = sysfsHasInputClass && DeviceClassifier().eventNodes().isEmpty

/// A seat no device is assigned to (udev gives every device `seat0` unless told otherwise):
/// empty on any machine.
let unusedSeat = "sheetd-tests-unused-seat"

/// libinput's udev backend on seat0 of a machine without input devices: it starts, has a
/// descriptor to poll and nothing to read.
@Suite(.enabled(if: sysfsHasNoInputDevices, "libinput's udev backend enumerates /sys/class/input, here empty"))
struct LibinputUdevSeat0Tests {
    let screen = ScreenSize(widthInPixels: 1080, heightInPixels: 1920)

    @Test func aSeatWithoutDevicesStartsWithNone() throws {
        let input = try LibinputInput(mode: .udev(seat: "seat0"), logger: Logger(label: "test"))
        #expect(input.mode == .udev(seat: "seat0"))
        #expect(input.devices == [])
        #expect(input.devicesRevision == 0)
    }

    @Test func itHasADescriptorToPoll() throws {
        let input = try LibinputInput(mode: .udev(seat: "seat0"), logger: Logger(label: "test"))
        let descriptor = input.fileDescriptor
        #expect(descriptor >= 0)
        #expect(fcntl(descriptor, F_GETFD) != -1, "an open descriptor")
        #expect(input.fileDescriptor == descriptor, "the same one every time")
    }

    @Test func dispatchWithNothingPendingMakesNoFrames() throws {
        let input = try LibinputInput(mode: .udev(seat: "seat0"), logger: Logger(label: "test"))
        var frames = TouchFrameBatch()
        input.dispatch(screen: screen, into: &frames)
        input.dispatch(screen: screen, into: &frames)
        #expect(frames.isEmpty)
        #expect(input.devices == [])
        #expect(input.devicesRevision == 0)
    }
}

/// libinput's udev backend on a seat without devices, and its open callback (which libinput
/// calls for each device of the seat) called directly, with sysfs faked.
@Suite(.enabled(if: sysfsHasInputClass, "libinput's udev backend enumerates /sys/class/input"))
struct LibinputOpenCallbackTests {
    @Test func anUnusedSeatStartsEmptyOnAnyMachine() throws {
        let input = try LibinputInput(mode: .udev(seat: unusedSeat), logger: Logger(label: "test"))
        var frames = TouchFrameBatch()
        input.dispatch(screen: ScreenSize(widthInPixels: 1080, heightInPixels: 1920), into: &frames)
        #expect(input.devices == [])
        #expect(frames.isEmpty)
        #expect(input.fileDescriptor >= 0)
    }

    /// A udev context whose open callback classifies from `system`'s sysfs.
    private func udevInput(_ system: FakeSystem, keys: KeyReading = KeyReading(), logger: Logger) throws -> LibinputInput {
        try LibinputInput(mode: .udev(seat: unusedSeat), classifier: DeviceClassifier(sysfsRoot: system.sysfsRoot),
                          keyReading: keys, logger: logger)
    }

    @Test func aKeyboardsNodeIsRefusedWithoutBeingOpened() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event7", name: "AT Translated Set 2 keyboard", RealDevice.keyboard)
        // The node exists and could be opened: ENODEV says the callback did not try.
        let node = try system.addNode("event7", mode: 0o666)
        let log = LogCapture()
        let input = try udevInput(system, logger: log.logger)
        #expect(input.openRestricted(node, flags: O_RDWR | O_NONBLOCK | O_CLOEXEC) == -ENODEV)
        let reason = "a keyboard that can type: not read (an administrator lets sheetd read it with the udev property SHEETD_KEYS=1 or keys: in sheetd.yaml)"
        #expect(input.devices == [InputDevice(node: node, name: "AT Translated Set 2 keyboard", kind: .keyboard,
                                              used: false, reason: reason)])
        #expect(input.devicesRevision == 1)
        #expect(log.lines.contains(LogCapture.Line(level: .info, message: "skipped \(node) \"AT Translated Set 2 keyboard\": \(reason)")))
    }

    /// The privacy line: a keyboard that can type is opened only when an administrator named
    /// it; keys that cannot type are opened when the key map binds one of them.
    @Test func aKeyboardNamedInKeysAndARemotesKeysAreOpened() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event7", name: "AT Translated Set 2 keyboard", RealDevice.keyboard)
        try system.addDevice("event8", name: "Remote", RealDevice.remote)
        try system.addDevice("event9", name: "Power Button", ["capabilities/key": "10000000000000 0\n"])
        let keyboard = try system.addNode("event7", mode: 0o666), remote = try system.addNode("event8", mode: 0o666)
        let power = try system.addNode("event9", mode: 0o666)
        let input = try udevInput(system, keys: KeyReading(optedIn: ["AT Translated Set 2 keyboard"]), logger: LogCapture().logger)
        for node in [keyboard, remote] {
            let descriptor = input.openRestricted(node, flags: O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            #expect(descriptor >= 0, "\(node)")
            if descriptor >= 0 { close(descriptor) }
        }
        #expect(input.openRestricted(power, flags: O_RDONLY | O_NONBLOCK | O_CLOEXEC) == -ENODEV, "KEY_POWER is bound to nothing")
        #expect(input.devices.map(\.reason) == ["neither a touch device nor keys the key map binds: never opened"])
        var keys: [KeyEvent] = []
        #expect(!input.takeKeys(into: &keys) && keys.isEmpty)
    }

    @Test func aTouchscreensNodeIsOpenedWithTheFlagsAskedFor() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event3", name: "Panel", RealDevice.touchscreen)
        let node = try system.addNode("event3", mode: 0o666)
        let input = try udevInput(system, logger: Logger(label: "test"))
        let descriptor = input.openRestricted(node, flags: O_RDWR | O_NONBLOCK | O_CLOEXEC)
        #expect(descriptor >= 0)
        if descriptor >= 0 {
            #expect(fcntl(descriptor, F_GETFL) & O_ACCMODE == O_RDWR)
            #expect(fcntl(descriptor, F_GETFL) & O_NONBLOCK != 0)
            close(descriptor)
        }
        // Opening is not news: the device is listed when libinput adds it.
        #expect(input.devices == [])
        #expect(input.devicesRevision == 0)
    }

    @Test func aNodeSysfsDoesNotKnowIsOpenedToo() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        let node = try system.addNode("event8", mode: 0o666)
        let input = try udevInput(system, logger: Logger(label: "test"))
        let descriptor = input.openRestricted(node, flags: O_RDONLY | O_CLOEXEC)
        #expect(descriptor >= 0)
        if descriptor >= 0 { close(descriptor) }
        #expect(input.devices == [])
    }

    @Test func aNodeThatCannotBeOpenedIsListedWithTheReason() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event4", name: "Panel", RealDevice.touchscreen)
        let node = "\(system.deviceRoot)/input/event4"  // no such file
        let log = LogCapture()
        let input = try udevInput(system, logger: log.logger)
        #expect(input.openRestricted(node, flags: O_RDWR | O_CLOEXEC) == -ENOENT)
        let reason = String(cString: strerror(ENOENT))
        #expect(input.devices == [InputDevice(node: node, name: "Panel", kind: .other, used: false,
                                              reason: "cannot open: \(reason)")])
        #expect(log.lines.contains(LogCapture.Line(level: .warning, message: "cannot open \(node): \(reason)")))
    }

    @Test func aNodeThatCannotBeOpenedAndIsUnknownHasNoName() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        let node = "\(system.deviceRoot)/input/event9"
        let input = try udevInput(system, logger: Logger(label: "test"))
        #expect(input.openRestricted(node, flags: O_RDWR | O_CLOEXEC) == -ENOENT)
        #expect(input.devices.map(\.name) == ["?"])
    }

    @Test func aNodeSeenAgainReplacesItsEntry() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event4", name: "Panel", RealDevice.touchscreen)
        let node = "\(system.deviceRoot)/input/event4"
        let input = try udevInput(system, logger: Logger(label: "test"))
        _ = input.openRestricted(node, flags: O_RDWR | O_CLOEXEC)
        #expect(input.devices.map(\.reason) == ["cannot open: \(String(cString: strerror(ENOENT)))"])
        // sysfs now calls the node a keyboard (another device took the number).
        try system.addDevice("event4", name: "Keys", RealDevice.keyboard)
        #expect(input.openRestricted(node, flags: O_RDWR | O_CLOEXEC) == -ENODEV)
        #expect(input.devices == [InputDevice(node: node, name: "Keys", kind: .keyboard, used: false,
                                              reason: "a keyboard that can type: not read (an administrator lets sheetd read it with the udev property SHEETD_KEYS=1 or keys: in sheetd.yaml)")])
        #expect(input.devicesRevision == 2)
    }

    /// Root opens any file read-write, so only another user meets a read-only node.
    @Test(.enabled(if: geteuid() != 0, "root opens a read-only file read-write"))
    func aNodeWithoutWritePermissionIsOpenedReadOnly() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event3", name: "Panel", RealDevice.touchscreen)
        let node = try system.addNode("event3", mode: 0o444)
        let log = LogCapture()
        let input = try udevInput(system, logger: log.logger)
        let descriptor = input.openRestricted(node, flags: O_RDWR | O_NONBLOCK | O_CLOEXEC)
        #expect(descriptor >= 0)
        if descriptor >= 0 {
            #expect(fcntl(descriptor, F_GETFL) & O_ACCMODE == O_RDONLY)
            #expect(fcntl(descriptor, F_GETFL) & O_NONBLOCK != 0, "the other flags are kept")
            close(descriptor)
        }
        #expect(log.lines.contains(LogCapture.Line(level: .info, message: "\(node): opened read-only (no write permission)")))
        #expect(input.devices == [])
    }
}

/// libinput's path backend refuses what is not an evdev node, and the error names the paths.
struct LibinputPathTests {
    private static func refusal(_ paths: [String]) -> InputError {
        .noDevices("none of \(paths.joined(separator: ", ")) is a touchscreen or touchpad libinput can open")
    }

    @Test func aMissingNodeIsRefusedByName() throws {
        let path = "/nonexistent-sheetd-test/input/event99"
        let error = try #require(throws: InputError.self) {
            try LibinputInput(mode: .paths([path]), logger: Logger(label: "test"))
        }
        #expect(error == Self.refusal([path]))
        #expect(error.description.contains(path))
    }

    @Test func libinputsOwnComplaintReachesTheLogAsAnError() throws {
        let path = "/nonexistent-sheetd-test/input/event98"
        let log = LogCapture()
        #expect(throws: Self.refusal([path])) {
            try LibinputInput(mode: .paths([path]), logger: log.logger)
        }
        let complaints = log.lines.filter { $0.level == .error && $0.message.contains(path) }
        #expect(!complaints.isEmpty, "\(log.lines)")
        #expect(complaints.allSatisfy { $0.message.hasPrefix("libinput: ") && !$0.message.hasSuffix("\n") })
    }

    @Test func aRegularFileIsRefusedByName() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        let path = try system.addNode("event0", mode: 0o666)
        #expect(throws: Self.refusal([path])) {
            try LibinputInput(mode: .paths([path]), logger: Logger(label: "test"))
        }
    }

    /// A character device, but not an input one. (Where udev does not run, libinput waits up to
    /// 2 s for udev to initialise the device before it gives up.)
    @Test func devNullIsRefusedByName() throws {
        #expect(throws: Self.refusal(["/dev/null"])) {
            try LibinputInput(mode: .paths(["/dev/null"]), logger: Logger(label: "test"))
        }
    }

    @Test func everyRefusedPathIsNamed() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        let file = try system.addNode("event0", mode: 0o666)
        let missing = "\(system.deviceRoot)/input/event1"
        let error = try #require(throws: InputError.self) {
            try LibinputInput(mode: .paths([missing, file]), logger: Logger(label: "test"))
        }
        #expect(error == Self.refusal([missing, file]))
        #expect(error.description == "none of \(missing), \(file) is a touchscreen or touchpad libinput can open")
    }

    @Test func noPathsAtAllIsRefused() {
        #expect(throws: Self.refusal([])) {
            try LibinputInput(mode: .paths([]), logger: Logger(label: "test"))
        }
    }
}

/// What an input backend's errors say.
struct InputErrorTests {
    @Test func aUdevFailureNamesTheCallAndSuspectsSysfs() {
        #expect(InputError.udev(call: "udev_new").description == "udev_new failed (is /sys mounted?)")
    }

    @Test func aLibinputFailureNamesTheCallAndItsArgument() {
        #expect(InputError.libinput(call: "libinput_udev_assign_seat", argument: "seat1").description
                == "libinput_udev_assign_seat(seat1) failed")
        #expect(InputError.libinput(call: "libinput_path_create_context", argument: "").description
                == "libinput_path_create_context() failed")
    }

    @Test func noDevicesIsItsDetail() {
        #expect(InputError.noDevices("nothing here").description == "nothing here")
    }
}

/// `monotonicNow` is CLOCK_MONOTONIC, libinput's event clock, in microseconds.
struct MonotonicNowTests {
    private func microseconds(_ time: timespec) -> Int64 {
        Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1000
    }

    @Test func itReadsClockMonotonic() {
        var before = timespec()
        clock_gettime(CLOCK_MONOTONIC, &before)
        let now = LibinputInput.monotonicNow()
        var after = timespec()
        clock_gettime(CLOCK_MONOTONIC, &after)
        #expect(microseconds(before) <= now.microseconds && now.microseconds <= microseconds(after))
    }

    @Test func itNeverGoesBackAndAdvancesWithTime() {
        var last = LibinputInput.monotonicNow()
        for _ in 0..<1000 {
            let next = LibinputInput.monotonicNow()
            #expect(next >= last)
            last = next
        }
        usleep(2_000)
        #expect(LibinputInput.monotonicNow().microseconds - last.microseconds >= 2_000)
    }
}
