#if canImport(Glibc)
import Glibc
#endif
import CSpeechd
import SheetCore
import SheetProtocol
import SheetRenderKit

/// The sheet spoken through speech-dispatcher (`--speech on`), for a kiosk where no screen
/// reader runs: what `Announcer` says of each state drawn, as one message of the `text`
/// priority, so that a newer message cuts one still being spoken (a focus moved on before its
/// words ended). The server is the session's or the system's (`SPEECHD_ADDRESS` names another),
/// started by libspeechd if none runs; its synthesizer and voice are its configuration's.
final class Speech {
    private let connection: UnsafeMutablePointer<SPDConnection>
    private var announcer = Announcer()
    private let log: Log
    private var failureSaid = false

    init(log: Log) throws(RenderError) {
        self.log = log
        var error: UnsafeMutablePointer<CChar>?
        guard let connection = spd_open2("sheet-render", "sheet", nil, SPD_MODE_SINGLE, nil, 1, &error) else {
            let reason = error.map { String(cString: $0) } ?? "no reason given"
            free(error)
            throw .unavailable("speech: cannot reach speech-dispatcher (\(reason))")
        }
        self.connection = connection
        // The announcements' own words are English; a content's language is not carried yet.
        spd_set_language(connection, "en")
    }

    deinit { spd_close(connection) }

    /// Says what changed in `state` since the last one heard, cutting what is still being said.
    func hear(_ state: SheetState, content: SheetContent?) {
        let words = announcer.utterances(for: state, content: content)
        guard !words.isEmpty else { return }
        if spd_say(connection, SPD_TEXT, words.joined(separator: ". ")) < 0, !failureSaid {
            failureSaid = true
            log.say("sheet-render: speech-dispatcher refused a message; the sheet is not spoken")
        }
    }
}
