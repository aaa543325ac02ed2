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
            """, path: "sheetd.yaml")
        #expect(settings.engine.screen == ScreenSize(widthInPixels: 800, heightInPixels: 480, scale: 2))
        #expect(settings.engine.sheet.ruleSet == .halfDrag)
        #expect(settings.engine.sheet.detents.map(\.name).contains("peek"))
        #expect(settings.engine.initialDetent == "peek")
        #expect(settings.engine.gestures.longPressSeconds == 0.7)
        #expect(settings.engine.gestures.slopInPoints == 10)
        #expect(settings.engine.gestures.swipeMinimumPointsPerSecond == 900)
        #expect(settings.input == "udev:seat-panel")
        #expect(settings.socketMode == 0o600)
        #expect(settings.clientStallSeconds == 2.5)
    }

    @Test(arguments: [
        ("screen: 800x480\nslop: lots\n", 2, "`slop` wants points from 1 to 200; got `lots`"),
        ("screen: 800x480\nwidth: 3\n", 2, "unknown key `width`"),
        ("policy: tutorial\npolicy: half-drag\n", 2, "`policy` is set twice"),
        ("screen: [1, 2\n", 2, "not valid YAML"),
        ("- screen\n", 1, "the file must be a map"),
        ("detents:\n  - peek=85%\n  - nonsense\n", 3, "`detents` wants NAME=N%"),
        ("input: replay:x.yml@fast\n", 1, "replay:FILE@SPEED wants a speed"),
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

    @Test func inputSpecsParse() throws {
        #expect(try InputSpec(parsing: "udev") == .udev(seat: "seat0"))
        #expect(try InputSpec(parsing: "path:/dev/input/event3,/dev/input/event4") == .paths(["/dev/input/event3", "/dev/input/event4"]))
        #expect(try InputSpec(parsing: "replay:a@b.yml@max") == .replay(path: "a@b.yml", speed: nil))
        #expect(try InputSpec(parsing: "replay:tap.yml") == .replay(path: "tap.yml", speed: 1))
        #expect(throws: SettingError.self) { _ = try InputSpec(parsing: "path:event3") }
    }
}
