import SheetInput
import SheetProtocol
import SheetTestSupport
import Testing

/// `sheetctl doctor --recording`: what sheetd would make of a recorded device.
struct DoctorRecordingTests {
    @Test func aProtocolAPanelIsUsableAndSaysHowItIsRead() {
        let finding = Doctor.examine(recording: trace("ts-ntrig.1-finger-drag-nw-se.events"))
        #expect(finding.usable && finding.warnings.isEmpty && finding.problems.isEmpty)
        #expect(finding.kind == .touchscreen && finding.name == "N-Trig MultiTouch")
        #expect(finding.notes.contains { $0.hasPrefix("multitouch protocol A (no ABS_MT_SLOT): read through libmtdev") })
        #expect(finding.notes.contains { $0.hasSuffix(", 1 touches") })
    }

    @Test func theEGalaxIsUsedWithAWarningNamingItsAxes() {
        let finding = Doctor.examine(recording: trace("ts-egalax-usb.events"))
        #expect(finding.usable)
        #expect(finding.warnings.count == 1)
        #expect(finding.warnings.first?.contains("ABS_X and ABS_Y have never moved, while ABS_Z and ABS_RX did") == true)
    }

    @Test func aDeviceWithoutPositionsIsAProblemAndAnUnreadableFileToo() throws {
        let path = try temporaryFile("buttons.evemu", """
            N: Buttons
            I: 0003 0001 0001 0001
            P: 02 00 00 00 00 00 00 00
            E: 0.000 0001 014a 1
            E: 0.000 0000 0000 0

            """)
        let finding = Doctor.examine(recording: path)
        #expect(!finding.usable && finding.kind == .other)
        #expect(finding.problems == ["no position axes: it declares neither ABS_X and ABS_Y nor ABS_MT_POSITION_X and ABS_MT_POSITION_Y: not a touchscreen or touchpad; the replay refuses it and the daemon skips it"])
        let missing = Doctor.examine(recording: path + ".missing")
        #expect(!missing.usable && missing.problems.count == 1)
    }
}
