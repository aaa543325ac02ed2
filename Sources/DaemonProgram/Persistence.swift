import SheetCore
import SheetInput
import SheetProtocol

/// What a client chose that outlives the engine: kept across a restart and across a reload
/// that leaves the file's setting as it was. nil: as configured.
struct ClientChoices: Equatable {
    var reduceMotion: Bool?
    var appearance: Appearance?
    /// How the sheet opens and shares the screen.
    var presentation: SheetPresentation?
}

/// What survives a restart (`state-directory`): the content, its order, the detent the sheet
/// last rested at and the client's choices, handed to the store when they changed: at once
/// when the last save is a second old (or at stop), else a second after it, when the timer
/// wakes the loop. The store writes on its own thread.
struct Persistence {
    private let store: StateStore?
    /// What the store held at start; taken once by `begin`.
    private(set) var restored: SavedState?
    var chosen = ClientChoices()
    /// What was last handed to the store, and when.
    private var saved = ClientChoices()
    private var savedRevision = -1
    private var savedDetent: DetentName?
    private var lastSave: Timestamp?
    /// When a save put off is due (the timer wakes the loop for it).
    private(set) var nextSave: Timestamp?
    private(set) var lastRestingDetent: DetentName?

    init(store: StateStore?) {
        self.store = store
        restored = store?.load()
        chosen = ClientChoices(reduceMotion: restored?.reduceMotion, appearance: restored?.appearance,
                               presentation: restored?.presentation)
        saved = chosen
    }

    /// The engine's configuration with the client's choices that were restored.
    func applyingChoices(to configuration: EngineConfiguration) -> EngineConfiguration {
        var configuration = configuration
        if let reduceMotion = chosen.reduceMotion { configuration.sheet.reduceMotion = reduceMotion }
        if let appearance = chosen.appearance { configuration.appearance = appearance }
        if var presentation = chosen.presentation {
            // What the headphones say is the device's now, not what was saved.
            presentation.headphonesPlugged = configuration.sheet.presentation.headphonesPlugged
            configuration.sheet.presentation = presentation
        }
        return configuration
    }

    /// The engine starts at `detent`.
    mutating func started(at detent: DetentName) {
        lastRestingDetent = detent
    }

    /// The saved content, once (it wins over the configuration's: it is what a client set last).
    mutating func takeRestoredContent() -> SheetContent? {
        defer { restored = nil }
        return restored?.content
    }

    /// Saves what changed, now or when a second has passed since the last save.
    mutating func persist(_ engine: inout Engine, returningTo stepAside: DetentName? = nil, now immediately: Bool = false) {
        guard let store else { return }
        if let stepAside {
            // Down for a program's sheet: it comes back (after a restart too) where it rested.
            lastRestingDetent = stepAside
        } else if engine.sheet.kind == .resting, let index = engine.sheet.detentIndex {
            lastRestingDetent = engine.sheet.detents[index].name
        }
        guard engine.list.revision != savedRevision || lastRestingDetent != savedDetent || chosen != saved else {
            nextSave = nil
            return
        }
        let now = LibinputInput.monotonicNow()
        if !immediately, let last = lastSave, now < last.adding(microseconds: 1_000_000) {
            nextSave = last.adding(microseconds: 1_000_000)
            return
        }
        store.save(SavedState(content: engine.content, order: engine.list.order, detent: lastRestingDetent,
                              reduceMotion: chosen.reduceMotion, appearance: chosen.appearance,
                              presentation: chosen.presentation))
        savedRevision = engine.list.revision
        savedDetent = lastRestingDetent
        saved = chosen
        lastSave = now
        nextSave = nil
    }

    /// Waits for the store's last write.
    func flush() { store?.flush() }
}
