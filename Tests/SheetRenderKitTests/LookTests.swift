import SheetCore
@testable import SheetRenderKit
import Testing

/// The themes' colours: text reads on its card at WCAG AA (4.5:1) in both themes and on any
/// card colour a person picks, and a published appearance reaches every part of the look.
@Suite struct LookTests {
    @Test(arguments: [Theme.light, .dark])
    func everyTextMeetsWCAGAAOnItsCard(theme: Theme) {
        let look = Look(Appearance(theme: theme))
        for (part, colour) in [("title", look.title), ("label", look.label), ("second line", look.secondaryLabel),
                               ("close mark", look.closeMark)] {
            #expect(colour.contrast(with: look.card) >= 4.5, "\(theme.name): \(part) \(colour) on \(look.card) is \(colour.contrast(with: look.card)):1")
        }
        // The close button's mark on its disc, and the card against white and black text alike.
        #expect(look.closeMark.contrast(with: look.closeFill) >= 4.5)
    }

    @Test func theContrastRatioIsWCAGs() {
        #expect(abs(RGB.black.contrast(with: .white) - 21) < 1e-9)
        #expect(RGB.white.contrast(with: .white) == 1)
        // #767676 on white is the lightest grey that passes AA: 4.54:1.
        #expect(abs(RGB(hex: 0x767676).contrast(with: .white) - 4.54) < 0.01)
    }

    @Test(arguments: [0x1A237E, 0xFFEB3B, 0x808080, 0x000000, 0xFFFFFF, 0xE66100] as [UInt32])
    func aCardColourAPersonPicksKeepsItsTextLegible(_ hex: UInt32) {
        for theme in [Theme.light, .dark] {
            let look = Look(Appearance(theme: theme, card: RGB(hex: hex)))
            #expect(look.card == RGB(hex: hex))
            #expect(look.label.contrast(with: look.card) >= 4.5, "\(theme.name) on \(look.card): \(look.label)")
            #expect(look.secondaryLabel.contrast(with: look.card) >= 4.5, "\(theme.name) on \(look.card): \(look.secondaryLabel)")
            #expect(look.focusRing.contrast(with: look.card) >= 3, "\(theme.name) on \(look.card): the focus ring \(look.focusRing)")
        }
    }

    /// The focus ring stands out from its card by 3:1 (WCAG 2.4.13) whatever the accent: an
    /// accent too close to the card gives way to the text's colour.
    @Test(arguments: [0x3584E4, 0xE66100, 0xFFEB3B, 0xFFFFFF, 0x383838, 0x000000] as [UInt32])
    func theFocusRingStandsOutFromEveryCard(_ accent: UInt32) {
        for theme in [Theme.light, .dark] {
            let look = Look(Appearance(theme: theme, accent: RGB(hex: accent)))
            #expect(look.focusRing.contrast(with: look.card) >= 3, "\(theme.name), accent \(RGB(hex: accent)): \(look.focusRing)")
        }
    }

    @Test func autoFollowsTheRenderersPreference() {
        var base = Look()
        #expect(base.applying(Appearance(theme: .auto)).card == .white)
        base.prefersDark = true
        #expect(base.applying(Appearance(theme: .auto)).card == Look.Palette.dark.card)
        #expect(base.applying(Appearance(theme: .light)).card == .white, "light is light whatever the preference")
        base.prefersHighContrast = true
        let contrast = base.applying(Appearance(theme: .auto))
        #expect(contrast.card == Look.Palette.highContrastDark.card && contrast.focusRingWidthPoints == 3, "a session asking for more contrast")
        base.prefersDark = false
        #expect(base.applying(Appearance(theme: .auto)).card == Look.Palette.highContrast.card)
        #expect(base.applying(Appearance(theme: .dark)).card == Look.Palette.dark.card, "a theme named is drawn as named")
        base.preferredTextScale = 1.5
        #expect(base.applying(Appearance(textScale: nil)).textScale == 1.5, "text-scale auto: the session's")
        #expect(base.applying(Appearance(textScale: 2)).textScale == 2, "a scale named is drawn as named")
    }

    @Test func anAppearanceReachesEveryPart() {
        let appearance = Appearance(theme: .dark, accent: RGB(hex: 0xE66100), font: "DejaVu Serif", textScale: 1.5,
                                    dim: RGB(hex: 0x102030), cornerRadiusInPoints: 12)
        var base = Look()
        base.background = RGB(hex: 0x445566)
        let look = base.applying(appearance)
        #expect(look.accent == RGB(hex: 0xE66100) && look.font == "DejaVu Serif" && look.textScale == 1.5)
        #expect(look.dim == RGB(hex: 0x102030) && look.cornerRadiusPoints == 12)
        #expect(look.background == RGB(hex: 0x445566), "what lies under the dim stays the renderer's")
        #expect(Look(Appearance.standard) == Look(), "the standard appearance is the default look")
    }

    @Test func coloursReadAsWritten() {
        #expect(RGB(parsing: "#3584e4") == RGB(hex: 0x3584E4))
        #expect(RGB(parsing: "#3AE") == RGB(hex: 0x33AAEE))
        #expect(RGB(hex: 0x3584E4).description == "#3584e4")
        for bad in ["3584e4", "#3584e", "#3584e4f", "#xyzxyz", "", "#", "blue"] { #expect(RGB(parsing: bad) == nil, "\(bad)") }
    }

    /// The high-contrast themes: every text at least 7:1 on its card (WCAG 1.4.6), separators,
    /// the grabber and the card's edge at least 3:1 (1.4.11), the ring at 4.5:1 and 3 pt.
    @Test(arguments: [Theme.highContrast, .highContrastDark])
    func highContrastMeetsWCAGAAA(theme: Theme) {
        for accent in [Appearance.gnomeBlue, RGB(hex: 0xE66100), RGB(hex: 0xFFEB3B)] {
            let look = Look(Appearance(theme: theme, accent: accent))
            for (part, colour) in [("title", look.title), ("label", look.label), ("second line", look.secondaryLabel),
                                   ("close mark", look.closeMark)] {
                #expect(colour.contrast(with: look.card) >= 7, "\(theme.name): \(part) \(colour) on \(look.card)")
            }
            for (part, colour) in [("separator", look.separator), ("grabber", look.grabber)] {
                #expect(colour.contrast(with: look.card) >= 3, "\(theme.name): \(part) \(colour) on \(look.card)")
            }
            #expect(look.focusRing.contrast(with: look.card) >= 4.5, "\(theme.name), accent \(accent): \(look.focusRing)")
            #expect(look.focusRingWidthPoints == 3 && look.cardEdgePoints == 2)
        }
    }

    /// A card colour a person picks under high contrast: every text still at 7:1, separators and
    /// the grabber at 3:1, the ring at 4.5:1. A card on which text can reach 7:1 is kept; a mid
    /// grey or orange, on which neither black nor white can, is lightened or darkened until it does.
    @Test(arguments: [0x1A237E, 0xFFEB3B, 0x808080, 0x777777, 0x000000, 0xFFFFFF, 0xE66100, 0x3584E4] as [UInt32])
    func aCardColourUnderHighContrastStillReadsAtAAA(_ hex: UInt32) {
        for theme in [Theme.highContrast, .highContrastDark] {
            let look = Look(Appearance(theme: theme, card: RGB(hex: hex)))
            let readable = max(RGB.black.contrast(with: RGB(hex: hex)), RGB.white.contrast(with: RGB(hex: hex))) >= 7
            #expect((look.card == RGB(hex: hex)) == readable, "\(theme.name): \(RGB(hex: hex)) became \(look.card)")
            for (part, colour) in [("label", look.label), ("second line", look.secondaryLabel), ("close mark", look.closeMark)] {
                #expect(colour.contrast(with: look.card) >= 7, "\(theme.name) on \(look.card): \(part) \(colour)")
            }
            for (part, colour) in [("separator", look.separator), ("grabber", look.grabber)] {
                #expect(colour.contrast(with: look.card) >= 3, "\(theme.name) on \(look.card): \(part) \(colour)")
            }
            #expect(look.focusRing.contrast(with: look.card) >= 4.5, "\(theme.name) on \(look.card): the ring \(look.focusRing)")
        }
    }

    /// A ring on a row of a list still below the screen (the card coming up as a key opens the
    /// sheet) draws nothing, and traps on no range.
    @Test func aRingOnAListBelowTheScreenDrawsNothing() {
        for top in [200.0, 240, 300] {
            let list = ListScene(items: [SheetItem(id: "a", label: "A")], titleBarHeight: 56, itemHeight: 56, scroll: 0,
                                 othersScale: 1, lifted: nil, moving: [], height: 240)
            var scene = SheetScene(width: 320, height: 240, scale: 1, top: top, dim: 0, progress: 0, title: "T", list: list)
            scene.focusRing = .row(0)
            let canvas = Canvas(width: 320, height: 240, format: .xrgb8888)
            Painter().draw(scene, into: canvas)
            #expect(canvas.pixel(x: 9, y: 239) != scene.look.focusRing)
        }
    }
}

