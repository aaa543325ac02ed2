import Testing
@testable import SheetCore

@Suite struct GestureArenaTests {
    var arena = GestureArena(configuration: GestureConfiguration(), scale: 1)
    var out: [ArenaOutput] = []

    func gestures(_ out: [ArenaOutput]) -> [String] {
        out.compactMap {
            if case .gesture(let g) = $0 { return "\(g.kind.name) \(g.phase.name)" }
            return nil
        }
    }

    func ms(_ value: Double) -> Timestamp { Timestamp(seconds: value / 1000) }

    @Test mutating func quickTouchIsATap() {
        arena.touchDown(slot: 0, at: Point(x: 10, y: 10), time: ms(0), into: &out)
        arena.touchMoved(slot: 0, to: Point(x: 14, y: 12), time: ms(30), into: &out)
        arena.touchUp(slot: 0, at: Point(x: 14, y: 12), time: ms(80), velocity: .none, into: &out)
        #expect(gestures(out) == ["tap recognized"])
    }

    @Test mutating func panBeginningRejectsTapAndLongPress() {
        arena.touchDown(slot: 0, at: Point(x: 10, y: 10), time: ms(0), into: &out)
        arena.touchMoved(slot: 0, to: Point(x: 10, y: 40), time: ms(30), into: &out)
        #expect(arena.deadline == nil, "the long press gave up")
        arena.touchUp(slot: 0, at: Point(x: 10, y: 40), time: ms(80), velocity: .none, into: &out)
        #expect(gestures(out) == ["pan began", "pan ended"])
    }

    @Test mutating func longPressFiresAtItsDeadlineAndBlocksThePan() {
        arena.touchDown(slot: 0, at: Point(x: 10, y: 10), time: ms(0), into: &out)
        #expect(arena.deadline == ms(500))
        arena.timeout(at: ms(500), into: &out)
        arena.touchMoved(slot: 0, to: Point(x: 10, y: 200), time: ms(600), into: &out)
        arena.touchUp(slot: 0, at: Point(x: 10, y: 200), time: ms(700), velocity: .none, into: &out)
        #expect(gestures(out) == ["long-press recognized", "long-press changed", "long-press ended"])
    }

    @Test mutating func secondFingerStopsATapButNotAPan() {
        arena.touchDown(slot: 0, at: Point(x: 10, y: 10), time: ms(0), into: &out)
        arena.touchDown(slot: 1, at: Point(x: 300, y: 10), time: ms(20), into: &out)
        arena.touchUp(slot: 1, at: Point(x: 300, y: 10), time: ms(40), velocity: .none, into: &out)
        arena.touchUp(slot: 0, at: Point(x: 10, y: 10), time: ms(60), velocity: .none, into: &out)
        #expect(gestures(out).isEmpty)

        out.removeAll()
        arena.touchDown(slot: 0, at: Point(x: 10, y: 10), time: ms(100), into: &out)
        arena.touchMoved(slot: 0, to: Point(x: 10, y: 50), time: ms(120), into: &out)
        arena.touchDown(slot: 1, at: Point(x: 300, y: 10), time: ms(130), into: &out)
        arena.touchMoved(slot: 1, to: Point(x: 300, y: 400), time: ms(140), into: &out)
        arena.touchMoved(slot: 0, to: Point(x: 10, y: 60), time: ms(150), into: &out)
        arena.touchUp(slot: 0, at: Point(x: 10, y: 60), time: ms(160), velocity: .none, into: &out)
        #expect(gestures(out) == ["pan began", "pan changed", "pan ended"])
        // The remaining finger starts nothing until every finger is up.
        arena.touchUp(slot: 1, at: Point(x: 300, y: 400), time: ms(170), velocity: .none, into: &out)
        #expect(arena.fingersDown == 0)
    }

    @Test mutating func aCancelIsNeverATap() {
        arena.touchDown(slot: 0, at: Point(x: 10, y: 10), time: ms(0), into: &out)
        arena.touchCancelled(slot: 0, time: ms(50), into: &out)
        #expect(gestures(out).isEmpty)
        #expect(out.contains(.primaryCancelled(ms(50))))
    }
}
