import Testing
import SheetCore
@testable import SheetRecordings

@Suite struct ReaderTests {
    @Test func evemuDescriptionOfTheAtmelPanel() throws {
        let (events, source) = try readAll(trace("ts-atmel-maxtouch.1-finger-fast-taps.evemu"))
        let device = source.device
        #expect(device.name == "Atmel maXTouch Touchscreen")
        #expect(device.kind == .touchscreen)
        #expect(device.slotCount == 10)
        #expect(device.absinfo[0x35] == AbsInfo(minimum: 0, maximum: 799))
        #expect(device.supports(type: 1, code: 0x14a))
        #expect(events.count == 84)
        #expect(events.first == KernelEvent(time: Timestamp(microseconds: 1), type: 3, code: 0x39, value: 3))
        #expect(events.contains { $0.value == -1 && $0.code == 0x39 })
    }

    @Test func evemuOneTwoSemiMultitouchPad() throws {
        let (events, source) = try readAll(trace("tp-alps-glidepoint.2-finger-tap.evemu"))
        #expect(source.device.kind == .touchpad)
        #expect(source.device.isSemiMultitouch)
        #expect(source.device.slotCount == 2)
        #expect(events.count == 76)
    }

    @Test func splitDescriptionIsFoundByName() throws {
        let (events, source) = try readAll(trace("tp-synaptics-hp8470p.2-finger-scroll-horizontal.events"))
        #expect(source.device.name == "SynPS/2 Synaptics TouchPad")
        #expect(source.device.kind == .touchpad)
        #expect(source.device.slotCount == 2)
        #expect(events.count == 906)
        #expect(events.first!.time.microseconds == 1_353_330_434_388_618, "evemu 1.0: absolute timestamps")
        #expect(EvemuReader.findDescriptionFile(for: "/x/pad.a.b.events") == nil)
    }

    @Test func libinputRecordWithAKeyboardFirstTakesTheTouchscreen() throws {
        var recording = SyntheticRecording()
        recording.tap(x: 100, y: 100)
        let keyboard = DeviceDescription(name: "AT keyboard", codes: [0: [0], 1: [30, 31]])
        let path = try temporaryFile("two.yml", recording.libinputRecord(extraDevicesFirst: [keyboard]))
        let (events, source) = try readAll(path)
        #expect(source.device.name == "sheetd synthetic touchscreen")
        #expect(source.device.udevKind == .touchscreen)
        #expect(source.ignoredDevices.map(\.name) == ["AT keyboard"])
        #expect(events == recording.events)
    }

    @Test func libinputRecordInTheManPagesIndentedStyle() throws {
        let text = """
            # libinput record
            version: 1
            ndevices: 1
            libinput:
              version: "1.31.0"
            devices:
              - node: /dev/input/event6
                evdev:
                  name: "Panel"
                  id: [24, 0, 0, 0]
                  codes:
                    0: [0]
                    1: [330]
                    3: [0, 1, 47, 53, 54, 57]
                  absinfo:
                    0: [0, 1079, 0, 0, 0]
                    1: [0, 1919, 0, 0, 0]
                    47: [0, 4, 0, 0, 0]
                    53: [0, 1079, 0, 0, 0]
                    54: [0, 1919, 0, 0, 0]
                    57: [0, 65535, 0, 0, 0]
                  properties: [1]
                hid: [
                  0x05, 0x01, 
                ]
                udev:
                  properties:
                    - ID_INPUT=1
                events:
                  - evdev:
                      - [  0,      0,   3,  57,       4] # EV_ABS / ABS_MT_TRACKING_ID 4
                      - [  0,      0,   3,  53,     100]
                      - [  0,      0,   0,   0,       0]
                  - libinput:
                      - {time: 0.0, type: TOUCH_DOWN}
                  - evdev:
                      - [  0,  50000,   3,  57,      -1]
                      - [  0,  50000,   0,   0,       0]
            """
        let (events, source) = try readAll(try temporaryFile("indented.yml", text))
        #expect(source.device.name == "Panel")
        #expect(source.device.kind == .touchscreen)
        #expect(events.count == 5)
        #expect(events.last?.time == Timestamp(microseconds: 50_000))
    }

    @Test func bothFormatsOfOneRecordingHoldTheSameEvents() throws {
        var recording = SyntheticRecording()
        recording.stroke(from: (100, 100), to: (100, 900), seconds: 0.2)
        let evemu = try readAll(try temporaryFile("a.evemu", recording.evemu())).events
        let yaml = try readAll(try temporaryFile("a.yml", recording.libinputRecord())).events
        #expect(evemu == recording.events)
        #expect(yaml == recording.events)
    }
}

@Suite struct BadInputTests {
    func expectError(_ name: String, _ contents: String, line: Int?, containing: String) throws {
        let path = try temporaryFile(name, contents)
        let error = try #require(readError(path))
        #expect(error.file == path)
        #expect(error.line == line, "\(error)")
        #expect(error.reason.contains(containing), "\(error)")
        #expect(error.description.hasPrefix(line.map { "\(path):\($0): " } ?? "\(path): "))
    }

    @Test func emptyFile() throws {
        try expectError("empty.evemu", "", line: 1, containing: "empty")
        try expectError("blank.yml", "\n\n  \n", line: 3, containing: "empty")
    }

    @Test func binaryData() throws {
        let path = try temporaryFile("binary.evemu", [0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0x00, 0xff, 0xfe, 0x0a])
        let error = try #require(readError(path))
        #expect(error.line == 1)
        #expect(error.reason.contains("binary"))
        let invalid = try temporaryFile("latin1.yml", [0x76, 0x65, 0x72, 0xe9, 0x0a])
        #expect(readError(invalid)?.reason.contains("binary") == true)
    }

    @Test func wrongVersions() throws {
        try expectError("v2.evemu", "# EVEMU 2.0\nN: x\n", line: 1, containing: "version 2.0")
        try expectError("v2.yml", "# libinput record\nversion: 2\nndevices: 1\ndevices:\n", line: 2, containing: "version `2`")
        try expectError("noversion.yml", "# libinput record\nndevices: 1\ndevices:\n", line: 1, containing: "no `version`")
    }

    @Test func garbageEventLines() throws {
        var recording = SyntheticRecording()
        recording.tap(x: 10, y: 10)
        var evemu = recording.evemu().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let firstEvent = evemu.firstIndex { $0.hasPrefix("E:") }!
        evemu[firstEvent + 2] = "E: 0.000000 zzzz 0035 10"
        try expectError("garbage.evemu", evemu.joined(separator: "\n"), line: firstEvent + 3, containing: "expected an event")

        var yaml = recording.libinputRecord().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let item = yaml.firstIndex { $0.hasPrefix("    - [") }!
        yaml[item + 1] = "    - [0, 0, 3, banana, 1]"
        try expectError("garbage.yml", yaml.joined(separator: "\n"), line: item + 2, containing: "expected an event")
    }

    @Test func aliasesAndAnchorsAreRefusedBeforeYAMLComposes() throws {
        // A billion laughs in the header: it used to take Yams minutes of hashing.
        var header = "# libinput record\nversion: 1\nndevices: 1\n"
        header += "a0: &a0 [" + Array(repeating: "lol", count: 10).joined(separator: ", ") + "]\n"
        for level in 1...9 {
            header += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        header += "bomb: {? *a9 : 1}\ndevices:\n"
        try expectError("bomb.yml", header, line: 4, containing: "anchors (&name) are not accepted")
        // An alias in a device's description, on the line where it stands.
        var recording = SyntheticRecording()
        recording.tap(x: 10, y: 10)
        var yaml = recording.libinputRecord().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let name = yaml.firstIndex { $0.hasPrefix("    name:") }!
        yaml[name] = "    name: *other"
        try expectError("alias.yml", yaml.joined(separator: "\n"), line: name + 1, containing: "aliases (*name) are not accepted")
        // A key given twice is named on its second line (Yams, used before, said neither where nor which).
        try expectError("twice.yml", "# libinput record\nversion: 1\nndevices: 1\nversion: 1\ndevices:\n", line: 4,
                        containing: "`version` is set twice")
        yaml[name] = "    name: touch"
        yaml.insert("    name: again", at: name + 1)
        try expectError("twice-device.yml", yaml.joined(separator: "\n"), line: name + 2, containing: "`name` is set twice")
    }

    @Test func headersAndMasksAreHeldToWhatTheKernelHas() throws {
        // A header of 300 KiB stops where it passes the limit, not at the end of the file.
        let keys = (0..<30_000).map { "key\($0): value\($0)\n" }.joined()
        let big = "# libinput record\nversion: 1\nndevices: 1\n" + keys + "devices:\n"
        let error = try #require(readError(try temporaryFile("big.yml", big)))
        #expect(error.reason.contains("header is longer than 256 KiB"), "\(error)")
        #expect((error.line ?? 0) < 30_000)
        // evemu masks: a bit past INPUT_PROP_MAX, a second line of ABS bits, a type past EV_MAX.
        let description = "# EVEMU 1.3\nN: pad\nI: 0003 0001 0002 0001\n"
        try expectError("props.evemu", description + "P: 00 00 00 00 01 00 00 00\n", line: 4,
                        containing: "property bit 32 is beyond INPUT_PROP_MAX (31)")
        try expectError("propslines.evemu", description + String(repeating: "P: 00 00 00 00 00 00 00 00\n", count: 3), line: 5,
                        containing: "more property bits than the kernel has")
        try expectError("abs.evemu", description + "B: 03 00 00 00 00 00 00 00 00\nB: 03 00 00 00 00 00 00 00 00\n", line: 5,
                        containing: "more code bits for event type 3")
        try expectError("type.evemu", description + "B: 20 01\n", line: 4, containing: "event type 32 is beyond EV_MAX")
        try expectError("axis.evemu", description + "A: 40 0 100 0 0 0\n", line: 4, containing: "beyond ABS_MAX")
        // libinput record: a code past SW_MAX.
        var recording = SyntheticRecording()
        recording.tap(x: 10, y: 10)
        var yaml = recording.libinputRecord().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let codes = yaml.firstIndex { $0 == "    codes:" }!
        yaml.insert("      5: [0, 99999]", at: codes + 1)
        try expectError("code.yml", yaml.joined(separator: "\n"), line: codes + 2, containing: "a code of event type 5 must be a number from 0 to 16")
    }

    @Test func missingFile() throws {
        let error = try #require(readError("/nonexistent/sheetd/recording.yml"))
        #expect(error.description == "/nonexistent/sheetd/recording.yml: cannot open: No such file or directory")
    }

    @Test func aListWhereAMapBelongs() throws {
        var recording = SyntheticRecording()
        recording.tap(x: 10, y: 10)
        var yaml = recording.libinputRecord().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let absinfo = yaml.firstIndex { $0 == "    absinfo:" }!
        // Replace the map {code: [min, max, …]} under `absinfo` by a list.
        while yaml[absinfo + 1].hasPrefix("      ") { yaml.remove(at: absinfo + 1) }
        yaml.insert("    - 1", at: absinfo + 1)
        yaml.insert("    - 2", at: absinfo + 2)
        let kept = yaml
        try expectError("listmap.yml", kept.joined(separator: "\n"), line: absinfo + 2, containing: "`evdev.absinfo` must be a map")
        try expectError("toplist.yml", "# libinput record\n- version: 1\n", line: 2, containing: "header map")
    }

    @Test func aRecordingCutShortReplaysWhatItHoldsAndWarns() throws {
        var recording = SyntheticRecording()
        recording.tap(x: 10, y: 10)
        recording.tap(x: 20, y: 20)
        for (name, text) in [("cut.evemu", recording.evemu()), ("cut.yml", recording.libinputRecord())] {
            // Cut inside the last event line, a few characters after its start.
            let lastLine = text.dropLast().lastIndex(of: "\n")!
            let cut = String(text[...text.index(lastLine, offsetBy: 12)])
            let (events, source) = try readAll(try temporaryFile(name, cut))
            #expect(events.count == recording.events.count - 1)
            #expect(source.warnings.contains { $0.message.contains("middle of a line") }, "\(name)")
        }
    }

    @Test func eventsWithoutADescription() throws {
        try expectError("bare.events", "E: 0.000001 0003 0039 0001\n", line: 1, containing: "--desc")
    }

    @Test func noTouchDevice() throws {
        let keyboard = DeviceDescription(name: "kbd", codes: [1: [30]])
        var yaml = SyntheticRecording().libinputRecord(extraDevicesFirst: [keyboard])
        yaml = String(yaml[..<yaml.range(of: "- node: /dev/input/event5")!.lowerBound])
        let path = try temporaryFile("kbd.yml", yaml)
        #expect(readError(path)?.reason.contains("no touchscreen or touchpad") == true)
    }

    /// Whatever the bytes, reading ends with events or a RecordingError: no crash, no hang.
    @Test func mutatedRecordingsNeverCrash() throws {
        var recording = SyntheticRecording()
        recording.stroke(from: (100, 100), to: (500, 900), seconds: 0.3)
        recording.tap(x: 10, y: 10)
        var generator = SplitMix(seed: 42)
        for (name, text) in [("m.evemu", recording.evemu()), ("m.yml", recording.libinputRecord())] {
            let original = Array(text.utf8)
            for round in 0..<150 {
                var bytes = original
                for _ in 0..<(1 + round % 8) {
                    let index = Int(generator.next() % UInt64(bytes.count))
                    switch generator.next() % 4 {
                    case 0: bytes[index] = UInt8(truncatingIfNeeded: generator.next())
                    case 1: bytes.remove(at: index)
                    case 2: bytes.insert(UInt8(truncatingIfNeeded: generator.next() % 128), at: index)
                    default: bytes = Array(bytes[..<index])
                    }
                    if bytes.isEmpty { bytes = [0x0a] }
                }
                let path = try temporaryFile(name, bytes)
                do {
                    let (events, source) = try readAll(path)
                    var decoder = MultitouchDecoder(device: source.device, screen: .portraitFullHD)
                    var frame = TouchFrame(time: .zero)
                    for event in events where decoder.feed(event, into: &frame) { frame.removeAll() }
                } catch is RecordingError {
                    continue
                }
            }
        }
    }
}
