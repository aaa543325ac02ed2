import Testing
import SheetCore
import SheetRecordings
import SheetTestSupport
@testable import SheetReplay

/// Recordings of a keyboard and of a knob, generated here, replayed through the same path as
/// touch recordings: the focus in every `sheet` line, the content's events as a finger's.
@Suite struct KeyReplayTests {
    /// Wi-Fi (a toggle, off), Bluetooth (disabled) and VPN in Network, Sound and Display in Device.
    static let settings = SheetContent(title: "Settings", items: [
        SheetItem(id: "wifi", label: "Wi-Fi", accessory: .toggle(isOn: false), section: "Network"),
        SheetItem(id: "bluetooth", label: "Bluetooth", disabled: true),
        SheetItem(id: "vpn", label: "VPN"),
        SheetItem(id: "sound", label: "Sound", section: "Device"),
        SheetItem(id: "display", label: "Display"),
    ])

    func run(_ recording: SyntheticRecording, policy: ReleaseRuleSet = .projection, guarded: Bool = false,
             configure: (inout ReplayOptions) -> Void = { _ in }) throws -> ReplayRun {
        var replayOptions = options(policy: policy, touches: false)
        var content = Self.settings
        content.guarded = guarded
        replayOptions.content = content
        configure(&replayOptions)
        return try replay(recording, replayOptions)
    }

    /// The focus after each change of it, from the sheet lines.
    func focusSteps(_ run: ReplayRun) -> [String] {
        var steps: [String] = []
        for line in run.kind("sheet") {
            let focus = line["focus"] as? String ?? "-"
            if steps.last != focus { steps.append(focus) }
        }
        return steps
    }

    func events(_ run: ReplayRun) -> [String] {
        run.kind("event").map { line in
            [line["event"], line["item"], line["cause"]].compactMap { $0.map { "\($0)" } }.joined(separator: " ")
        }
    }

    @Test(arguments: ReleaseRuleSet.allCases)
    func tabAndDownWalkTheEnabledItemsAndShiftTabGoesBack(policy: ReleaseRuleSet) throws {
        var keys = SyntheticRecording(keys: SyntheticRecording.keyboard)
        for _ in 0..<3 {
            keys.wait(0.2)
            keys.key(KeyCode.tab)
        }
        for _ in 0..<3 {
            keys.wait(0.2)
            keys.key(KeyCode.down)
        }
        keys.wait(0.2)
        keys.key(KeyCode.leftShift, value: 1)
        keys.key(KeyCode.tab)
        keys.key(KeyCode.leftShift, value: 0)
        let run = try run(keys, policy: policy)
        #expect(run.kind("device").first?["type"] as? String == "keys")
        #expect(focusSteps(run) == ["-", "close", "wifi", "vpn", "sound", "display", "sound"])
        #expect(events(run).isEmpty)
        #expect(run.lastSheet?["focusVisible"] as? Bool == true)
    }

    @Test func enterOnAToggleHeldWithTheKernelsRepeatsFlipsItOnce() throws {
        var keys = SyntheticRecording(keys: SyntheticRecording.keyboard)
        keys.wait(0.2)
        keys.key(KeyCode.down)
        keys.wait(0.2)
        keys.key(KeyCode.enter, value: 1)
        for _ in 0..<20 {
            keys.wait(0.04)
            keys.key(KeyCode.enter, value: 2)
        }
        keys.key(KeyCode.enter, value: 0)
        let run = try run(keys)
        #expect(events(run) == ["item-toggled wifi"])
    }

    @Test func aHeldDownRepeatsByTheEnginesClock() throws {
        var keys = SyntheticRecording(keys: SyntheticRecording.keyboard)
        keys.wait(0.2)
        keys.key(KeyCode.down, holdSeconds: 0.65)
        let run = try run(keys)
        // A step at the press, then repeats at 0.6 and 0.64 s.
        #expect(focusSteps(run) == ["-", "wifi", "vpn", "sound"])
    }

    @Test(arguments: ReleaseRuleSet.allCases)
    func spaceTapsTheItemAndEscapeDismisses(policy: ReleaseRuleSet) throws {
        var keys = SyntheticRecording(keys: SyntheticRecording.keyboard)
        keys.wait(0.2)
        for code in [KeyCode.down, KeyCode.down, KeyCode.space, KeyCode.escape] {
            keys.key(code)
            keys.wait(0.2)
        }
        let run = try run(keys, policy: policy)
        #expect(events(run) == ["item-tapped vpn"])
        #expect(run.lastSheet?["detent"] as? String == "hidden")
        #expect(run.lastSheet?["focus"] == nil, "the focus went with the sheet")
        // A person's key, not a program's command: every state after the first key says so.
        let causes = Set(run.kind("sheet").filter { $0["state"] as? String == "settling" }.compactMap { $0["cause"] as? String })
        #expect(causes == ["keys"])
        let moved = run.kind("sheet").filter { $0["focus"] is String }.compactMap { $0["cause"] as? String }
        #expect(!moved.isEmpty && Set(moved) == ["keys"], "the focus moved by keys: \(Set(moved))")
    }

    @Test func escapeOnAGuardedSheetIsReportedAndTheSheetStays() throws {
        var keys = SyntheticRecording(keys: SyntheticRecording.keyboard)
        keys.wait(0.2)
        keys.key(KeyCode.escape)
        keys.wait(0.2)
        keys.key(KeyCode.tab)
        keys.key(KeyCode.enter)
        let run = try run(keys, guarded: true)
        #expect(events(run) == ["dismiss-attempted back", "dismiss-attempted close-button"])
        #expect(run.lastSheet?["detent"] as? String == "half")
    }

    @Test func ctrlDownMovesTheFocusedItemWithinItsSection() throws {
        var keys = SyntheticRecording(keys: SyntheticRecording.keyboard)
        keys.wait(0.2)
        keys.key(KeyCode.down)
        keys.key(KeyCode.leftControl, value: 1)
        for _ in 0..<3 {
            keys.wait(0.2)
            keys.key(KeyCode.down)
        }
        keys.key(KeyCode.leftControl, value: 0)
        let output = OutputBuffer()
        var replayOptions = options(touches: false)
        replayOptions.content = Self.settings
        let source = try Recording.open(bytes: Array(keys.evemu().utf8), name: "keys.evemu")
        let result = try Replay.run(source: source, options: replayOptions, output: output)
        #expect(result.summary.finalOrder == [1, 2, 0, 3, 4], "two steps down, the third would leave Network")
        #expect(result.summary.events["reorder-ended"] == 2)
        let run = try run(keys)
        let ended = run.kind("event").filter { $0["event"] as? String == "reorder-ended" }
        #expect(ended.last?["order"] as? [String] == ["bluetooth", "vpn", "wifi", "sound", "display"])
    }

    @Test func aKnobsStepsMoveTheFocusAndItsPushActivates() throws {
        var knob = SyntheticRecording(keys: SyntheticRecording.knob)
        knob.wait(0.2)
        knob.dial(3)
        knob.wait(0.2)
        knob.dial(-1)
        knob.wait(0.2)
        knob.key(KeyCode.button0)
        let run = try run(knob)
        #expect(run.kind("device").first?["type"] as? String == "keys")
        #expect(focusSteps(run) == ["-", "close", "wifi", "vpn", "wifi"], "three steps in one report, each a state, then one back")
        #expect(events(run) == ["item-toggled wifi"])
        #expect(Set(run.kind("sheet").filter { $0["focus"] is String }.compactMap { $0["cause"] as? String }) == ["keys"])
    }

    @Test func switchScanningStepsByItselfAndTheSwitchActivates() throws {
        var knob = SyntheticRecording(keys: SyntheticRecording.knob)
        knob.wait(0.1)
        knob.key(KeyCode.button0)  // the first press shows the focus, on the close button
        knob.at(3.5)
        knob.key(KeyCode.button0)
        let run = try run(knob) { $0.engine.focus.switchScanMicroseconds = 1_000_000 }
        // From the close button at 0.1 s: Wi-Fi at 1.1, VPN at 2.1, Sound at 3.1; pressed at 3.5.
        #expect(Array(focusSteps(run).prefix(5)) == ["-", "close", "wifi", "vpn", "sound"])
        #expect(events(run) == ["item-tapped sound"])
        #expect(Set(run.kind("sheet").filter { $0["focus"] is String }.compactMap { $0["cause"] as? String }) == ["keys"],
                "the scan's own steps are the switch's")
    }

    /// `libinput record` files of a keyboard and of a knob replay through the same path as
    /// their evemu twins, to the same bytes.
    @Test func libinputRecordsOfKeysReplayAsTheirEvemuTwins() throws {
        var keys = SyntheticRecording(keys: SyntheticRecording.keyboard)
        for code in [KeyCode.tab, KeyCode.tab, KeyCode.down, KeyCode.enter] {
            keys.wait(0.2)
            keys.key(code)
        }
        var knob = SyntheticRecording(keys: SyntheticRecording.knob)
        knob.wait(0.2)
        knob.dial(2)
        knob.wait(0.2)
        knob.key(KeyCode.button0)
        for recording in [keys, knob] {
            var replayOptions = options(touches: false)
            replayOptions.content = Self.settings
            let evemu = try replay(recording, replayOptions)
            let yaml = try replay(recording, yaml: true, replayOptions)
            #expect(yaml.text == evemu.text)
            #expect(!events(yaml).isEmpty, "\(recording.name): something was activated")
        }
    }

    /// A recording of a touchscreen and a keyboard together (`libinput record --multiple`):
    /// both replayed, their events in the order of their times. Tab, Tab shows the ring on
    /// Wi-Fi, a finger on the card hides it, Down shows it again on VPN.
    @Test(arguments: ReleaseRuleSet.allCases)
    func aTouchscreenAndAKeyboardRecordedTogetherReplayInTheirTimesOrder(policy: ReleaseRuleSet) throws {
        let (touch, keys) = touchscreenAndKeyboard(enter: false)
        let text = SyntheticRecording.libinputRecord(together: [touch, keys])
        var replayOptions = options(policy: policy, touches: false)
        replayOptions.content = Self.settings
        let run = try replay(path: try temporaryFile("together.yml", text), replayOptions)
        #expect(run.kind("device").map { $0["type"] as? String } == ["touchscreen", "keys"])
        #expect(run.kind("device").allSatisfy { $0["used"] as? Bool == true })
        var visible: [Bool] = []
        for line in run.kind("sheet") {
            let shown = line["focusVisible"] as? Bool ?? false
            if visible.last != shown { visible.append(shown) }
        }
        #expect(visible == [false, true, false, true], "keys, then the finger, then a key: \(visible)")
        #expect(run.lastSheet?["focus"] as? String == "vpn")
        #expect(run.warnings.isEmpty, "\(run.warnings)")
        // Listed the other way round, the same replay.
        let swapped = try replay(path: try temporaryFile("swapped.yml", SyntheticRecording.libinputRecord(together: [keys, touch])),
                                 replayOptions)
        #expect(swapped.kind("sheet").map { $0["focus"] as? String } == run.kind("sheet").map { $0["focus"] as? String })
    }
}
