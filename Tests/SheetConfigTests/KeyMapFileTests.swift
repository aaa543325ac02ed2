import SheetConfig
import SheetCore
import Testing

/// The key map, keys, switch scanning and key repeat as sheetd.yaml sets them.
@Suite struct KeyMapFileTests {
    @Test func aKeyMapReplacesAndRemovesBindingsOverTheDefault() throws {
        var settings = Settings()
        try settings.load(text: """
            key-map:
              KEY_F1: open
              shift+KEY_TAB: next
              ctrl+REL_DIAL+: move-down
              KEY_MENU: none
            keys: [AT Translated Set 2 keyboard, /dev/input/event7]
            switch-scan: 1.5
            key-repeat-delay: 0.4
            key-repeat-rate: 20
            """, path: "sheetd.yaml")
        let bindings = settings.engine.focus.keyMap.bindings
        #expect(bindings.contains(KeyBinding(.key(59), [], .open)), "KEY_F1 is 59")
        #expect(bindings.contains(KeyBinding(.key(KeyCode.tab), .shift, .next)))
        #expect(!bindings.contains(KeyBinding(.key(KeyCode.tab), .shift, .previous)), "replaced")
        #expect(bindings.contains(KeyBinding(.dialUp, .control, .moveDown)))
        #expect(!bindings.contains { $0.input == .key(KeyCode.menu) }, "removed")
        #expect(bindings.contains(KeyBinding(.key(KeyCode.tab), [], .next)), "the rest of the default stays")
        #expect(settings.keyDevices == ["AT Translated Set 2 keyboard", "/dev/input/event7"])
        #expect(settings.engine.focus.switchScanMicroseconds == 1_500_000)
        #expect(settings.engine.focus.repeatDelayMicroseconds == 400_000)
        #expect(settings.engine.focus.repeatIntervalMicroseconds == 50_000)
    }

    @Test(arguments: [
        ("key-map:\n  KEY_NOPE: next\n", 2, "`key-map`: the kernel has no key called `KEY_NOPE`"),
        ("key-map:\n  KEY_TAB: sideways\n", 2, "`key-map`: `sideways` for KEY_TAB is not one of"),
        ("key-map:\n  super+KEY_TAB: next\n", 2, "`key-map`: `super` in `super+KEY_TAB` is not shift, ctrl or alt"),
        ("key-map:\n  KEY_LEFTSHIFT: next\n", 2, "`key-map`: `KEY_LEFTSHIFT` is a modifier"),
        ("key-map:\n  tab: next\n", 2, "`key-map`: `tab` is not a key"),
        ("switch-scan: 0.1\n", 1, "`switch-scan`"),
    ])
    func aBadLineIsNamedWithItsLine(_ text: String, _ line: Int, _ reason: String) {
        var settings = Settings()
        do {
            try settings.load(text: text, path: "sheetd.yaml")
            Issue.record("\(text) was taken")
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.reason.hasPrefix(reason), "\(error.reason)")
        }
    }
}
