import SheetInput
import Testing

/// `sheetctl doctor` reads udev's record of a device as libinput and the daemon depend on it.
struct DoctorTests {
    static let touchscreenRecord = """
        I:1234
        E:ID_INPUT=1
        E:ID_INPUT_TOUCHSCREEN=1
        E:ID_SEAT=seat-sheet
        G:seat
        """

    @Test func anUntaggedTouchscreenIsUsableAndTheNoteSaysWhatTheTagIsFor() {
        var finding = DeviceFinding(node: "/dev/input/event5", name: "Panel", kind: .touchscreen)
        Doctor.read(udevRecord: Self.touchscreenRecord, kind: .touchscreen, into: &finding)
        #expect(finding.problems == [])
        #expect(finding.usable)
        #expect(finding.notes.contains { $0.hasPrefix("not tagged `sheetd`: a running sheetd uses it") })
        #expect(finding.notes.contains("seat seat-sheet (sheetd --input udev:SEAT must match)"))
    }

    @Test func aTaggedTouchscreenHasNoTagNote() {
        var finding = DeviceFinding(node: "/dev/input/event5", name: "Panel", kind: .touchscreen)
        Doctor.read(udevRecord: Self.touchscreenRecord + "\nG:sheetd", kind: .touchscreen, into: &finding)
        #expect(finding.problems == [])
        #expect(!finding.notes.contains { $0.contains("tagged") })
    }

    @Test func withoutUdevsPropertiesLibinputIgnoresIt() {
        var finding = DeviceFinding(node: "/dev/input/event5", name: "Pad", kind: .touchpad)
        Doctor.read(udevRecord: "E:ID_INPUT=1\nG:sheetd", kind: .touchpad, into: &finding)
        #expect(!finding.usable)
        #expect(finding.problems == ["udev did not mark it ID_INPUT_TOUCHPAD=1 and ID_INPUT=1, so libinput will not treat it as a touchpad"])
    }
}
