import Foundation
import Testing
@testable import SheetCore

/// Reads a state × event table from docs/machines/NAME.md: rows `| state | event | next | effect |`.
struct MachineTable {
    struct Row: Hashable { var next: String; var effect: String }
    var rows: [String: Row] = [:]  // key: "state|event"

    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/machines")

    init(_ name: String) throws {
        let text = try String(contentsOf: Self.docs.appendingPathComponent("\(name).md"), encoding: .utf8)
        var inTable = false
        for line in text.split(separator: "\n") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "`", with: "") }
            guard cells.count == 4 else { inTable = false; continue }
            if cells[0] == "state" { inTable = true; continue }
            if cells[0].hasPrefix("---") || !inTable { continue }
            rows["\(cells[0])|\(cells[1])"] = Row(next: cells[2], effect: cells[3])
        }
    }

    /// Checks every pair; returns the rows for printing when `print` is set (to write the table).
    static func walk<State, Event>(
        _ name: String, states: [(String, State)], events: [(String, Event)],
        run: (State, Event) -> (next: String, effect: String)
    ) throws {
        let table = try MachineTable(name)
        var seen = Set<String>()
        var generated = "| state | event | next | effect |\n|---|---|---|---|\n"
        for (stateName, state) in states {
            for (eventName, event) in events {
                let key = "\(stateName)|\(eventName)"
                seen.insert(key)
                let (next, effect) = run(state, event)
                generated += "| `\(stateName)` | \(eventName) | `\(next)` | \(effect) |\n"
                let row = table.rows[key]
                #expect(row != nil, "docs/machines/\(name).md has no row for \(stateName) × \(eventName)")
                #expect(row?.next == next, "\(name): \(stateName) × \(eventName) goes to \(next), the table says \(row?.next ?? "-")")
                #expect(row?.effect == effect, "\(name): \(stateName) × \(eventName) gives \(effect), the table says \(row?.effect ?? "-")")
            }
        }
        #expect(Set(table.rows.keys) == seen, "docs/machines/\(name).md has rows for pairs the test does not know")
        if ProcessInfo.processInfo.environment["SHEETD_PRINT_TABLES"] != nil { print(generated) }
    }
}

let t0 = Timestamp(microseconds: 1_000_000)
let slop = 16.0

/// The events every recognizer is walked with.
let pointerEvents: [(String, PointerEvent)] = [
    ("down", .down(Point(x: 100, y: 100), t0)),
    ("move within slop", .move(Point(x: 105, y: 100), t0.adding(seconds: 0.01))),
    ("move past slop", .move(Point(x: 100, y: 200), t0.adding(seconds: 0.02))),
    ("up", .up(Point(x: 100, y: 100), t0.adding(seconds: 0.1), VelocityEstimate(pixelsPerSecond: Vector(dx: 0, dy: 2000), confidence: 1, sampleCount: 5))),
    ("cancel", .cancel(t0.adding(seconds: 0.1))),
    ("extraFinger", .extraFinger(t0.adding(seconds: 0.05))),
    ("timeout", .timeout(t0.adding(seconds: 0.5))),
    ("rejected", .rejected(t0.adding(seconds: 0.05))),
]

@Suite struct MachineTableTests {
    @Test func tapMatchesItsTable() throws {
        let start = Point(x: 100, y: 100)
        try MachineTable.walk("tap", states: [
            ("idle", TapRecognizer.State.idle), ("possible", .possible(start: start, downAt: t0)), ("failed", .failed),
        ], events: pointerEvents) { state, event in
            var machine = TapRecognizer(slop: slop, state: state)
            let effect = machine.handle(event)
            return (machine.state.name, effect.name)
        }
    }

    @Test func longPressMatchesItsTable() throws {
        let start = Point(x: 100, y: 100)
        try MachineTable.walk("long-press", states: [
            ("idle", LongPressRecognizer.State.idle), ("possible", .possible(start: start, deadline: t0.adding(seconds: 0.5))),
            ("active", .active(start: start, last: start)), ("failed", .failed),
        ], events: pointerEvents) { state, event in
            var machine = LongPressRecognizer(slop: slop, holdSeconds: 0.5, state: state)
            let effect = machine.handle(event)
            return (machine.state.name, effect.name)
        }
    }

    @Test func panMatchesItsTable() throws {
        let start = Point(x: 100, y: 100)
        try MachineTable.walk("pan", states: [
            ("idle", PanRecognizer.State.idle), ("possible", .possible(start: start)),
            ("active", .active(start: start, last: Point(x: 100, y: 150))), ("failed", .failed),
        ], events: pointerEvents) { state, event in
            var machine = PanRecognizer(slop: slop, state: state)
            let effect = machine.handle(event)
            return (machine.state.name, effect.name)
        }
    }

    @Test func swipeMatchesItsTable() throws {
        let start = Point(x: 100, y: 100)
        try MachineTable.walk("swipe", states: [
            ("idle", SwipeRecognizer.State.idle),
            ("tracking (flicked down 100 px)", .tracking(start: start, downAt: t0, last: Point(x: 100, y: 200), pathLength: 100)),
            ("tracking (still)", .tracking(start: start, downAt: t0, last: start, pathLength: 0)),
            ("failed", .failed),
        ], events: pointerEvents) { state, event in
            var machine = SwipeRecognizer(configuration: GestureConfiguration(), scale: 1, state: state)
            let effect = machine.handle(event)
            return (machine.state.name, effect.name)
        }
    }

    @Test func sheetMatchesItsTable() throws {
        try walkSheet("sheet", reduceMotion: false)
    }

    /// The same pairs with reduced motion on: the settling states are cross-fades of the dim
    /// with the card at the target.
    @Test func sheetWithReducedMotionMatchesItsTable() throws {
        try walkSheet("sheet-reduced-motion", reduceMotion: true)
    }

    func walkSheet(_ table: String, reduceMotion: Bool) throws {
        let screen = ScreenSize(widthInPixels: 1080, heightInPixels: 1920)
        var configuration = SheetConfiguration()
        configuration.reduceMotion = reduceMotion
        let base = SheetMachine(configuration: configuration, screen: screen)
        let half = base.detents.index(named: .half)!, hidden = base.detents.hiddenIndex
        func settle(_ target: Int, from top: Double) -> SheetMachine.State {
            let targetTop = base.detents[target].topInPoints
            if reduceMotion {
                let dim = 0.7 * (1920 - top) / 960, to = 0.7 * min(1, (1920 - targetTop) / 960)
                return .settling(.init(targetDetent: target, animation: .curve(from: dim, to: to, seconds: to > dim ? 0.15 : 0.075, .linear),
                                       startedAt: t0, top: targetTop, velocity: 0, nextFrame: t0.adding(microseconds: 16_667),
                                       cause: .animation, dim: dim))
            }
            let spring = Spring(from: top, target: targetTop, initialVelocity: 0, stiffness: 400, dampingRatio: 0.8)
            return .settling(.init(targetDetent: target, animation: .spring(spring, clampAtTarget: target == hidden),
                                   startedAt: t0, top: top, velocity: 0, nextFrame: t0.adding(microseconds: 16_667),
                                   cause: .animation))
        }
        let states: [(String, SheetMachine.State)] = [
            ("resting(half)", .resting(detent: half)),
            ("resting(hidden)", .resting(detent: hidden)),
            ("dragging", .dragging(.init(originDetent: half, startTop: 960, top: 1100))),
            ("settling(half)", settle(half, from: 1300)),
            ("settling(hidden)", settle(hidden, from: 1300)),
        ]
        let t = t0.adding(seconds: 0.05)
        let events: [(String, SheetMachine.Event)] = [
            ("touch-down on the card", .touchDown(Point(x: 540, y: 1500), .touchscreen, t)),
            ("touch-down on the dim", .touchDown(Point(x: 540, y: 200), .touchscreen, t)),
            ("pan-began on the card", .panBegan(start: Point(x: 540, y: 1500), translation: Vector(dx: 0, dy: 40), .touchscreen, t)),
            ("pan-began sideways", .panBegan(start: Point(x: 540, y: 1500), translation: Vector(dx: 40, dy: 5), .touchscreen, t)),
            ("pan-began on the dim", .panBegan(start: Point(x: 540, y: 200), translation: Vector(dx: 0, dy: 40), .touchscreen, t)),
            ("pan-changed", .panChanged(translationY: 100, velocityY: 0, t)),
            ("release, still", .release(velocityY: 0, t)),
            ("release, fling down", .release(velocityY: 2000, t)),
            ("cancel", .cancel(t)),
            ("tap on the dim", .tap(Point(x: 540, y: 200), .touchscreen, t)),
            ("tap on the card", .tap(Point(x: 540, y: 1700), .touchscreen, t)),
            ("swipe down from the dim", .swipe(.down, start: Point(x: 540, y: 200), .touchscreen, t)),
            ("swipe down on the card", .swipe(.down, start: Point(x: 540, y: 1700), .touchscreen, t)),
            ("present(expanded)", .present(detent: 0, t)),
            ("come-back(expanded)", .comeBack(detent: 0, t)),
            ("dismiss", .dismiss(t)),
            (reduceMotion ? "reduce-motion off" : "reduce-motion on", .reduceMotion(!reduceMotion, t)),
            ("frame", .frame(t0.adding(microseconds: 16_667))),
            ("frame after the end", .frame(t0.adding(seconds: 5))),
        ]
        try MachineTable.walk(table, states: states, events: events) { state, event in
            var machine = SheetMachine(configuration: configuration, screen: screen, state: state)
            let effect = machine.handle(event)
            return (machine.tableName, effect == .changed ? "changed" : "none")
        }
    }
}

extension SheetMachine {
    /// The state as the tables name it: `resting(half)`, `settling(hidden)`, `dragging`.
    var tableName: String {
        switch state {
        case .resting(let detent): "resting(\(detents[detent].name))"
        case .settling(let settle): "settling(\(detents[settle.targetDetent].name))"
        case .dragging: "dragging"
        }
    }
}

@Suite struct SheetOpeningTableTests {
    /// The sheet with a bottom bar and the edge swipe on, 1080x1920 at scale 1: the card is
    /// 640 pt wide (220…860), the bar's top at 1856, the edge band 1896…1920.
    @Test func openingMatchesItsTable() throws {
        let screen = ScreenSize(widthInPixels: 1080, heightInPixels: 1920)
        var configuration = SheetConfiguration()
        configuration.presentation.gestures = [.edgeSwipe, .bottomBar]
        let base = SheetMachine(configuration: configuration, screen: screen)
        let half = base.detents.index(named: .half)!, collapsed = base.detents.hiddenIndex
        #expect(base.detents[collapsed].name == .collapsed && base.detents[collapsed].topInPoints == 1856)
        let spring = Spring(from: 1300, target: 1856, initialVelocity: 0, stiffness: 400, dampingRatio: 0.8)
        let states: [(String, SheetMachine.State)] = [
            ("resting(collapsed)", .resting(detent: collapsed)),
            ("resting(half)", .resting(detent: half)),
            ("dragging", .dragging(.init(originDetent: collapsed, startTop: 1856, top: 1500, opening: .barSwipe))),
            ("settling(collapsed)", .settling(.init(targetDetent: collapsed, animation: .spring(spring, clampAtTarget: true),
                                                    startedAt: t0, top: 1300, velocity: 0,
                                                    nextFrame: t0.adding(microseconds: 16_667), cause: .animation))),
        ]
        let t = t0.adding(seconds: 0.05)
        let events: [(String, SheetMachine.Event)] = [
            ("pan-began up on the bar", .panBegan(start: Point(x: 540, y: 1880), translation: Vector(dx: 0, dy: -40), .touchscreen, t)),
            ("pan-began down on the bar", .panBegan(start: Point(x: 540, y: 1880), translation: Vector(dx: 0, dy: 40), .touchscreen, t)),
            ("pan-began up in the edge band beside the bar", .panBegan(start: Point(x: 100, y: 1910), translation: Vector(dx: 0, dy: -40), .touchscreen, t)),
            ("pan-began up above the bar", .panBegan(start: Point(x: 540, y: 1500), translation: Vector(dx: 0, dy: -40), .touchscreen, t)),
            ("tap on the bar", .tap(Point(x: 540, y: 1880), .touchscreen, t)),
            ("tap above the bar", .tap(Point(x: 540, y: 1000), .touchscreen, t)),
            ("release, still", .release(velocityY: 0, t)),
            ("release, fling up", .release(velocityY: -2000, t)),
            ("release, fling down", .release(velocityY: 2000, t)),
            ("present(half)", .present(detent: half, t)),
            ("come-back(half)", .comeBack(detent: half, t)),
            ("dismiss", .dismiss(t)),
        ]
        try MachineTable.walk("sheet-opening", states: states, events: events) { state, event in
            var machine = SheetMachine(configuration: configuration, screen: screen, state: state)
            let effect = machine.handle(event)
            var next = machine.tableName
            if let cause = machine.lastPresented { next += ", presented \(cause.name)" }
            return (next, effect == .changed ? "changed" : "none")
        }
    }
}

/// Cases a review found, each at the machine.
@Suite struct SheetMachineEdgeTests {
    func settling(_ target: Int, from top: Double, _ configuration: SheetConfiguration = SheetConfiguration()) -> SheetMachine {
        let screen = ScreenSize.portraitFullHD
        let base = SheetMachine(configuration: configuration, screen: screen)
        let spring = Spring(from: top, target: base.detents[target].topInPoints, initialVelocity: 0, stiffness: 400, dampingRatio: 0.8)
        return SheetMachine(configuration: configuration, screen: screen, state: .settling(.init(
            targetDetent: target, animation: .spring(spring, clampAtTarget: target == base.detents.hiddenIndex), startedAt: t0,
            top: top, velocity: 0, nextFrame: t0.adding(microseconds: 16_667), cause: .animation)))
    }

    /// A Present whose instant falls after the settle toward hidden has ended (between two
    /// frames) was dropped, and announced as `presented` all the same.
    @Test func aPresentAsASettleEndsOpensTheSheet() {
        var machine = settling(2, from: 1300)
        #expect(machine.handle(.present(detent: 0, t0.adding(seconds: 5))) == .changed)
        #expect(machine.targetDetentIndex == 0, "\(machine.state)")
        #expect(machine.lastPresented == .control)
        var dismissed = settling(1, from: 1300)
        #expect(dismissed.handle(.dismiss(t0.adding(seconds: 5))) == .changed)
        #expect(dismissed.targetDetentIndex == 2, "\(dismissed.state)")
    }

    /// A sheet that a person may not open cannot be caught on its way to the floor (it would
    /// be opened by the catch); one that may, can.
    @Test func aClosingSheetIsCaughtOnlyWhenAPersonMayOpenIt() {
        var locked = SheetConfiguration()
        locked.presentation.canOpen = false
        var machine = settling(2, from: 1300, locked)
        #expect(machine.handle(.touchDown(Point(x: 540, y: 1500), .touchscreen, t0.adding(seconds: 0.01))) == .none)
        #expect(machine.state.kind == .settling)
        var open = settling(2, from: 1300)
        #expect(open.handle(.touchDown(Point(x: 540, y: 1500), .touchscreen, t0.adding(seconds: 0.01))) == .changed)
        #expect(open.state.kind == .dragging)
    }

    /// A non-modal card whose spring carries it past the bottom edge keeps its region on the
    /// screen, which a client reading the state holds it to.
    @Test func aRegionStaysOnTheScreenWhenTheCardOvershootsIt() {
        var configuration = SheetConfiguration()
        configuration.presentation.modal = false
        let machine = settling(1, from: 2100, configuration)
        #expect(machine.region.y <= 1920 && machine.region.height >= 0, "\(machine.region)")
    }
}

@Suite struct ListMachineTableTests {
    /// 1080x1920 at scale 1, the highest detent at 30: the list starts at 86 with the card
    /// there and 60 rows of 56 pt scroll by at most 1526 pt. Each state is reached through the
    /// machine's own events from idle at offset 100.
    @Test func listMatchesItsTable() throws {
        let screen = ScreenSize.portraitFullHD
        func machine(_ setup: [ListMachine.Event]) -> ListMachine {
            var list = ListMachine(configuration: ListConfiguration(), sheet: SheetConfiguration(), screen: screen, topmostTop: 30)
            list.setItems((0..<60).map { SheetItem(id: "\($0)", label: "Item \($0)") }, offset: 100)
            var out: [ContentEventReport] = []
            for event in setup { _ = list.handle(event, into: &out) }
            return list
        }
        let onItem = Point(x: 300, y: 86 + 56 * 5 + 28)
        let states: [(String, [ListMachine.Event])] = [
            ("idle", []),
            ("scrolling", [.scroll(rawOffset: 200, t0)]),
            ("flinging", [.scroll(rawOffset: 200, t0), .release(offsetPointsPerSecond: 2000, t0)]),
            ("reordering", [.hold(onItem, cardTop: 30, t0)]),
        ]
        let t = t0.adding(seconds: 0.05)
        let events: [(String, ListMachine.Event)] = [
            ("touch-down", .touchDown(t)),
            ("scroll", .scroll(rawOffset: 300, t)),
            ("release, fast", .release(offsetPointsPerSecond: 2000, t)),
            ("release, slow", .release(offsetPointsPerSecond: 10, t)),
            ("cancel", .cancel(t)),
            ("hold on an item", .hold(onItem, cardTop: 30, t)),
            ("hold on the title bar", .hold(Point(x: 300, y: 50), cardTop: 30, t)),
            ("hold-moved", .holdMoved(Point(x: 300, y: 700), t)),
            ("frame", .frame(t0.adding(microseconds: 16_667))),
            ("frame after the end", .frame(t0.adding(seconds: 10))),
            ("reveal a row in view", .reveal(position: 10, visibleHeight: 900, t)),
            ("reveal a row below", .reveal(position: 40, visibleHeight: 900, t)),
            ("key-move", .keyMove(position: 5, by: 1, t)),
            ("key-move past the end", .keyMove(position: 59, by: 1, t)),
        ]
        try MachineTable.walk("list", states: states, events: events) { setup, event in
            var list = machine(setup)
            var out: [ContentEventReport] = []
            let effect = list.handle(event, into: &out)
            let name = switch effect {
            case .none: "none"
            case .changed: "changed"
            case .claimed: "claimed"
            }
            return ("\(list.state.kind.name)", name)
        }
    }
}

@Suite struct TouchExplorerTableTests {
    /// Every state holds slot 0 as its finger (the passing state slots 0 and 1, draining slot
    /// 1); the events are slot 0's but for the second finger's down and up.
    @Test func explorerMatchesItsTable() throws {
        let start = Point(x: 100, y: 100)
        let states: [(String, (TouchExplorer.State, UInt32))] = [
            ("idle", (.idle, 0)),
            ("pressed", (.pressed(slot: 0, start: start, last: start, at: t0), 1)),
            ("sliding", (.sliding(slot: 0, start: start, last: Point(x: 100, y: 150), at: t0), 1)),
            ("exploring", (.exploring(slot: 0, last: start), 1)),
            ("tapped", (.tapped(point: start, at: t0), 0)),
            ("second", (.second(slot: 0, start: start, last: start, at: t0), 1)),
            ("passing", (.passing(first: 0, second: 1, a: start, b: Point(x: 120, y: 100)), 3)),
            ("draining", (.draining, 2)),
        ]
        let later = t0.adding(seconds: 0.1)
        let events: [(String, TouchExplorer.Event)] = [
            ("down", .down(slot: 1, Point(x: 120, y: 100), later)),
            ("move within slop", .move(slot: 0, Point(x: 105, y: 100), later)),
            ("move past slop", .move(slot: 0, Point(x: 100, y: 200), later)),
            ("move past slop slowly", .move(slot: 0, Point(x: 100, y: 120), t0.adding(seconds: 0.25))),
            ("up where it began", .up(slot: 0, start, later)),
            ("up far right", .up(slot: 0, Point(x: 200, y: 105), later)),
            ("up far left", .up(slot: 0, Point(x: 0, y: 105), later)),
            ("up far down", .up(slot: 0, Point(x: 105, y: 300), later)),
            ("second finger up", .up(slot: 1, Point(x: 120, y: 100), later)),
            ("cancel", .cancel(slot: 0, later)),
            ("timeout", .timeout(t0.adding(seconds: 0.3))),
        ]
        try MachineTable.walk("explore", states: states, events: events) { state, event in
            var machine = TouchExplorer(slop: slop, state: state.0, held: state.1)
            let effect = machine.handle(event)
            return (machine.state.name, effect.name)
        }
    }
}
