import Foundation
import SheetClient
import SheetCore
import SheetInput
import SheetProtocol
import SheetRecordings
import SheetTestSupport
import Testing

/// Keys fed over `io.sheetd.Input` (a steering wheel's buttons off a CAN bus, `sheetctl feed` of
/// a key recording) move the daemon's focus through its key map, as a kernel key device's do.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: builtExecutable("sheetd").path)))
struct FedKeysTests {
    static let settings = SheetContent(title: "Settings", items: [
        SheetItem(id: "wifi", label: "Wi-Fi", accessory: .toggle(isOn: false), section: "Network"),
        SheetItem(id: "bluetooth", label: "Bluetooth", disabled: true),
        SheetItem(id: "vpn", label: "VPN"),
        SheetItem(id: "sound", label: "Sound", section: "Device"),
    ])

    /// Each key pressed and let go in a report of its own, `modifier` held around them.
    func type(_ codes: [UInt16], holding modifier: UInt16? = nil, into feeder: InputClient, device: Int,
              sequence: inout Int64) throws {
        var time = LibinputInput.monotonicNow().microseconds
        func report(_ keys: [PluginKey]) throws {
            sequence += 1
            time += 1_000
            try feeder.send(PluginKeyReport(sequence: sequence, timeInMicroseconds: min(time, LibinputInput.monotonicNow().microseconds),
                                            keys: keys), device: device)
        }
        if let modifier { try report([.key(code: modifier, value: 1)]) }
        for code in codes {
            try report([.key(code: code, value: 1)])
            try report([.key(code: code, value: 0)])
        }
        if let modifier { try report([.key(code: modifier, value: 0)]) }
    }

    @Test func fedKeysMoveTheFocusAndAToggleFlips() throws {
        let daemon = try RunningDaemon(["--input", "none"])
        let client = try daemon.client()
        try client.setContent(ContentChange(Self.settings))
        let feeder = try InputClient(path: InputInterface.socketPath(besideSocket: daemon.socketPath))
        let keys = try feeder.openKeys(name: "wheel buttons")
        var sequence: Int64 = 0
        try type([KeyCode.tab, KeyCode.tab, KeyCode.down], into: feeder, device: keys, sequence: &sequence)
        var state = try client.state()
        #expect(state.focus == .item("vpn") && state.focusVisible, "close, wifi, then vpn past the disabled bluetooth: \(String(describing: state.focus))")
        try type([KeyCode.up, KeyCode.enter], into: feeder, device: keys, sequence: &sequence)
        state = try client.state()
        #expect(state.focus == .item("wifi"))
        #expect(try client.content().items[0].accessory == .toggle(isOn: true), "Enter flipped Wi-Fi")
        let devices = try client.devices()
        #expect(devices.contains { $0.node == "plugin:\(keys)" && $0.kind == .keys && $0.used }, "\(devices)")
        // A knob's turn: two steps down from Wi-Fi in one report.
        sequence += 1
        try feeder.send(PluginKeyReport(sequence: sequence, timeInMicroseconds: LibinputInput.monotonicNow().microseconds,
                                        keys: [.dial(steps: -2)]), device: keys)
        #expect(try client.state().focus == .item("sound"), "previous twice from wifi wraps to sound")
        #expect(daemon.stop() == 0)
    }

    /// Ctrl+Down moves the focused item within its section with the reorder's events, and
    /// the order is kept across a restart, as a drag's is.
    @Test func ctrlDownReordersAndTheOrderSurvivesARestart() throws {
        let state = try temporaryFolder().path
        var daemon = try RunningDaemon(["--input", "none", "--state-directory", state])
        let client = try daemon.client()
        try client.setContent(ContentChange(Self.settings))
        let feeder = try InputClient(path: InputInterface.socketPath(besideSocket: daemon.socketPath))
        let keys = try feeder.openKeys(name: "keypad")
        var sequence: Int64 = 0
        try type([KeyCode.down], into: feeder, device: keys, sequence: &sequence)
        try type([KeyCode.down, KeyCode.down], holding: KeyCode.leftControl, into: feeder, device: keys, sequence: &sequence)
        let ids = try client.content().items.map(\.id)
        #expect(ids == ["bluetooth", "vpn", "wifi", "sound"], "two steps down, within Network: \(ids)")
        #expect(daemon.stop() == 0)
        daemon = try RunningDaemon(["--input", "none", "--state-directory", state])
        #expect(try daemon.client().content().items.map(\.id) == ["bluetooth", "vpn", "wifi", "sound"])
        #expect(daemon.stop() == 0)
    }

    /// Reports are held to the same rules as frames: a refused one names its number and
    /// changes nothing, and the device stays open.
    @Test func aBadReportIsRefusedByItsNumber() throws {
        let daemon = try RunningDaemon(["--input", "none"])
        let feeder = try InputClient(path: InputInterface.socketPath(besideSocket: daemon.socketPath))
        let keys = try feeder.openKeys(name: "keys")
        let now = LibinputInput.monotonicNow().microseconds
        for (report, reason) in [
            (PluginKeyReport(sequence: 1, timeInMicroseconds: now + 10_000_000, keys: [.key(code: 15, value: 1)]), "in the future"),
            (PluginKeyReport(sequence: 2, timeInMicroseconds: now, keys: [.key(code: 900, value: 1)]), "keys[0].code"),
            (PluginKeyReport(sequence: 3, timeInMicroseconds: now, keys: [.dial(steps: 0)]), "keys[0].dial"),
        ] {
            do {
                try feeder.send(report, device: keys)
                Issue.record("report \(report.sequence) was taken")
            } catch {
                // Matched in the body: Swift 6.2 built with assertions (Debian's) fails to verify
                // a `catch .remote(let name, let parameters)` around #expect.
                guard case .remote(let name, let parameters) = error else { throw error }
                #expect(name == InputInterface.invalidFrame, "\(reason)")
                #expect(parameters["sequence"]?.intValue == Int(report.sequence))
                #expect(parameters["reason"]?.stringValue?.contains(reason) == true, "\(parameters)")
            }
        }
        try feeder.send(PluginKeyReport(sequence: 4, timeInMicroseconds: now, keys: [.key(code: 15, value: 1)]), device: keys)
        #expect(daemon.stop() == 0)
    }

    /// `sheetctl feed` plays a keyboard's recording into a running daemon at its pace, as a
    /// device of keys: the same focus `sheetctl replay` of the recording ends with.
    @Test func sheetctlFeedPlaysAKeyRecording() throws {
        var recording = SyntheticRecording(keys: SyntheticRecording.keyboard)
        for code in [KeyCode.tab, KeyCode.tab, KeyCode.down] {
            recording.wait(0.05)
            recording.key(code)
        }
        let file = try temporaryFile("keys.evemu", recording.evemu())
        let daemon = try RunningDaemon(["--input", "none"])
        let client = try daemon.client()
        try client.setContent(ContentChange(Self.settings))
        let fed = try runTool("sheetctl", ["feed", file, "--socket", daemon.socketPath])
        #expect(fed.status == 0, "\(fed.stderr)")
        #expect(try client.state().focus == .item("vpn"))
        #expect(daemon.stop() == 0)
    }

    /// `sheetctl feed -` takes lines of keys beside lines of touches: Tab, Tab, then a bad
    /// key code (refused by its line, exit status 65), the focus left on Wi-Fi.
    @Test func sheetctlFeedTakesKeyLinesOnStdin() throws {
        let daemon = try RunningDaemon(["--input", "none"])
        let client = try daemon.client()
        try client.setContent(ContentChange(Self.settings))
        let lines = [#"{"keys":[{"code":15,"value":1}]}"#, #"{"keys":[{"code":15,"value":0}]}"#,
                     #"{"keys":[{"code":15,"value":1}]}"#, #"{"keys":[{"code":15,"value":0}]}"#,
                     #"{"keys":[{"code":4000,"value":1}]}"#]
        let script = "printf '%s\\n' " + lines.map { "'\($0)'" }.joined(separator: " ")
            + " | '\(builtExecutable("sheetctl").path)' feed - --socket '\(daemon.socketPath)'"
        let fed = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script])
        #expect(fed.status == 65, "a line was refused: \(fed.stderr)")
        #expect(fed.stderr.contains("stdin:5: keys[0].code"), "\(fed.stderr)")
        #expect(try client.state().focus == .item("wifi"))
        #expect(daemon.stop() == 0)
    }
}
