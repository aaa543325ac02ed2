import CAllocationCounter
import SheetCore
import SheetProtocol

// MARK: The core with a full list

/// 1,024 items with ids of 64 bytes and labels of 256: the largest content a client can set.
func fullContent() -> SheetContent {
    let items = (0..<SheetContent.Limits.items).map { index -> SheetItem in
        let id = "item-\(index)-" + String(repeating: "x", count: 64)
        let label = "Row \(index) " + String(repeating: "label ", count: 50)
        return SheetItem(id: String(id.utf8.prefix(64))!, label: String(label.utf8.prefix(256))!)
    }
    return SheetContent(title: String(repeating: "T", count: 256), items: items)
}

/// A frame with no contact stands for a display tick: the engine advances to its time.
func step(_ engine: inout Engine, _ frame: TouchFrame, _ outputs: inout [EngineOutput]) {
    if frame.isEmpty { engine.advance(to: frame.time, into: &outputs) } else { engine.process(frame, into: &outputs) }
}

/// One long reorder at 120 Hz on the card at half (the list starts at 1,016 px): a finger
/// rests on row 1 for 0.3 s, then drags the item down and up between the list's top and the
/// screen's foot at 700 px/s, into both auto-scroll bands, and never lifts.
func reorderFrames(count: Int) -> [TouchFrame] {
    var frames: [TouchFrame] = []
    frames.reserveCapacity(count)
    let step: Int64 = 8_333
    var y = 1100.0, direction = 1.0
    for index in 0..<count {
        var frame = TouchFrame(time: Timestamp(microseconds: Int64(index + 1) * step))
        if index > 36 {
            y += direction * 700 * Double(step) / 1_000_000
            if y > 1_900 { direction = -1 }
            if y < 1_030 { direction = 1 }
        }
        frame.contacts.append(Contact(slot: 0, phase: index == 0 ? .down : .move, positionInPixels: Point(x: 540, y: y)))
        frames.append(frame)
    }
    return frames
}

/// Scrolling at 120 Hz on the card at expanded: a flick up and its momentum, then a slow
/// drag down, over and over (it walks down the list to its end and rubber-bands there).
func scrollFrames(count: Int) -> [TouchFrame] {
    var frames: [TouchFrame] = []
    frames.reserveCapacity(count)
    let step: Int64 = 8_333
    var time: Int64 = 0
    func add(_ contact: Contact?) {
        time += step
        var frame = TouchFrame(time: Timestamp(microseconds: time))
        if let contact { frame.contacts.append(contact) }
        frames.append(frame)
    }
    while frames.count < count {
        for index in 0...12 {
            add(Contact(slot: 0, phase: index == 0 ? .down : (index == 12 ? .up : .move),
                        positionInPixels: Point(x: 540, y: 1_600 - Double(index) * 50)))
        }
        for _ in 0..<60 { add(nil) }
        for index in 0...40 {
            add(Contact(slot: 0, phase: index == 0 ? .down : (index == 40 ? .up : .move),
                        positionInPixels: Point(x: 540, y: 1_000 + Double(index) * 7)))
        }
        for _ in 0..<30 { add(nil) }
    }
    return Array(frames.prefix(count))
}

func benchmarkContent() {
    let content = fullContent()
    for (name, initial, frames): (String, DetentName, [TouchFrame]) in [("reorder drag", .half, reorderFrames(count: 600_000)),
                                    ("scroll", .expanded, scrollFrames(count: 600_000))] {
        var configuration = EngineConfiguration()
        configuration.initialDetent = initial
        var engine = Engine(configuration: configuration)
        var outputs: [EngineOutput] = []
        outputs.reserveCapacity(256)
        engine.setContent(content, at: .zero, into: &outputs)
        engine.start(at: .zero, into: &outputs)
        outputs.removeAll(keepingCapacity: true)
        let warmUp = 20_000
        for frame in frames.prefix(warmUp) {
            step(&engine, frame, &outputs)
            outputs.removeAll(keepingCapacity: true)
        }
        var produced = 0
        let allocationsBefore = sheetd_allocation_count()
        let start = now()
        for frame in frames.dropFirst(warmUp) {
            step(&engine, frame, &outputs)
            produced &+= outputs.count
            outputs.removeAll(keepingCapacity: true)
        }
        let elapsed = now() - start
        let allocations = sheetd_allocation_count() - allocationsBefore
        let measured = Double(frames.count - warmUp)
        let moved = name == "scroll" ? "scrolled to \(Int(engine.list.offset)) pt" : "order revision \(engine.list.revision)"
        report("content: 1,024 items, \(name): frames per second", measured / elapsed, "frames/s",
               "\(Int(measured)) frames in \((elapsed * 1000).rounded()) ms, one core; \(moved)")
        report("content: 1,024 items, \(name): heap allocations per frame", Double(allocations) / measured, "allocations/frame",
               "\(allocations) in all; \(produced) outputs")
    }
    monitorReplySizeDuringAReorder(content)
    monitorReplyOfABareSheet()
}

/// The reply most subscribers are sent most often: a drag's state with no content (no list),
/// as a panel that only slides the sheet publishes it for every touch frame.
func monitorReplyOfABareSheet() {
    var engine = Engine(configuration: EngineConfiguration())
    var outputs: [EngineOutput] = []
    engine.start(at: .zero, into: &outputs)
    let configuration = engine.configuration
    let detents = engine.sheet.detents.detents.map { DetentPosition(name: $0.name, topInPixels: $0.topInPoints * configuration.screen.scale) }
    let snapshot = engine.snapshot(at: .zero)
    let state = SheetState(snapshot, list: nil, screen: configuration.screen, layout: configuration.list, content: engine.content,
                           detents: detents, inputActive: true, appearance: Appearance(theme: .dark, card: RGB(hex: 0x242424)))
    let update = MonitorUpdate(sequence: 1, timestampInMicroseconds: 1, state: state, gesture: nil)
    var writer = JSONWriter(capacity: 4096)
    let rounds = 200_000
    let perPass = bestTime(rounds: 5, perRound: 1) {
        for _ in 0..<rounds { VarlinkReply.encode(continues: true, into: &writer) { update.writeParameters(to: &$0) } }
    }
    report("content: write a Monitor reply of a sheet with no content", perPass / Double(rounds) * 1e9, "ns",
           "best of 5 passes of \(rounds), \(writer.bytes.count) bytes each, into a reused buffer")
    // As the server writes state after state: the settled part's bytes reused.
    var settled = SettledBytes()
    let reusingPass = bestTime(rounds: 5, perRound: 1) {
        for _ in 0..<rounds { update.writeReply(into: &writer, reusing: &settled) }
    }
    report("content: the same, its settled part reused as the server does", reusingPass / Double(rounds) * 1e9, "ns",
           "best of 5 passes of \(rounds)")
}

/// The largest Monitor reply while an item of the full list is dragged: the state with the
/// list's moving parts, the events, and the reply's frame, as the daemon writes them; and how
/// long writing one of those replies takes (the daemon writes one per state, whoever listens).
func monitorReplySizeDuringAReorder(_ content: SheetContent) {
    var configuration = EngineConfiguration()
    configuration.initialDetent = .half
    var engine = Engine(configuration: configuration)
    var outputs: [EngineOutput] = []
    engine.setContent(content, at: .zero, into: &outputs)
    engine.start(at: .zero, into: &outputs)
    let scale = configuration.screen.scale
    let detents = engine.sheet.detents.detents.map { DetentPosition(name: $0.name, topInPixels: $0.topInPoints * scale) }
    var largest = 0, replies = 0, withList = 0
    var list: ListSnapshot?
    var events: [SheetEvent] = []
    var updates: [MonitorUpdate] = []
    for frame in reorderFrames(count: 20_000) {
        step(&engine, frame, &outputs)
        for output in outputs {
            switch output {
            case .list(let snapshot): list = snapshot
            case .content(let report): events.append(SheetEvent(report.event, content: engine.content, order: engine.list.order))
            case .sheet(let snapshot):
                let state = SheetState(snapshot, list: list, screen: configuration.screen, layout: configuration.list, content: engine.content, detents: detents,
                                       inputActive: true)
                let update = MonitorUpdate(sequence: Int64(replies), timestampInMicroseconds: snapshot.time.microseconds,
                                           state: state, gesture: nil, events: events)
                let reply = VarlinkReply.encode(continues: true, capacity: 2048) { update.writeParameters(to: &$0) }
                largest = max(largest, reply.count)
                updates.append(update)
                replies += 1
                if state.list?.lifted != nil { withList += 1 }
                list = nil
                events.removeAll()
            default: break
            }
        }
        outputs.removeAll(keepingCapacity: true)
    }
    report("content: largest Monitor reply during a 1,024-item reorder", Double(largest), "bytes",
           "\(replies) replies, \(withList) with the item held; 64-byte ids")
    var written = 0
    let perPass = bestTime(rounds: 5, perRound: 1) {
        for update in updates {
            written &+= VarlinkReply.encode(continues: true, capacity: 2048) { update.writeParameters(to: &$0) }.count
        }
    }
    report("content: write one of those Monitor replies", perPass / Double(updates.count) * 1e9, "ns",
           "best of 5 passes over the \(updates.count) replies; \(written / 5 / max(updates.count, 1)) bytes on average")
    // As the server writes them: into one writer whose storage every reply reuses.
    var writer = JSONWriter(capacity: 4096)
    for update in updates.prefix(64) { VarlinkReply.encode(continues: true, into: &writer) { update.writeParameters(to: &$0) } }
    let allocationsBefore = sheetd_allocation_count()
    for update in updates { VarlinkReply.encode(continues: true, into: &writer) { update.writeParameters(to: &$0) } }
    let allocations = sheetd_allocation_count() - allocationsBefore
    report("content: heap allocations per Monitor reply written into a reused buffer", Double(allocations) / Double(max(updates.count, 1)),
           "allocations/reply", "\(allocations) in \(updates.count) replies, the presentation and the list's events included")
}
