import Testing
import SheetCore
import SheetInput

/// A plugin touchpad goes through libinput's touchpad rules, as a real pad and a replay do.
@Suite struct PluginTouchpadTests {
    let screen = ScreenSize(widthInPixels: 1000, heightInPixels: 800)
    /// libinput's unaccelerated touchpad units per millimetre.
    let unitsPerMillimetre = 1000 / 25.4 * 0.9 * 0.2968

    /// A 100 x 60 mm pad whose positions are millimetres.
    func openPad(_ plugins: PluginInput) throws -> Int {
        let declaration = PluginDevice(name: "pad", kind: .touchpad, x: 0...100, y: 0...60,
                                       sizeInMillimetres: (100, 60), slots: 3)
        return try plugins.open(declaration, owner: 1, pid: 1, uid: 0, now: Timestamp(microseconds: 0)).get()
    }

    /// Two fingers down at y, moved 1 mm a frame for `frames` frames (10 ms apart).
    func scroll(_ plugins: PluginInput, device: Int, frames: Int, into batch: inout TouchFrameBatch) throws {
        for step in 0...frames {
            let time = Int64(10_000 * (step + 1))
            let phase: ContactPhase = step == 0 ? .down : .move
            let y = 10 + Double(step)
            try plugins.feed(PluginFrame(sequence: Int64(step + 1), timeInMicroseconds: time,
                                         contacts: [PluginContact(slot: 0, phase: phase, x: 30, y: y),
                                                    PluginContact(slot: 1, phase: phase, x: 50, y: y)]),
                             device: device, owner: 1, now: Timestamp(microseconds: time), into: &batch)
        }
    }

    @Test func twoFingersScrollTheCardInLibinputsUnits() throws {
        let plugins = PluginInput(screen: screen)
        let device = try openPad(plugins)
        var batch = TouchFrameBatch()
        try scroll(plugins, device: device, frames: 10, into: &batch)
        try plugins.feed(PluginFrame(sequence: 20, timeInMicroseconds: 200_000,
                                     contacts: [PluginContact(slot: 0, phase: .up, x: 30, y: 20),
                                                PluginContact(slot: 1, phase: .up, x: 50, y: 20)]),
                         device: device, owner: 1, now: Timestamp(microseconds: 200_000), into: &batch)
        let contacts = batch.flatMap(\.contacts)
        #expect(batch.allSatisfy { $0.source == .touchpad })
        #expect(contacts.first?.phase == .down && contacts.first?.positionInPixels == Point(x: 500, y: 400))
        #expect(contacts.last?.phase == .up)
        #expect(Set(contacts.map(\.slot)).count == 1 && PluginInput.engineSlots.contains(contacts[0].slot))
        // Undecided until both fingers moved 1.5 mm: nine of the ten 1 mm frames scroll.
        let last = try #require(contacts.last { $0.phase == .move })
        #expect(abs(last.positionInPixels.y - (400 + 9 * unitsPerMillimetre)) < 0.01)
    }

    @Test func aPadClosedMidScrollCancelsItsContactAndFreesItsSlot() throws {
        let plugins = PluginInput(screen: screen)
        let device = try openPad(plugins)
        var batch = TouchFrameBatch()
        try scroll(plugins, device: device, frames: 5, into: &batch)
        #expect(plugins.close(device: device, owner: 1, now: Timestamp(microseconds: 100_000), into: &batch))
        let contacts = batch.flatMap(\.contacts)
        #expect(contacts.last?.phase == .cancel)
        // Every engine slot is free again: touchscreens with 16 and 3 fingers take all 19.
        batch.removeAll()
        for (index, fingers) in [16, 3].enumerated() {
            let screenDevice = try plugins.open(PluginDevice(name: "wide", kind: .touchscreen, x: 0...100, y: 0...100, slots: fingers),
                                                owner: 2, pid: 2, uid: 0, now: Timestamp(microseconds: 100_000)).get()
            let time = Int64(110_000 + index)
            try plugins.feed(PluginFrame(sequence: 1, timeInMicroseconds: time,
                                         contacts: PluginContacts((0..<fingers).map { PluginContact(slot: $0, phase: .down, x: Double($0), y: 5) })!),
                             device: screenDevice, owner: 2, now: Timestamp(microseconds: time), into: &batch)
        }
        #expect(batch.flatMap(\.contacts).count == 19)
    }
}
