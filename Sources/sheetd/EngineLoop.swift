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
    private let waiter: Waiter
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

    var content: SharedContent { contentShare.content }

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
    var engine: Engine
    var outputs: [EngineOutput] = []
    private var frames = TouchFrameBatch()
    /// The keys a turn read (never logged), taken from the input like `frames`.
    private var keys: [KeyEvent] = []
    var clock = EngineClock()
    /// The monotonic time of this turn, read once (`TurnClock`).
    var turn = TurnClock()
    var timer = WakeTimer()
    private var commands: CommandHandler
    private var persistence: Persistence
    var publisher: Publisher
    var nextWatchdog: Timestamp?
    var startedAt = Timestamp.zero
    var reloads = 0
    /// When a paced subscriber's held state is due, as last asked of the server.
    private var pacedDue: Timestamp?
    private let waiter: Waiter
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
        input = try LoopInput(try InputSpec(parsing: settings.input), screen: configuration.screen,
                              keys: KeyReading(keyMap: configuration.focus.keyMap, optedIn: settings.keyDevices), logger: logger)
        input.refreshDevices()
    }

    var server: VarlinkServer? { publisher.server }

    var devices: [InputDevice] { input.devices }

    private mutating func refreshDevices() {
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
                for (request, completion) in taken.commands { completion(perform(request)) }
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
            persistence.persist(&engine)
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
            if ready.input {
                let devicesChanged = input.dispatchLive(screen: engine.configuration.screen, into: &frames)
                applyFrames()
                applyKeys()
                if devicesChanged { refreshDevices() }
            }
            if !fastReplay { catchUp() }
            publish()
            flushPaced()
            watchdog()
        }
        waiter.arm(at: nil)
        persistence.persist(&engine, now: true)
        persistence.flush()
        // The server holds the loop through its delegate: the loop lets go of it.
        publisher.server = nil
        logger.info("input loop stopped")
    }

    /// The plugins' calls and the connections gone: frames decoded and handed to the engine.
    private mutating func dispatch(_ taken: LoopInbox.Calls) {
        // The device list changes with opens and closes only, not with each frame.
        var devicesChanged = !taken.inputConnectionsGone.isEmpty
        for call in taken.inputs {
            turn.next()
            let result = input.perform(call, into: &frames)
            applyFrames()
            applyKeys()
            // A frame's state goes out before its reply, and before the loop waits again: the
            // feeder's next call may be a frame's time away.
            publish()
            call.caller.inputDone(result)
            switch call.request {
            case .frame, .keys: break
            case .open, .close, .openKeys: devicesChanged = true
            }
        }
        input.closeDevices(of: taken.inputConnectionsGone, into: &frames)
        applyFrames()
        applyKeys()
        publish()
        if devicesChanged { refreshDevices() }
    }

    /// Hands live frames (libinput's, the plugins') to the engine, stamped on its clock and
    /// never before the last event it saw.
    private mutating func applyFrames() {
        for index in frames.indices {
            var stamped = frames[index]
            stamped.time = clock.stamp(monotonic: stamped.time)
            process(stamped)
        }
        frames.removeAll()
    }

    /// Hands the keys libinput read to the engine, stamped on its clock; a key device gone
    /// lets every held key go first.
    private mutating func applyKeys() {
        let lost = input.takeKeys(into: &keys)
        if lost { engine.releaseKeys(at: clock.tick(), into: &outputs) }
        for index in keys.indices {
            var stamped = keys[index]
            stamped.time = clock.stamp(monotonic: stamped.time)
            let before = outputs.count
            engine.key(stamped, into: &outputs)
            for output in outputs[before...] {
                if case .content = output {
                    publish()
                    break
                }
            }
        }
    }

    /// Gives the engine one frame. A content event goes out before the next frame is taken: a
    /// reorder's end is published with the list's order (`ListMachine.order`), which a later
    /// frame of the same batch could change by starting another reorder.
    mutating func process(_ frame: TouchFrame) {
        let before = outputs.count
        engine.process(frame, into: &outputs)
        for index in before..<outputs.count {
            if case .content = outputs[index] {
                publish()
                return
            }
        }
    }

    /// A control call, answered by the engine at the engine's now.
    private mutating func perform(_ request: ControlRequest) -> ControlResult {
        let now = clock.tick()
        let (result, rebuilt) = commands.perform(request, on: &engine, at: now, choices: &persistence.chosen, into: &outputs)
        if rebuilt { rebuiltEngine() }
        publisher.settingsMayHaveChanged()
        publish()
        return result
    }

    /// A configuration read again (SIGHUP), applied at the engine's now.
    private mutating func reload(_ settings: Settings) {
        reloads += 1
        let now = clock.tick()
        if commands.reload(settings, on: &engine, at: now, choices: &persistence.chosen, into: &outputs) {
            rebuiltEngine()
        }
        publisher.settingsMayHaveChanged()
        publish()
    }

    /// The engine was rebuilt and dropped its touches: the plugins map their fingers afresh,
    /// and the published detents follow the new screen and detents.
    private mutating func rebuiltEngine() {
        input.plugins.resync(screen: engine.configuration.screen)
        publisher.detentsChanged(engine)
    }

    // MARK: Timer

    // A getter of the core called on `engine` itself copies the whole engine first (2.5 KB, with
    // a retain and a release of each buffer it holds), as the engine is a value of another
    // module: so it did in a class, and still does in this struct (a plain `engine.nextDeadline`
    // here costs 500 instructions a turn more). Read through its address, the copy goes.
    // `nextDeadline`, read before every wait, is inlinable and takes none.

    /// The engine's next deadline (`Engine.nextDeadline`).
    var engineDeadline: Timestamp? {
        mutating get { withUnsafeMutablePointer(to: &engine) { $0.pointee.nextDeadline } }
    }

    private mutating func armTimer() {
        var recordedDue: Timestamp?
        if clock.replaying, let player = input.recording, let frame = player.next {
            recordedDue = clock.monotonic(atEngine: frame.time)
        }
        pacedDue = server?.pacedDue().map(Timestamp.init(microseconds:))
        let wake = timer.plan(engineDue: engineDeadline.map(clock.monotonic(atEngine:)), recordedDue: recordedDue,
                              replaying: clock.replaying, watchdog: nextWatchdog, save: persistence.nextSave, paced: pacedDue)
        waiter.arm(at: wake)
    }

    /// Paced subscribers' held states that are due go out (`MonitorPacer`), once the turn knows
    /// their time has come (`reached`).
    private mutating func flushPaced() {
        guard let due = pacedDue, let now = reached(), now >= due else { return }
        pacedDue = nil
        server?.flushPaced(at: now.microseconds)
    }

    /// The time this turn has reached, for what asks whether a time has come (a held state,
    /// the watchdog): known without a read when the timer woke the turn (`TurnClock.known`),
    /// as the timer is set for each such time; a recording played as fast as possible sets no
    /// timer, and the clock is read, once a batch.
    mutating func reached() -> Timestamp? {
        clock.asFastAsPossible ? turn.now() : turn.known
    }

    // MARK: Publishing

    /// A finger is down, or the recording has frames still to play (`State.inputActive`).
    var inputActive: Bool { clock.replaying || engine.activeTouchCount > 0 }

    /// Publishes what the engine emitted.
    mutating func publish(maySkip: Bool = true) {
        publisher.publish(&outputs, of: &engine, clock: clock, turn: &turn, inputActive: inputActive, maySkip: maySkip)
    }

    /// Publishes the state as it is now for a `GetState` or a new subscriber that came after
    /// states were skipped (`VarlinkServer.skip`): the clock and the engine brought to now
    /// (live input; a recording keeps its own time), what that emits published, and then, if
    /// the server still holds none of the states since, the state itself, kept whether or not
    /// anyone watches. A subscriber that came meanwhile has had a state already.
    private mutating func refreshState() {
        if !clock.replaying {
            let now = clock.tick()
            engine.advance(to: now, into: &outputs)
        }
        publish(maySkip: false)
        guard server?.statesSkipped ?? false else { return }
        publisher.refresh(of: &engine, clock: clock, turn: &turn, inputActive: inputActive)
    }
}
