import Testing
import SheetCore
import SheetRecordings
import Foundation
@testable import SheetReplay

/// Rows that are more than a label, replayed on the default 1080x1920 screen at scale 1 (the
/// card 640 pt wide from x 220): at half the list starts at 1016. The Net section's header
/// (48 pt) comes first, then Wi-Fi (a switch, on) at 1064, VPN (disabled) at 1120, Bluetooth
/// at 1176; the Sys header at 1232, About at 1280, Updates at 1336.
@Suite struct RichItemReplayTests {
    static let content = SheetContent(title: "Settings", items: [
        SheetItem(id: "wifi", label: "Wi-Fi", accessory: .toggle(isOn: true), section: "Net"),
        SheetItem(id: "vpn", label: "VPN", accessory: .toggle(isOn: false), disabled: true),
        SheetItem(id: "bt", label: "Bluetooth"),
        SheetItem(id: "about", label: "About", section: "Sys"),
        SheetItem(id: "updates", label: "Updates"),
    ])
    static let wifi: Int32 = 1092, vpn: Int32 = 1148, bluetooth: Int32 = 1204, about: Int32 = 1308

    func run(_ recording: SyntheticRecording, policy: ReleaseRuleSet = .projection) throws -> ReplayRun {
        var replayOptions = options(policy: policy, touches: false)
        replayOptions.content = Self.content
        return try replay(recording, replayOptions)
    }

    func events(_ run: ReplayRun) -> [String] {
        run.kind("event").map { line in
            [line["event"] as? String, line["item"] as? String, (line["on"] as? Bool).map { $0 ? "on" : "off" },
             (line["from"] as? Int).map(String.init), (line["to"] as? Int).map(String.init)].compactMap { $0 }.joined(separator: " ")
        }
    }

    /// A finger held still `hold` seconds at (x, y), then moved down by `dy` over half a
    /// second, then lifted.
    func hold(_ r: inout SyntheticRecording, y: Int32, dy: Int32, hold: Double = 0.4) {
        r.down(slot: 0, x: 400, y: y)
        r.report()
        r.wait(hold)
        for step in 1...50 {
            r.wait(0.01)
            r.move(slot: 0, x: 400, y: y + Int32((Double(dy) * Double(step) / 50).rounded()))
            r.report()
        }
        r.wait(0.05)
        r.up(slot: 0)
        r.report()
    }

    @Test(arguments: ReleaseRuleSet.allCases)
    func aTapOnASwitchFlipsItAndSaysSoInsteadOfATap(policy: ReleaseRuleSet) throws {
        var r = SyntheticRecording()
        r.tap(x: 400, y: Self.wifi)
        r.wait(0.5)
        r.tap(x: 400, y: Self.wifi)
        r.wait(0.5)
        r.tap(x: 400, y: Self.bluetooth)
        let run = try run(r, policy: policy)
        #expect(events(run) == ["item-toggled wifi off", "item-toggled wifi on", "item-tapped bt"])
        #expect(run.lastSheet?["detent"] as? String == "half")
    }

    @Test func aDisabledItemTakesNoTapAndNoLongPress() throws {
        var r = SyntheticRecording()
        r.tap(x: 400, y: Self.vpn)
        r.wait(0.5)
        hold(&r, y: Self.vpn, dy: 120)
        let run = try run(r)
        #expect(events(run).isEmpty, "\(events(run))")
    }

    @Test func aReorderStopsAtItsSectionsEdge() throws {
        // Bluetooth, last of Net, dragged down past the Sys header and About: it stays.
        var down = SyntheticRecording()
        hold(&down, y: Self.bluetooth, dy: 160)
        #expect(events(try run(down)) == ["reorder-began bt", "reorder-ended bt"])
        // Wi-Fi, first of Net, dragged down 150: past VPN and Bluetooth, and no further.
        var within = SyntheticRecording()
        hold(&within, y: Self.wifi, dy: 150)
        #expect(events(try run(within)) == ["reorder-began wifi", "reorder-moved wifi 0 1", "reorder-moved wifi 1 2", "reorder-ended wifi"])
        // About, first of Sys, dragged up over the header: it stays.
        var up = SyntheticRecording()
        hold(&up, y: Self.about, dy: -120)
        #expect(events(try run(up)) == ["reorder-began about", "reorder-ended about"])
    }

    @Test func aTapOnAHeaderTapsNothing() throws {
        var r = SyntheticRecording()
        r.tap(x: 400, y: 1040)
        r.wait(0.5)
        r.tap(x: 400, y: 1256)
        let run = try run(r)
        #expect(events(run).isEmpty, "\(events(run))")
    }
}
