#if canImport(Glibc)
import Glibc
#endif
import SheetInput
import SheetProtocol
import Testing

/// `sheetctl doctor` on a fake system: sysfs says what a device is, the node's group and mode
/// say whether the service can read it, udev's record whether libinput will take it.
struct DoctorSurveyTests {
    /// A doctor that looks at `system` instead of the machine.
    private func doctor(_ system: FakeSystem, inputGroup: String = "input") -> Doctor {
        var doctor = Doctor()
        doctor.classifier = DeviceClassifier(sysfsRoot: system.sysfsRoot)
        doctor.deviceRoot = system.deviceRoot
        doctor.udevDataRoot = system.udevDataRoot
        doctor.inputGroup = inputGroup
        return doctor
    }

    private static let touchscreenRecord = "E:ID_INPUT=1\nE:ID_INPUT_TOUCHSCREEN=1\nG:sheetd\n"

    @Test func byDefaultItLooksAtTheMachine() {
        let doctor = Doctor()
        #expect(doctor.classifier.sysfsRoot == "/sys")
        #expect(doctor.deviceRoot == "/dev")
        #expect(doctor.udevDataRoot == "/run/udev/data")
        #expect(doctor.inputGroup == "input")
    }

    @Test func aMachineWithoutInputDevicesHasNoFindings() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        #expect(doctor(system).survey() == [])
    }

    @Test func theSurveyExaminesEveryEventNodeInNumberOrder() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event10", name: "Panel", RealDevice.touchscreen)
        try system.addDevice("event2", name: "Keys", RealDevice.keyboard)
        let findings = doctor(system).survey()
        #expect(findings.map(\.node) == ["/dev/input/event2", "/dev/input/event10"])
        #expect(findings.map(\.kind) == [.keyboard, .touchscreen])
        #expect(findings.map(\.name) == ["Keys", "Panel"])
    }

    @Test func aKeyboardIsNotedAndItsNodeNeverLookedAt() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event3", name: "AT Translated Set 2 keyboard", RealDevice.keyboard)
        // No node, no udev record: neither is a problem for a device sheetd never opens.
        let finding = doctor(system).examine(node: "/dev/input/event3")
        #expect(finding.name == "AT Translated Set 2 keyboard")
        #expect(finding.kind == .keyboard)
        #expect(finding.problems == [])
        #expect(finding.notes == ["a keyboard that can type: not read (an administrator lets sheetd read it with the udev property SHEETD_KEYS=1 or keys: in sheetd.yaml)"])
        #expect(!finding.usable && !finding.readsKeys)
    }

    @Test func aRemotesKeysAreReadAndAKeyboardNamedInKeysToo() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event3", name: "AT Translated Set 2 keyboard", RealDevice.keyboard)
        try system.addDevice("event4", name: "Remote", RealDevice.remote)
        var doctor = doctor(system)
        doctor.keyReading = KeyReading(optedIn: ["/dev/input/event3"])
        let keyboard = doctor.examine(node: "/dev/input/event3"), remote = doctor.examine(node: "/dev/input/event4")
        #expect(remote.kind == .keys && remote.readsKeys)
        #expect(remote.notes == ["keys that cannot type: read for the focus"])
        #expect(keyboard.readsKeys)
        #expect(keyboard.notes == ["a keyboard that can type: read for the focus, as keys: in the configuration says"])
    }

    @Test func aNodeSysfsDoesNotKnowIsAnUnnamedOther() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        let finding = doctor(system).examine(node: "/dev/input/event42")
        #expect(finding.node == "/dev/input/event42")
        #expect(finding.name == "?")
        #expect(finding.kind == .other)
        #expect(finding.problems == [])
        #expect(finding.notes.count == 1 && finding.notes[0].hasSuffix(": sheetd never opens it"))
    }

    @Test func aTouchscreenWithoutANodeCannotBeUsed() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event5", name: "Panel", RealDevice.touchscreen)
        let finding = doctor(system).examine(node: "/dev/input/event5")
        #expect(finding.kind == .touchscreen)
        #expect(finding.problems == ["no device node \(system.deviceRoot)/input/event5 (\(String(cString: strerror(ENOENT))))"])
        #expect(!finding.usable)
    }

    @Test func aTouchscreenTheInputGroupReadsWithUdevsPropertiesIsUsable() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event5", name: "Panel", RealDevice.touchscreen)
        let node = try system.addNode("event5", mode: 0o640)
        try system.addUdevRecord(Self.touchscreenRecord + "E:LIBINPUT_CALIBRATION_MATRIX=0 1 0 -1 0 1\n")
        let finding = doctor(system, inputGroup: groupName(ofFile: node)).examine(node: "/dev/input/event5")
        #expect(finding.problems == [])
        #expect(finding.notes == ["calibration LIBINPUT_CALIBRATION_MATRIX=0 1 0 -1 0 1"])
        #expect(finding.usable)
    }

    @Test func aNodeOfAnotherGroupIsAProblem() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event5", name: "Panel", RealDevice.touchscreen)
        let node = try system.addNode("event5", mode: 0o640)
        try system.addUdevRecord(Self.touchscreenRecord)
        let group = "sheetd-test-no-such-group"
        let finding = doctor(system, inputGroup: group).examine(node: "/dev/input/event5")
        #expect(finding.problems == ["\(node) is group \(groupName(ofFile: node)), mode 640: the service reads it as a member of `\(group)`, which needs group \(group) with read permission"])
        #expect(!finding.usable)
    }

    @Test func aNodeItsGroupCannotReadIsAProblem() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event5", name: "Pad", RealDevice.touchpad)
        let node = try system.addNode("event5", mode: 0o600)
        try system.addUdevRecord("E:ID_INPUT=1\nE:ID_INPUT_TOUCHPAD=1\n")
        let group = groupName(ofFile: node)
        let finding = doctor(system, inputGroup: group).examine(node: "/dev/input/event5")
        #expect(finding.problems == ["\(node) is group \(group), mode 600: the service reads it as a member of `\(group)`, which needs group \(group) with read permission"])
    }

    @Test func withoutAUdevRecordItAsksWhetherUdevRuns() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event5", name: "Pad", RealDevice.touchpad)
        let node = try system.addNode("event5", mode: 0o640)
        let finding = doctor(system, inputGroup: groupName(ofFile: node)).examine(node: "/dev/input/event5")
        #expect(finding.kind == .touchpad)
        #expect(finding.problems == ["udev has no record of it (\(system.udevDataRoot)/c0:0): is systemd-udevd running? libinput needs its ID_INPUT properties"])
        #expect(!finding.usable)
    }

    @Test func theUdevRecordIsReadIntoTheFinding() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event5", name: "Panel", RealDevice.touchscreen)
        let node = try system.addNode("event5", mode: 0o640)
        try system.addUdevRecord("E:ID_INPUT=1\nE:ID_INPUT_TOUCHPAD=1\n")
        let finding = doctor(system, inputGroup: groupName(ofFile: node)).examine(node: "/dev/input/event5")
        #expect(finding.problems == ["udev did not mark it ID_INPUT_TOUCHSCREEN=1 and ID_INPUT=1, so libinput will not treat it as a touchscreen"])
        #expect(finding.notes.contains { $0.hasPrefix("not tagged `sheetd`") })
    }

    /// Root reads every node, so only another user sees the note.
    @Test(.enabled(if: geteuid() != 0, "root can read a node whatever its mode"))
    func aNodeThisUserCannotReadIsNotedButNotAProblem() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event5", name: "Panel", RealDevice.touchscreen)
        // Readable by the group only: the owner (this user) is refused.
        let node = try system.addNode("event5", mode: 0o040)
        try system.addUdevRecord(Self.touchscreenRecord)
        let finding = doctor(system, inputGroup: groupName(ofFile: node)).examine(node: "/dev/input/event5")
        #expect(finding.problems == [])
        #expect(finding.notes == ["this user cannot read \(node) (\(String(cString: strerror(EACCES)))); the service can if the line above is clean"])
        #expect(finding.usable)
    }
}

/// Cases of udev's record that DoctorTests does not cover.
struct DoctorUdevRecordTests {
    @Test func aTouchpadNeedsNoSheetdTag() {
        var finding = DeviceFinding(node: "/dev/input/event6", name: "Pad", kind: .touchpad)
        Doctor.read(udevRecord: "E:ID_INPUT=1\nE:ID_INPUT_TOUCHPAD=1", kind: .touchpad, into: &finding)
        #expect(finding.problems == [])
        #expect(finding.notes == [])
        #expect(finding.usable)
    }

    @Test func aCurrentTagCountsAsTagged() {
        var finding = DeviceFinding(node: "/dev/input/event5", name: "Panel", kind: .touchscreen)
        Doctor.read(udevRecord: "E:ID_INPUT=1\nE:ID_INPUT_TOUCHSCREEN=1\nQ:sheetd", kind: .touchscreen, into: &finding)
        #expect(finding.notes == [])
    }

    @Test func theKindsPropertyWithoutIdInputIsNotEnough() {
        var finding = DeviceFinding(node: "/dev/input/event5", name: "Panel", kind: .touchscreen)
        Doctor.read(udevRecord: "E:ID_INPUT_TOUCHSCREEN=1\nG:sheetd", kind: .touchscreen, into: &finding)
        #expect(finding.problems == ["udev did not mark it ID_INPUT_TOUCHSCREEN=1 and ID_INPUT=1, so libinput will not treat it as a touchscreen"])
    }

    @Test func theCalibrationMatrixIsNoted() {
        var finding = DeviceFinding(node: "/dev/input/event5", name: "Panel", kind: .touchscreen)
        Doctor.read(udevRecord: "E:ID_INPUT=1\nE:ID_INPUT_TOUCHSCREEN=1\nG:sheetd\nE:LIBINPUT_CALIBRATION_MATRIX=1 0 0 0 1 0",
                    kind: .touchscreen, into: &finding)
        #expect(finding.notes == ["calibration LIBINPUT_CALIBRATION_MATRIX=1 0 0 0 1 0"])
    }

    @Test func onlyTouchDevicesWithoutProblemsAreUsable() {
        #expect(DeviceFinding(node: "/dev/input/event1", name: "Panel", kind: .touchscreen).usable)
        #expect(DeviceFinding(node: "/dev/input/event2", name: "Pad", kind: .touchpad).usable)
        #expect(!DeviceFinding(node: "/dev/input/event3", name: "Keys", kind: .keyboard).usable)
        #expect(!DeviceFinding(node: "/dev/input/event4", name: "Pen", kind: .tablet).usable)
        var broken = DeviceFinding(node: "/dev/input/event1", name: "Panel", kind: .touchscreen)
        broken.problems.append("no device node")
        #expect(!broken.usable)
    }
}
