import SheetCore
import Testing

/// The batch a loop's turn fills and the engine then takes, reused from turn to turn.
struct TouchFrameBatchTests {
    /// A producer that builds each frame in a frame of its own hands it over whole: the batch
    /// holds the frames in order, and the producer gets back an empty frame with room, which
    /// the batch had from an earlier turn (or made as roomy as the producer's).
    @Test func takenFramesKeepTheirOrderAndHandBackRoom() {
        var batch = TouchFrameBatch()
        var producer = TouchFrame(time: .zero)
        for turn in 0..<3 {
            for index in 0..<4 {
                producer.time = Timestamp(microseconds: Int64(turn * 100 + index))
                producer.contacts.append(Contact(slot: index, phase: .move, positionInPixels: Point(x: Double(index), y: 0)))
                producer.contacts.append(Contact(slot: index + 1, phase: .move, positionInPixels: Point(x: 0, y: Double(index))))
                batch.take(&producer)
                // Once warm, the storage that comes back holds a frame of these without growing.
                #expect(producer.contacts.isEmpty && (turn == 0 || producer.contacts.capacity >= 2),
                        "turn \(turn), frame \(index): \(producer.contacts.count) contacts, room for \(producer.contacts.capacity)")
            }
            #expect(batch.count == 4)
            for (index, frame) in batch.enumerated() {
                #expect(frame.time == Timestamp(microseconds: Int64(turn * 100 + index)))
                #expect(frame.contacts.map(\.slot) == [index, index + 1])
            }
            batch.removeAll()
        }
    }

    /// Frames appended by copy and frames taken mix in one batch.
    @Test func takenAndCopiedFramesMix() {
        var batch = TouchFrameBatch()
        var producer = TouchFrame(time: Timestamp(microseconds: 1), contacts: [Contact(slot: 0, phase: .down, positionInPixels: .zero)])
        batch.take(&producer)
        batch.append(time: Timestamp(microseconds: 2), source: .touchpad, contacts: [Contact(slot: 0, phase: .move, positionInPixels: .zero)])
        #expect(batch.map(\.time.microseconds) == [1, 2])
        #expect(batch.map(\.source) == [.touchscreen, .touchpad])
        #expect(batch[0].contacts.first?.phase == .down && batch[1].contacts.first?.phase == .move)
    }
}
