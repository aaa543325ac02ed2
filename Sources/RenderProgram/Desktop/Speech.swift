#if canImport(Glibc)
import Glibc
#endif
import CSpeechd
import SheetCore
import SheetProtocol
import SheetRenderKit

/// When a renderer speaks (`--speech`): never, always, or while the daemon says the sheet is spoken.
enum SpeechChoice {
    case off, on, following
}

/// The sheet spoken through speech-dispatcher (`--speech on`), for a kiosk where no screen
/// reader runs: what `Announcer` says of each state drawn, as one message of the `text`
/// priority, so that a newer message cuts one still being spoken (a focus moved on before its
/// words ended). The server is the session's or the system's (`SPEECHD_ADDRESS` names another),
/// started by libspeechd if none runs; its synthesizer is its configuration's, the voice's
/// language the content's (`lang`).
final class Speech {
    private let connection: UnsafeMutablePointer<SPDConnection>
    private var announcer = Announcer(words: { SheetCatalog.shared.words(forTag: $0) })
    private let log: Log
    private var failureSaid = false
    /// The language the server speaks in: the content's, or English.
    private var language = ""
    /// The rate and volume set on the server, speech-dispatcher's -100 to 100.
    private var voice: (rate: Int8, volume: Int8)?

    init(log: Log) throws(RenderError) {
        self.log = log
        var error: UnsafeMutablePointer<CChar>?
        guard let connection = spd_open2("sheet-render", "sheet", nil, SPD_MODE_SINGLE, nil, 1, &error) else {
            let reason = error.map { String(cString: $0) } ?? "no reason given"
            free(error)
            throw .unavailable("speech: cannot reach speech-dispatcher (\(reason))")
        }
        self.connection = connection
        speak(in: SheetCatalog.shared.spokenTag(forTag: ""))
    }

    /// The voice for `tag` (the content's language; English when it says none): the server
    /// picks a voice of that language, espeak-ng's Korean for `ko`.
    private func speak(in tag: String) {
        let wanted = tag.isEmpty ? "en" : tag
        guard wanted != language else { return }
        language = wanted
        spd_set_language(connection, wanted)
    }

    deinit {
        // Whatever is still being said stops with the speech: headphones pulled, speech off.
        spd_cancel(connection)
        spd_close(connection)
    }

    /// Says what changed in `state` since the last one heard, cutting what is still being said,
    /// at the rate and volume the sheet's presentation says.
    func hear(_ state: SheetState, content: SheetContent?) {
        let words = announcer.utterances(for: state, content: content)
        guard !words.isEmpty else { return }
        let wanted = (state.presentation.speechRate, state.presentation.speechVolume)
        if voice.map({ $0 != wanted }) ?? true {
            voice = wanted
            spd_set_voice_rate(connection, Int32(wanted.0))
            spd_set_volume(connection, Int32(wanted.1))
        }
        speak(in: SheetCatalog.shared.spokenTag(forTag: content?.language ?? ""))
        if spd_say(connection, SPD_TEXT, words.joined(separator: ". ")) < 0, !failureSaid {
            failureSaid = true
            log.say("sheet-render: speech-dispatcher refused a message; the sheet is not spoken")
        }
    }
}
