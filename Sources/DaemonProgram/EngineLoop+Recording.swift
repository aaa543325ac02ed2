import SheetCore
import SheetInput

/// A recording played as the daemon's input (`--input replay:…`): its frames handed to the
/// engine when they fall due on the engine's clock (`EngineClock`), or batch after batch at
/// `@max`; at its end the fingers still down are cancelled and the clock goes on at the real
/// pace.
extension LoopState {
    /// Processes recorded frames that are due and fires the engine's deadlines up to now (live,
    /// once the turn knows a deadline has come). A call of its own (once a turn): `make
    /// bench-instructions` splits a turn by the loop's callees, and this one holds the engine's
    /// work.
    @inline(never)
    mutating func catchUp() {
        if clock.replaying {
            let now = clock.now()
            if let player = input.recording {
                while player.take(dueBy: now, screen: engine.configuration.screen, into: &recorded, keys: &keys) { applyRecorded(of: player) }
            }
            advanceToDeadline(ifDueBy: now)
            endReplayIfDone()
        } else if let deadline = engineDeadline, let reached = turn.known, clock.now(atMonotonic: reached) >= deadline {
            // Live, the clock is not read to ask whether the deadline has come: the timer is set
            // for it, and the turn it wakes knows (`TurnClock`); on a machine without a usable
            // TSC each read is a system call, and with a finger down a deadline is often set.
            // Come, the engine goes to the clock's now, so that a late wake catches up at once
            // rather than a frame a turn.
            advanceToDeadline(ifDueBy: clock.now(atMonotonic: turn.now()))
        }
    }

    private mutating func advanceToDeadline(ifDueBy now: Timestamp) {
        guard let deadline = engineDeadline, deadline <= now else { return }
        engine.advance(to: now, into: &outputs)
        clock.saw(now)
    }

    /// As fast as possible: a batch of frames, then a look at the calls and the socket.
    mutating func replayBatch() {
        guard let player = input.recording else { return }
        for _ in 0..<512 {
            if player.take(dueBy: nil, screen: engine.configuration.screen, into: &recorded, keys: &keys) {
                applyRecorded(of: player)
            } else if let deadline = engineMotionDeadline {
                // Past the recording's end only motion is played out: the focus's deadlines (a
                // switch scan) go on at the real pace once the replay is done.
                engine.advance(to: deadline, into: &outputs)
                clock.saw(deadline)
            } else {
                break
            }
            if outputs.count > 256 { publish() }
        }
        endReplayIfDone()
    }

    /// The recorded report taken into `recorded` and `keys`: a touch frame, or keys at its
    /// time (an empty frame without keys only moves the clock); right after the last, the
    /// fingers still down are cancelled at its time.
    mutating func applyRecorded(of player: RecordingPlayer) {
        clock.saw(recorded.time)
        if recorded.isEmpty {
            engine.advance(to: recorded.time, into: &outputs)
            for index in keys.indices { key(keys[index]) }
        } else if input.seatPassesAll || input.admitsSeat(&recorded) {
            process(recorded)
        } else {
            engine.advance(to: recorded.time, into: &outputs)
        }
        finishIfEnded(player)
    }

    /// At the recording's end (told once): its warnings, and fingers still down cancelled at
    /// its last event (as `sheetctl replay` does).
    mutating func finishIfEnded(_ player: RecordingPlayer) {
        // Only the recording's own slots: fingers of plugin devices (engine slots past them)
        // are not the recording's to end.
        let slots = 0..<PluginInput.engineSlots.lowerBound
        guard player.takeEnd(), engine.touchCount(in: slots) > 0 else { return }
        logger.warning("\(player.input.path): the recording ends with \(engine.touchCount(in: slots)) finger(s) down: cancelled at its end")
        clock.saw(player.input.lastEventTime)
        engine.cancelTouches(in: slots, at: clock.time, into: &outputs)
    }

    /// When the recording is over and the sheet rests, the engine clock goes on at the real
    /// pace from where it is.
    mutating func endReplayIfDone() {
        guard clock.replaying, let player = input.recording, player.ended else { return }
        finishIfEnded(player)
        guard engineMotionDeadline == nil else { return }
        publish()
        clock.resumeRealPace(at: LibinputInput.monotonicNow())
        let rest = engine.sheet.detentIndex.map { "at \(engine.sheet.detents[$0].name)" } ?? "between detents"
        logger.notice("replay of \(player.input.path) done; the sheet rests \(rest)")
        logger.info("the replay's timer was set \(timer.lead.microseconds) µs early at the end (how late it fires here)")
        systemd.notify("STATUS=replay done; the sheet rests \(rest)")
    }
}
