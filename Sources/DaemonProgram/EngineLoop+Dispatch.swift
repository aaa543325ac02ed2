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

/// What a turn of the loop hands on: the plugins' calls, the frames and keys the input read,
/// control calls and reloads, each to the engine.
extension LoopState {
    /// The plugins' calls and the connections gone: frames decoded and handed to the engine.
    mutating func dispatch(_ taken: LoopInbox.Calls) {
        // The device list changes with opens and closes only, not with each frame.
        var devicesChanged = !taken.inputConnectionsGone.isEmpty
        for call in taken.inputs {
            turn.next()
            let result = input.perform(call, into: &frames)
            applyFrames(fromSeat: false)
            switch call.request {
            case .open, .close: followForwarding()
            case .frame, .keys, .openKeys: break
            }
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
        applyFrames(fromSeat: false)
        if !taken.inputConnectionsGone.isEmpty { followForwarding() }
        applyKeys()
        publish()
        if devicesChanged { refreshDevices() }
    }

    /// Hands live frames (libinput's, or the plugins') to the engine, stamped on its clock and
    /// never before the last event it saw; the seat's own pass the gate first (`SeatTouchGate`).
    mutating func applyFrames(fromSeat: Bool) {
        let gated = fromSeat && !input.seatPassesAll
        for index in frames.indices {
            var stamped = frames[index]
            if gated, !input.admitsSeat(&stamped) { continue }
            stamped.time = clock.stamp(monotonic: stamped.time)
            process(stamped)
        }
        frames.removeAll()
    }

    /// A device that forwards a compositor's touches opened, or the last one closed: the seat's
    /// own touchscreens are left to the compositor, or read again. Fingers down on them when
    /// forwarding begins are the compositor's now, and cancelled.
    mutating func followForwarding() {
        let seatSlots = 0..<PluginInput.engineSlots.lowerBound
        var down: UInt64 = 0
        for slot in seatSlots where engine.touchCount(in: slot..<(slot + 1)) > 0 { down |= 1 << UInt64(slot) }
        guard let change = input.followForwarding(seatFingersDown: down) else { return }
        if let forwarder = change.forwarder {
            logger.notice("input: \(forwarder.node) \"\(forwarder.name)\" (pid \(forwarder.pid)) forwards the compositor's touches: the seat's touchscreens are left to the compositor")
        } else {
            logger.notice("input: no device forwards the compositor's touches now: the seat's touchscreens are read again")
        }
        if change.cancel { engine.cancelTouches(in: seatSlots, at: clock.tick(), into: &outputs) }
        refreshDevices()
    }

    /// Hands the keys libinput read to the engine, stamped on its clock; a key device gone
    /// lets every held key go first.
    mutating func applyKeys() {
        let lost = input.takeKeys(into: &keys)
        if lost { engine.releaseKeys(at: clock.tick(), into: &outputs) }
        for index in keys.indices {
            var stamped = keys[index]
            stamped.time = clock.stamp(monotonic: stamped.time)
            key(stamped)
        }
    }

    /// Headphones plugged or pulled: with `speech: headset` the sheet is spoken, and explored
    /// by touch, while they are in.
    mutating func headphones(_ plugged: Bool) {
        logger.notice("headphones \(plugged ? "plugged" : "pulled")\(engine.configuration.sheet.presentation.speech == .headset ? (plugged ? ": the sheet is spoken" : ": the sheet is no longer spoken") : "")")
        let now = clock.tick()
        engine.setHeadphones(plugged, at: now, into: &outputs)
        sheets.forEachWaiting { engine, unseen in engine.setHeadphones(plugged, at: now, into: &unseen) }
    }

    /// One key to the engine; a content event it gives (a toggle, a move) is published at once,
    /// before the next key reads the content.
    mutating func key(_ key: KeyEvent) {
        let before = outputs.count
        engine.key(key, into: &outputs)
        for output in outputs[before...] {
            if case .content = output {
                publish()
                break
            }
        }
    }

    /// Gives the engine one frame. A content event goes out before the next frame is taken: a
    /// reorder's end is published with the list's order (`ListMachine.order`), which a later
    /// frame of the same batch could change by starting another reorder.
    mutating func process(_ frame: TouchFrame) {
        let before = outputs.count
        let wereDown = engine.activeTouchCount > 0
        engine.process(frame, into: &outputs)
        // When the first finger of those down now came (`GetStats`): a touch cancelled
        // between frames leaves none down, and the next down starts anew.
        if engine.activeTouchCount == 0 {
            fingersDownSince = nil
        } else if !wereDown || fingersDownSince == nil {
            fingersDownSince = frame.time
        }
        for index in before..<outputs.count {
            if case .content = outputs[index] {
                publish()
                return
            }
        }
    }

    /// A call about a sheet, answered at the engine's now: a call about the panel (screen,
    /// motion, look, presentation) by the shown sheet and followed by every other; one about
    /// a sheet by the sheet the registry finds for it; then the stack shows what it now shows.
    mutating func perform(_ call: SheetCall) -> ControlResult {
        let now = clock.tick()
        // The panel's path (a client's choices persist) works on copies: the registry holds
        // the loop's sheets and engine meanwhile.
        var commands = self.commands, chosen = persistence.chosen, rebuilt = false
        let result = sheets.route(call, shown: &engine, at: now, into: &outputs) { request, engine, outputs in
            let done = commands.perform(request, on: &engine, at: now, choices: &chosen, into: &outputs)
            rebuilt = done.rebuilt
            return done.result
        }
        (self.commands, persistence.chosen) = (commands, chosen)
        if rebuilt { rebuiltEngine() }
        if case .opened(let sheet) = result { logger.notice("\(sheet) opened by program \(call.program) (pid \(call.peer.pid))") }
        publisher.settingsMayHaveChanged()
        publisher.stackChanged(sheets.presentedNames)
        publish()
        updateSheets(at: now)
        return result
    }

    /// A program that held sheets has gone: they close, the shown one as a dismissal.
    mutating func programGone(_ program: UInt64) {
        let now = clock.tick()
        sheets.ownerGone(program, shown: &engine, at: now, into: &outputs)
        publisher.stackChanged(sheets.presentedNames)
        publish()
        updateSheets(at: now)
    }

    /// After a call, or a turn while the registry watches them: a program's sheet that came to
    /// rest at its floor goes beneath the others (or for good, when closing), and the change to
    /// the sheet the stack shows goes a step on: the leaving one steps aside, then the engines
    /// trade places, the leaving one's touches let go, and the state of the coming one goes
    /// out, saying which it is.
    mutating func updateSheets(at now: Timestamp) {
        switch sheets.update(&engine, at: now, into: &outputs) {
        case .none:
            return
        case .restacked:
            publisher.stackChanged(sheets.presentedNames)
        case .shown:
            logger.notice("shown: \(sheets.shown.map(\.description) ?? "the shared sheet")\(sheets.stack.presented.isEmpty ? "" : ", stack \(sheets.presentedNames.joined(separator: " "))")")
            publisher.sheetShown(engine, sheet: sheets.shown.map(\.description), stack: sheets.presentedNames, owner: sheets.shownOwner)
            input.plugins.resync(screen: engine.configuration.screen)
        }
        publish()
    }

    /// A configuration read again (SIGHUP), applied at the engine's now.
    mutating func reload(_ settings: Settings) {
        reloads += 1
        let now = clock.tick()
        if commands.reload(settings, on: &engine, sheets: &sheets, at: now, choices: &persistence.chosen, into: &outputs) {
            rebuiltEngine()
        }
        // A changed key map or `keys:` decides again which key devices are read.
        let reading = KeyReading(keyMap: engine.configuration.focus.keyMap, optedIn: commands.settings.keyDevices)
        if input.judgeKeysAgain(by: reading, screen: engine.configuration.screen, into: &frames) {
            logger.notice("reload: the key map or keys: changed; the seat's devices are opened again")
            applyFrames(fromSeat: true)
            applyKeys()
            refreshDevices()
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
}
