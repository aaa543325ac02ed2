#if canImport(Glibc)
import Glibc
#endif
import CDisplay
import SheetClient
import SheetProtocol
import SheetRenderKit
import SheetService

/// The renderer's one thread: waits on the daemon's socket, the display's events and the
/// signals together, and draws the newest state whenever the output can take a frame. A state
/// that arrives while a page flip is pending waits for the flip; states that pile up meanwhile
/// are skipped for the newest (the daemon's own conflation, one step further).
final class RenderLoop {
    private let backend: any Backend
    private let subscription: SheetSubscription
    private let signals: Int32
    private let setScreen: Bool
    private let untilRest: Bool
    private let frames: FrameLog?
    private let log: Log
    private let systemd = Systemd()

    /// The newest update, and the one on the output (or on its way to it).
    private var latest: MonitorUpdate?
    private var drawn: MonitorUpdate?
    private var queued: (update: MonitorUpdate, rows: Range<Int>?)?
    private var announced = false
    /// The content the states place, fetched on a connection of its own (the subscription's
    /// is taken by `Monitor`) when the swaps on the stream do not account for the revision.
    private var mirror = ContentMirror()
    private var contentFailureSaid = false
    /// The programs' sheets of the stack and their titles, for the screen reader's windows:
    /// asked again when the stack changes.
    private var stackTitles: (stack: [String], titles: [(sheet: String, title: String)]) = ([], [])
    /// The painter's icons, and how many of the names no theme has were said.
    private let icons: IconCache?
    private var missingSaid: Set<String> = []
    private var svgUnavailableSaid = false
    /// Where a compositor's touches go (wayland), told when the daemon comes back.
    private let forwarder: InputForwarder?
    /// Where the states drawn are spoken: while the daemon says the sheet is spoken (`speech:`
    /// in sheetd.yaml, `speaking` in each state) or always (`--speech on`), made when speech
    /// begins and closed when it ends.
    private var speech: Speech?
    private let speaks: SpeechChoice
    private var speechFailureSaid = false
    /// Where a screen reader reads them (wayland, on the session's accessibility bus).
    private let accessibility: Accessibility?
    /// The session's appearance preferences, followed into the looks (`theme: auto`).
    private let preferences: (session: SessionPreferences, looks: Looks)?
    /// The display's size as last told to the daemon: a compositor that resizes the surface
    /// (an output rotated) is told again.
    private var announcedSize: (width: Int, height: Int)?

    init(backend: any Backend, subscription: SheetSubscription, signals: Int32, setScreen: Bool, untilRest: Bool,
         frames: FrameLog?, icons: IconCache? = nil, forwarder: InputForwarder? = nil, speech: SpeechChoice = .off,
         accessibility: Accessibility? = nil, preferences: (SessionPreferences, Looks)? = nil, log: Log) {
        self.preferences = preferences
        self.speaks = speech
        self.accessibility = accessibility
        self.icons = icons
        self.forwarder = forwarder
        self.backend = backend
        self.subscription = subscription
        self.signals = signals
        self.setScreen = setScreen
        self.untilRest = untilRest
        self.frames = frames
        self.log = log
    }

    /// Runs until a signal to stop (or, with `untilRest`, the rest); returns the exit status.
    func run() -> Int32 {
        var status: Int32 = 0
        do {
            if let size = backend.displaySize {
                log.say("sheet-render: \(backend.name) \(size.width)x\(size.height)\(backend.method.isEmpty ? "" : " (\(backend.method))")")
            }
            systemd.notify("READY=1\nSTATUS=waiting for sheetd on \(subscription.path)")
            status = try follow()
        } catch {
            log.say("sheet-render: \(error)")
            status = error.status
        }
        do {
            if try backend.finish(), let drawn { try frames?.record(drawn, backend: backend.name, shown: monotonicMicroseconds(), rows: nil) }
        } catch {
            log.say("sheet-render: \(error)")
            if status == 0 { status = error.status }
        }
        return status
    }

    private func follow() throws(RenderError) -> Int32 {
        var watched = [signals]
        if let events = backend.eventDescriptor { watched.append(events) }
        if let hotplug = backend.hotplugDescriptor { watched.append(hotplug) }
        if let preferences { watched.append(preferences.session.descriptor) }
        while true {
            let event: SheetSubscription.Event
            do {
                event = try subscription.next(watching: watched)
            } catch {
                throw RenderError("\(error)", status: 76)
            }
            switch event {
            case .connected:
                mirror.reset()
                log.say("sheet-render: following sheetd on \(subscription.path)\(subscription.maxRate.map { ", at most \($0) states a second" } ?? "")")
                systemd.notify("STATUS=following sheetd on \(subscription.path)")
                forwarder?.lost()
                announceScreen()
            case .update(let update):
                if mirror.follow(update), let revision = update.state.list?.revision { fetchContent(at: revision) }
                backend.hear(update)
                latest = update
                if !subscription.hasBufferedUpdate, backend.isReady, try present() { return 0 }
            case .disconnected(let error):
                log.say("sheet-render: waiting for sheetd: \(error)")
                systemd.notify("STATUS=waiting for sheetd: \(error)")
            case .readable(let descriptor) where descriptor == signals:
                var info = signalfd_siginfo()
                guard read(signals, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size else { continue }
                if info.ssi_signo == UInt32(SIGWINCH) {
                    try backend.resized()
                    drawn = nil
                    if backend.isReady, try present() { return 0 }
                    continue
                }
                systemd.notify("STOPPING=1")
                return 0
            case .readable(let descriptor) where descriptor == preferences?.session.descriptor:
                // The session changed its colour scheme or contrast: `theme: auto` draws it.
                guard let preferences else { continue }
                preferences.session.take()
                let preference = preferences.session.preference
                preferences.looks.prefer(dark: preference.dark, highContrast: preference.highContrast, textScale: preference.textScale)
                log.say("sheet-render: the session now prefers \(preference.description)")
                drawn = nil
                if backend.isReady, try present() { return 0 }
            case .readable(let descriptor) where descriptor == backend.hotplugDescriptor:
                switch try backend.handleHotplug() {
                case .unplugged?:
                    log.say("sheet-render: the display was unplugged; nothing is drawn until it is back")
                    systemd.notify("STATUS=the display was unplugged")
                case .plugged?:
                    let size = backend.displaySize.map { " at \($0.width)x\($0.height)" } ?? ""
                    log.say("sheet-render: a display is plugged in again\(size); the sheet is drawn anew")
                    systemd.notify("STATUS=following sheetd on \(subscription.path)")
                    drawn = nil
                    announceIfResized()
                    if backend.isReady, try present() { return 0 }
                case nil:
                    continue
                }
            case .readable:
                if let shown = try backend.handleEvent(), let queued {
                    self.queued = nil
                    if try recorded(queued.update, shown: shown, rows: queued.rows) { return 0 }
                }
                announceIfResized()
                if backend.isReady, try present() { return 0 }
            case .timedOut:
                continue
            }
        }
    }

    /// Hands the newest state to the backend if it is not already there; returns true when
    /// `--until-rest` is satisfied.
    private func present() throws(RenderError) -> Bool {
        guard let latest, latest != drawn else { return false }
        drawn = latest
        defer { sayMissingIcons() }
        speak(latest.state)
        speech?.hear(latest.state, content: mirror.content)
        if let accessibility { accessibility.show(latest.state, content: mirror.content, waiting: titles(of: latest.state.stack)) }
        switch try backend.show(latest.state, content: mirror.content) {
        case .shown(let rows): return try recorded(latest, shown: monotonicMicroseconds(), rows: rows)
        case .queued(let rows): queued = (latest, rows)
        case .skipped: break
        }
        return false
    }

    /// Opens speech when the sheet is to be spoken and closes it (cutting what is being said)
    /// when it is not: `--speech on` always, `follow` (and `auto` on a kiosk's display) while
    /// the daemon says so.
    private func speak(_ state: SheetState) {
        let wanted = speaks == .on || (speaks == .following && state.presentation.speaking)
        if !wanted {
            if speech != nil { log.say("sheet-render: the sheet is no longer spoken") }
            speech = nil
            return
        }
        guard speech == nil else { return }
        do {
            speech = try Speech(log: log)
            log.say("sheet-render: the sheet is spoken (speech-dispatcher)")
            speechFailureSaid = false
        } catch {
            if !speechFailureSaid { log.say("sheet-render: \(error); the sheet is not spoken") }
            speechFailureSaid = true
        }
    }

    /// Each icon name no theme has, said once (a content's typo, or a theme not installed).
    private func sayMissingIcons() {
        guard let icons else { return }
        if !svgUnavailableSaid, let why = icons.svgUnavailable {
            log.say("sheet-render: \(why); those icons are drawn without")
            svgUnavailableSaid = true
        }
        guard icons.missingCount > missingSaid.count else { return }
        let names = icons.missing.subtracting(missingSaid).sorted()
        let themes = icons.theme.names.joined(separator: ", ")
        log.say("sheet-render: no icon named \(names.joined(separator: ", ")) in the icon themes (\(themes.isEmpty ? "none installed" : themes)); drawn without")
        missingSaid.formUnion(names)
    }

    /// Logs a frame that reached the output; true when it is the rest `--until-rest` waits for.
    private func recorded(_ update: MonitorUpdate, shown: Int64, rows: Range<Int>?) throws(RenderError) -> Bool {
        try frames?.record(update, backend: backend.name, shown: shown, rows: rows)
        return untilRest && update.state.isIdle
    }

    /// Asks the daemon for its content (items in the list's order). A daemon that does not
    /// answer within two seconds, or answers with something that is not content, leaves the
    /// list drawn as it was; that is said once.
    private func fetchContent(at revision: Int) {
        do {
            let client = try SheetClient(path: subscription.path, timeoutSeconds: 2)
            let (content, fetched, sheet) = try client.contentOfSheet()
            mirror.fetched(content, revision: fetched, sheet: sheet)
            drawn = nil
        } catch {
            mirror.fetchFailed(at: revision)
            if !contentFailureSaid { log.say("sheet-render: GetContent failed (\(error)); drawing the list without it") }
            contentFailureSaid = true
        }
    }

    /// The titles of the sheets in `stack` (bottom to top), asked of the daemon when the stack
    /// is not the one last asked about; a sheet it does not answer for (gone meanwhile) is left out.
    private func titles(of stack: [String]) -> [(sheet: String, title: String)] {
        guard stack != stackTitles.stack else { return stackTitles.titles }
        let client = try? SheetClient(path: subscription.path, timeoutSeconds: 2)
        let titles = stack.compactMap { sheet in (try? client?.contentOfSheet(sheet)).map { (sheet, $0.content.title) } }
        stackTitles = (stack, titles)
        return titles
    }

    /// Tells the daemon the display's size when it is not the one told: a surface the
    /// compositor resized, a display plugged in at another size, or (web) the first page or a
    /// page resized.
    private func announceIfResized() {
        guard let size = backend.displaySize, announcedSize.map({ $0 != size }) ?? setScreen else { return }
        if announcedSize != nil { log.say("sheet-render: the display is now \(size.width)x\(size.height)") }
        announceScreen()
    }

    /// Tells the daemon the display's size, once per connection; a refusal (not root, not in
    /// the socket's group) is said once and the sheet is scaled to the display instead.
    private func announceScreen() {
        // The touch device, declared before the first touch: from now on the daemon leaves the
        // seat's touchscreens to the compositor, whose touches on the sheet come from here.
        if let size = backend.displaySize { forwarder?.declare(size: size) }
        guard setScreen, let size = backend.displaySize else { return }
        announcedSize = size
        do {
            let client = try SheetClient(path: subscription.path)
            try client.setScreen(width: size.width, height: size.height, scale: backend.displayScale)
        } catch {
            if !announced { log.say("sheet-render: SetScreen \(size.width)x\(size.height) refused (\(error)); drawing the daemon's screen scaled to the display") }
        }
        announced = true
    }
}
