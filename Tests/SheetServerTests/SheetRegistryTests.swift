import SheetCore
import SheetProtocol
import SheetRules
import SheetServer
import Testing

/// `SheetRegistry`: the sheets of a daemon, one engine each, without a socket (ProgramsTests
/// drives the same through real connections).
struct SheetRegistryTests {
    static let person = PeerCredentials(pid: 10, uid: 1000, gid: 1000)
    static let root = PeerCredentials(pid: 1, uid: 0, gid: 0)

    /// The panel's shared sheet resting at half, and an empty registry, at 1 s.
    private func panel() -> (Engine, SheetRegistry, [EngineOutput]) {
        var engine = Engine(configuration: EngineConfiguration())
        var out: [EngineOutput] = []
        engine.setContent(SheetContent(title: "Shared", items: [SheetItem(id: "a", label: "A")]), at: .zero, into: &out)
        engine.advance(to: Timestamp(seconds: 1), into: &out)
        return (engine, SheetRegistry(), [])
    }

    private func call(_ action: SheetCall.Action, _ sheet: String? = nil, from connection: UInt64, as peer: PeerCredentials = person) -> SheetCall {
        SheetCall(action, sheet: sheet, program: connection, peer: peer)
    }

    /// Advances the shown engine frame by frame, updating the registry as the loop does after
    /// each turn, until the sheet shown is the stack's and rests; what it published goes to `seen`.
    private func rest(_ engine: inout Engine, _ sheets: inout SheetRegistry, from start: Timestamp,
                      seen: inout [EngineOutput]) -> Timestamp {
        var out: [EngineOutput] = []
        var time = start
        for _ in 0..<480 {
            time = time.adding(microseconds: 16_667)
            engine.advance(to: time, into: &out)
            _ = sheets.update(&engine, at: time, into: &out)
            if engine.snapshot(at: time).state == .resting, !sheets.mustSwap, !sheets.steppingAside { break }
        }
        seen += out
        return time
    }

    private func rest(_ engine: inout Engine, _ sheets: inout SheetRegistry, from start: Timestamp) -> Timestamp {
        var seen: [EngineOutput] = []
        return rest(&engine, &sheets, from: start, seen: &seen)
    }

    @Test func aProgramsSheetGoesOverTheSharedOneAndTheOneBeneathComesBackWhereItRested() throws {
        var (engine, sheets, out) = panel()
        var time = Timestamp(seconds: 1)
        let opened = sheets.perform(call(.open(ContentChange(title: "Navigation", items: [SheetItem(id: "route", label: "Route")]),
                                               layer: .app, detent: "expanded"), from: 1), shown: &engine, at: time, into: &out)
        #expect(opened == .opened("sheet-1") && sheets.mustSwap)
        time = rest(&engine, &sheets, from: time)
        #expect(sheets.shown?.description == "sheet-1" && engine.content.title == "Navigation" && sheets.shownOwner == 1)
        #expect(engine.snapshot(at: time).detent == .expanded)
        // B over A; A may neither change B's sheet nor read it; root may dismiss it.
        #expect(sheets.perform(call(.open(ContentChange(title: "Media"), layer: .app, detent: nil), from: 2), shown: &engine, at: time, into: &out)
                == .opened("sheet-2"))
        _ = sheets.update(&engine, at: time, into: &out)
        time = rest(&engine, &sheets, from: time)
        #expect(sheets.presentedNames == ["sheet-1", "sheet-2"] && engine.snapshot(at: time).detent == .half)
        #expect(sheets.perform(call(.control(.setContent(ContentChange(title: "Mine"))), "sheet-2", from: 1), shown: &engine, at: time, into: &out)
                == .notOwner("sheet-2"))
        #expect(sheets.perform(call(.content, "sheet-2", from: 1), shown: &engine, at: time, into: &out) == .notOwner("sheet-2"))
        #expect(sheets.perform(call(.control(.present(detent: nil)), "sheet-9", from: 1), shown: &engine, at: time, into: &out)
                == .noSuchSheet("sheet-9"))
        #expect(sheets.perform(call(.close, "sheet-2", from: 1), shown: &engine, at: time, into: &out) == .notOwner("sheet-2"))
        guard case .content(let own) = sheets.perform(call(.content, from: 1), shown: &engine, at: time, into: &out) else {
            Issue.record("A's own content")
            return
        }
        #expect(own.content.title == "Navigation", "A's topmost: its own, beneath B's")
        // The operator closes B: dismissed, animated, then gone; A is back at expanded.
        #expect(sheets.perform(call(.close, "sheet-2", from: 9, as: Self.root), shown: &engine, at: time, into: &out) == .done)
        #expect(!sheets.mustSwap, "shown until it has gone down")
        time = rest(&engine, &sheets, from: time)
        #expect(sheets.shown?.description == "sheet-1" && engine.content.title == "Navigation")
        #expect(engine.snapshot(at: time).detent == .expanded && sheets.presentedNames == ["sheet-1"])
        #expect(sheets.perform(call(.control(.present(detent: nil)), "sheet-2", from: 2), shown: &engine, at: time, into: &out)
                == .noSuchSheet("sheet-2"))
        // A's program goes: the shared sheet comes back where it rested, with its content.
        sheets.ownerGone(1, shown: &engine, at: time, into: &out)
        time = rest(&engine, &sheets, from: time)
        #expect(sheets.shown == nil && engine.content.title == "Shared" && engine.snapshot(at: time).detent == .half)
    }

    /// The change is a dismissal of one and a presentation of the other: the shown sheet goes
    /// down to its floor (a guarded one too: nothing is dismissed) before the other comes up,
    /// and comes back up to where it rested once the other goes, without a `presented` report.
    @Test func theChangeIsAnimatedDownThenUpAndTheSheetBeneathComesBackUp() {
        var (engine, sheets, out) = panel()
        var time = Timestamp(seconds: 1)
        _ = engine.perform(.setContent(ContentChange(guarded: true)), at: time, into: &out)
        let half = engine.snapshot(at: time).topInPixels, floor = engine.sheet.detents.floor.topInPoints * engine.configuration.screen.scale
        _ = sheets.perform(call(.open(ContentChange(title: "Media"), layer: .app, detent: "expanded"), from: 1), shown: &engine, at: time, into: &out)
        #expect(sheets.update(&engine, at: time, into: &out) == .restacked)
        #expect(sheets.shown == nil && sheets.steppingAside && engine.isSteppingAside && engine.content.title == "Shared")
        var seen: [EngineOutput] = []
        time = rest(&engine, &sheets, from: time, seen: &seen)
        var tops = Self.tops(seen)
        let down = tops.lastIndex { $0.target == .hidden && $0.top > half && $0.top < floor }
        let up = tops.firstIndex { $0.target == .expanded && $0.top < floor }
        #expect(down != nil && up != nil && down! < up!, "down first, then up: \(tops)")
        #expect(engine.content.title == "Media" && engine.snapshot(at: time).detent == .expanded)
        // Its owner closes it: down, then the shared sheet comes up to half, unannounced.
        seen = []
        #expect(sheets.perform(call(.close, from: 1), shown: &engine, at: time, into: &out) == .done)
        time = rest(&engine, &sheets, from: time, seen: &seen)
        tops = Self.tops(seen)
        #expect(tops.contains { $0.target == .half && $0.top > half && $0.top < floor }, "up from the floor: \(tops)")
        #expect(sheets.shown == nil && engine.content.title == "Shared" && engine.snapshot(at: time).detent == .half)
        #expect(!seen.contains { if case .content(let report) = $0, case .presented = report.event { true } else { false } })
    }

    /// A sheet stepping aside sent back up by its owner, or asked elsewhere while it waits.
    @Test func whereAWaitingSheetComesBackIsItsOwners() {
        var (engine, sheets, out) = panel()
        var time = Timestamp(seconds: 1)
        let items = [SheetItem(id: "route", label: "Route"), SheetItem(id: "stops", label: "Stops", disabled: true)]
        _ = sheets.perform(call(.open(ContentChange(title: "Navigation", items: items), layer: .app, detent: nil), from: 1),
                           shown: &engine, at: time, into: &out)
        #expect(sheets.update(&engine, at: time, into: &out) == .restacked && sheets.steppingAside, "the shared sheet goes down first")
        // The focus set before the sheet is up is given as it comes, held to its content now.
        #expect(sheets.perform(call(.control(.focus(element: "stops", command: nil)), from: 1), shown: &engine, at: time, into: &out)
                == .cannotFocus("stops", reason: FocusRefusal.disabled.reason))
        #expect(sheets.perform(call(.control(.focus(element: "route", command: nil)), from: 1), shown: &engine, at: time, into: &out) == .done)
        time = rest(&engine, &sheets, from: time)
        #expect(engine.content.title == "Navigation" && engine.snapshot(at: time).focus.target == .item(0))
        _ = sheets.perform(call(.open(ContentChange(title: "Media"), layer: .app, detent: nil), from: 2), shown: &engine, at: time, into: &out)
        _ = sheets.update(&engine, at: time, into: &out)
        #expect(sheets.steppingAside && engine.content.title == "Navigation")
        // The newer one closes before the older is down: the older goes back up, never traded.
        _ = sheets.perform(call(.close, from: 2), shown: &engine, at: time.adding(microseconds: 50_000), into: &out)
        #expect(sheets.update(&engine, at: time.adding(microseconds: 50_000), into: &out) == .restacked)
        time = rest(&engine, &sheets, from: time.adding(microseconds: 50_000))
        #expect(engine.content.title == "Navigation" && engine.snapshot(at: time).detent == .half && sheets.presentedNames == ["sheet-1"])
        // Covered again; while it waits its owner asks for expanded: it comes back there.
        _ = sheets.perform(call(.open(ContentChange(title: "Media"), layer: .app, detent: nil), from: 2), shown: &engine, at: time, into: &out)
        time = rest(&engine, &sheets, from: time)
        #expect(sheets.perform(call(.control(.setDetent("expanded")), "sheet-1", from: 1), shown: &engine, at: time, into: &out) == .done)
        #expect(sheets.presentedNames == ["sheet-1", "sheet-3"], "a detent alone keeps its place")
        #expect(sheets.perform(call(.control(.setDetent("nowhere")), "sheet-1", from: 1), shown: &engine, at: time, into: &out)
                == .unknownDetent("nowhere", known: ["expanded", "half", "hidden"]))
        sheets.ownerGone(2, shown: &engine, at: time, into: &out)
        time = rest(&engine, &sheets, from: time)
        #expect(engine.content.title == "Navigation" && engine.snapshot(at: time).detent == .expanded)
        // Dismissed while it waits: it stays down, and the shared sheet comes back instead.
        _ = sheets.perform(call(.open(ContentChange(title: "Media"), layer: .app, detent: nil), from: 2), shown: &engine, at: time, into: &out)
        time = rest(&engine, &sheets, from: time)
        #expect(sheets.perform(call(.control(.dismiss(force: false)), "sheet-1", from: 1), shown: &engine, at: time, into: &out) == .done)
        sheets.ownerGone(2, shown: &engine, at: time, into: &out)
        time = rest(&engine, &sheets, from: time)
        time = rest(&engine, &sheets, from: time)
        #expect(sheets.shown == nil && engine.content.title == "Shared" && engine.snapshot(at: time).detent == .half)
    }

    /// Each published state's top and target, in order.
    private static func tops(_ outputs: [EngineOutput]) -> [(top: Double, target: DetentName?)] {
        outputs.compactMap { if case .sheet(let snapshot) = $0 { (snapshot.topInPixels, snapshot.target) } else { nil } }
    }

    @Test func aSystemSheetStaysOverAnAppSheetOpenedAfterItAndAPersonsDismissalLetsTheNextCome() {
        var (engine, sheets, out) = panel()
        var time = Timestamp(seconds: 1)
        _ = sheets.perform(call(.open(ContentChange(title: "Staff"), layer: .system, detent: nil), from: 1), shown: &engine, at: time, into: &out)
        time = rest(&engine, &sheets, from: time)
        _ = sheets.perform(call(.open(ContentChange(title: "Later"), layer: .app, detent: nil), from: 2), shown: &engine, at: time, into: &out)
        #expect(!sheets.mustSwap && engine.content.title == "Staff" && sheets.presentedNames == ["sheet-2", "sheet-1"])
        time = rest(&engine, &sheets, from: time)
        // A person dismisses the staff sheet: it rests, its owner's, and the app sheet opens.
        _ = engine.perform(SheetCommand.dismiss(force: false), at: time, into: &out)
        time = rest(&engine, &sheets, from: time)
        time = rest(&engine, &sheets, from: time)
        #expect(engine.content.title == "Later" && engine.snapshot(at: time).detent == .half, "presented where it asked, once shown")
        #expect(sheets.presentedNames == ["sheet-2"] && sheets.stack.entry(SheetStack.ID(number: 1))?.presented == false)
        // Its owner presents it again: over the app sheet.
        #expect(sheets.perform(call(.control(.present(detent: "expanded")), "sheet-1", from: 1), shown: &engine, at: time, into: &out) == .done)
        _ = sheets.update(&engine, at: time, into: &out)
        time = rest(&engine, &sheets, from: time)
        #expect(engine.content.title == "Staff" && engine.snapshot(at: time).detent == .expanded)
    }

    /// What the panel learns while a program's sheet is shown (headphones plugged, a new
    /// screen) reaches the shared sheet waiting beneath, which has it when it comes back.
    @Test func theSheetsThatWaitLearnWhatThePanelLearns() {
        var (engine, sheets, out) = panel()
        var time = Timestamp(seconds: 1)
        _ = sheets.perform(call(.open(ContentChange(title: "Media"), layer: .app, detent: nil), from: 1), shown: &engine, at: time, into: &out)
        time = rest(&engine, &sheets, from: time)
        #expect(engine.content.title == "Media", "the shared sheet waits beneath")
        engine.setHeadphones(true, at: time, into: &out)
        sheets.forEachWaiting { waiting, unseen in waiting.setHeadphones(true, at: time, into: &unseen) }
        // A call about the panel, routed as the daemon routes it: the shown sheet and those that wait.
        let screen = sheets.route(call(.control(.setScreen(width: 800, height: 1280, scale: nil)), from: 2), shown: &engine, at: time,
                                  into: &out) { request, engine, out in engine.perform(request, at: time, into: &out) }
        #expect(screen == .done && engine.configuration.screen.widthInPixels == 800)
        sheets.ownerGone(1, shown: &engine, at: time, into: &out)
        time = rest(&engine, &sheets, from: time)
        #expect(sheets.shown == nil && engine.content.title == "Shared")
        #expect(engine.configuration.sheet.presentation.headphonesPlugged && engine.configuration.screen.widthInPixels == 800)
    }

    /// A program hangs up while a person's finger drags its sheet: the sheet goes once the
    /// finger lets go, and the shared sheet comes back with no finger held on it.
    @Test func aProgramThatHangsUpMidDragLeavesNoFingerBehind() {
        var (engine, sheets, out) = panel()
        var time = Timestamp(seconds: 1)
        _ = sheets.perform(call(.open(ContentChange(title: "Media"), layer: .app, detent: nil), from: 1), shown: &engine, at: time, into: &out)
        _ = sheets.update(&engine, at: time, into: &out)
        time = rest(&engine, &sheets, from: time)
        for (step, y) in [1000.0, 1040, 1080].enumerated() {
            time = time.adding(microseconds: 16_667)
            let contact = Contact(slot: 0, phase: step == 0 ? .down : .move, positionInPixels: Point(x: 500, y: y))
            engine.process(TouchFrame(time: time, contacts: [contact]), into: &out)
        }
        #expect(engine.activeTouchCount == 1)
        sheets.ownerGone(1, shown: &engine, at: time, into: &out)
        time = time.adding(microseconds: 16_667)
        engine.process(TouchFrame(time: time, contacts: [Contact(slot: 0, phase: .up, positionInPixels: Point(x: 500, y: 1080))]), into: &out)
        time = rest(&engine, &sheets, from: time)
        time = rest(&engine, &sheets, from: time)
        #expect(sheets.shown == nil && sheets.stack.entries.isEmpty && engine.content.title == "Shared", "\(sheets.stack.entries)")
        #expect(engine.activeTouchCount == 0 && engine.snapshot(at: time).detent == .half)
    }

    @Test func limitsAndUnknownDetentsAreRefusedBeforeAnythingOpens() {
        var (engine, sheets, out) = panel()
        #expect(sheets.perform(call(.open(ContentChange(), layer: .app, detent: "nowhere"), from: 1), shown: &engine, at: .zero, into: &out)
                == .unknownDetent("nowhere", known: ["expanded", "half", "hidden"]))
        for _ in 0..<8 { _ = sheets.perform(call(.open(ContentChange(), layer: .app, detent: nil), from: 1), shown: &engine, at: .zero, into: &out) }
        #expect(sheets.perform(call(.open(ContentChange(), layer: .app, detent: nil), from: 1), shown: &engine, at: .zero, into: &out)
                == .tooManySheets(limit: 8))
        #expect(sheets.stack.entries.count == 8)
    }
}
