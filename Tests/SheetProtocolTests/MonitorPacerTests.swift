import SheetCore
import SheetProtocol
import SheetTestSupport
import Testing

/// `MonitorPacer`'s rules, one by one: a paced subscriber gets at most one state an interval,
/// the newest, and every event at once.
struct MonitorPacerTests {
    static func update(_ sequence: Int64, at time: Int64, top: Double = 900, gesture: GesturePhase? = nil,
                       events: [SheetEvent] = []) -> MonitorUpdate {
        let state = SheetState(state: .dragging, detent: nil, target: nil, topInPixels: top, progress: 0.5, dim: 0.7,
                               velocityInPixelsPerSecond: 0, screen: ScreenSize(widthInPixels: 1080, heightInPixels: 1920, scale: 2),
                               cause: .user, detents: [])
        return MonitorUpdate(sequence: sequence, timestampInMicroseconds: time, state: state,
                             gesture: gesture.map { GestureReport(kind: .pan, phase: $0, xInPixels: 500, yInPixels: top) },
                             events: events)
    }

    @Test func theIntervalIsTheRatesToTheMicrosecond() {
        #expect(MonitorPacer(maxRate: 60).intervalInMicroseconds == 16_667)
        #expect(MonitorPacer(maxRate: 1).intervalInMicroseconds == 1_000_000)
        #expect(MonitorPacer(maxRate: 1000).intervalInMicroseconds == 1_000)
        #expect(MonitorPacer(maxRate: 144).intervalInMicroseconds == 6_944)
    }

    /// The first state goes; one within the interval is held until the interval is up, the
    /// newest replacing the older; a flush before then sends nothing.
    @Test func aStateWithinTheIntervalIsHeldUntilItIsUp() {
        var pacer = MonitorPacer(maxRate: 60)
        let went1 = pacer.offer(.change, at: 1_000_000)
        #expect(went1)
        #expect(pacer.due == nil)
        let went2 = pacer.offer(.change, at: 1_008_000)
        #expect(!went2)
        #expect(pacer.due == 1_016_667)
        let went3 = pacer.offer(.change, at: 1_012_000)
        #expect(!went3)
        #expect(pacer.due == 1_016_667, "a newer state keeps the time it is due")
        let went4 = pacer.flush(at: 1_016_666)
        #expect(!went4)
        let went5 = pacer.flush(at: 1_016_667)
        #expect(went5)
        let again = pacer.flush(at: 1_100_000)
        #expect(pacer.due == nil && !again, "sent once")
        // The interval starts again from the flush.
        let went6 = pacer.offer(.change, at: 1_020_000)
        #expect(!went6)
        #expect(pacer.due == 1_033_334)
    }

    /// A held state is due an interval after the last sent, finger down or not: the next
    /// frame of a 60 Hz panel that came a little early, or of a 70 Hz one, is not dropped for
    /// the one after. A late flush starts the interval from when it went, so the next state
    /// never follows sooner than the interval.
    @Test func aHeldStateIsDueAnIntervalAfterTheLast() {
        var pacer = MonitorPacer(maxRate: 60)
        let first = pacer.offer(.change, at: 0)
        #expect(first && pacer.due == nil)
        let early = pacer.offer(.change, at: 16_600)
        #expect(!early && pacer.due == 16_667, "67 µs early: held that long")
        let flushed = pacer.flush(at: 16_700)
        #expect(flushed)
        // A 70 Hz panel: each frame 14.3 ms after the last is held until its time.
        let held = pacer.offer(.change, at: 31_000)
        #expect(!held && pacer.due == 33_367)
        let late = pacer.flush(at: 40_000)
        #expect(late)
        let soon = pacer.offer(.change, at: 50_000)
        #expect(!soon && pacer.due == 56_667)
    }

    /// A state an interval or more after the last goes at once, and clears what was held.
    @Test func aStateAnIntervalLaterGoesAtOnce() {
        var pacer = MonitorPacer(maxRate: 100)
        let went7 = pacer.offer(.change, at: 0)
        #expect(went7)
        let went8 = pacer.offer(.change, at: 4_000)
        #expect(!went8)
        let went9 = pacer.offer(.change, at: 10_000)
        #expect(went9)
        #expect(pacer.due == nil)
    }

    /// Events are never held back: content events and a gesture that began, ended, was
    /// cancelled or recognized go at once, whatever the interval.
    @Test(arguments: [GesturePhase.began, .ended, .cancelled, .recognized])
    func aGestureEventGoesAtOnce(_ phase: GesturePhase) {
        var pacer = MonitorPacer(maxRate: 60)
        let went10 = pacer.offer(.change, at: 0)
        #expect(went10)
        let went11 = pacer.offer(.change, at: 1_000)
        #expect(!went11)
        let event = MonitorPacer.Novelty.of(Self.update(3, at: 2_000, gesture: phase), after: Self.update(2, at: 1_000))
        #expect(event == .event)
        let went12 = pacer.offer(event, at: 2_000)
        #expect(went12)
        #expect(pacer.due == nil, "the held state is older than the one sent")
    }

    @Test func contentEventsGoAtOnce() {
        var pacer = MonitorPacer(maxRate: 1)
        let went13 = pacer.offer(.change, at: 0)
        #expect(went13)
        let tapped = Self.update(2, at: 10, events: [SheetEvent(.itemTapped(item: 0), content: .empty, order: [])])
        #expect(MonitorPacer.carriesEvent(tapped))
        let went14 = pacer.offer(MonitorPacer.Novelty.of(tapped, after: nil), at: 10)
        #expect(went14)
        let went15 = pacer.offer(.change, at: 20)
        #expect(!went15)
    }

    /// What a state brings is read off it and the one before: an event; only a pan that moved,
    /// the state otherwise the same; else a change (the card moved, or the flags did).
    @Test func whatAStateBringsIsReadOffItAndTheOneBefore() {
        let before = Self.update(1, at: 0, gesture: .changed)
        #expect(MonitorPacer.Novelty.of(Self.update(2, at: 8_000, gesture: .changed), after: before) == .gestureMoved)
        #expect(MonitorPacer.Novelty.of(Self.update(2, at: 8_000, gesture: .ended), after: before) == .event)
        #expect(MonitorPacer.Novelty.of(Self.update(2, at: 8_000, top: 880, gesture: .changed), after: before) == .change)
        #expect(MonitorPacer.Novelty.of(Self.update(2, at: 8_000), after: before) == .change, "no gesture: something else changed")
        #expect(MonitorPacer.Novelty.of(Self.update(2, at: 8_000, gesture: .changed), after: nil) == .change)
        var lifted = Self.update(2, at: 8_000, gesture: .changed)
        lifted.state.inputActive.toggle()
        #expect(MonitorPacer.Novelty.of(lifted, after: before) == .change)
    }

    /// A state in which only a gesture moved is not sent on its own and sets no time to go; a
    /// held change stays due, and goes then as the newest.
    @Test func aGestureThatOnlyMovedIsNotSentOnItsOwn() {
        var pacer = MonitorPacer(maxRate: 60)
        let first = pacer.offer(.change, at: 0)
        #expect(first)
        let moved = pacer.offer(.gestureMoved, at: 100_000)
        #expect(!moved && pacer.due == nil, "long after the last: still not sent, and nothing due")
        let goes = pacer.offer(.change, at: 100_010)
        #expect(goes, "a change an interval after the last sent goes")
        let change = pacer.offer(.change, at: 108_000)
        #expect(!change && pacer.due == 116_677)
        let movedAgain = pacer.offer(.gestureMoved, at: 112_000)
        #expect(!movedAgain && pacer.due == 116_677, "the held change keeps its time")
        let flushed = pacer.flush(at: 116_677)
        #expect(flushed)
    }

    /// A pan over a sheet it does not move (closed, the finger on the screen's other
    /// controls): a paced subscriber gets its start and its end, nothing between.
    @Test func aPanThatMovesNoSheetSendsItsStartAndEnd() {
        var stream: [MonitorUpdate] = []
        for index in 0..<120 {
            let phase: GesturePhase = index == 0 ? .began : index == 119 ? .ended : .changed
            stream.append(Self.update(Int64(index + 1), at: Int64(index) * 8_333, gesture: phase))
        }
        let sent = pacedStream(stream, maxRate: 60).map { $0.update.sequence }
        #expect(sent == [1, 120])
    }

    /// A stream of 120 Hz states paced at 60 Hz, the timer flushing on time: no two states
    /// without an event closer than the interval, the last state always sent, every event sent.
    @Test func aStreamAt120HzPacedTo60() {
        var stream: [MonitorUpdate] = []
        for index in 0..<240 {
            let gesture: GesturePhase? = index == 0 ? .began : index == 239 ? .ended : .changed
            stream.append(Self.update(Int64(index + 1), at: Int64(index) * 8_333, top: 900 - Double(index), gesture: gesture))
        }
        let sent = pacedStream(stream, maxRate: 60)
        #expect(sent.last?.update == stream.last)
        #expect(sent.filter { MonitorPacer.carriesEvent($0.update) }.count == 2)
        let plain = sent.filter { !MonitorPacer.carriesEvent($0.update) }
        for (a, b) in zip(plain, plain.dropFirst()) { #expect(b.time - a.time >= 16_667, "\(a.time) → \(b.time)") }
        #expect(sent.count <= 240 / 2 + 2 && sent.count >= 240 / 2 - 2, "\(sent.count)")
    }
}
