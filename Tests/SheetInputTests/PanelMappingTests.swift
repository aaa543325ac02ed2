import Foundation
import SheetInput
import SheetProtocol
import SheetTestSupport
import Testing

/// A touchscreen's panel: its seat (`ID_SEAT`, seat0 without) and the output it sits on
/// (`WL_OUTPUT`), against the connectors a sysfs tree lists.
struct PanelMappingTests {
    /// card0 with a DSI panel not connected and an HDMI display, card1 with a virtual one.
    private func machine() throws -> PanelMapping {
        let sysfs = try sysfsWithConnectors([("card1-Virtual-1", "connected"), ("card0-DSI-1", "disconnected"), ("card0-HDMI-A-1", "connected")])
        // The card itself and its render node are no connectors.
        try FileManager.default.createDirectory(at: sysfs.appendingPathComponent("class/drm/card0"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: sysfs.appendingPathComponent("class/drm/renderD128"), withIntermediateDirectories: true)
        return PanelMapping(sysfsRoot: sysfs.path)
    }

    @Test func connectorsAreReadFromSysfsInTheKernelsOrder() throws {
        let mapping = try machine()
        #expect(mapping.connectors == [PanelMapping.Connector(name: "DSI-1", card: "card0", connected: false),
                                       PanelMapping.Connector(name: "HDMI-A-1", card: "card0", connected: true),
                                       PanelMapping.Connector(name: "Virtual-1", card: "card1", connected: true)])
        #expect(mapping.defaultOutput == "HDMI-A-1", "the first connected")
        #expect(PanelMapping(sysfsRoot: "/nonexistent").connectors.isEmpty)
    }

    @Test func aDeviceWithoutTagsIsSeat0sOnTheDefaultOutput() throws {
        let mapping = try machine()
        let placement = mapping.place(seat: nil, output: nil)
        #expect(placement == PanelMapping.Placement(seat: .main, output: nil, problems: []))
        #expect(mapping.reads(placement, seat: .main, output: nil) == (true, nil))
        #expect(mapping.reads(placement, seat: .main, output: "HDMI-A-1") == (true, nil), "the default output")
        #expect(mapping.reads(placement, seat: .main, output: "Virtual-1")
                == (false, "on output HDMI-A-1, not Virtual-1 where this sheet lives"))
    }

    @Test func aSeatAndAnOutputTagPlaceTheDevice() throws {
        let mapping = try machine()
        let rear = mapping.place(seat: "seat-rear", output: "Virtual-1")
        #expect(rear == PanelMapping.Placement(seat: Seat("seat-rear"), output: "Virtual-1", problems: []))
        #expect(mapping.reads(rear, seat: .main, output: nil) == (false, "on seat-rear, not seat0"))
        #expect(mapping.reads(rear, seat: Seat("seat-rear")!, output: nil) == (true, nil))
        #expect(mapping.reads(rear, seat: Seat("seat-rear")!, output: "Virtual-1") == (true, nil))
        #expect(mapping.reads(rear, seat: Seat("seat-rear")!, output: "HDMI-A-1").read == false)
    }

    @Test func anOutputThatIsNotThereIsWarnedAndTheDeviceStaysOnTheDefault() throws {
        let mapping = try machine()
        let placement = mapping.place(seat: "seat0", output: "HDMI-A-9")
        #expect(placement.seat == .main && placement.output == nil)
        #expect(placement.problems == ["WL_OUTPUT=HDMI-A-9 names no connector of this machine (DSI-1, HDMI-A-1, Virtual-1): on the default output"])
        #expect(mapping.reads(placement, seat: .main, output: "HDMI-A-1") == (true, nil))
    }

    @Test func aSeatThatIsNoSeatsNameIsReadByNoDaemon() throws {
        let mapping = try machine()
        let placement = mapping.place(seat: "rear panel", output: nil)
        #expect(placement.seat == nil && placement.problems.first?.hasPrefix("ID_SEAT=rear panel is not a seat's name") == true)
        #expect(mapping.reads(placement, seat: .main, output: nil) == (false, "on no seat sheetd can serve, not seat0"))
    }

    @Test func seatsNameTheirSockets() {
        #expect(Seat.main.socketPath == "/run/sheetd/io.sheetd.Sheet" && Seat.main.inputSocketPath == "/run/sheetd/io.sheetd.Input")
        #expect(Seat("seat1")?.socketPath == "/run/sheetd/seat1/io.sheetd.Sheet")
        #expect(Seat("seat1")?.inputSocketPath == "/run/sheetd/seat1/io.sheetd.Input")
        for bad in ["seat", "rear", "seat/..", "seat 1", "seat1:0", String(repeating: "s", count: 65), "seät"] {
            #expect(Seat(bad) == nil, "\(bad)")
        }
    }
}
