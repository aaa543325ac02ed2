import Testing
import SheetCore
import SheetInput
import SheetProtocol

/// A plugin device's rate is counted by its own time (what it did), not by when its frames
/// arrive: a stall's backlog sent at once is taken whole, as far apart as it was made; a device
/// claiming more than 1000 frames a second of its own time is refused; and a flood is refused
/// past the backlog's bound, whatever times it claims.
@Suite struct PluginRateTests {
    let screen = ScreenSize(widthInPixels: 1000, heightInPixels: 800)

    func openScreen(_ plugins: PluginInput, clock: PluginClock = .own) throws -> Int {
        let declaration = PluginDevice(name: "panel", kind: .touchscreen, x: 0...1000, y: 0...800, slots: 2, clock: clock)
        return try plugins.open(declaration, owner: 1, pid: 1, uid: 0, now: Timestamp(microseconds: 0)).get()
    }

    /// Feeds a drag of `frames` frames `spacing` µs apart of the device's time, all arriving at
    /// `arrival` µs; the sequence numbers refused, with the first reason.
    func drag(_ plugins: PluginInput, device: Int, frames: Int, spacing: Int64, arrival: Int64) -> (refused: [Int64], reason: String?) {
        var batch = TouchFrameBatch()
        var refused: [Int64] = []
        var reason: String?
        for index in 0..<frames {
            let phase: ContactPhase = index == 0 ? .down : index == frames - 1 ? .up : .move
            let frame = PluginFrame(sequence: Int64(index + 1), timeInMicroseconds: Int64(index) * spacing,
                                    contacts: [PluginContact(slot: 0, phase: phase, x: 500, y: 700 - Double(index % 600))])
            do {
                try plugins.feed(frame, device: device, owner: 1, now: Timestamp(microseconds: arrival), into: &batch)
            } catch {
                refused.append(frame.sequence)
                reason = reason ?? error.reason
            }
            batch.removeAll()
        }
        return (refused, reason)
    }

    /// A 120 Hz drag of 5 s whose frames all arrive at once (a forwarder that stalled the whole
    /// drag): every frame taken, the lift with them.
    @Test func aStallsBacklogIsTakenWhole() throws {
        let plugins = PluginInput(screen: screen)
        let device = try openScreen(plugins)
        let (refused, reason) = drag(plugins, device: device, frames: 600, spacing: 8_333, arrival: 5_000_000)
        #expect(refused.isEmpty, "\(refused.count) refused: \(reason ?? "")")
    }

    /// A device whose own times say 2000 frames a second: each frame refills half a token, so
    /// the burst of 100 is spent by the 200th; from then on every other frame is refused, as
    /// more than 1000 a second of its own time.
    @Test func moreThan1000FramesASecondOfTheDevicesOwnTimeAreRefused() throws {
        let plugins = PluginInput(screen: screen)
        let device = try openScreen(plugins)
        let (refused, reason) = drag(plugins, device: device, frames: 400, spacing: 500, arrival: 1_000_000)
        #expect(refused.first == 200, "the burst spent first: \(refused.prefix(3))")
        #expect((95...105).contains(refused.count), "every other frame after it: \(refused.count) refused")
        #expect(reason?.contains("more than 1000 frames a second of the device's own time") == true, "\(reason ?? "none")")
    }

    /// Frames that claim to be a second apart, 3000 of them arriving at once: past the backlog
    /// of 2048 they are refused, whatever the times say.
    @Test func aFloodIsRefusedPastTheBacklogWhateverItsTimes() throws {
        let plugins = PluginInput(screen: screen)
        let device = try openScreen(plugins)
        let (refused, reason) = drag(plugins, device: device, frames: 3000, spacing: 1_000_000, arrival: 1_000_000)
        #expect(refused.first == 2049, "\(refused.prefix(3))")
        #expect(reason?.contains("more than 2048 frames at once") == true, "\(reason ?? "none")")
    }

    /// A refused frame changes no bucket: a frame from the future of CLOCK_MONOTONIC, refused,
    /// does not hold back the frames after it.
    @Test func aRefusedFrameTakesNothingOfTheRate() throws {
        let plugins = PluginInput(screen: screen)
        let device = try openScreen(plugins, clock: .monotonic)
        var batch = TouchFrameBatch()
        let now = Timestamp(microseconds: 10_000_000)
        #expect(throws: PluginInput.Refusal.self) {
            try plugins.feed(PluginFrame(sequence: 1, timeInMicroseconds: 60_000_000, contacts: [PluginContact(slot: 0, phase: .down, x: 1, y: 1)]),
                             device: device, owner: 1, now: now, into: &batch)
        }
        for index in 0..<100 {
            try plugins.feed(PluginFrame(sequence: Int64(index + 2), timeInMicroseconds: 9_000_000 + Int64(index) * 8_000,
                                         contacts: [PluginContact(slot: 0, phase: index == 0 ? .down : .move, x: 1, y: 1)]),
                             device: device, owner: 1, now: now, into: &batch)
        }
    }

    /// A lift in a refused frame (here: a time that runs backwards) still ends the finger, as a
    /// cancel: no tap, no fling, and no finger left down; the slot takes a new touch after it.
    @Test func aRefusedLiftStillEndsTheFinger() throws {
        let plugins = PluginInput(screen: screen)
        let device = try openScreen(plugins)
        var batch = TouchFrameBatch()
        try plugins.feed(PluginFrame(sequence: 1, timeInMicroseconds: 100_000, contacts: [PluginContact(slot: 0, phase: .down, x: 500, y: 700)]),
                         device: device, owner: 1, now: Timestamp(microseconds: 100_000), into: &batch)
        batch.removeAll()
        #expect(throws: PluginInput.Refusal.self) {
            try plugins.feed(PluginFrame(sequence: 2, timeInMicroseconds: 50_000, contacts: [PluginContact(slot: 0, phase: .up, x: 500, y: 650)]),
                             device: device, owner: 1, now: Timestamp(microseconds: 120_000), into: &batch)
        }
        let phases = batch.flatMap(\.contacts).map(\.phase)
        #expect(phases == [.cancel], "the refused lift ended the finger as a cancel: \(phases)")
        batch.removeAll()
        try plugins.feed(PluginFrame(sequence: 3, timeInMicroseconds: 200_000, contacts: [PluginContact(slot: 0, phase: .down, x: 500, y: 700)]),
                         device: device, owner: 1, now: Timestamp(microseconds: 200_000), into: &batch)
        #expect(batch.flatMap(\.contacts).map(\.phase) == [.down])
    }

    /// A key's release in a refused report (a time that runs backwards) still releases it: no
    /// refusal leaves a key held, repeating; the press in the same report is not taken.
    @Test func aRefusedReleaseStillReleasesTheKey() throws {
        let plugins = PluginInput(screen: screen)
        var batch = TouchFrameBatch()
        guard case .opened(let device) = plugins.perform(.openKeys(name: "wheel", clock: .own), owner: 1, pid: 1, uid: 0,
                                                         now: Timestamp(microseconds: 0), into: &batch) else {
            Issue.record("no key device")
            return
        }
        _ = plugins.perform(.keys(device: device, PluginKeyReport(sequence: 1, timeInMicroseconds: 100_000, keys: [.key(code: 108, value: 1)])),
                            owner: 1, pid: 1, uid: 0, now: Timestamp(microseconds: 100_000), into: &batch)
        var keys: [KeyEvent] = []
        _ = plugins.takeKeys(into: &keys)
        #expect(keys.map(\.action) == [.press])
        let refused = plugins.perform(.keys(device: device, PluginKeyReport(sequence: 2, timeInMicroseconds: 50_000,
                                                                                   keys: [.key(code: 108, value: 0), .key(code: 103, value: 1)])),
                                      owner: 1, pid: 1, uid: 0, now: Timestamp(microseconds: 120_000), into: &batch)
        guard case .invalidFrame = refused else {
            Issue.record("the report is refused: \(refused)")
            return
        }
        _ = plugins.takeKeys(into: &keys)
        #expect(keys == [KeyEvent(time: Timestamp(microseconds: 120_000), input: .key(108), action: .release)], "\(keys)")
    }
}
