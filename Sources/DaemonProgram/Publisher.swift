import Logging
import SheetCore
import SheetInput
import SheetProtocol
import SheetRules
import SheetServer
import Synchronization

/// The content, the list's order and its revision as `GetContent` answers them, handed from
/// the loop's thread to the server's.
final class ContentShare: Sendable {
    private let box = Mutex<(shared: SharedContent, shown: SharedContent?)>((SharedContent(content: .empty, order: [], revision: 0), nil))

    /// The shared sheet's.
    var content: SharedContent { box.withLock { $0.shared } }
    /// The shown sheet's (the renderers'): a program's while one is shown, else the shared sheet's.
    var shown: SharedContent { box.withLock { $0.shown ?? $0.shared } }

    func set(_ content: SharedContent) { box.withLock { $0.shared = content } }
    func setShown(_ content: SharedContent?) { box.withLock { $0.shown = content } }
}

/// Turns what the engine emitted into states for the server's subscribers: a state for each
/// snapshot with the list drawn with it, the gesture and content events riding on the state
/// they came with (or the next), numbered and stamped on the monotonic clock. It also keeps the
/// content as `GetContent` answers it, for the server's thread (`ContentShare`). Part of the
/// loop's state, a value only the loop's thread touches.
struct Publisher {
    /// The server, held while the loop runs (set before, dropped when it stops: the server
    /// holds the loop through its delegate).
    var server: VarlinkServer? {
        didSet { skipNoted = false }
    }
    let share = ContentShare()
    private let logger: Logger
    /// The detents as published, in pixels; they change only with the screen.
    private var detentPositions: [SheetProtocol.DetentPosition]
    private var sequence: Int64 = 0
    private var pendingGesture: GestureReport?
    private var pendingEvents: [SheetEvent] = []
    /// `inputActive` as the last published state said it.
    private var publishedInputActive = false
    private var sharedRevision = 0
    /// Gestures recognized or begun, for `GetStats`.
    private(set) var gestures = 0
    /// From a state's time to its publishing (not for a recording played as fast as possible,
    /// whose states are stamped when published), for one state in `timing` (by sequence),
    /// watched or not: where the clock has no usable TSC each read is a system call, dearer
    /// than the rest of a frame's work (`TurnClock`), and a paced subscriber's turns would
    /// otherwise read it for every state.
    private(set) var latency = LatencyHistogram()
    static let timing: Int64 = 16
    var statesPublished: Int64 { sequence }
    /// Moves on when what `StateSettings` holds may have changed outside the engine's
    /// revisions: a rebuilt engine, a reload, a control call.
    private var settingsGeneration = 0
    /// Which settings the server holds for deferred states (`VarlinkServer.keep`); nil: none yet.
    private var settingsKept: SettingsKey?
    /// The server has noted that states were skipped (`VarlinkServer.skip`), and has been given
    /// none since (each `keep`, `hold` or `publish` clears its note).
    private var skipNoted = false

    /// What the settings of a state were made from: equal keys, equal settings.
    private struct SettingsKey: Equatable {
        var generation: Int
        var listRevision: Int
        var appearanceRevision: UInt32
        var presentationRevision: UInt32
    }

    /// The shown sheet (`SheetState.sheet`: nil for the shared sheet), the stack, and the
    /// connection that owns the shown sheet, which alone hears its events.
    private var stacked: StackedSheets?
    private var owner: UInt64?
    private var sheet: String? { stacked?.sheet }

    init(engine: borrowing Engine, logger: Logger) {
        self.logger = logger
        detentPositions = Self.positions(of: engine)
    }

    /// The engine was rebuilt: the detents follow its screen and detents.
    mutating func detentsChanged(_ engine: borrowing Engine) {
        detentPositions = Self.positions(of: engine)
        settingsGeneration += 1
    }

    /// Another sheet is shown (`SheetRegistry.swap`), or the stack changed: its detents, its
    /// content for `GetContent` (the shared sheet's alone), and what states say of the stack.
    mutating func sheetShown(_ engine: borrowing Engine, sheet: String?, stack: [String], owner: UInt64?) {
        stacked = sheet == nil && stack.isEmpty && stacked == nil ? nil : StackedSheets(sheet: sheet, stack: stack)
        self.owner = owner
        detentPositions = Self.positions(of: engine)
        settingsGeneration += 1
        sharedRevision = -1
    }

    /// The stack changed while the same sheet is shown.
    mutating func stackChanged(_ stack: [String]) {
        guard stack != (stacked?.stack ?? []) else { return }
        stacked = StackedSheets(sheet: sheet, stack: stack)
        settingsGeneration += 1
    }

    /// A reload or a control call may have changed what a state carries besides what moves.
    mutating func settingsMayHaveChanged() {
        settingsGeneration += 1
    }

    /// Publishes `outputs` and empties them. `inputActive`: a finger is down or a recording
    /// has frames still to play (`State.inputActive`). `maySkip` false: states are kept for
    /// `GetState` even while no one watches (`refresh`).
    mutating func publish(_ outputs: inout [EngineOutput], of engine: inout Engine, clock: EngineClock, turn: inout TurnClock,
                          inputActive: Bool, maySkip: Bool = true) {
        shareContent(of: &engine)
        // Whether this call's states are skipped (decided at the first, `skipping`).
        var skip: Bool? = maySkip ? nil : false
        guard !outputs.isEmpty else {
            // A finger that lands on a resting sheet or lifts without moving it, or a replay's
            // end, changes no state but `inputActive`: subscribers waiting for rest need it.
            if inputActive != publishedInputActive {
                publishCurrent(skip: &skip, of: &engine, clock: clock, turn: &turn, inputActive: inputActive)
            }
            return
        }
        // A state and the list drawn with it (the engine emits the list just before), by their
        // places among the outputs: read in place, an output (a few hundred bytes) is copied
        // only when it is published, not at every step of the walk. The walk's places are
        // locals of the closure, and published by a method, not a nested function: captured
        // by one, each access took a run-time exclusivity check.
        outputs.withUnsafeBufferPointer { outputs in
            var lastSheet: (sheet: Int, list: Int?)?
            var nextList: Int?
            for index in outputs.indices {
                switch outputs[index] {
                case .list:
                    nextList = index
                case .sheet:
                    publish(&lastSheet, in: outputs, skip: &skip, of: &engine, clock: clock, turn: &turn, inputActive: inputActive)
                    lastSheet = (index, nextList)
                    nextList = nil
                case .gesture(let gesture):
                    if gesture.phase == .began || gesture.phase == .recognized { gestures += 1 }
                    publish(&lastSheet, in: outputs, skip: &skip, of: &engine, clock: clock, turn: &turn, inputActive: inputActive)
                    pendingGesture = GestureReport(gesture)
                case .transition(let transition):
                    logger.debug("sheet: \(transition.from.name)\(transition.fromDetent.map { "(\($0))" } ?? "") → \(transition.event) → \(transition.to.name)\(transition.detent.map { "(\($0))" } ?? "")")
                case .content(let report):
                    // Events ride on the state they came with, or the next one.
                    publish(&lastSheet, in: outputs, skip: &skip, of: &engine, clock: clock, turn: &turn, inputActive: inputActive)
                    var event = SheetEvent(report.event, content: engine.content, order: engine.list.order)
                    if let sheet {
                        event.sheet = sheet
                        event.revision = engine.list.revision
                    }
                    pendingEvents.append(event)
                case .release(let decision):
                    logger.debug("sheet: released at \(decision.topInPoints) pt, \(decision.pointsPerSecond) pt/s\(decision.projectedTopInPoints.map { ", projected to \($0) pt" } ?? ""): \(decision.rule.name)\(decision.threshold.map { " (against \($0))" } ?? "") → \(decision.targetName)")
                case .touch:
                    break
                }
            }
            if lastSheet != nil {
                publish(&lastSheet, in: outputs, skip: &skip, of: &engine, clock: clock, turn: &turn, inputActive: inputActive)
            } else if pendingGesture != nil || !pendingEvents.isEmpty || inputActive != publishedInputActive {
                publishCurrent(skip: &skip, of: &engine, clock: clock, turn: &turn, inputActive: inputActive)
            }
        }
        outputs.removeAllFromTheEnd()
    }

    /// The state as it is now, published whether or not anyone watches (kept for `GetState`
    /// when no one does): asked for after states were skipped (`VarlinkServer.skip`).
    mutating func refresh(of engine: inout Engine, clock: EngineClock, turn: inout TurnClock, inputActive: Bool) {
        publish(current(engine, clock), of: &engine, clock: clock, turn: &turn, inputActive: inputActive)
    }

    /// Whether the states of this `publish` call are skipped: no one watches, and the server
    /// has noted that it holds none of them (`VarlinkServer.skip`, decided under the lock a new
    /// subscriber takes). Asked at the call's first state, once. Once the server has noted it,
    /// the note stands until this publisher gives it a state (`skipNoted`): a subscriber that
    /// comes meanwhile finds it and asks for the state as it is then, so the lock need not be
    /// taken again for each frame.
    private mutating func skipping(_ decided: inout Bool?) -> Bool {
        if let decided { return decided }
        let skip = server.map { !$0.mayBeWatched && (skipNoted || $0.skip()) } ?? false
        skipNoted = skip
        decided = skip
        return skip
    }

    /// A state no one watches: numbered and, one in `timing`, timed, but neither
    /// built nor copied nor kept; its gesture and content events go with it, unheard, but for
    /// a program's sheet's events, held for the program's first `Monitor`. `time`: the state's
    /// engine time, read only when it is timed.
    private mutating func skipState(clock: EngineClock, turn: inout TurnClock, inputActive: Bool, time: () -> Timestamp) {
        sequence += 1
        if timed(clock) { latency.record(turn.now().microseconds - clock.publishedTime(ofEngine: time()).microseconds) }
        publishedInputActive = inputActive
        pendingGesture = nil
        guard !pendingEvents.isEmpty else { return }
        if let owner { server?.hold(pendingEvents, for: owner) }
        pendingEvents.removeAll(keepingCapacity: true)
    }

    /// The state at `pending`'s place among `outputs` and the list drawn with it, if there is
    /// one, and then none pending (only numbered when this call's states are skipped).
    private mutating func publish(_ pending: inout (sheet: Int, list: Int?)?, in outputs: UnsafeBufferPointer<EngineOutput>,
                                  skip: inout Bool?, of engine: inout Engine, clock: EngineClock, turn: inout TurnClock,
                                  inputActive: Bool) {
        guard let place = pending else { return }
        pending = nil
        if skipping(&skip) {
            skipState(clock: clock, turn: &turn, inputActive: inputActive) {
                if case .sheet(let snapshot) = outputs[place.sheet] { snapshot.time } else { clock.time }
            }
            return
        }
        guard case .sheet(let snapshot) = outputs[place.sheet] else { return }
        var drawn: ListSnapshot?
        if let list = place.list, case .list(let listSnapshot) = outputs[list] { drawn = listSnapshot }
        publish((snapshot, drawn), of: &engine, clock: clock, turn: &turn, inputActive: inputActive)
    }

    /// A state with no new snapshot in it (the sheet as it is now), or only its number when
    /// this call's states are skipped.
    private mutating func publishCurrent(skip: inout Bool?, of engine: inout Engine, clock: EngineClock, turn: inout TurnClock,
                                         inputActive: Bool) {
        if skipping(&skip) {
            skipState(clock: clock, turn: &turn, inputActive: inputActive) { clock.time }
        } else {
            publish(current(engine, clock), newSnapshot: false, of: &engine, clock: clock, turn: &turn, inputActive: inputActive)
        }
    }

    /// The sheet and its list as they are now, for a state with no new snapshot in it.
    private func current(_ engine: borrowing Engine, _ clock: EngineClock) -> (SheetSnapshot, ListSnapshot?) {
        (engine.snapshot(at: clock.time), engine.listSnapshot(at: clock.time))
    }

    /// `newSnapshot` false: the engine emitted neither the sheet nor its list for this state
    /// (the sheet as it is now), so they are as in the state before.
    mutating func publish(_ pair: (SheetSnapshot, ListSnapshot?), newSnapshot: Bool = true, of engine: inout Engine,
                          clock: EngineClock, turn: inout TurnClock, inputActive: Bool) {
        let (snapshot, list) = pair
        sequence += 1
        let timestamp = clock.publishedTime(ofEngine: snapshot.time)
        if timed(clock) { latency.record(turn.now().microseconds - timestamp.microseconds) }
        // What a paced subscriber gets of it (`MonitorPacer.Novelty`): a pan that moved over a
        // sheet that did not wakes no renderer.
        let novelty: MonitorPacer.Novelty =
            if MonitorPacer.carriesEvent(gesture: pendingGesture, events: pendingEvents.count) { .event }
            else if !newSnapshot, inputActive == publishedInputActive, pendingGesture?.phase == .changed { .gestureMoved }
            else { .change }
        publishedInputActive = inputActive
        guard let server else { return }
        // What follows gives the server this state (kept, held or published), which clears
        // its note of skipped states.
        skipNoted = false
        let watched = server.mayBeWatched
        let region = engine.sheet.regionInPixels(of: snapshot)
        defer {
            pendingGesture = nil
            if !pendingEvents.isEmpty { pendingEvents.removeAll(keepingCapacity: true) }
        }
        // No one watching: the state is kept in its parts, to be built if someone asks. Every
        // subscriber paced and the state carrying no event: each may hold it (a 60 Hz renderer
        // of a 120 Hz panel holds every other state), so it goes unbuilt, and is built only if
        // it falls due while still the newest.
        // A program's sheet's state is built whole: what others get of it differs from what its
        // owner and the renderers get (`VarlinkServer.publish(_:audience:)`).
        let paced = watched && server.mayAllBePaced && novelty != .event && owner == nil
        if (!watched || paced) && owner == nil {
            let key = SettingsKey(generation: settingsGeneration, listRevision: engine.list.revision,
                                  appearanceRevision: snapshot.appearanceRevision, presentationRevision: snapshot.presentationRevision)
            let deferred = DeferredUpdate(sequence: sequence, timestampInMicroseconds: timestamp.microseconds, snapshot: snapshot,
                                          list: list, inputActive: inputActive, regionInPixels: region,
                                          gesture: paced ? pendingGesture : nil)
            let kept = switch (paced, key == settingsKept) {
            case (false, true): server.keep(deferred)
            case (false, false): server.keep(deferred, settings: settings(of: engine))
            case (true, true): server.hold(deferred, settings: nil, novelty: novelty)
            case (true, false): server.hold(deferred, settings: settings(of: engine), novelty: novelty)
            }
            if kept {
                settingsKept = key
                return
            }
        }
        let configuration = engine.configuration
        let state = SheetState(snapshot, list: list, screen: configuration.screen,
                               layout: configuration.list, content: engine.content,
                               detents: detentPositions, inputActive: inputActive, appearance: engine.appearance,
                               presentation: configuration.sheet.presentation, regionInPixels: region, stacked: stacked)
        server.publish(MonitorUpdate(sequence: sequence, timestampInMicroseconds: timestamp.microseconds,
                                     state: state, gesture: pendingGesture, events: pendingEvents), novelty: novelty, audience: owner)
    }

    /// Whether the state just numbered is timed: one in `timing`.
    private func timed(_ clock: EngineClock) -> Bool {
        !clock.asFastAsPossible && sequence % Self.timing == 1
    }

    /// What a state of `engine` carries besides what moves.
    private func settings(of engine: borrowing Engine) -> StateSettings {
        let configuration = engine.configuration
        return StateSettings(screen: configuration.screen, layout: configuration.list, content: engine.content,
                             detents: detentPositions, appearance: engine.appearance, presentation: configuration.sheet.presentation,
                             stacked: stacked)
    }

    /// Tells `GetContent` what the engine holds now, whenever the list's revision has moved on
    /// (new content, or a swap: a few a second at most while a finger drags an item). Called
    /// before states are published, so `GetContent` never answers with a revision older than
    /// a state a client has seen.
    // `inout` though it only reads: called with the engine borrowed, the call copied it whole
    // (3.5 KB, a memcpy of some 360 instructions a turn) once the engine grew.
    private mutating func shareContent(of engine: inout Engine) {
        guard engine.list.revision != sharedRevision else { return }
        sharedRevision = engine.list.revision
        // A program's content is its own and the renderers' (`GetContent` of others asks the loop).
        if let sheet {
            share.setShown(SharedContent(content: engine.content, order: engine.list.order, revision: sharedRevision, sheet: sheet))
            return
        }
        share.setShown(nil)
        share.set(SharedContent(content: engine.content, order: engine.list.order, revision: sharedRevision))
    }

    static func positions(of engine: borrowing Engine) -> [SheetProtocol.DetentPosition] {
        let scale = engine.configuration.screen.scale
        return engine.sheet.detents.detents.map { SheetProtocol.DetentPosition(name: $0.name, topInPixels: $0.topInPoints * scale) }
    }
}
