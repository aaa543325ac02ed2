import SheetCore
import Testing

@Suite struct EngineTests {
    /// `activeTouchCount` is kept as slots go down and up, not counted: each row is a frame and
    /// the fingers down after it, including the frames the engine ignores (a move or a lift
    /// of a slot that is not down, a slot past the configuration's).
    @Test func theFingerCountFollowsEveryKindOfFrame() {
        var engine = Engine(configuration: EngineConfiguration())
        var out: [EngineOutput] = []
        engine.start(at: .zero, into: &out)
        let at = Point(x: 540, y: 1500)
        let rows: [(contacts: [Contact], down: Int)] = [
            ([Contact(slot: 0, phase: .down, positionInPixels: at)], 1),
            ([Contact(slot: 1, phase: .down, positionInPixels: at)], 2),
            ([Contact(slot: 1, phase: .down, positionInPixels: at)], 2),  // a down on a busy slot
            ([Contact(slot: 2, phase: .move, positionInPixels: at)], 2),  // a move of a slot not down
            ([Contact(slot: 99, phase: .down, positionInPixels: at)], 2),  // past maximumSlots
            ([Contact(slot: 0, phase: .up, positionInPixels: at)], 1),
            ([Contact(slot: 0, phase: .up, positionInPixels: at)], 1),  // lifted already
            ([Contact(slot: 1, phase: .cancel, positionInPixels: at)], 0),
            ([Contact(slot: 2, phase: .down, positionInPixels: at), Contact(slot: 3, phase: .down, positionInPixels: at)], 2),
        ]
        for (index, row) in rows.enumerated() {
            engine.process(TouchFrame(time: Timestamp(microseconds: Int64(index + 1) * 10_000), contacts: row.contacts), into: &out)
            #expect(engine.activeTouchCount == row.down, "after row \(index)")
        }
        engine.cancelAllTouches(at: Timestamp(seconds: 1), into: &out)
        #expect(engine.activeTouchCount == 0)
    }
}
