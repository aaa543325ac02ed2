/// The words the sheet says or names itself, in one language: what `Announcer` speaks around the
/// content's own labels ("sheet", "half open", "switch", "1 of 2") and what `AccessibleTree`
/// names (the close button, the actions). English is the messages themselves; another language
/// comes from its gettext catalog (`SheetCatalog`, `po/LANG.po`).
///
/// Sentences are the translator's formats with numbered placeholders (`%1$s`, `%2$d`), so each
/// language puts the words in its own order: `%1$s, sheet, %2$s` is "Tickets, sheet, half open"
/// and, in Korean, "%1$s, 시트, %2$s".
public struct SheetWords: Sendable {
    /// The gettext language the words are in (`de`, `pt_BR`); empty for English.
    public var language: String
    /// Looks a message up: its translation, or its English text.
    private let lookUp: @Sendable (Message) -> String
    /// `%1$d of %2$d` in the plural form the total takes in this language.
    private let positionFormat: @Sendable (_ total: Int) -> String

    public init(language: String, lookUp: @escaping @Sendable (Message) -> String,
                positionFormat: @escaping @Sendable (_ total: Int) -> String) {
        self.language = language
        self.lookUp = lookUp
        self.positionFormat = positionFormat
    }

    /// The messages as they are written: English.
    public static let english = SheetWords(language: "", lookUp: { $0.english }, positionFormat: { _ in Message.position.english })

    /// One of the sheet's own words or sentences, as gettext knows it: a context that tells
    /// the translator where it is used, and the English text (the catalog's msgid).
    public enum Message: String, CaseIterable, Sendable {
        case titledSheetOpen, sheetOpen, titledSheetClosed, sheetClosed
        case halfOpen, fullyOpen, openAtDetent, open
        case untitledSheet, close, button, switchRole, switchOn, switchOff, checked, notChecked, dimmed
        case position, separator
        case expand, expandDescription, collapse, collapseDescription, dismiss, dismissDescription
        case click, clickCloseDescription, clickItemDescription, toggle, toggleDescription

        /// gettext's message context (`msgctxt`).
        public var context: String {
            switch self {
            case .titledSheetOpen, .sheetOpen, .titledSheetClosed, .sheetClosed: "announcement"
            case .halfOpen, .fullyOpen, .openAtDetent, .open: "where the sheet rests"
            case .untitledSheet: "the sheet's name when it has no title"
            case .close: "the close button's name"
            case .button, .switchRole: "role"
            case .switchOn, .switchOff: "switch"
            case .checked, .notChecked: "check"
            case .dimmed: "state"
            case .position: "place in a section"
            case .separator: "between the words of an announcement"
            case .expand, .collapse, .dismiss, .click, .toggle: "action name"
            case .expandDescription, .collapseDescription, .dismissDescription, .clickCloseDescription,
                 .clickItemDescription, .toggleDescription: "action description"
            }
        }

        /// The English text, gettext's msgid (`msgid_plural` too for `position`).
        public var english: String {
            switch self {
            case .titledSheetOpen: "%1$s, sheet, %2$s"
            case .sheetOpen: "Sheet, %s"
            case .titledSheetClosed: "%s, sheet, closed"
            case .sheetClosed: "Sheet, closed"
            case .halfOpen: "half open"
            case .fullyOpen: "fully open"
            case .openAtDetent: "open at %s"
            case .open: "open"
            case .untitledSheet: "Sheet"
            case .close: "Close"
            case .button: "button"
            case .switchRole: "switch"
            case .switchOn: "on"
            case .switchOff: "off"
            case .checked: "checked"
            case .notChecked: "not checked"
            case .dimmed: "dimmed"
            case .position: "%1$d of %2$d"
            case .separator: ", "
            case .expand: "Expand"
            case .expandDescription: "Opens the sheet one step further"
            case .collapse: "Collapse"
            case .collapseDescription: "Lowers the sheet one step"
            case .dismiss: "Dismiss"
            case .dismissDescription: "Closes the sheet"
            case .click: "Click"
            case .clickCloseDescription: "Closes the sheet"
            case .clickItemDescription: "Activates the item"
            case .toggle: "Toggle"
            case .toggleDescription: "Turns it on or off"
            }
        }

        /// The placeholders a translation must keep, in order of their numbers.
        public var placeholders: [String] {
            switch self {
            case .titledSheetOpen: ["%1$s", "%2$s"]
            case .sheetOpen, .titledSheetClosed, .openAtDetent: ["%s"]
            case .position: ["%1$d", "%2$d"]
            default: []
            }
        }
    }

    public subscript(_ message: Message) -> String { lookUp(message) }

    /// "Tickets, sheet, half open", or "Sheet, half open" without a title.
    public func opening(title: String, place: String) -> String {
        title.isEmpty ? Self.format(self[.sheetOpen], [place]) : Self.format(self[.titledSheetOpen], [title, place])
    }

    /// "Tickets, sheet, closed".
    public func closing(title: String) -> String {
        title.isEmpty ? self[.sheetClosed] : Self.format(self[.titledSheetClosed], [title])
    }

    /// Where the sheet rests: a detent by its name (`half`, `expanded`, a custom one), or none.
    public func place(detent: String?) -> String {
        switch detent {
        case "half": self[.halfOpen]
        case "expanded": self[.fullyOpen]
        case let name?: Self.format(self[.openAtDetent], [name])
        case nil: self[.open]
        }
    }

    /// "3 of 4": the place of an item in its section.
    public func position(_ index: Int, of total: Int) -> String {
        Self.format(positionFormat(total), [String(index), String(total)])
    }

    /// Words joined as this language lists them (", "; "، " in Arabic, "、" in Japanese).
    public func list(_ words: [String]) -> String { words.joined(separator: self[.separator]) }

    /// `template` with its placeholders (`%s`, `%d`, `%1$s`, `%2$d`) replaced by `arguments`,
    /// numbered ones by number and the others in order; `%%` is a percent sign.
    public static func format(_ template: String, _ arguments: [String]) -> String {
        var result = ""
        var next = 0
        var characters = template.makeIterator()
        while let character = characters.next() {
            guard character == "%" else {
                result.append(character)
                continue
            }
            var number = 0
            var conversion = characters.next()
            while let digit = conversion?.wholeNumberValue, conversion?.isASCII == true {
                number = number * 10 + digit
                conversion = characters.next()
            }
            if number > 0, conversion == "$" { conversion = characters.next() } else if number > 0 {
                result += "%\(number)"
                if let conversion { result.append(conversion) }
                continue
            }
            switch conversion {
            case "s"?, "d"?:
                let index = number > 0 ? number - 1 : next
                next += 1
                if arguments.indices.contains(index) { result += arguments[index] }
            case "%"?:
                result.append("%")
            case let other?:
                result.append("%")
                result.append(other)
            case nil:
                result.append("%")
            }
        }
        return result
    }

    /// A BCP 47 tag as gettext names the language: `ko` → `ko`, `pt-BR` → `pt_BR`, `zh-Hans` →
    /// `zh_CN`, `zh-Hant` → `zh_TW`, `sr-Latn` → `sr@latin`; empty for an empty tag.
    public static func gettextLanguage(ofTag tag: String) -> String {
        let parts = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        guard let first = parts.first?.lowercased(), !first.isEmpty else { return "" }
        var region: String?
        var script: String?
        for part in parts.dropFirst() {
            if part.count == 4, script == nil, region == nil { script = part.lowercased() }
            else if (part.count == 2 || part.count == 3 && part.allSatisfy(\.isNumber)), region == nil { region = part.uppercased() }
        }
        if first == "zh" {
            if region == nil { region = script == "hant" ? "TW" : "CN" }
            return "zh_\(region!)"
        }
        if script == "latn", first == "sr" { return region.map { "sr_\($0)@latin" } ?? "sr@latin" }
        return region.map { "\(first)_\($0)" } ?? first
    }

    /// The language of a POSIX locale name (`fr_FR.UTF-8` → `fr_FR`, `de_DE@euro` →
    /// `de_DE`); empty for `C` and `POSIX`.
    public static func gettextLanguage(ofLocale name: String) -> String {
        let language = name.split(separator: ".", maxSplits: 1).first.map(String.init) ?? ""
        let plain = language.split(separator: "@", maxSplits: 1).first.map(String.init) ?? ""
        return plain == "C" || plain == "POSIX" ? "" : plain
    }
}
