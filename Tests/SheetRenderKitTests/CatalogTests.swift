import Foundation
import SheetCore
import SheetProtocol
import SheetTestSupport
import Testing
@testable import SheetRenderKit

/// The sheet's own words in other languages: the catalogs in po/ (each compiles, covers every
/// message, keeps its placeholders and its language's plural forms), and what glibc's gettext
/// reads from them as `make catalogs` built them.
@Suite struct CatalogTests {
    static let root = fixtures.deletingLastPathComponent().deletingLastPathComponent()
    static let po = root.appendingPathComponent("po")
    /// The EU's official languages and the others the sheet speaks.
    static let required = ["bg", "cs", "da", "de", "el", "es", "et", "fi", "fr", "ga", "hr", "hu", "it", "lt", "lv", "mt",
                           "nl", "pl", "pt", "ro", "sk", "sl", "sv", "ko", "ja", "zh_CN", "zh_TW", "ar", "he", "tr", "uk"]

    static var languages: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: po.path)) ?? [])
            .filter { $0.hasSuffix(".po") }.map { String($0.dropLast(3)) }.sorted()
    }

    /// Built by `make catalogs` (which `make test` runs first).
    static func catalog(_ environment: [String: String] = [:]) throws -> SheetCatalog {
        let directory = root.appendingPathComponent(".build/share/locale")
        try #require(FileManager.default.fileExists(atPath: directory.appendingPathComponent("de/LC_MESSAGES/sheetd.mo").path),
                     "no catalogs in \(directory.path): make catalogs builds them")
        let catalog = SheetCatalog(directory: directory.path, environment: environment)
        #expect(catalog.problem == nil, "\(catalog.problem ?? "")")
        return catalog
    }

    @Test func everyRequiredLanguageHasACatalog() {
        #expect(Set(Self.required).subtracting(Self.languages).isEmpty, "missing: \(Set(Self.required).subtracting(Self.languages).sorted())")
    }

    @Test func everyCatalogCompilesWithMsgfmtCheck() throws {
        for language in Self.languages {
            let result = try runProgram("/usr/bin/msgfmt",
                                        ["--check", "--statistics", "-o", "/dev/null", Self.po.appendingPathComponent("\(language).po").path])
            #expect(result.status == 0 && !result.output.contains("warning"), "\(language).po: \(result.output)")
            #expect(!result.output.contains("untranslated") && !result.output.contains("fuzzy"), "\(language).po: \(result.output)")
        }
    }

    /// Every message of `SheetWords.Message`, by context and text, is in every catalog,
    /// translated, with the placeholders it has; the place in a section has as many forms as
    /// the language's Plural-Forms says, and nothing else is there.
    @Test func everyCatalogCoversEveryMessageAndKeepsItsPlaceholders() throws {
        let wanted = Set(SheetWords.Message.allCases.map { "\($0.context)\u{4}\($0.english)" })
        for language in Self.languages {
            let entries = try PO.read(Self.po.appendingPathComponent("\(language).po"))
            let found = Set(entries.keys).subtracting([""])
            #expect(found == wanted, "\(language).po: missing \(wanted.subtracting(found).sorted()), extra \(found.subtracting(wanted).sorted())")
            let forms = try #require(PO.pluralCount(entries[""]?.first ?? ""), "\(language).po names no Plural-Forms")
            for message in SheetWords.Message.allCases {
                guard let translations = entries["\(message.context)\u{4}\(message.english)"] else { continue }
                #expect(translations.count == (message == .position ? forms : 1), "\(language).po: \(message.english)")
                for translation in translations {
                    #expect(!translation.isEmpty, "\(language).po: \(message.english) is not translated")
                    for placeholder in message.placeholders {
                        #expect(translation.components(separatedBy: placeholder).count == 2,
                                "\(language).po: `\(translation)` must hold \(placeholder) once (\(message.english))")
                    }
                    let percents = translation.components(separatedBy: "%").count - 1
                    #expect(percents == message.placeholders.count, "\(language).po: `\(translation)` has other placeholders")
                }
            }
        }
    }

    @Test func tagsAreGettextsLanguages() {
        let cases = ["ko": "ko", "pt-BR": "pt_BR", "zh-Hans": "zh_CN", "zh-Hant": "zh_TW", "zh-Hant-HK": "zh_HK", "zh": "zh_CN",
                     "sr-Latn": "sr@latin", "de-DE": "de_DE", "EN": "en", "es-419": "es_419", "": ""]
        for (tag, language) in cases { #expect(SheetWords.gettextLanguage(ofTag: tag) == language, "\(tag)") }
        #expect(SheetWords.gettextLanguage(ofLocale: "fr_FR.UTF-8") == "fr_FR")
        #expect(SheetWords.gettextLanguage(ofLocale: "de_DE@euro") == "de_DE")
        #expect(SheetWords.gettextLanguage(ofLocale: "C.UTF-8") == "")
    }

    @Test func numberedPlaceholdersTakeTheirArgumentsInAnyOrder() {
        #expect(SheetWords.format("%2$d개 중 %1$d번째", ["1", "2"]) == "2개 중 1번째")
        #expect(SheetWords.format("%s, %s", ["a", "b"]) == "a, b")
        #expect(SheetWords.format("100 %% %s", ["x"]) == "100 % x")
    }

    /// The language: the content's, else the system's, else English; English has no catalog.
    @Test func theContentsLanguageThenTheSystemsThenEnglish() throws {
        let french = try Self.catalog(["LANG": "fr_FR.UTF-8"])
        #expect(french.words(forTag: "")[.close] == "Fermer")
        #expect(french.words(forTag: "de")[.close] == "Schließen")
        #expect(french.words(forTag: "en")[.close] == "Close")
        #expect(french.spokenTag(forTag: "") == "fr")
        #expect(french.spokenTag(forTag: "pt-BR") == "pt-BR")
        let plain = try Self.catalog(["LANG": "C.UTF-8"])
        #expect(plain.words(forTag: "")[.close] == "Close")
        #expect(plain.spokenTag(forTag: "") == "en")
        #expect(plain.words(forTag: "pt-BR")[.switchOn] == "ligado", "pt_BR falls back to pt")
        #expect(plain.words(forTag: "zh-Hans")[.close] == "关闭")
        #expect(plain.words(forTag: "zh-Hant")[.close] == "關閉")
        #expect(try Self.catalog(["LANGUAGE": "ko:en", "LANG": "de_DE.UTF-8"]).systemLanguage == "ko")
        #expect(try Self.catalog(["LANGUAGE": "ko", "LANG": "C"]).systemLanguage == "", "glibc ignores LANGUAGE in the C locale")
    }

    /// A section's place in the plural form its total takes (Polish and Arabic have more than two).
    @Test func thePlaceInASectionTakesTheLanguagesPluralForms() throws {
        let catalog = try Self.catalog()
        #expect(catalog.words(forTag: "ko").position(1, of: 2) == "2개 중 1번째")
        #expect(catalog.words(forTag: "de").position(3, of: 4) == "3 von 4")
        #expect(catalog.words(forTag: "zh-CN").position(1, of: 5) == "第 1 项，共 5 项")
        for total in [1, 2, 3, 5, 11, 22, 101] {
            #expect(catalog.words(forTag: "pl").position(1, of: total) == "1 z \(total)")
            #expect(catalog.words(forTag: "ar").position(1, of: total) == "1 من \(total)")
        }
    }

    static let tickets = SheetContent(title: "Fahrkarten", items: [
        SheetItem(id: "wifi", label: "WLAN", subtitle: "Heimnetz", accessory: .toggle(isOn: false), section: "Netz"),
        SheetItem(id: "more", label: "Mehr", accessory: .chevron, disabled: true, section: "Netz"),
    ], language: "de")

    func state(_ kind: SheetMachine.StateKind, _ detent: DetentName?, focus: FocusedElement? = nil) -> SheetState {
        SheetState(state: kind, detent: detent, target: nil, topInPixels: 960, progress: 0.5, dim: 0.5,
                   velocityInPixelsPerSecond: 0, screen: ScreenSize(widthInPixels: 1080, heightInPixels: 1920),
                   cause: .initial, detents: [], focus: focus)
    }

    /// German content is announced in German, in the catalog's order and words.
    @Test func germanContentIsAnnouncedInGerman() throws {
        let catalog = try Self.catalog(["LANG": "C.UTF-8"])
        var announcer = Announcer(words: { catalog.words(forTag: $0) })
        #expect(announcer.utterances(for: state(.resting, .half), content: Self.tickets) == ["Fahrkarten, Blatt, halb geöffnet"])
        #expect(announcer.utterances(for: state(.resting, .half, focus: .close), content: Self.tickets) == ["Schließen, Schaltfläche"])
        #expect(announcer.utterances(for: state(.resting, .half, focus: .item("wifi")), content: Self.tickets)
                == ["WLAN, Heimnetz, Schalter, aus, 1 von 2"])
        #expect(announcer.utterances(for: state(.resting, .half, focus: .item("more")), content: Self.tickets)
                == ["Mehr, Schaltfläche, ausgegraut, 2 von 2"])
        #expect(announcer.utterances(for: state(.resting, .hidden), content: Self.tickets) == ["Fahrkarten, Blatt, geschlossen"])
        var korean = Self.tickets
        korean.language = "ko"
        korean.title = "설정"
        var second = Announcer(words: { catalog.words(forTag: $0) })
        #expect(second.utterances(for: state(.resting, .expanded), content: korean) == ["설정, 시트, 완전히 열림"])
    }

    /// The screen reader's names: the close button and the actions in the content's language,
    /// the actions' own names (AT-SPI's `click`) the same in every language.
    @Test func theTreesNamesAreInTheContentsLanguage() throws {
        let catalog = try Self.catalog()
        let sheetState = state(.resting, .half)
        let tree = AccessibleTree(state: sheetState, content: Self.tickets, words: catalog.words(forTag: "de"))
        let close = try #require(tree.nodes.first { $0.path == "close" })
        #expect(close.name == "Schließen")
        #expect(close.actions.map(\.name) == ["click"])
        #expect(close.actions.map(\.localizedName) == ["Klicken"])
        #expect(tree.nodes[0].actions.map(\.localizedName) == ["Erweitern", "Verkleinern", "Schließen"])
        #expect(tree.nodes[0].actions.map(\.description).contains("Schließt das Blatt"))
    }
}

/// A .po file's entries: context and msgid joined by EOT (as gettext looks them up) → the
/// msgstr, or each msgstr[N]; the header under "".
enum PO {
    static func read(_ url: URL) throws -> [String: [String]] {
        var entries: [String: [String]] = [:]
        var context: String?, id: String?, strings: [String] = [], field = ""
        func finish() {
            if let id { entries[(context.map { "\($0)\u{4}" } ?? "") + id] = strings }
            context = nil; id = nil; strings = []
        }
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") { continue }
            if line.isEmpty { finish(); continue }
            guard let quote = line.firstIndex(of: "\"") else { continue }
            let keyword = line[..<quote].trimmingCharacters(in: .whitespaces)
            let text = unquote(String(line[quote...]))
            if !keyword.isEmpty { field = keyword }
            switch field {
            case "msgctxt": context = (keyword.isEmpty ? context ?? "" : "") + text
            case "msgid": id = (keyword.isEmpty ? id ?? "" : "") + text
            case "msgid_plural": break
            default:
                if keyword.isEmpty, !strings.isEmpty { strings[strings.count - 1] += text } else { strings.append(text) }
            }
        }
        finish()
        return entries
    }

    static func unquote(_ quoted: String) -> String {
        var result = ""
        var escaped = false
        for character in quoted.dropFirst().dropLast() {
            if escaped {
                result.append(character == "n" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// `nplurals` of the header's Plural-Forms.
    static func pluralCount(_ header: String) -> Int? {
        guard let range = header.range(of: "nplurals=") else { return nil }
        return Int(header[range.upperBound...].prefix { $0.isNumber })
    }
}
