#if canImport(Glibc)
import Glibc
#endif
import Logging
import SheetConfig
import SheetCore
import SheetInput
import SheetProtocol
import SheetRecordings
import SheetRules
import SheetServer
import SheetService
import Synchronization

/// The loop that owns the engine, as other threads see it: the inbox they hand calls to, the
/// devices and content they may read, and the thread that runs it. What the loop's turns read
/// and change is a `LoopState`, which `run` holds as a local of the loop's thread, so that no
/// access to it needs a run-time exclusivity check (a property of a class takes one at every
/// access, a dozen a turn).
final class EngineLoop: @unchecked Sendable {
    let input: LoopInput
    private let contentShare: ContentShare
    /// Where other threads' calls wait for the loop.
    let inbox: LoopInbox
    let waiter: Waiter
    /// Everything else, here before `run` takes it and after it ends.
    private var state: LoopState?

    init(settings: Settings, systemd: Systemd, logger: Logger) throws {
        let waiter = try Waiter()
        let state = try LoopState(settings: settings, systemd: systemd, logger: logger, waiter: waiter)
        self.waiter = waiter
        inbox = state.inbox
        input = state.input
        contentShare = state.publisher.share
        self.state = state
    }

    /// The server the loop publishes to; set before `run` (after, the loop's thread has it).
    var server: VarlinkServer? {
        get { state?.publisher.server }
        set {
            precondition(state != nil, "the loop's server is set before it runs")
            state?.publisher.server = newValue
        }
    }

    var devices: [InputDevice] { input.devices }

    func content(shown: Bool) -> SharedContent { shown ? contentShare.shown : contentShare.content }

    /// Called on the loop's thread when SIGHUP comes; set before `run`. The reload it starts
    /// runs elsewhere and comes back to the loop as a call.
    var onHangup: (@Sendable () -> Void)? {
        get { state?.onHangup }
        set {
            precondition(state != nil, "onHangup is set before the loop runs")
            state?.onHangup = newValue
        }
    }

    /// From now on SIGTERM and SIGINT stop the loop (and with it the daemon), SIGHUP calls
    /// `onHangup`: the loop's waiter catches them, so that no thread but the loop's wakes
    /// for them.
    func catchSignals() {
        waiter.catchSignals([SIGTERM, SIGINT, SIGHUP])
    }

    /// Starts the clocks and the engine and publishes the first state (and the content), before
    /// the socket is served: a call that comes the moment it is never finds the daemon without
    /// a state or without its restored content. Called once, before `run`, on any thread.
    func begin() {
        precondition(state != nil, "begin comes before run")
        state?.begin()
    }

    /// The loop, on its own thread: waits for input, timers and calls, and dispatches them.
    /// Call after `begin`; runs until `stop()` or a signal that stops the daemon.
    func run() {
        guard var running = state else { return }
        state = nil
        running.run()
        state = running
    }
}

/// The loop that owns the engine, run on its thread: it waits (epoll) on the input, a timer for the engine's next
/// deadline and an eventfd for calls from other threads, and dispatches what is ready to the
/// engine and to the types that keep the rest: the clock (`EngineClock`), a recording played
/// as input (`RecordingPlayer`), the timer (`WakeTimer`), control calls and reloads
/// (`CommandHandler`), what survives a restart (`Persistence`) and the states subscribers get
/// (`Publisher`); what it tells systemd and an operator is in `EngineLoop+Service`. With no
/// finger down and the sheet at rest there is no deadline, so it sleeps until input arrives, a
/// call comes or the watchdog is due.
struct LoopState {
    let logger: Logger
    let systemd: Systemd
    let input: LoopInput
    /// The shown sheet's engine: the shared sheet's, or a program's (`sheets`).
    var engine: Engine
    /// Every sheet's engine but the shown one's, and which is shown.
    var sheets = SheetRegistry()
    var outputs: [EngineOutput] = []
    var frames = TouchFrameBatch()
    /// A recorded report taken from the recording played as input (its keys go in `keys`).
    var recorded = TouchFrame(time: .zero)
    /// The keys a turn read (never logged), taken from the input like `frames`.
    var keys: [KeyEvent] = []
    var clock = EngineClock()
    /// The monotonic time of this turn, read once (`TurnClock`).
    var turn = TurnClock()
    var timer = WakeTimer()
    var commands: CommandHandler
    var persistence: Persistence
    var publisher: Publisher
    var nextWatchdog: Timestamp?
    var startedAt = Timestamp.zero
    var reloads = 0
    /// When the first of the fingers down now came (nil: none down), for `GetStats`.
    var fingersDownSince: Timestamp?
    /// When a paced subscriber's held state is due, as last asked of the server.
    var pacedDue: Timestamp?
    let waiter: Waiter
    /// Where other threads' calls wait for the loop.
    let inbox: LoopInbox

    /// Called on the loop's thread when SIGHUP comes (`EngineLoop.onHangup`).
    var onHangup: (@Sendable () -> Void)?

    init(settings: Settings, systemd: Systemd, logger: Logger, waiter: Waiter) throws {
        self.systemd = systemd
        self.logger = logger
        commands = CommandHandler(settings: settings, logger: logger)
        persistence = Persistence(store: settings.stateDirectory.map { StateStore(directory: $0, logger: logger) })
        let configuration = persistence.applyingChoices(to: settings.engine)
        var start = configuration.initialDetent
        if let detent = persistence.restored?.detent {
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
        persistence.started(at: start)
        self.waiter = waiter
        inbox = LoopInbox(waking: waiter)
        publisher = Publisher(engine: engine, logger: logger)
        keys.reserveCapacity(64)
        recorded.contacts.reserveCapacity(16)
        input = try LoopInput(try InputSpec(parsing: settings.input), screen: configuration.screen,
                              keys: KeyReading(keyMap: configuration.focus.keyMap, optedIn: settings.keyDevices),
                              output: settings.output, logger: logger)
        input.refreshDevices()
    }

    var server: VarlinkServer? { publisher.server }

    var devices: [InputDevice] { input.devices }

    mutating func refreshDevices() {
        if input.refreshDevices() { updateStatus() }
    }

    /// Acts on caught signals (`Waiter.takeSignals`); false: the loop stops.
    private mutating func handle(signals: UInt64) -> Bool {
        for (signal, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] where signals & (1 << UInt64(signal)) != 0 {
            logger.notice("\(name): stopping")
            return false
        }
        if signals & (1 << UInt64(SIGHUP)) != 0 { onHangup?() }
        return true
    }

    /// What libinput has read (touches, keys, a headphone switch, devices come or gone), into
    /// the engine.
    private mutating func readInput() {
        let devicesChanged = input.dispatchLive(screen: engine.configuration.screen, into: &frames)
        applyFrames(fromSeat: true)
        applyKeys()
        if let plugged = input.takeHeadphones() { headphones(plugged) }
        if devicesChanged { refreshDevices() }
    }

    // MARK: The loop

    /// Starts the clocks and the engine and publishes the first state (and the content), before
    /// the socket is served: a call that comes the moment it is never finds the daemon without
    /// a state or without its restored content. Called once, before `run`, on any thread.
    mutating func begin() {
        let now = LibinputInput.monotonicNow()
        startedAt = now
        if let player = input.recording {
            clock.startRecording(at: now, speed: player.speed)
            logger.notice("replaying \(player.input.path) \(player.speed.map { "at \($0)x" } ?? "as fast as possible")")
            player.readAhead(screen: engine.configuration.screen)
        } else {
            clock.startLive(at: now)
        }
        // What was saved wins over the configuration's content: it is what a client set last.
        if let content = persistence.takeRestoredContent() ?? commands.settings.content {
            engine.setContent(content, at: clock.time, into: &outputs)
        }
        engine.start(at: clock.time, into: &outputs)
        // The devices libinput found when the seat was assigned wait in its queue, and nothing
        // makes its descriptor readable for them: they are taken now (with a headphone switch's
        // state), not at their first event.
        readInput()
        // Kept though no one watches yet: the first `GetState` need not wait for the loop.
        publish(maySkip: false)
        if let interval = systemd.watchdogIntervalMicroseconds {
            nextWatchdog = now.adding(microseconds: interval)
        }
        updateStatus()
    }

    /// The loop, on its own thread: waits for input, timers and calls, and dispatches them.
    /// Call after `begin`; runs until `stop()` or a signal that stops the daemon.
    mutating func run() {
        reduceTimerSlack()
        // What other threads handed the loop in a turn (`LoopInbox.take`): a local, whose
        // accesses need no run-time exclusivity check, as a property's would on every turn.
        var taken = LoopInbox.Calls()
        while true {
            let signals = waiter.takeSignals()
            if signals != 0, !handle(signals: signals) { break }
            if inbox.take(into: &taken) {
                turn.next()
                // What came with a stop is answered before the loop ends: a reload waiting for
                // its answer would otherwise hold up the shutdown.
                for (settings, completion) in taken.reloads {
                    reload(settings)
                    completion()
                }
                for (call, completion) in taken.commands { completion(perform(call)) }
                for program in taken.programsGone { programGone(program) }
                for completion in taken.stats { completion(stats()) }
                if !taken.refreshes.isEmpty {
                    refreshState()
                    for completion in taken.refreshes { completion() }
                }
                if !taken.inputs.isEmpty || !taken.inputConnectionsGone.isEmpty { dispatch(taken) }
                let stopping = taken.stopping
                taken.clear()
                if stopping { break }
            }

            // What the calls changed is saved, or its save planned, before the timer is armed:
            // an idle loop would otherwise sleep past a save put off to a second after the last.
            // What is saved is the shared sheet's; programs' sheets end with the daemon.
            if sheets.shown == nil {
                persistence.persist(&engine)
            } else {
                var kept = persistence
                sheets.withShared(&engine) { kept.persist(&$0, returningTo: $1) }
                persistence = kept
            }
            let fastReplay = clock.asFastAsPossible
            if fastReplay {
                replayBatch()
            } else {
                armTimer()
            }
            // Only a timer that had to wake the loop teaches the timer how late it fires.
            let asleepBeforeWake = timer.sleepsBeforeWake
            let ready = waiter.wait(input: input.fileDescriptor, block: !fastReplay)
            turn.next(reached: ready.timer)
            timer.waitOut(timerWoke: ready.timer != nil && asleepBeforeWake)
            if ready.input { readInput() }
            if !fastReplay { catchUp() }
            publish()
            if sheets.watchesTurns { updateSheets(at: clock.time) }
            flushPaced()
            watchdog()
        }
        waiter.arm(at: nil)
        var kept = persistence
        sheets.withShared(&engine) { kept.persist(&$0, returningTo: $1, now: true) }
        persistence = kept
        persistence.flush()
        // The server holds the loop through its delegate: the loop lets go of it.
        publisher.server = nil
        logger.info("input loop stopped")
    }

}
