import Foundation
import SheetCore
import SheetProtocol
import Testing

/// The bytes a subscriber is sent, kept: an item held and dragged down the list, the card
/// dragged up, then flicked away, with content and an appearance whose strings need escaping.
/// The writer may get faster; what it writes may not change without this file changing with
/// it (`SHEETD_WRITE_WIRE_BYTES=1 swift test --filter WireBytesTests` writes it anew).
@Suite struct WireBytesTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/wire/monitor-replies.jsonl")

    /// Every reply the session makes, as the daemon writes them (one per line, NUL dropped).
    static func replies(reusingSettledBytes: Bool = false) -> [UInt8] {
        var configuration = EngineConfiguration()
        configuration.initialDetent = .half
        var engine = Engine(configuration: configuration)
        var outputs: [EngineOutput] = []
        let items = (0..<12).map { index in
            SheetItem(id: "item-\(index)", label: index == 3 ? "Quote \" and \\ back" : "항목 \(index) — ok",
                      subtitle: index % 2 == 0 ? "second line" : "", icon: index == 1 ? "network-wireless-symbolic" : "",
                      accessory: [nil, .toggle(isOn: true), .check(isChecked: false), .value("120 %"), .chevron][index % 5],
                      disabled: index == 7, section: index < 6 ? "Net" : "Display")
        }
        engine.setContent(SheetContent(title: "Settings\tand more", items: items), at: .zero, into: &outputs)
        engine.setAppearance(Appearance(theme: .dark, accent: RGB(hex: 0xE66100), font: "Noto \"Sans\"\\x", textScale: 1.25,
                                        card: RGB(hex: 0x0A0B0C), dim: nil, cornerRadiusInPoints: 12.5),
                             at: .zero, into: &outputs)
        engine.start(at: .zero, into: &outputs)
        let scale = configuration.screen.scale
        let detents = engine.sheet.detents.detents.map { DetentPosition(name: $0.name, topInPixels: $0.topInPoints * scale) }

        var frames: [TouchFrame] = []
        var time: Int64 = 0
        func frame(_ phase: ContactPhase, _ x: Double, _ y: Double) {
            time += 8_333
            var frame = TouchFrame(time: Timestamp(microseconds: time))
            frame.contacts.append(Contact(slot: 0, phase: phase, positionInPixels: Point(x: x, y: y)))
            frames.append(frame)
        }
        func rest(_ microseconds: Int64) {
            time += microseconds
            frames.append(TouchFrame(time: Timestamp(microseconds: time)))
        }
        // An item held (as a finger does, with frames that do not move), dragged down three
        // rows and dropped.
        frame(.down, 540, 1_100)
        for _ in 0..<40 { frame(.move, 540, 1_100) }
        for step in 1...40 { frame(.move, 540, 1_100 + Double(step) * 6.5) }
        frame(.up, 540, 1_360)
        rest(600_000)
        // The card's handle dragged up slowly, let go.
        frame(.down, 540, 980)
        for step in 1...30 { frame(.move, 540, 980 - Double(step) * 9) }
        frame(.up, 540, 710)
        rest(600_000)
        // A flick down from the handle: away.
        frame(.down, 540, 720)
        for step in 1...6 { frame(.move, 540, 720 + Double(step) * 60) }
        frame(.up, 540, 1_100)
        rest(1_000_000)

        var bytes: [UInt8] = []
        var writer = JSONWriter(capacity: 4096)
        var settled = SettledBytes()
        var sequence: Int64 = 0
        var list: ListSnapshot?
        var gesture: GestureReport?
        var events: [SheetEvent] = []
        for frame in frames {
            if frame.contacts.isEmpty { engine.advance(to: frame.time, into: &outputs) } else { engine.process(frame, into: &outputs) }
            for output in outputs {
                switch output {
                case .list(let snapshot): list = snapshot
                case .gesture(let report): gesture = GestureReport(report)
                case .content(let report): events.append(SheetEvent(report.event, content: engine.content, order: engine.list.order))
                case .sheet(let snapshot):
                    sequence += 1
                    let state = SheetState(snapshot, list: list, screen: configuration.screen, layout: configuration.list,
                                           content: engine.content, detents: detents, inputActive: engine.activeTouchCount > 0,
                                           appearance: engine.appearance, presentation: configuration.sheet.presentation,
                                           regionInPixels: engine.sheet.regionInPixels(of: snapshot))
                    let update = MonitorUpdate(sequence: sequence, timestampInMicroseconds: snapshot.time.microseconds,
                                               state: state, gesture: gesture, events: events)
                    if reusingSettledBytes {
                        update.writeReply(into: &writer, reusing: &settled)
                    } else {
                        VarlinkReply.encode(continues: true, into: &writer) { update.writeParameters(to: &$0) }
                    }
                    #expect(writer.bytes.last == 0, "a reply ends in its NUL")
                    bytes += writer.bytes.dropLast()
                    bytes.append(UInt8(ascii: "\n"))
                    list = nil
                    gesture = nil
                    events.removeAll()
                default: break
                }
            }
            outputs.removeAll(keepingCapacity: true)
        }
        return bytes
    }

    @Test func repliesAreTheBytesKept() throws {
        let written = Self.replies()
        if ProcessInfo.processInfo.environment["SHEETD_WRITE_WIRE_BYTES"] == "1" {
            try FileManager.default.createDirectory(at: Self.fixture.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(written).write(to: Self.fixture)
        }
        let kept = try [UInt8](Data(contentsOf: Self.fixture))
        let lines = written.split(separator: UInt8(ascii: "\n")), keptLines = kept.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == keptLines.count)
        for (index, (line, keptLine)) in zip(lines, keptLines).enumerated() where line != keptLine {
            Issue.record("reply \(index + 1) differs:\n\(String(decoding: line, as: UTF8.self))\nkept:\n\(String(decoding: keptLine, as: UTF8.self))")
            break
        }
        // As the server writes them (`writeReply`), the settled part of each state reused from
        // the last while it holds: the same bytes.
        #expect(Self.replies(reusingSettledBytes: true) == written)
        // Each line reads back as the update it was written from would.
        for line in lines.prefix(400) {
            let value = try JSONReader.parse(Array(line))
            _ = try MonitorUpdate(json: #require(value["parameters"]))
        }
    }
    /// A state written through the cursor's stretches at its longest (names of 15 bytes, 64
    /// detents, numbers with every digit a double holds, every colour and gesture set) fits
    /// them, and is JSON.
    @Test func theLongestStateFitsItsStretches() throws {
        let name = try #require(DetentName("abcdefghijklmn_"))
        let huge = -8.999_999_999_999_9e15
        let detents = (0..<SheetConfiguration.maximumDetents).map { DetentPosition(name: name, topInPixels: huge / Double($0 + 1)) }
        var presentation = SheetPresentation()
        presentation.gestures = [.edgeSwipe, .bottomBar]
        presentation.edgeBandInPoints = -123_456_789.123_4
        presentation.barHeightInPoints = huge
        let state = SheetState(state: .settling, detent: name, target: name, topInPixels: huge, progress: -0.123_456_789,
                               dim: 0.987_654_3, velocityInPixelsPerSecond: huge, screen: ScreenSize(widthInPixels: .max, heightInPixels: .min, scale: 3.333_333),
                               cause: .animation, detents: detents, inputActive: true, reduceMotion: true,
                               cardInPixels: CardSpan(left: huge, width: huge),
                               appearance: Appearance(theme: .light, accent: RGB(hex: 0xFFFFFF), font: String(repeating: "\"", count: 256),
                                                      textScale: 2.999_9, card: RGB(hex: 0xABCDEF), dim: RGB(hex: 0x123456), cornerRadiusInPoints: 63.99),
                               presentation: presentation, regionInPixels: ScreenRegion(x: huge, y: huge, width: huge, height: huge))
        let update = MonitorUpdate(sequence: .max, timestampInMicroseconds: .min, state: state,
                                   gesture: GestureReport(kind: .longPress, phase: .recognized, xInPixels: huge, yInPixels: huge,
                                                          velocityInPixelsPerSecond: (huge, huge), direction: .down))
        var writer = JSONWriter()
        update.writeParameters(to: &writer)
        // Numbers this large are past what a client takes (it names the field); as JSON it reads.
        let value = try JSONReader.parse(writer.bytes)
        guard case .array(let written)? = value["state"]?["detents"] else { Issue.record("no detents"); return }
        #expect(written.count == detents.count)
        #expect(value["state"]?["appearance"]?["font"] == .string(state.appearance.font))
        #expect(value["seq"]?.doubleValue == Double(Int64.max))
    }
    /// Reused settled bytes follow every change of what they stand for: the screen, the card,
    /// the appearance, the presentation, the region and the detents, each changed and changed
    /// back.
    @Test func settledBytesFollowEachChange() {
        let base = SheetState(state: .dragging, detent: nil, target: nil, topInPixels: 700, progress: 0.4, dim: 0.5,
                              velocityInPixelsPerSecond: -300, screen: ScreenSize(widthInPixels: 1080, heightInPixels: 1920),
                              cause: .user, detents: [DetentPosition(name: .half, topInPixels: 960)])
        var states = [base]
        var darker = base
        darker.appearance.theme = .dark
        var otherFont = base
        otherFont.appearance.font = "Cantarell"
        var nonModal = base
        nonModal.presentation.modal = false
        var region = base
        region.regionInPixels = ScreenRegion(x: 0, y: 700, width: 1080, height: 1220)
        var detents = base
        detents.detents.append(DetentPosition(name: .expanded, topInPixels: 30))
        var moved = base
        moved.topInPixels = 650
        var rotated = base
        rotated.screen = ScreenSize(widthInPixels: 1920, heightInPixels: 1080, scale: 1.5)
        var card = base
        card.cardInPixels = CardSpan(left: 420, width: 1080)
        var flags = base
        flags.cause = .animation
        flags.inputActive = true
        for changed in [darker, otherFont, nonModal, region, detents, moved, rotated, card, flags] { states += [changed, base, changed, changed] }
        var settled = SettledBytes()
        for (index, state) in states.enumerated() {
            var plain = JSONWriter(), reusing = JSONWriter()
            state.write(to: &plain)
            state.write(to: &reusing, reusing: &settled)
            #expect(reusing.bytes == plain.bytes, "state \(index)")
        }
    }
}
