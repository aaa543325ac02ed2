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
    mutating func applyFrames() {
        for index in frames.indices {
            var stamped = frames[index]
            stamped.time = clock.stamp(monotonic: stamped.time)
            process(stamped)
        }
        frames.removeAll()
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
        engine.setHeadphones(plugged, at: clock.tick(), into: &outputs)
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
        engine.process(frame, into: &outputs)
        for index in before..<outputs.count {
            if case .content = outputs[index] {
                publish()
                return
            }
        }
    }

    /// A control call, answered by the engine at the engine's now.
    mutating func perform(_ request: ControlRequest) -> ControlResult {
        let now = clock.tick()
        let (result, rebuilt) = commands.perform(request, on: &engine, at: now, choices: &persistence.chosen, into: &outputs)
        if rebuilt { rebuiltEngine() }
        publisher.settingsMayHaveChanged()
        publish()
        return result
    }

    /// A configuration read again (SIGHUP), applied at the engine's now.
    mutating func reload(_ settings: Settings) {
        reloads += 1
        let now = clock.tick()
        if commands.reload(settings, on: &engine, at: now, choices: &persistence.chosen, into: &outputs) {
            rebuiltEngine()
        }
        // A changed key map or `keys:` decides again which key devices are read.
        let reading = KeyReading(keyMap: engine.configuration.focus.keyMap, optedIn: commands.settings.keyDevices)
        if input.judgeKeysAgain(by: reading, screen: engine.configuration.screen, into: &frames) {
            logger.notice("reload: the key map or keys: changed; the seat's devices are opened again")
            applyFrames()
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
