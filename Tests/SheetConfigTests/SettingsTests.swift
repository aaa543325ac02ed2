import SheetConfig
import SheetCore
import SheetTestSupport
import Testing

@Suite struct SettingsTests {
    @Test func theShippedExampleSetsEveryDefault() throws {
        var settings = Settings()
        try settings.load(path: fixtures.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("packaging/sheetd.yaml").path)
        let defaults = Settings()
        #expect(settings.engine == defaults.engine)
        #expect(settings.input == defaults.input)
        #expect(settings.socketPath == defaults.socketPath)
        #expect(settings.socketMode == 0o660)
    }

    @Test func aFileSetsEachKey() throws {
        var settings = Settings()
        try settings.load(text: """
            screen: 800x480
            scale: 2
            policy: half-drag
            detents: [peek=85%, top=40pt]
            initial: peek
            long-press: 0.7
            slop: 10
            swipe-velocity: 900
            seat: seat-panel
            socket-mode: "0600"
            client-stall-timeout: 2.5
            reduce-motion: true
            reduce-motion-fade-in: 0.3
            max-width: 560
            align: end
            theme: dark
            accent: "#e66100"
            font: Noto Sans
            text-scale: 1.25
            card-color: "#1a1a2e"
            dim-color: theme
            corner-radius: 16
            """, path: "sheetd.yaml")
        #expect(settings.engine.screen == ScreenSize(widthInPixels: 800, heightInPixels: 480, scale: 2))
        #expect(settings.engine.sheet.ruleSet == .halfDrag)
        #expect(settings.engine.sheet.detents.map(\.name.description).contains("peek"))
        #expect(settings.engine.initialDetent.description == "peek")
        #expect(settings.engine.gestures.longPressSeconds == 0.7)
        #expect(settings.engine.gestures.slopInPoints == 10)
        #expect(settings.engine.gestures.swipeMinimumPointsPerSecond == 900)
        #expect(settings.input == "udev:seat-panel" && settings.seat.name == "seat-panel")
        #expect(settings.socketPath == "/run/sheetd/seat-panel/io.sheetd.Sheet" && settings.inputSocketPath == "/run/sheetd/seat-panel/io.sheetd.Input")
        #expect(settings.socketMode == 0o600)
        #expect(settings.clientStallSeconds == 2.5)
        #expect(settings.engine.sheet.reduceMotion)
        #expect(settings.engine.sheet.reducedMotionFadeInSeconds == 0.3)
        #expect(settings.engine.layout.maximumWidth == 560 && settings.engine.layout.alignment == .end)
        #expect(settings.engine.appearance == Appearance(theme: .dark, accent: RGB(hex: 0xE66100), font: "Noto Sans", textScale: 1.25,
                                                         card: RGB(hex: 0x1A1A2E), dim: nil, cornerRadiusInPoints: 16))
    }

    @Test(arguments: [
        ("screen: 800x480\nslop: lots\n", 2, "`slop` wants points from 1 to 200; got `lots`"),
        ("screen: 800x480\nwidth: 3\n", 2, "unknown key `width`"),
        ("slop: 10\nreduce-motion: yes\n", 2, "`reduce-motion` wants true or false; got `yes`"),
        ("reduce-motion-fade-out: 2\n", 1, "`reduce-motion-fade-out` wants seconds from 0 to 1; got `2`"),
        ("policy: tutorial\npolicy: half-drag\n", 2, "`policy` is set twice"),
        ("screen: [1, 2\n", 2, "not valid YAML"),
        ("- screen\n", 1, "the file must be a map"),
        ("detents:\n  - peek=85%\n  - nonsense\n", 3, "`detents` wants NAME=N%"),
        ("detents:\n  - a-very-long-peek=85%\n", 2, "`detents` wants NAME=N% of the height or NAME=Npt from the top, like peek=85%, NAME 1 to 15 bytes"),
        ("initial: a-very-long-detent\n", 1, "`initial` wants a detent's name (1 to 15 bytes"),
        ("input: replay:x.yml@fast\n", 1, "replay:FILE@SPEED wants a speed"),
        ("screen: 800x480\npolicy: *tutorial\n", 2, "aliases (*name) are not accepted"),
        ("screen: 800x480\nbase: &b {slop: 3}\n", 2, "anchors (&name) are not accepted"),
        (SettingsTests.aliasBomb, 1, "anchors (&name) are not accepted"),
        ("theme: purple\n", 1, "`theme` wants light, dark, auto, high-contrast, high-contrast-dark; got `purple`"),
        // An unquoted # starts a YAML comment: the value is empty, and the error says to quote it.
        ("accent: #3584e4\n", 1, "`accent` wants a colour like #3584e4 (quote it in YAML"),
        ("card-color: blue\n", 1, "`card-color` wants a colour like #3584e4"),
        ("text-scale: 4\n", 1, "`text-scale` wants a factor from 0.5 to 3, or auto; got `4`"),
        ("corner-radius: -1\n", 1, "`corner-radius` wants points from 0 to 64"),
        ("font: \"Noto\\u0007Sans\"\n", 1, "`font` wants a fontconfig pattern like Noto Sans: holds a control character"),
        ("max-width: 100\n", 1, "`max-width` wants points from 160 to 16384"),
        ("align: middle\n", 1, "`align` wants center, start, end; got `middle`"),
        ("slop: " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "\n", 1, "nested deeper than 64"),
    ])
    func badFilesNameTheLine(_ text: String, _ line: Int, _ reason: String) {
        var settings = Settings()
        do {
            try settings.load(text: text, path: "sheetd.yaml")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.line == line)
            #expect(error.reason.hasPrefix(reason), "\(error)")
            #expect("\(error)".hasPrefix("sheetd.yaml:\(line): "))
        }
    }

    /// A 1.7 KB "billion laughs": nine anchors of ten aliases each, the last used as a key,
    /// made Yams hash 10⁹ nodes before it was refused at its first anchor.
    static let aliasBomb: String = {
        var text = "a0: &a0 [" + Array(repeating: "lol", count: 10).joined(separator: ", ") + "]\n"
        for level in 1...9 {
            text += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        return text + "bomb: {? *a9 : 1}\n"
    }()

    /// One start names every bad line, not only the first.
    @Test func everyBadLineIsReported() {
        var settings = Settings()
        do {
            try settings.load(text: "screen: 1x1\nslop: 3\nslop-ish: 2\npolicy: sideways\n", path: "sheetd.yaml")
            Issue.record("accepted")
        } catch {
            #expect(error.line == 1)
            #expect(error.others.map(\.line) == [3, 4])
            #expect("\(error)".split(separator: "\n").map { $0.prefix(14) } == ["sheetd.yaml:1:", "sheetd.yaml:3:", "sheetd.yaml:4:"])
        }
    }

    @Test func atMostSixtyFourDetents() {
        var settings = Settings()
        let room = SheetConfiguration.maximumDetents - settings.engine.sheet.detents.count
        do {
            try settings.load(text: "detents:\n" + (0...room).map { "  - d\($0)=\($0)pt\n" }.joined(), path: "sheetd.yaml")
            Issue.record("accepted \(room + 1) more detents")
        } catch {
            #expect("\(error)" == "sheetd.yaml:\(room + 2): `detents` holds at most 64 detents; `d\(room)` is one more")
        }
    }

    /// `collapsed` is the bottom bar's detent: a configured one of that name is refused on its
    /// line instead of being dropped without a word. The presentation's keys are held to
    /// their ranges and names.
    @Test func thePresentationKeysAndTheBarsNameAreChecked() {
        var settings = Settings()
        do {
            try settings.load(text: "present-gesture: [bottom-bar]\ndetents:\n  - peek=85%\n  - collapsed=90%\n", path: "sheetd.yaml")
            Issue.record("a detent named collapsed was taken")
        } catch {
            #expect("\(error)".hasPrefix("sheetd.yaml:4: `detents`: `collapsed` is the bottom bar's detent"), "\(error)")
        }
        var presentation = Settings()
        #expect(throws: Never.self) {
            try presentation.load(text: "present-gesture: edge-swipe, bottom-bar\nmodal: false\ncan-close: false\nbar-height: 80\n", path: "p.yaml")
        }
        #expect(presentation.engine.sheet.presentation.gestures == [.edgeSwipe, .bottomBar])
        #expect(!presentation.engine.sheet.presentation.modal && presentation.engine.sheet.presentation.barHeightInPoints == 80)
        for (text, line) in [("present-gesture: corner\n", 1), ("edge-band: 1\n", 1), ("modal: maybe\n", 1), ("\nbar-height: 9999\n", 2)] {
            var bad = Settings()
            do {
                try bad.load(text: text, path: "bad.yaml")
                Issue.record("took \(text)")
            } catch {
                #expect("\(error)".hasPrefix("bad.yaml:\(line): "), "\(error)")
            }
        }
    }

    /// The rich example reads to the items it shows, sections written out on every item; an
    /// item key that does not exist, or an icon that could be a path, names its line.
    @Test func richContentReadsFromYAML() throws {
        let content = try ContentFile.load(path: fixtures.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("examples/settings.yaml").path)
        #expect(content.items.count == 6)
        #expect(content.items[0] == SheetItem(id: "wifi", label: "Wi-Fi", subtitle: "Home network", icon: "network-wireless-symbolic",
                                              accessory: .toggle(isOn: true), section: "Connections"))
        #expect(content.items[2].disabled && content.items[2].accessory == .toggle(isOn: false))
        #expect(content.items[3].accessory == .value("80 %") && content.items[4].accessory == .check(isChecked: true))
        #expect(content.items[5].accessory == .chevron)
        #expect(content.withSectionsWrittenOut.items.map(\.section) == ["Connections", "Connections", "Connections", "Display", "Display", "Display"])
        for (text, line, reason) in [
            ("items:\n  - {id: a, label: A}\n  - {id: b, colour: red}\n", 3, "item 1: unknown key; an item's keys are id, label"),
            ("items:\n  - {id: a, icon: ../../etc/shadow}\n", 2, "items[0].icon: not an icon name"),
            ("items:\n  - {id: a, accessory: toggle, on: maybe}\n", 2, "item 0: `on` wants true or false"),
        ] {
            do {
                _ = try ContentFile.parse(text: text, path: "menu.yaml")
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.line == line && error.reason.hasPrefix(reason), "\(error)")
            }
        }
    }

    @Test func contentFilesRefuseAliasesToo() throws {
        do {
            _ = try ContentFile.parse(text: "title: &t Settings\nitems: []\n", path: "menu.yaml")
            Issue.record("accepted an anchor")
        } catch {
            #expect("\(error)" == "menu.yaml:1: anchors (&name) are not accepted")
        }
    }

    /// A seat's daemon has its seat's sockets unless `socket` names one, before or after;
    /// `output` is a connector's name.
    @Test func aSeatMovesTheSocketsAndOutputNamesAConnector() throws {
        var settings = Settings()
        #expect(settings.socketPath == "/run/sheetd/io.sheetd.Sheet" && settings.seat == .main)
        try settings.set("seat", "seat1")
        #expect(settings.socketPath == "/run/sheetd/seat1/io.sheetd.Sheet" && settings.input == "udev:seat1")
        try settings.set("socket", "/tmp/rear/io.sheetd.Sheet")
        try settings.set("seat", "seat2")
        #expect(settings.socketPath == "/tmp/rear/io.sheetd.Sheet" && settings.seat.name == "seat2", "a named socket stays")
        for bad in ["seat", "front", "seat1/..", "seat 1"] {
            #expect(throws: SettingError.self) { try settings.set("seat", bad) }
        }
        try settings.set("output", "HDMI-A-1")
        #expect(settings.output == "HDMI-A-1")
        for bad in ["", "HDMI A 1", "../card0", String(repeating: "A", count: 33)] {
            #expect(throws: SettingError.self) { try settings.set("output", bad) }
        }
    }

    @Test func inputSpecsParse() throws {
        #expect(try InputSpec(parsing: "udev") == .udev(seat: "seat0"))
        #expect(try InputSpec(parsing: "path:/dev/input/event3,/dev/input/event4") == .paths(["/dev/input/event3", "/dev/input/event4"]))
        #expect(try InputSpec(parsing: "replay:a@b.yml@max") == .replay(path: "a@b.yml", speed: nil))
        #expect(try InputSpec(parsing: "replay:tap.yml") == .replay(path: "tap.yml", speed: 1))
        #expect(throws: SettingError.self) { _ = try InputSpec(parsing: "path:event3") }
    }
}
