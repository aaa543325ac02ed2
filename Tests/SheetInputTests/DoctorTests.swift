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
        #expect(finding.notes.contains("seat seat-sheet (sheetd@seat-sheet.service, sheetd --seat seat-sheet)"))
    }

    /// With two displays, a touchscreen's note says which it sits on; a WL_OUTPUT naming a
    /// connector that is not there is a warning, and the device stays on the first display.
    @Test func aTouchscreensDisplayIsSaidAndAMissingOneWarned() {
        let panels = PanelMapping(connectors: [PanelMapping.Connector(name: "HDMI-A-1", card: "card0", connected: true),
                                               PanelMapping.Connector(name: "HDMI-A-2", card: "card0", connected: true)])
        var rear = DeviceFinding(node: "/dev/input/event6", name: "Rear", kind: .touchscreen)
        Doctor.read(udevRecord: "E:ID_INPUT=1\nE:ID_INPUT_TOUCHSCREEN=1\nG:sheetd\nE:WL_OUTPUT=HDMI-A-2", kind: .touchscreen, panels: panels, into: &rear)
        #expect(rear.notes == ["seat seat0 (sheetd.service), on display HDMI-A-2 (WL_OUTPUT)"] && rear.warnings.isEmpty)
        var front = DeviceFinding(node: "/dev/input/event5", name: "Front", kind: .touchscreen)
        Doctor.read(udevRecord: "E:ID_INPUT=1\nE:ID_INPUT_TOUCHSCREEN=1\nG:sheetd\nE:WL_OUTPUT=DSI-9", kind: .touchscreen, panels: panels, into: &front)
        #expect(front.notes == ["seat seat0 (sheetd.service), on display HDMI-A-1 (the first connected one: no WL_OUTPUT names another)"])
        #expect(front.warnings == ["WL_OUTPUT=DSI-9 names no connector of this machine (HDMI-A-1, HDMI-A-2): on the default output"])
        #expect(front.usable, "used, on the first display")
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
