#if canImport(Glibc)
import Glibc
#endif
import CGettext
import Synchronization

/// The sheet's words in a language, read with glibc's gettext from the `sheetd` catalogs
/// (`po/LANG.po`, built by msgfmt into `share/locale/LANG/LC_MESSAGES/sheetd.mo`).
///
/// The language is the content's (`lang`), else the system's (`LANGUAGE`, `LC_ALL`,
/// `LC_MESSAGES`, `LANG`), else English. gettext picks a catalog by the process's locale,
/// which a kiosk may not have generated for every language its content is in, so a lookup
/// runs on a thread whose messages locale is the project's own (`uselocale`), with `LANGUAGE`
/// set to the language for its length: glibc reads `LANGUAGE` only in a locale other than C
/// (glibc 2.41 counts C.UTF-8 as C), and forgets what it found for another `LANGUAGE` when
/// the text domain is set again. That locale is one file, glibc's en_US messages category
/// made by localedef at build time (`share/sheetd/locale`, beside the catalogs' folder).
/// Lookups are serialised (the environment is the process's); each language's words are
/// looked up once.
public final class SheetCatalog: Sendable {
    /// gettext's text domain of the project.
    public static let domain = "sheetd"

    /// The catalogs beside the program (`BIN/../share/locale`, as `make install` puts them,
    /// or `.build/share/locale` for a build in the tree), `SHEETD_LOCALEDIR` when set, else
    /// `/usr/share/locale`.
    public static let shared = SheetCatalog(directory: findDirectory())

    /// Where the catalogs are read from.
    public let directory: String
    /// The locale lookups run in, or why there is none (then only glibc before 2.37, which
    /// reads `LANGUAGE` in C.UTF-8, translates).
    private let messagesLocale: MessagesLocale
    public var problem: String? { messagesLocale.problem }
    /// The system's language (from the environment at start), used when content says none.
    public let systemLanguage: String
    private let cache = Mutex<[String: SheetWords]>([:])
    /// gettext's state and the environment are the process's: one lookup at a time.
    private static let gettextLock = Mutex(())

    public init(directory: String, environment: [String: String] = SheetCatalog.environment()) {
        self.directory = directory
        systemLanguage = Self.systemLanguage(environment)
        let folder = directory.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            + "/sheetd/locale"
        messagesLocale = Self.gettextLock.withLock { _ in
            _ = bindtextdomain(Self.domain, directory)
            _ = bind_textdomain_codeset(Self.domain, "UTF-8")
            return MessagesLocale(folder: folder)
        }
    }

    /// The words for content in `tag` (BCP 47; empty: the system's language, else English).
    public func words(forTag tag: String) -> SheetWords {
        let language = tag.isEmpty ? systemLanguage : SheetWords.gettextLanguage(ofTag: tag)
        guard !language.isEmpty, language != "en", !language.hasPrefix("en_") else { return .english }
        if let known = cache.withLock({ $0[language] }) { return known }
        var found: [SheetWords.Message: String] = [:]
        for message in SheetWords.Message.allCases where message != .position {
            found[message] = lookUp(message, in: language)
        }
        let table = found
        let words = SheetWords(language: language, lookUp: { table[$0] ?? $0.english },
                               positionFormat: { [self] total in self.lookUp(.position, in: language, count: total) })
        cache.withLock { $0[language] = words }
        return words
    }

    /// The language a speech synthesizer is asked for: the content's tag (`ko`, `pt-BR`),
    /// else the system's language alone (`fr` of `fr_FR`, as speech-dispatcher names its
    /// voices' languages), else English.
    public func spokenTag(forTag tag: String) -> String {
        if !tag.isEmpty { return tag }
        let language = systemLanguage.split(whereSeparator: { $0 == "_" || $0 == "@" }).first.map(String.init) ?? ""
        return language.isEmpty ? "en" : language
    }

    /// One message in `language`: glibc's translation, or the English text.
    func lookUp(_ message: SheetWords.Message, in language: String, count: Int? = nil) -> String {
        // A message with a context is looked up as gettext's pgettext does: context, EOT, text.
        let key = "\(message.context)\u{4}\(message.english)"
        return Self.gettextLock.withLock { _ -> String in
            let saved = getenv("LANGUAGE").map { String(cString: $0) }
            let previous = messagesLocale.locale.map { uselocale($0) }
            setenv("LANGUAGE", language, 1)
            _ = textdomain(textdomain(nil))
            defer {
                if let saved { setenv("LANGUAGE", saved, 1) } else { unsetenv("LANGUAGE") }
                _ = textdomain(textdomain(nil))
                if let previous { _ = uselocale(previous) }
            }
            // gettext gives the key's own pointer back when there is no translation: the key
            // must live until the answer is read.
            return key.withCString { keyPointer -> String in
                let translated = if let count {
                    dngettext(Self.domain, keyPointer, keyPointer, UInt(max(0, count)))
                } else {
                    dgettext(Self.domain, keyPointer)
                }
                guard let translated, UnsafePointer(translated) != keyPointer else { return message.english }
                return String(cString: translated)
            }
        }
    }

    /// glibc's en_US messages category from `folder` (LOCPATH for the one call), kept for the
    /// process's life; else C.UTF-8's.
    private struct MessagesLocale: @unchecked Sendable {
        let locale: locale_t?
        let problem: String?

        init(folder: String) {
            let saved = getenv("LOCPATH").map { String(cString: $0) }
            setenv("LOCPATH", folder, 1)
            let own = newlocale(LC_MESSAGES_MASK, "en_US.UTF-8", nil)
            if let saved { setenv("LOCPATH", saved, 1) } else { unsetenv("LOCPATH") }
            if let own {
                locale = own
                problem = nil
            } else {
                locale = newlocale(LC_CTYPE_MASK | LC_MESSAGES_MASK, "C.UTF-8", nil)
                problem = "no messages locale in \(folder) (make catalogs makes it): the sheet's own words may stay English"
            }
        }
    }

    /// The process's environment, as glibc reads it.
    public static func environment() -> [String: String] {
        var result: [String: String] = [:]
        for name in ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = getenv(name) { result[name] = String(cString: value) }
        }
        return result
    }

    /// The first language the environment names: `LANGUAGE`'s first (gettext's list), else
    /// `LC_ALL`, `LC_MESSAGES`, `LANG` as POSIX locale names; empty for none or `C`.
    static func systemLanguage(_ environment: [String: String]) -> String {
        if let list = environment["LANGUAGE"], let first = list.split(separator: ":").first, !first.isEmpty,
           let other = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }),
           !SheetWords.gettextLanguage(ofLocale: other).isEmpty {
            // glibc reads LANGUAGE only when the locale is not C, and so does this.
            return SheetWords.gettextLanguage(ofLocale: String(first))
        }
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[name], !value.isEmpty { return SheetWords.gettextLanguage(ofLocale: value) }
        }
        return ""
    }

    static func findDirectory() -> String {
        if let named = getenv("SHEETD_LOCALEDIR") { return String(cString: named) }
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if length > 0 {
            var folder = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // BIN/../share/locale, and for a build in the tree (.build/TRIPLE/debug) .build/share/locale.
            for _ in 0..<3 {
                guard let slash = folder.lastIndex(of: "/") else { break }
                folder = String(folder[..<slash])
                let candidate = folder + "/share/locale"
                if access(candidate + "/de/LC_MESSAGES/\(domain).mo", R_OK) == 0 { return candidate }
            }
        }
        return "/usr/share/locale"
    }
}
