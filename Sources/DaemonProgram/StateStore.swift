import NIOConcurrencyHelpers
import NIOPosix
import Logging
import SheetCore
import SheetProtocol
import SheetService
import Synchronization

/// What sheetd keeps across a restart: the content with its items in the list's order, and the
/// detent the sheet last rested at. On disk: `{"version":1,"detent":…,"content":{…}}`, the
/// content as `GetContent` writes it.
struct SavedState: Equatable, Sendable {
    static let version = 1
    /// A full list whose every byte needs an escape is about 2 MiB.
    static let maximumBytes = 4 << 20

    var content: SheetContent
    /// Positions → indices into the items; the items' own order when nil (as read back).
    var order: [Int]?
    var detent: DetentName?
    /// A saved detent that is not a detent's name (one saved before names were held to 15
    /// bytes): the rest of the state is used all the same, the sheet starts at the initial one.
    var refusedDetent: String?
    /// Reduced motion as a client set it (`SetReduceMotion`); nil: as configured.
    var reduceMotion: Bool?
    /// The appearance as a client set it (`SetAppearance`); nil: as configured.
    var appearance: Appearance?
    /// How the sheet opens, closes and shares the screen as a client set it
    /// (`SetPresentation`); nil: as configured.
    var presentation: SheetPresentation?

    init(content: SheetContent, order: [Int]?, detent: DetentName?, reduceMotion: Bool? = nil, appearance: Appearance? = nil,
         presentation: SheetPresentation? = nil) {
        self.presentation = presentation
        self.content = content
        self.order = order
        self.detent = detent
        self.reduceMotion = reduceMotion
        self.appearance = appearance
    }

    var bytes: [UInt8] {
        var w = JSONWriter(capacity: 256 + content.items.count * 48)
        w.append("{\"version\":")
        w.appendInteger(Int64(Self.version))
        w.append(",\"detent\":")
        if let detent { w.appendName(detent) } else { w.append("null") }
        if let reduceMotion {
            w.append(",\"reduceMotion\":")
            w.append(reduceMotion ? "true" : "false")
        }
        if let appearance {
            w.append(",\"appearance\":")
            appearance.write(to: &w)
        }
        if let presentation {
            w.append(",\"presentation\":")
            presentation.writeSetting(to: &w)
        }
        w.append(",\"content\":")
        content.write(to: &w, order: order)
        w.append("}\n")
        return w.bytes
    }

    /// Reads what `bytes` wrote; the error is the reason.
    init(bytes: [UInt8]) throws(ProtocolError) {
        let json: JSONValue
        do { json = try JSONReader.parse(bytes) } catch { throw ProtocolError("not JSON (\(error)); cut short?") }
        guard let version = json["version"]?.intValue else { throw ProtocolError("no version") }
        guard version == Self.version else { throw ProtocolError("version \(version), this sheetd reads \(Self.version)") }
        guard let content = json["content"], !content.isNull else { throw ProtocolError("no content") }
        self.content = try SheetContent(json: content)
        if let detent = json["detent"], !detent.isNull {
            guard let text = detent.stringValue else { throw ProtocolError("detent is not a string") }
            self.detent = DetentName(text)
            if self.detent == nil { refusedDetent = text }
        }
        if let value = json["reduceMotion"], !value.isNull {
            guard let enabled = value.boolValue else { throw ProtocolError("reduceMotion is not true or false") }
            self.reduceMotion = enabled
        }
        if let value = json["appearance"], !value.isNull { appearance = try Appearance(json: value) }
        if let value = json["presentation"], !value.isNull { presentation = try SheetPresentation(json: value) }
    }
}

/// The state file in the state directory: read once at start (a bad one is moved aside as
/// `state.json.corrupt` and said), written on a thread of its own so that a slow disk never
/// holds up a touch frame. Saves coalesce: the writer takes the newest. The thread sleeps
/// until a save comes (a libdispatch queue here started the pool whose monitor wakes the
/// process every second).
final class StateStore: Sendable {
    let path: String
    private let logger: Logger
    private let pending = Mutex<SavedState?>(nil)
    /// The last save failed (said once until one succeeds).
    private let failing = Mutex(false)
    private let writer = NIOThreadPool(numberOfThreads: 1)

    /// Makes `directory` (mode 0700) when it is not there, as systemd's `StateDirectory=` does.
    init(directory: String, logger: Logger) {
        path = directory.hasSuffix("/") ? directory + "state.json" : directory + "/state.json"
        self.logger = logger
        writer.start()
        do {
            try AtomicFile.makeFolder(directory)
        } catch {
            logger.error("no state will be kept: \(error)")
        }
    }

    deinit {
        // Writes what is still pending, then ends the thread.
        try? writer.syncShutdownGracefully()
    }

    /// The saved state, or nil (none yet, or a file that could not be used: then it is moved
    /// aside and the reason logged with its path).
    func load() -> SavedState? {
        do {
            guard let bytes = try AtomicFile.read(path, limit: SavedState.maximumBytes, regularOnly: true) else {
                logger.info("no saved state in \(path) yet")
                return nil
            }
            do {
                let state = try SavedState(bytes: bytes)
                if let refused = state.refusedDetent {
                    logger.warning("\(path): the saved detent \"\(refused.prefix(64))\" is not a detent's name (\(DetentName.rule)); starting at the initial one")
                }
                logger.notice("restored from \(path): \(state.content.items.count) item(s), detent \(state.detent?.description ?? "none")")
                return state
            } catch {
                throw FileError(path: path, reason: error.reason)
            }
        } catch {
            var said = "\(error)"
            do {
                said += "; moved to \(try AtomicFile.moveAside(path, suffix: ".corrupt"))"
            } catch let moving {
                said += "; \(moving)"
            }
            logger.error("saved state unusable, starting from the configuration: \(said)")
            return nil
        }
    }

    /// Writes `state` soon, on the store's thread (which also encodes it: a full list is
    /// about 2 MiB of JSON at worst, no work for the input thread).
    func save(_ state: SavedState) {
        let wasIdle = pending.withLock { box in
            defer { box = state }
            return box == nil
        }
        guard wasIdle else { return }
        writer.submit { [self] _ in
            guard let state = pending.withLock({ box in defer { box = nil }; return box }) else { return }
            // A failure is said once, and its end once: a full disk or a read-only file system
            // fails every save until someone acts, and the log should not fill with it.
            do {
                try AtomicFile.write(state.bytes, to: path)
                if failing.withLock({ box in defer { box = false }; return box }) {
                    logger.notice("\(path): the state is saved again")
                }
            } catch {
                if failing.withLock({ box in defer { box = true }; return !box }) {
                    logger.error("cannot save the state: \(error); the sheet goes on, and each change is tried again")
                } else {
                    logger.debug("cannot save the state: \(error)")
                }
            }
        }
    }

    /// Returns once every save so far is on disk (the writer takes them in order).
    func flush() {
        let done = ConditionLock(value: false)
        writer.submit { _ in
            done.lock()
            done.unlock(withValue: true)
        }
        done.lock(whenValue: true)
        done.unlock()
    }
}
