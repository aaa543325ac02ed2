import Foundation
import SheetCore
@testable import SheetRenderKit
import SheetTestSupport
import Testing

/// Text set by Pango in every script the sheet must show, checked glyph by glyph and in golden
/// pictures. The goldens are set in Noto Sans with its fallbacks (fonts-noto-core,
/// fonts-noto-cjk, fonts-noto-color-emoji, which `make deps` installs) and compared as a person
/// would see them (`GoldenTolerance`), so that a point release of the text stack passes.
@Suite struct TypesetTextTests {
    static let typesetter = Result { try Typesetter(font: "Noto Sans") }

    /// A sample of each script: every grapheme in it is set with ink and with no missing-glyph
    /// box, so no installed font is missing and no fallback was skipped.
    static let scripts: [(script: String, text: String)] = [
        ("Latin with accents", "Réglages Ünïcödé ñ ç ø ß"),
        ("Korean", "설정 와이파이 블루투스"),
        ("Japanese", "設定 ディスプレイ ひらがな"),
        ("Chinese", "设置 蓝牙 顯示"),
        ("Arabic", "الإعدادات والشبكة"),
        ("Hebrew", "הגדרות רשת"),
        ("Thai", "การตั้งค่า ภาษาไทย"),
        ("Devanagari", "सेटिंग्स हिन्दी"),
        ("Greek and Cyrillic", "Ρυθμίσεις Настройки"),
        ("emoji", "🔋🎵📶👍🏽"),
    ]

    @Test func everyGlyphOfEveryScriptHasInk() throws {
        let typesetter = try Self.typesetter.get()
        for (script, text) in Self.scripts {
            let whole = typesetter.image(text, style: Self.style(text))
            #expect(whole.unknownGlyphs == 0, "\(script): \(whole.unknownGlyphs) characters have no font")
            for grapheme in text where !grapheme.isWhitespace {
                let image = typesetter.image(String(grapheme), style: Self.style(String(grapheme)))
                #expect(image.unknownGlyphs == 0, "\(script): '\(grapheme)' has no font (a hex box)")
                let inked = image.pixels.filter { $0 >> 24 > 64 }.count
                #expect(inked >= 6, "\(script): '\(grapheme)' is drawn with \(inked) inked pixels")
            }
        }
    }

    @Test func emojiAreInColour() throws {
        let typesetter = try Self.typesetter.get()
        let image = typesetter.image("🔋🎵", style: Self.style("🔋🎵"))
        let coloured = image.pixels.filter { pixel in
            let r = Int(pixel >> 16 & 0xFF), g = Int(pixel >> 8 & 0xFF), b = Int(pixel & 0xFF)
            return pixel >> 24 > 128 && max(abs(r - g), abs(g - b), abs(r - b)) > 60
        }
        #expect(coloured.count > 100, "the emoji are drawn in their own colours, not the text's grey")
    }

    @Test func aLineTooLongEndsInAnEllipsisWithinItsWidth() throws {
        let typesetter = try Self.typesetter.get()
        let text = String(repeating: "A label far too long for its row ", count: 4)
        let image = typesetter.image(text, style: TextStyle(sizeInPixels: 17, color: .black, maximumWidthInPixels: 200))
        #expect(image.isEllipsized)
        #expect(image.width <= 200)
        let short = typesetter.image("Wi-Fi", style: TextStyle(sizeInPixels: 17, color: .black, maximumWidthInPixels: 200))
        #expect(!short.isEllipsized)
    }

    @Test func theTitlesDirectionFollowsItsFirstStrongLetter() {
        #expect(TextDirection.of("설정 — Réglages") == .leftToRight)
        #expect(TextDirection.of("الإعدادات") == .rightToLeft)
        #expect(TextDirection.of("123 שלום") == .rightToLeft, "digits are weak; the Hebrew letter decides")
        #expect(TextDirection.of("🔋 Battery") == .leftToRight)
        #expect(TextDirection.of("\u{200F}Wi-Fi") == .rightToLeft, "a right-to-left mark is strong")
        #expect(TextDirection.of("") == .leftToRight)
    }

    @Test func theCacheIsBoundedAndKeepsTheNewest() throws {
        let typesetter = try Typesetter(font: "Noto Sans", cacheBytes: 1 << 16)
        let style = TextStyle(sizeInPixels: 17, color: .black, maximumWidthInPixels: 400)
        for index in 0..<200 { _ = typesetter.image("Row number \(index)", style: style) }
        let (lines, bytes) = typesetter.cached
        #expect(bytes <= 1 << 16)
        #expect(lines > 0 && lines < 200)
    }

    @Test func aFontPatternThatMatchesNothingFallsBackToAnInstalledFont() throws {
        let typesetter = try Typesetter(font: "No Such Font Family 12345")
        let image = typesetter.image("Réglages 설정", style: Self.style("Réglages 설정"))
        #expect(image.unknownGlyphs == 0)
        #expect(image.pixels.contains { $0 >> 24 > 128 })
        #expect(throws: TypesetterError.self) { try Typesetter(font: "Noto\u{0}Sans") }
    }

    static func style(_ text: String) -> TextStyle {
        TextStyle(sizeInPixels: 24, color: RGB(hex: 0x1C1C1E), maximumWidthInPixels: 4000, direction: TextDirection.of(text))
    }

    // MARK: Goldens

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var width: Int
        var height: Int
        var scale: Double
        var top: Double
        var title: String
        var labels: [String]
        /// Whole items, for rows that are more than a label.
        var items: [SheetItem] = []
        var look: Look = Look()
        /// The card's extent when narrower than the display (the core's, from `SheetLayout`).
        var card: CardSpan? = nil
        /// The focus ring, where a key put it.
        var focus: SheetScene.FocusRing? = nil
        var testDescription: String { name }
    }

    /// A settings sheet: icons, second lines, a switch on and off, a check, a chevron, a value,
    /// a disabled row and two sections (as examples/settings.yaml, sections written out as the
    /// daemon sends them).
    static let settings = [
        SheetItem(id: "wifi", label: "Wi-Fi", subtitle: "Home network", icon: "network-wireless-symbolic",
                  accessory: .toggle(isOn: true), section: "Connections"),
        SheetItem(id: "bt", label: "Bluetooth", subtitle: "Off", icon: "bluetooth-active-symbolic",
                  accessory: .toggle(isOn: false), section: "Connections"),
        SheetItem(id: "vpn", label: "VPN", subtitle: "Needs a network", icon: "network-vpn-symbolic",
                  accessory: .toggle(isOn: false), disabled: true, section: "Connections"),
        SheetItem(id: "display", label: "Brightness", icon: "display-brightness-symbolic", accessory: .value("80 %"), section: "Display"),
        SheetItem(id: "dark", label: "Dark style", icon: "weather-clear-night-symbolic", accessory: .check(isChecked: true),
                  section: "Display"),
        SheetItem(id: "about", label: "About this device", icon: "help-about-symbolic", accessory: .chevron, section: "Display"),
    ]

    static let cases: [Case] = [
        Case(name: "text-korean-540x960", width: 540, height: 960, scale: 1, top: 300, title: "설정 — Réglages",
             labels: ["와이파이", "블루투스", "디스플레이 밝기", "소리와 진동", "日本語: 画面の設定", "中文: 显示设置",
                      "ภาษาไทย: การตั้งค่า", "हिन्दी: सेटिंग्स", "🔋 배터리 87 %  🎵 🎉",
                      "A label far too long for the row it sits in, so it ends in an ellipsis before the edge of the card", "Über dieses Gerät"]),
        Case(name: "text-arabic-540x960", width: 540, height: 960, scale: 1, top: 300, title: "الإعدادات",
             labels: ["شبكة Wi-Fi", "البلوتوث", "الشاشة والسطوع", "الأصوات", "עברית: הגדרות רשת",
                      "اللغة والمنطقة الجغرافية وتنسيق التاريخ والوقت والأرقام والعملات ووحدات القياس", "حول هذا الجهاز"]),
        // The dark theme: libadwaita's dark dialog colour with white text.
        Case(name: "text-korean-dark-540x960", width: 540, height: 960, scale: 1, top: 300, title: "설정 — Réglages",
             labels: ["와이파이", "블루투스", "디스플레이 밝기", "日本語: 画面の設定", "🔋 배터리 87 %  🎵 🎉", "Über dieses Gerät"],
             look: Look(Appearance(theme: .dark))),
        Case(name: "rich-items-540x960", width: 540, height: 960, scale: 1, top: 180, title: "Settings",
             labels: [], items: settings),
        // The same in the dark theme with an orange accent.
        Case(name: "rich-items-dark-540x960", width: 540, height: 960, scale: 1, top: 180, title: "Settings",
             labels: [], items: settings, look: Look(Appearance(theme: .dark, accent: RGB(hex: 0xE66100)))),
        // A landscape car panel: the card 640 pt wide in the middle, the dim either side.
        Case(name: "panel-1920x720", width: 1920, height: 720, scale: 1, top: 200, title: "Climate",
             labels: ["Driver 21.5 °C", "Passenger 22 °C", "Fan speed", "Recirculate air", "Seat heating"],
             card: SheetLayout().cardSpan(screenWidth: 1920)),
        // The focus ring (keys): on Bluetooth's two-line row, on the close button, and in the
        // dark theme on a one-line row, each at least 3:1 against its card.
        Case(name: "focus-row-540x960", width: 540, height: 960, scale: 1, top: 180, title: "Settings",
             labels: [], items: settings, focus: .row(1)),
        Case(name: "focus-close-540x960", width: 540, height: 960, scale: 1, top: 180, title: "Settings",
             labels: [], items: settings, focus: .close),
        Case(name: "focus-row-dark-540x960", width: 540, height: 960, scale: 1, top: 180, title: "Settings",
             labels: [], items: settings, look: Look(Appearance(theme: .dark, accent: RGB(hex: 0xE66100))), focus: .row(4)),
        // High contrast: black on white, strong separators, the card's edge drawn, a 3 pt ring;
        // and white on black on a car panel, where the card's sides meet the dim.
        Case(name: "high-contrast-540x960", width: 540, height: 960, scale: 1, top: 180, title: "Settings",
             labels: [], items: settings, look: Look(Appearance(theme: .highContrast)), focus: .row(1)),
        Case(name: "high-contrast-dark-panel-1920x720", width: 1920, height: 720, scale: 1, top: 200, title: "Climate",
             labels: ["Driver 21.5 °C", "Passenger 22 °C", "Fan speed", "Recirculate air", "Seat heating"],
             look: Look(Appearance(theme: .highContrastDark)), card: SheetLayout().cardSpan(screenWidth: 1920), focus: .row(2)),
    ]

    @Test(arguments: cases)
    func matchesItsGoldenImage(_ c: Case) throws {
        let typesetter = try Self.typesetter.get()
        let items = c.items + c.labels.enumerated().map { SheetItem(id: "item\($0.offset)", label: $0.element) }
        let list = ListScene(items: items, titleBarHeight: 56 * c.scale, itemHeight: 56 * c.scale, scroll: 0, othersScale: 1,
                             lifted: nil, moving: [], height: c.height)
        var scene = SheetScene(width: c.width, height: c.height, scale: c.scale, top: c.top, dim: 0.7, progress: 0.7,
                               look: c.look, title: c.title, list: list, card: c.card)
        scene.focusRing = c.focus
        let canvas = Canvas(width: c.width, height: c.height, format: .xrgb8888)
        Painter(typesetter: typesetter, icons: IconCache()).draw(scene, into: canvas)
        try compareWithTolerance(canvas, name: c.name)
    }
}
