#if canImport(Glibc)
import Glibc
#endif
import Logging
import SheetConfig
import SheetCore
import SheetInput
import SheetProtocol
import SheetRecordings
import SheetServer
import SheetService
import Synchronization

/// The loop that owns the engine: it waits (poll) on the input, a timer for the engine's next
/// deadline and an eventfd for commands, and does nothing else. With no finger down and the
/// sheet at rest there is no deadline, so it sleeps until input arrives, a command comes or the
/// watchdog is due.
///
/// Time: with libinput the engine runs on CLOCK_MONOTONIC, the clock of the kernel's event
/// stamps. A recording runs on its own time from zero, mapped onto the monotonic clock at its
/// speed (`@max`: not at all, frame after frame); when it has ended and the sheet rests, the
/// engine clock goes on at the real pace.
final class EngineLoop: @unchecked Sendable {
    enum Source {
        case live(LibinputInput)
        case recording(RecordedInput, speed: Double?)
        case none
    }

    private(set) var settings: Settings
    private let logger: Logger
    private let systemd: Systemd
    private var source: Source
    private var engine: Engine
    private var outputs: [EngineOutput] = []
    private var frames = TouchFrameBatch()
    /// libinput's `devicesRevision` when the device list was last published.
    private var seenDevicesRevision = -1

    // The clock: engine time = anchorEngine + (monotonic - anchorMonotonic) * rate.
    private var anchorEngine = Timestamp.zero
    private var anchorMonotonic = Timestamp.zero
    private var rate = 1.0
    /// A recording is being played (the engine's clock is the recording's).
    private var replaying = false
    /// The next recorded frame, read ahead to know when it is due.
    private var nextRecordedFrame: TouchFrame?
    /// Engine time of the newest event processed; the engine never goes back.
    private var engineTime = Timestamp.zero

    /// The detents as published, in pixels; they change only with the screen.
    private var detentPositions: [SheetProtocol.DetentPosition] = []
    private var sequence: Int64 = 0
    private var pendingGesture: GestureReport?
    private var pendingEvents: [SheetEvent] = []
    /// `inputActive` as the last published state said it.
    private var publishedInputActive = false
    private var nextWatchdog: Timestamp?

    // What survives a restart (`state-directory`).
    private let store: StateStore?
    private var restored: SavedState?
    /// What was last handed to the store, and when; the next save is due a second after.
    private var savedRevision = -1
    private var savedDetent: DetentName?
    private var lastSave: Timestamp?
    private var nextSave: Timestamp?
    private var lastRestingDetent: DetentName?
    /// Reduced motion as a client set it, kept across a restart and a reload that leaves the
    /// file's setting as it was; nil: as configured.
    private var chosenReduceMotion: Bool?
    private var savedReduceMotion: Bool?
    /// The appearance as a client set it (nil: as configured), and as last saved.
    private var chosenAppearance: Appearance?
    private var savedAppearance: Appearance?
    /// How the sheet opens and shares the screen as a client set it (nil: as configured),
    /// and as last saved.
    private var chosenPresentation: SheetPresentation?
    private var savedPresentation: SheetPresentation?
    /// While a recording plays: the monotonic time its next frame or deadline is due.
    private var replayDue: Timestamp?
    /// When the timer is set early for `replayDue`: the time it is set for.
    private var replayWake: Timestamp?
    /// A recording's frames stand for events the kernel would deliver at their time. A timer
    /// wakes a sleeping thread late (on a virtual machine by 100 µs and more), so while a
    /// recording plays the timer is set early by how late it has been firing (`WakeLead`) and
    /// the rest is waited out on the clock: the recorded timing is kept to a few microseconds
    /// for the CPU time the machine's wake-up latency asks. Live input needs no timer: the
    /// kernel's events wake the thread.
    private var wakeLead = WakeLead()
    weak var server: VarlinkServer?

    // Shared with other threads.
    private let inbox = Mutex<Inbox>(Inbox())
    /// Devices that programs feed over `io.sheetd.Input`.
    private let plugins: PluginInput

    /// What other threads hand the loop.
    struct Inbox {
        var commands: [(ControlRequest, @Sendable (ControlResult) -> Void)] = []
        var reloads: [(Settings, @Sendable () -> Void)] = []
        var inputs: [InputCall] = []
        /// Connections gone with input devices open.
        var inputConnectionsGone: [UInt64] = []
        var stopping = false
    }

    struct InputCall {
        var request: InputRequest
        var connection: UInt64
        var peer: PeerCredentials
        var completion: @Sendable (InputResult) -> Void
    }
    private let deviceList = Mutex<[InputDevice]>([])
    /// The content, the list's order and its revision, for `GetContent` on the server's thread.
    private let contentBox = Mutex<SharedContent>(SharedContent(content: .empty, order: [], revision: 0))
    private var sharedRevision = 0
    private let waiter: Waiter

    init(settings: Settings, systemd: Systemd, logger: Logger) throws {
        self.settings = settings
        self.systemd = systemd
        self.logger = logger
        store = settings.stateDirectory.map { StateStore(directory: $0, logger: logger) }
        restored = store?.load()
        var configuration = settings.engine
        if let reduceMotion = restored?.reduceMotion {
            configuration.sheet.reduceMotion = reduceMotion
            chosenReduceMotion = reduceMotion
            savedReduceMotion = reduceMotion
        }
        if let appearance = restored?.appearance {
            configuration.appearance = appearance
            chosenAppearance = appearance
            savedAppearance = appearance
        }
        if let presentation = restored?.presentation {
            configuration.sheet.presentation = presentation
            chosenPresentation = presentation
            savedPresentation = presentation
        }
        var start = configuration.initialDetent
        if let detent = restored?.detent {
            if detent.isFloor || configuration.sheet.detents.contains(where: { $0.name == detent }) {
                start = detent
            } else {
                logger.warning("the saved detent \(detent) is not one of the configuration's; starting at \(start)")
            }
        }
        engine = Engine(configuration: configuration, startingAt: start)
        // Room for what a frame or a replay's batch (`replayBatch` publishes past 256) emits,
        // so that the first frames do not grow it.
        outputs.reserveCapacity(512)
        plugins = PluginInput(screen: configuration.screen)
        lastRestingDetent = start
        waiter = try Waiter()
        detentPositions = Self.positions(of: engine)
        source = .none
        switch try InputSpec(parsing: settings.input) {
        case .udev(let seat):
            source = .live(try LibinputInput(mode: .udev(seat: seat), logger: logger))
        case .paths(let nodes):
            source = .live(try LibinputInput(mode: .paths(nodes), logger: logger))
        case .replay(let path, let speed):
            source = .recording(try RecordedInput(path: path, screen: settings.engine.screen), speed: speed)
        case .none:
            source = .none
        }
        refreshDevices()
    }

    var devices: [InputDevice] { deviceList.withLock { $0 } }

    var content: SharedContent { contentBox.withLock { $0 } }

    /// Tells `GetContent` what the engine holds now, whenever the list's revision has moved on
    /// (new content, or a swap: a few a second at most while a finger drags an item). Called
    /// before states are published, so `GetContent` never answers with a revision older than
    /// a state a client has seen.
    private func shareContent() {
        guard engine.list.revision != sharedRevision else { return }
        sharedRevision = engine.list.revision
        let shared = SharedContent(content: engine.content, order: engine.list.order, revision: sharedRevision)
        contentBox.withLock { $0 = shared }
    }

    private func refreshDevices() {
        var list: [InputDevice] = switch source {
        case .live(let input): input.devices
        case .recording(let input, _): input.devices
        case .none: []
        }
        if !plugins.isEmpty { list += plugins.reports }
        let changed = deviceList.withLock { old -> Bool in
            defer { old = list }
            return old != list
        }
        if changed { updateStatus() }
    }

    // MARK: Other threads

    /// Queues a control call; `completion` runs on this loop's thread.
    func submit(_ request: ControlRequest, completion: @escaping @Sendable (ControlResult) -> Void) {
        inbox.withLock { $0.commands.append((request, completion)) }
        wake()
    }

    /// Queues a reload with settings read again; `completion` runs on this loop's thread
    /// once they apply.
    func reload(_ settings: Settings, completion: @escaping @Sendable () -> Void) {
        inbox.withLock { $0.reloads.append((settings, completion)) }
        wake()
    }

    /// Queues an `io.sheetd.Input` call; `completion` runs on this loop's thread.
    func submit(_ call: InputCall) {
        inbox.withLock { $0.inputs.append(call) }
        wake()
    }

    /// Closes the input devices of a connection that has gone.
    func inputConnectionClosed(_ connection: UInt64) {
        inbox.withLock { $0.inputConnectionsGone.append(connection) }
        wake()
    }

    func stop() {
        inbox.withLock { $0.stopping = true }
        wake()
    }

    /// Called on the loop's thread when SIGHUP comes; set before `run`. The reload it starts
    /// runs elsewhere and comes back to the loop as a call.
    var onHangup: (@Sendable () -> Void)?

    /// From now on SIGTERM and SIGINT stop the loop (and with it the daemon), SIGHUP calls
    /// `onHangup`: the loop's waiter catches them, so that no thread but the loop's wakes
    /// for them.
    func catchSignals() {
        waiter.catchSignals([SIGTERM, SIGINT, SIGHUP])
    }

    /// Acts on caught signals (`Waiter.takeSignals`); false: the loop stops.
    private func handle(signals: UInt64) -> Bool {
        for (signal, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] where signals & (1 << UInt64(signal)) != 0 {
            logger.notice("\(name): stopping")
            return false
        }
        if signals & (1 << UInt64(SIGHUP)) != 0 { onHangup?() }
        return true
    }

    private func wake() { waiter.wake() }

    // MARK: The clock

    private func engineTime(atMonotonic monotonic: Timestamp) -> Timestamp {
        let elapsed = Double(monotonic.microseconds - anchorMonotonic.microseconds) * rate
        return Timestamp(microseconds: anchorEngine.microseconds + Int64(elapsed.rounded()))
    }

    private func monotonic(atEngine time: Timestamp) -> Timestamp {
        let elapsed = Double(time.microseconds - anchorEngine.microseconds) / rate
        return Timestamp(microseconds: anchorMonotonic.microseconds + Int64(elapsed.rounded()))
    }

    /// A recording at `@max`: the engine's clock is the recording's alone.
    private var replayingAsFastAsPossible: Bool {
        guard replaying, case .recording(_, nil) = source else { return false }
        return true
    }

    /// The engine's "now", never before the last event it saw.
    private func engineNow() -> Timestamp {
        if replayingAsFastAsPossible { return engineTime }
        return max(engineTime(atMonotonic: LibinputInput.monotonicNow()), engineTime)
    }

    // MARK: Reading the engine

    // A getter of the core called on `engine` itself copies the whole engine first (2.5 KB, with
    // a retain and a release of each buffer it holds), as the engine is a value of another
    // module held by a class. Read through its address, the retains and releases go; a getter
    // not inlined across the module still takes a bitwise copy of the 2.5 KB. `nextDeadline`,
    // read before every wait, is inlinable and takes none; the snapshots, read only when a
    // frame changed nothing but the fingers, take one.

    /// The engine's next deadline (`Engine.nextDeadline`).
    private var engineDeadline: Timestamp? {
        withUnsafeMutablePointer(to: &engine) { $0.pointee.nextDeadline }
    }

    /// The sheet and its list as they are now, for a state with no new snapshot in it.
    private func currentState() -> (SheetSnapshot, ListSnapshot?) {
        withUnsafeMutablePointer(to: &engine) { ($0.pointee.snapshot(at: engineTime), $0.pointee.listSnapshot(at: engineTime)) }
    }

    // MARK: The loop

    /// Runs until `stop()`. Call on a thread of its own.
    /// Starts the clocks and the engine and publishes the first state (and the content), before
    /// the socket is served: a call that comes the moment it is never finds the daemon without
    /// a state or without its restored content. Called once, before `run`, on any thread.
    func begin() {
        let now = LibinputInput.monotonicNow()
        switch source {
        case .recording(let input, let speed):
            replaying = true
            anchorEngine = .zero
            anchorMonotonic = now
            rate = speed ?? 1
            logger.notice("replaying \(input.path) \(speed.map { "at \($0)x" } ?? "as fast as possible")")
            readAhead()
        default:
            anchorEngine = now
            anchorMonotonic = now
        }
        engineTime = engineNow()
        // What was saved wins over the configuration's content: it is what a client set last.
        if let content = restored?.content ?? settings.content {
            engine.setContent(content, at: engineTime, into: &outputs)
        }
        restored = nil
        engine.start(at: engineTime, into: &outputs)
        publishOutputs()
        if let interval = systemd.watchdogIntervalMicroseconds {
            nextWatchdog = now.adding(microseconds: interval)
        }
        updateStatus()
    }

    /// The loop, on its own thread: waits for input, timers and commands, and dispatches them.
    func run() {
        reduceTimerSlack()
        while true {
            let signals = waiter.takeSignals()
            if signals != 0, !handle(signals: signals) { break }
            let taken = inbox.withLock { box in
                defer { box = Inbox(stopping: box.stopping) }
                return box
            }
            if taken.stopping { break }
            for (settings, completion) in taken.reloads {
                reload(settings)
                completion()
            }
            for (request, completion) in taken.commands { completion(perform(request)) }
            if !taken.inputs.isEmpty || !taken.inputConnectionsGone.isEmpty {
                // The device list changes with opens and closes only, not with each frame.
                var devicesChanged = !taken.inputConnectionsGone.isEmpty
                for call in taken.inputs {
                    let result = perform(call)
                    applyFrames()
                    call.completion(result)
                    if case .frame = call.request {} else { devicesChanged = true }
                }
                let now = LibinputInput.monotonicNow()
                for connection in taken.inputConnectionsGone {
                    let closed = plugins.closeAll(owner: connection, now: now, into: &frames)
                    if closed > 0 { logger.notice("input: \(closed) device(s) of a connection that went away closed") }
                }
                applyFrames()
                if devicesChanged { refreshDevices() }
            }

            let fastReplay = replayingAsFastAsPossible
            if fastReplay {
                replayBatch()
            } else {
                armTimer()
            }
            var inputDescriptor: Int32?
            if case .live(let input) = source { inputDescriptor = input.fileDescriptor }
            // Only a timer that had to wake the loop teaches `wakeLead` how late it fires.
            var asleepBeforeWake = false
            if let wake = replayWake { asleepBeforeWake = LibinputInput.monotonicNow() < wake }
            let ready = waiter.wait(input: inputDescriptor, block: !fastReplay)
            if let due = replayDue { waitOut(due, timerWoke: ready.timer && asleepBeforeWake) }
            if ready.input, case .live(let input) = source {
                input.dispatch(screen: engine.configuration.screen, into: &frames)
                applyFrames()
                // Devices come and go in the same dispatch as touches, rarely: the list is
                // rebuilt and compared only when it changed.
                if input.devicesRevision != seenDevicesRevision {
                    seenDevicesRevision = input.devicesRevision
                    refreshDevices()
                }
            }
            if !fastReplay { catchUp() }
            publishOutputs()
            watchdog()
            persist()
        }
        waiter.arm(at: nil)
        persist(now: true)
        store?.flush()
        logger.info("input loop stopped")
    }

    /// Hands live frames (libinput's, the plugins') to the engine, stamped on its clock and
    /// never before the last event it saw.
    private func applyFrames() {
        for index in frames.indices {
            var stamped = frames[index]
            engineTime = max(engineTime, engineTime(atMonotonic: stamped.time))
            stamped.time = engineTime
            process(stamped)
        }
        frames.removeAll()
    }

    /// Gives the engine one frame. A content event goes out before the next frame is taken: a
    /// reorder's end is published with the list's order (`ListMachine.order`), which a later
    /// frame of the same batch could change by starting another reorder.
    private func process(_ frame: TouchFrame) {
        let before = outputs.count
        engine.process(frame, into: &outputs)
        for index in before..<outputs.count {
            if case .content = outputs[index] {
                publishOutputs()
                return
            }
        }
    }

    /// An input call: a device opened or closed, a frame checked and decoded into `frames`.
    private func perform(_ call: InputCall) -> InputResult {
        let result = plugins.perform(call.request, owner: call.connection, pid: call.peer.pid, uid: call.peer.uid,
                                     now: LibinputInput.monotonicNow(), into: &frames)
        switch (call.request, result) {
        case (.open(let declaration), .opened(let id)):
            logger.notice("input: device \(id) \"\(declaration.name)\", a \(declaration.kind.name) with \(declaration.slots) slot(s), opened by \(call.peer)")
        case (.close(let device), .done):
            logger.notice("input: device \(device) closed by \(call.peer)")
        default:
            break
        }
        return result
    }

    /// Processes recorded frames that are due and fires the engine's deadlines up to now.
    private func catchUp() {
        // With no recording and no deadline nothing can be due, and the clock is not read: on
        // a machine without a usable TSC each read is a system call, taken once per frame.
        guard replaying || engineDeadline != nil else { return }
        let now = engineNow()
        if replaying {
            while let frame = nextRecordedFrame, frame.time <= now {
                apply(frame)
                readAhead()
            }
        }
        if let deadline = engineDeadline, deadline <= now {
            engine.advance(to: now, into: &outputs)
            engineTime = max(engineTime, now)
        }
        endReplayIfDone()
    }

    /// As fast as possible: a batch of frames, then a look at the commands and the socket.
    private func replayBatch() {
        for _ in 0..<512 {
            if let frame = nextRecordedFrame {
                apply(frame)
                readAhead()
            } else if let deadline = engineDeadline {
                engine.advance(to: deadline, into: &outputs)
                engineTime = max(engineTime, deadline)
            } else {
                break
            }
            if outputs.count > 256 { publishOutputs() }
        }
        endReplayIfDone()
    }

    private func apply(_ frame: TouchFrame) {
        engineTime = max(engineTime, frame.time)
        if frame.isEmpty {
            engine.advance(to: frame.time, into: &outputs)
        } else {
            process(frame)
        }
    }

    private func readAhead() {
        guard case .recording(let input, _) = source else { return }
        do {
            nextRecordedFrame = try input.next(screen: engine.configuration.screen)
        } catch {
            logger.error("\(error); the replay stops here")
            nextRecordedFrame = nil
        }
        if nextRecordedFrame == nil { finishRecording(input) }
    }

    private var recordingClosed = false

    /// At the recording's end: its warnings, and fingers still down are cancelled (as
    /// `sheetctl replay` does).
    private func finishRecording(_ input: RecordedInput) {
        guard !recordingClosed else { return }
        recordingClosed = true
        for warning in input.warnings { logger.warning("\(warning)") }
        if engine.activeTouchCount > 0 {
            logger.warning("\(input.path): the recording ends with \(engine.activeTouchCount) finger(s) down: cancelled at its end")
            engineTime = max(engineTime, input.lastEventTime)
            engine.cancelAllTouches(at: engineTime, into: &outputs)
        }
    }

    /// When the recording is over and the sheet rests, the engine clock goes on at the real
    /// pace from where it is.
    private func endReplayIfDone() {
        guard replaying, nextRecordedFrame == nil, recordingClosed, engineDeadline == nil else { return }
        publishOutputs()
        replaying = false
        anchorEngine = engineTime
        anchorMonotonic = LibinputInput.monotonicNow()
        rate = 1
        if case .recording(let input, _) = source {
            let rest = engine.sheet.detentIndex.map { "at \(engine.sheet.detents[$0].name)" } ?? "between detents"
            logger.notice("replay of \(input.path) done; the sheet rests \(rest)")
            logger.info("the replay's timer was set \(wakeLead.microseconds) µs early at the end (how late it fires here)")
            systemd.notify("STATUS=replay done; the sheet rests \(rest)")
        }
    }

    // MARK: Timer

    private func armTimer() {
        var wake: Timestamp?
        if let deadline = engineDeadline { wake = monotonic(atEngine: deadline) }
        if replaying, let frame = nextRecordedFrame {
            let due = monotonic(atEngine: frame.time)
            wake = wake.map { min($0, due) } ?? due
        }
        replayDue = replaying ? wake : nil
        replayWake = nil
        if let watchdog = nextWatchdog { wake = wake.map { min($0, watchdog) } ?? watchdog }
        if let save = nextSave { wake = wake.map { min($0, save) } ?? save }
        if let due = replayDue, let planned = wake, due <= planned {
            wake = due.adding(microseconds: -wakeLead.microseconds)
            replayWake = wake
        }
        waiter.arm(at: wake)
    }

    /// Spins to `due` once the time the early timer was set for has passed; learns how late
    /// the timer fired when it is what woke the thread from a sleep begun before that time
    /// (not a call or a plugin's frame, nor a timer set for a time already past).
    private func waitOut(_ due: Timestamp, timerWoke: Bool) {
        guard let armed = replayWake else { return }
        var now = LibinputInput.monotonicNow()
        guard now >= armed else { return }
        if timerWoke { wakeLead.record(armed: armed, woke: now) }
        replayWake = nil
        while now < due { now = LibinputInput.monotonicNow() }
    }

    private func watchdog() {
        guard let due = nextWatchdog, let interval = systemd.watchdogIntervalMicroseconds else { return }
        let now = LibinputInput.monotonicNow()
        guard now >= due else { return }
        systemd.notify("WATCHDOG=1")
        nextWatchdog = now.adding(microseconds: interval)
        updateStatus()
    }

    /// Hands the content, its order and the detent the sheet last rested at to the store when
    /// they changed: at once when the last save is a second old (or `now`: at stop), else a
    /// second after it, when the timer wakes the loop. The store writes on its own thread.
    private func persist(now immediately: Bool = false) {
        guard let store else { return }
        if engine.sheet.kind == .resting, let index = engine.sheet.detentIndex {
            lastRestingDetent = engine.sheet.detents[index].name
        }
        guard engine.list.revision != savedRevision || lastRestingDetent != savedDetent
                || chosenReduceMotion != savedReduceMotion || chosenAppearance != savedAppearance
                || chosenPresentation != savedPresentation else {
            nextSave = nil
            return
        }
        let now = LibinputInput.monotonicNow()
        if !immediately, let last = lastSave, now < last.adding(microseconds: 1_000_000) {
            nextSave = last.adding(microseconds: 1_000_000)
            return
        }
        store.save(SavedState(content: engine.content, order: engine.list.order, detent: lastRestingDetent,
                              reduceMotion: chosenReduceMotion, appearance: chosenAppearance,
                              presentation: chosenPresentation))
        savedRevision = engine.list.revision
        savedDetent = lastRestingDetent
        savedReduceMotion = chosenReduceMotion
        savedAppearance = chosenAppearance
        savedPresentation = chosenPresentation
        lastSave = now
        nextSave = nil
    }

    private func updateStatus() {
        guard systemd.notifySocket != nil else { return }
        let used = devices.filter(\.used).count
        let subscribers = server?.statistics.subscribers ?? 0
        let detent = engine.sheet.detentIndex.map { engine.sheet.detents[$0].name.description } ?? "moving"
        systemd.notify("STATUS=\(used) touch device(s), \(subscribers) subscriber(s), sheet \(detent)")
    }

    // MARK: Commands

    /// A control call: the engine's mapping (`Engine.perform(_: ControlRequest…)`) decides and
    /// answers; the loop keeps what outlives the engine (the screen for a reload, reduced
    /// motion as chosen), tells the input plugins of a new screen, and logs.
    private func perform(_ request: ControlRequest) -> ControlResult {
        let now = engineNow()
        engineTime = now
        let before = engine.configuration
        let result = engine.perform(request, at: now, into: &outputs)
        if result == .done {
            switch request {
            case .setContent:
                let content = engine.content
                logger.notice("content: \(content.items.count) item(s), title \"\(content.title)\"\(content.guarded ? ", guarded" : "")")
            case .setReduceMotion(let enabled):
                chosenReduceMotion = enabled
            case .setPresentation:
                let presentation = engine.configuration.sheet.presentation
                chosenPresentation = presentation
                logger.notice("presentation: gestures \(presentation.gestures.members.isEmpty ? "none" : presentation.gestures.members.map { $0.name.description }.joined(separator: ",")), \(presentation.modal ? "modal" : "not modal"), can open \(presentation.canOpen), can close \(presentation.canClose)")
            case .setAppearance:
                chosenAppearance = engine.appearance
                let appearance = engine.appearance
                logger.notice("appearance: theme \(appearance.theme.name), accent \(appearance.accent), text scale \(appearance.textScale)")
            default:
                break
            }
            configured(from: before)
        }
        publishOutputs()
        return result
    }

    /// What follows the engine's configuration changing. Anything but reduced motion means
    /// the engine was rebuilt (`reconfigure`) and dropped its touches: the plugins map their
    /// fingers afresh, and the published detents follow the new screen and detents.
    private func configured(from before: EngineConfiguration) {
        let configuration = engine.configuration
        var rest = before
        rest.sheet.reduceMotion = configuration.sheet.reduceMotion
        // Only a bar that came, went or changed height rebuilt the engine.
        if !configuration.sheet.presentation.shapesDetentsUnlike(before.sheet.presentation) {
            rest.sheet.presentation = configuration.sheet.presentation
        }
        if rest != configuration {
            let screen = configuration.screen
            if screen != before.screen {
                logger.notice("screen is now \(screen.widthInPixels)x\(screen.heightInPixels) at scale \(screen.scale)")
            }
            settings.engine.screen = screen
            plugins.resync(screen: screen)
            detentPositions = Self.positions(of: engine)
        }
        if configuration.sheet.reduceMotion != before.sheet.reduceMotion {
            logger.notice("reduced motion \(configuration.sheet.reduceMotion ? "on" : "off")")
        }
    }

    /// Applies a configuration read again (SIGHUP): the policy, detents, thresholds and the
    /// content's default take effect now; the screen stays the one renderers set; what only a
    /// start can change (input, socket, state directory) is reported and left.
    private func reload(_ new: Settings) {
        let now = engineNow()
        engineTime = now
        for (key, old, changed) in [("input", settings.input, new.input), ("socket", settings.socketPath, new.socketPath),
                                    ("input-socket", settings.inputSocketPath ?? "", new.inputSocketPath ?? ""),
                                    ("input-group", settings.inputGroup ?? "", new.inputGroup ?? ""),
                                    ("state-directory", settings.stateDirectory ?? "", new.stateDirectory ?? "")] where old != changed {
            logger.warning("reload: `\(key)` changes only at a restart; still \(old.isEmpty ? "none" : old)")
        }
        var configuration = new.engine
        configuration.screen = engine.configuration.screen
        // Reduced motion as a client set it stays, unless the file's setting changed.
        let reduceMotion = engine.configuration.sheet.reduceMotion
        if new.engine.sheet.reduceMotion == settings.engine.sheet.reduceMotion {
            configuration.sheet.reduceMotion = reduceMotion
        } else {
            chosenReduceMotion = nil
        }
        // So does the presentation as a client set it.
        if new.engine.sheet.presentation == settings.engine.sheet.presentation {
            configuration.sheet.presentation = engine.configuration.sheet.presentation
        } else {
            chosenPresentation = nil
        }
        // The appearance goes its own way (`setAppearance`, below): a file that changes only
        // how the sheet looks rebuilds nothing and cancels no finger.
        let appearanceChanged = new.engine.appearance != settings.engine.appearance
        configuration.appearance = engine.configuration.appearance
        let configuredBefore = settings.content ?? .empty
        let untouched = engine.content == configuredBefore
        let kept = settings
        settings = new
        (settings.input, settings.socketPath, settings.stateDirectory) = (kept.input, kept.socketPath, kept.stateDirectory)
        (settings.inputSocket, settings.inputGroup) = (kept.inputSocket, kept.inputGroup)
        settings.engine.screen = configuration.screen
        var rest = configuration
        rest.sheet.reduceMotion = reduceMotion
        let before = engine.configuration
        // A presentation that keeps the detents' shape applies in place, as SetPresentation does.
        let presentationInPlace = !configuration.sheet.presentation.shapesDetentsUnlike(before.sheet.presentation)
        if presentationInPlace { rest.sheet.presentation = before.sheet.presentation }
        if rest != before {
            engine.reconfigure(configuration, at: now, into: &outputs)
        } else {
            // Only these changed: no need to cancel a finger down.
            if configuration.sheet.reduceMotion != reduceMotion {
                engine.perform(SheetCommand.setReduceMotion(configuration.sheet.reduceMotion), at: now, into: &outputs)
            }
            if configuration.sheet.presentation != before.sheet.presentation {
                engine.perform(SheetCommand.setPresentation(configuration.sheet.presentation), at: now, into: &outputs)
            }
        }
        configured(from: before)
        // The configured content replaces what the sheet holds only if no client changed it.
        let configuredContent = new.content ?? .empty
        if untouched, configuredContent != configuredBefore {
            engine.setContent(configuredContent, at: now, into: &outputs)
        }
        // The file's appearance when the file changed it; else what a client set holds.
        if appearanceChanged {
            engine.setAppearance(new.engine.appearance, at: now, into: &outputs)
            chosenAppearance = nil
        }
        publishOutputs()
        logger.notice("reloaded: policy \(configuration.sheet.ruleSet.rawValue), detents \(configuration.sheet.detents.map(\.name.description).joined(separator: ",")), reduced motion \(configuration.sheet.reduceMotion ? "on" : "off"), log level \(new.logLevel)")
    }

    // MARK: Publishing

    /// A finger is down, or the recording has frames still to play (`State.inputActive`).
    private var inputActive: Bool { replaying || engine.activeTouchCount > 0 }

    private func publishOutputs() {
        shareContent()
        guard !outputs.isEmpty else {
            // A finger that lands on a resting sheet or lifts without moving it, or a replay's
            // end, changes no state but `inputActive`: subscribers waiting for rest need it.
            if inputActive != publishedInputActive {
                publish(currentState())
            }
            return
        }
        // A state and the list drawn with it (the engine emits the list just before).
        var lastSheet: (SheetSnapshot, ListSnapshot?)?
        var nextList: ListSnapshot?
        for output in outputs {
            switch output {
            case .list(let list):
                nextList = list
            case .sheet(let snapshot):
                if let pending = lastSheet { publish(pending) }
                lastSheet = (snapshot, nextList)
                nextList = nil
            case .gesture(let gesture):
                if let pending = lastSheet { publish(pending); lastSheet = nil }
                pendingGesture = GestureReport(gesture)
            case .transition(let transition):
                logger.debug("sheet: \(transition.from.name)\(transition.fromDetent.map { "(\($0))" } ?? "") → \(transition.event) → \(transition.to.name)\(transition.detent.map { "(\($0))" } ?? "")")
            case .content(let report):
                // Events ride on the state they came with, or the next one.
                if let pending = lastSheet { publish(pending); lastSheet = nil }
                pendingEvents.append(SheetEvent(report.event, content: engine.content, order: engine.list.order))
            case .touch:
                break
            }
        }
        if let lastSheet {
            publish(lastSheet)
        } else if pendingGesture != nil || !pendingEvents.isEmpty || inputActive != publishedInputActive {
            publish(currentState())
        }
        outputs.removeAll(keepingCapacity: true)
    }

    private func publish(_ pair: (SheetSnapshot, ListSnapshot?)) {
        let (snapshot, list) = pair
        sequence += 1
        let timestamp: Timestamp
        if replayingAsFastAsPossible {
            timestamp = LibinputInput.monotonicNow()
        } else {
            timestamp = monotonic(atEngine: snapshot.time)
        }
        publishedInputActive = inputActive
        let state = SheetState(snapshot, list: list, screen: engine.configuration.screen,
                               layout: engine.configuration.list, content: engine.content,
                               detents: detentPositions, inputActive: publishedInputActive, appearance: engine.appearance,
                               presentation: engine.configuration.sheet.presentation,
                               regionInPixels: engine.sheet.regionInPixels(of: snapshot))
        let update = MonitorUpdate(sequence: sequence, timestampInMicroseconds: timestamp.microseconds,
                                   state: state, gesture: pendingGesture, events: pendingEvents)
        pendingGesture = nil
        pendingEvents.removeAll(keepingCapacity: true)
        server?.publish(update)
    }

    static func positions(of engine: Engine) -> [SheetProtocol.DetentPosition] {
        let scale = engine.configuration.screen.scale
        return engine.sheet.detents.detents.map { SheetProtocol.DetentPosition(name: $0.name, topInPixels: $0.topInPoints * scale) }
    }
}

enum DaemonError: Error, CustomStringConvertible {
    case system(call: String, errno: Int32)
    case unknownGroup(String)

    var description: String {
        switch self {
        case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
        case .unknownGroup(let name): "no group named `\(name)` (sysusers.d/sheetd.conf creates `sheetd`)"
        }
    }
}
