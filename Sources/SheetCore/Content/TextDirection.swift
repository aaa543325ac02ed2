/// Which way a line of text reads. The core decides it for the title (the close button goes to
/// the side where the title ends, on the left for Arabic or Hebrew) and renderers lay text out
/// the same way, so what is drawn and what is hit-tested agree.
public enum TextDirection: UInt8, Sendable, BitwiseCopyable, Named {
    case leftToRight
    case rightToLeft

    public var name: StaticString {
        switch self {
        case .leftToRight: return "ltr"
        case .rightToLeft: return "rtl"
        }
    }

    /// The paragraph direction of `text` by the Unicode bidirectional algorithm's rules P2 and
    /// P3 (UAX #9): the first strong character decides; with none (digits, punctuation, emoji
    /// only), left to right. A letter is strongly right-to-left in the blocks whose letters are
    /// of bidi class R or AL (Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic, their
    /// presentation forms, and the historic right-to-left scripts of planes 1); every other
    /// letter is strongly left-to-right. The marks LRM, RLM and ALM count as strong.
    public static func of(_ text: String) -> TextDirection {
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x200E: return .leftToRight
            case 0x200F, 0x061C: return .rightToLeft
            default: break
            }
            guard isLetter(scalar) else { continue }
            return isRightToLeftBlock(scalar.value) ? .rightToLeft : .leftToRight
        }
        return .leftToRight
    }

    static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: return true
        default: return false
        }
    }

    static func isRightToLeftBlock(_ value: UInt32) -> Bool {
        switch value {
        case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF, 0x10800...0x10FFF, 0x1E800...0x1EFFF: return true
        default: return false
        }
    }
}
