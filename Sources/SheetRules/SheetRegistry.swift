import SheetCore
import SheetProtocol

/// The sheets of one daemon: the shared sheet and those programs opened (`OpenSheet`), one
/// engine each, and which of them is shown (`SheetStack`). The shown sheet's engine is the
/// caller's (the loop's `engine`: a frame's path does not change with several sheets); the
/// others wait here, frozen where they were. Who may act on which sheet, and what a call about a
/// sheet does to the stack, is decided here, for the daemon and for the fuzzer's harness alike.
///
/// After each call and, while `watchesTurns`, each turn, the caller asks `update`: a program's
/// sheet that came to rest at its floor goes beneath the others, or for good when it was
/// closing; and when the stack shows another sheet, the change is animated as a dismissal of
/// one and a presentation of the other: the leaving sheet steps aside to its floor (no
/// finger or key left on it), then the engines trade places and the coming one is presented
/// where its owner asked, or comes back up to where it rested, content, scroll, focus and order
/// as they were.
public struct SheetRegistry: Sendable {
    public private(set) var stack: SheetStack
    /// The sheet whose engine the caller holds: nil for the shared sheet.
    public private(set) var shown: SheetStack.ID?
    private var parked: [SheetStack.ID: Engine] = [:]
    /// The shared sheet's engine while a program's sheet is shown.
    private var shared: Engine?
    /// Sheets to present when next shown (opened, or presented again by their owner), and where.
    private var presenting: [SheetStack.ID: DetentName?] = [:]
    /// Sheets dismissed on their owner's word (`CloseSheet`, a hang-up): gone once at rest.
    private var closing: Set<SheetStack.ID> = []
    /// Where each sheet that stepped aside for another rested, to come back to (nil: the
    /// shared sheet).
    private var returning: [SheetStack.ID?: DetentName] = [:]
    /// The focus a program set on its sheet while it waited: given when it comes back.
    private var focusing: [SheetStack.ID?: String] = [:]
    /// The shown sheet is going down to its floor to make room for the one the stack shows.
    public private(set) var steppingAside = false
    /// Who opened each sheet, as it was then: pid, uid, command.
    private var openers: [SheetStack.ID: (pid: Int32, uid: UInt32, command: String)] = [:]

    public init(limits: SheetStack.Limits = SheetStack.Limits()) {
        stack = SheetStack(limits: limits)
    }

    /// Whether the stack now shows another sheet than the caller's engine is.
    public var mustSwap: Bool { stack.shown != shown }

    /// Whether `update` has work after a turn: a program's sheet is shown (it may come to rest
    /// at its floor), or the shown one is stepping aside.
    public var watchesTurns: Bool { shown != nil || steppingAside }

    /// The program whose sheet is shown, which alone hears its events; nil: the shared sheet's.
    public var shownOwner: UInt64? { shown.flatMap { stack.entry($0)?.owner } }

    /// The presented programs' sheets, bottom to top (a state's `stack`).
    public var presentedNames: [String] { stack.presented.map(\.description) }

    /// Whether `request` is about the daemon's panel rather than one sheet: every sheet follows it.
    public static func isForEverySheet(_ request: ControlRequest) -> Bool {
        switch request {
        case .setScreen, .setReduceMotion, .setAppearance, .setPresentation: true
        case .present, .dismiss, .setDetent, .setContent, .focus: false
        }
    }

    /// A call, routed as the daemon routes it (and the fuzzer's harness, and nothing else): one
    /// about the panel (screen, motion, look, presentation) done by `panel` on the shown sheet
    /// and followed by every sheet that waits; one about the shared sheet while no program holds
    /// a sheet done by `panel` too (the daemon's own path, where a client's choices persist);
    /// any other through the registry (`perform`). The caller then asks `update`.
    public mutating func route(_ call: SheetCall, shown engine: inout Engine, at time: Timestamp, into out: inout [EngineOutput],
                               panel: (ControlRequest, inout Engine, inout [EngineOutput]) -> ControlResult) -> ControlResult {
        if case .control(let request) = call.action,
           Self.isForEverySheet(request) || (stack.entries.isEmpty && shown == nil && !steppingAside) {
            let result = panel(request, &engine, &out)
            if result == .done, Self.isForEverySheet(request) { follow(request, at: time) }
            return result
        }
        return perform(call, shown: &engine, at: time, into: &out)
    }

    /// The sheet `call` acts on: the one it names, if the caller owns it (or is root dismissing
    /// or closing it, an operator's right, or a renderer reading it); else the caller's topmost; else, for a renderer's
    /// `Focus` (a person's), the sheet shown; else the shared sheet (nil).
    public func target(of call: SheetCall) -> (sheet: SheetStack.ID?, refusal: ControlResult?) {
        guard let name = call.sheet else {
            // A sheet closing is gone to its owner already.
            if let own = stack.topmost(ownedBy: call.program, excluding: closing) { return (own, nil) }
            if call.fromRenderer, case .control(.focus) = call.action { return (shown, nil) }
            return (nil, nil)
        }
        guard let id = SheetStack.ID(name), let entry = stack.entry(id), !closing.contains(id) else { return (nil, .noSuchSheet(name)) }
        if entry.owner == call.program { return (id, nil) }
        // An operator may dismiss or close any sheet; a renderer reads any (it draws them all).
        let operatorMay = switch call.action {
        case .close, .control(.dismiss): call.peer.uid == 0
        case .content: call.fromRenderer
        default: false
        }
        return operatorMay ? (id, nil) : (nil, .notOwner(name))
    }

    /// Runs `body` on the engine of `id` (nil: the shared sheet) with where its outputs go: the
    /// caller's for the shown sheet, nowhere for one that waits (it publishes nothing unseen).
    public mutating func withEngine<Result>(_ id: SheetStack.ID?, shown engine: inout Engine, into out: inout [EngineOutput],
                                            _ body: (inout Engine, inout [EngineOutput]) -> Result) -> Result {
        if id == shown { return body(&engine, &out) }
        var unseen: [EngineOutput] = []
        if let id {
            return body(&parked[id]!, &unseen)
        }
        return body(&shared!, &unseen)
    }

    /// A request every sheet follows, done on the shown one: the waiting ones too, so that the
    /// sheet that comes back has the panel's screen, motion, look and presentation.
    public mutating func follow(_ request: ControlRequest, at time: Timestamp) {
        forEachWaiting { engine, unseen in _ = engine.perform(request, at: time, into: &unseen) }
    }

    /// Runs `body` on every engine but the shown one's, their outputs unseen: what the panel
    /// learns (headphones plugged) reaches the sheets that wait too.
    public mutating func forEachWaiting(_ body: (inout Engine, inout [EngineOutput]) -> Void) {
        var unseen: [EngineOutput] = []
        for id in parked.keys { body(&parked[id]!, &unseen) }
        if shared != nil { body(&shared!, &unseen) }
    }

    /// `OpenSheet`, `CloseSheet`, `GetContent` of a program's sheet, and a control call about one
    /// sheet, against the stack and the sheet's engine; `engine` is the shown one's.
    public mutating func perform(_ call: SheetCall, shown engine: inout Engine, at time: Timestamp,
                                 into out: inout [EngineOutput]) -> ControlResult {
        if case .open(let change, let layer, let detent) = call.action {
            let result = open(change, layer: layer, detent: detent, owner: call.program, like: engine, at: time)
            if case .opened(let name) = result, let id = SheetStack.ID(name) {
                openers[id] = (call.peer.pid, call.peer.uid, call.command)
            }
            return result
        }
        if case .list = call.action { return .sheets(listing(for: call)) }
        let (id, refusal) = target(of: call)
        if let refusal { return refusal }
        switch call.action {
        case .open, .list:
            return .done
        case .close:
            guard let id else { return .noSuchSheet(call.sheet ?? "") }
            close(id, shown: &engine, at: time, into: &out)
            return .done
        case .content:
            return withEngine(id, shown: &engine, into: &out) { engine, _ in
                .content(SharedContent(content: engine.content, order: engine.list.order, revision: engine.list.revision, sheet: id?.description))
            }
        case .control(let request):
            if id != shown || steppingAside, let result = waiting(id, request, shown: &engine, at: time, into: &out) {
                return result
            }
            return withEngine(id, shown: &engine, into: &out) { engine, out in engine.perform(request, at: time, into: &out) }
        }
    }

    /// A call that moves a sheet not shown, or stepping aside: it says where the sheet shows
    /// when it comes back. `Present` puts a program's sheet at the top of its layer; a detent
    /// alone keeps its place; `Dismiss` leaves it down (beneath the others). Nil: the call is
    /// the engine's own (content, focus), made on it unseen.
    private mutating func waiting(_ id: SheetStack.ID?, _ request: ControlRequest, shown engine: inout Engine, at time: Timestamp,
                                  into out: inout [EngineOutput]) -> ControlResult? {
        let asked: String?
        switch request {
        case .present(let detent): asked = detent
        case .setDetent(let detent): asked = detent
        case .dismiss:
            let result = withEngine(id, shown: &engine, into: &out) { engine, out in engine.perform(request, at: time, into: &out) }
            guard result == .done else { return result }
            returning[id] = nil
            focusing[id] = nil
            if let id {
                stack.dismiss(id)
                presenting[id] = nil
            }
            return .done
        case .focus(let element?, nil) where willComeBack(id):
            // Where the focus is when it comes back (an item, or close), held to its content now.
            let refusal = withEngine(id, shown: &engine, into: &out) { engine, _ in engine.refusal(toFocus: engine.focusTarget(named: element)) }
            if let refusal { return .cannotFocus(element, reason: refusal.reason) }
            focusing[id] = element
            return .done
        default:
            return nil
        }
        let (detents, initial) = withEngine(id, shown: &engine, into: &out) { engine, _ in
            (engine.sheet.detents, engine.sheet.detents[engine.sheet.openDetent].name)
        }
        var name: DetentName?
        if let asked {
            guard let known = DetentName(asked), detents.index(named: known) != nil else {
                return .unknownDetent(asked, known: detents.detents.map(\.name.description))
            }
            name = known
        }
        guard let id else {
            // The shared sheet shows when no program's sheet is presented.
            returning[nil] = name ?? initial
            return .done
        }
        if case .setDetent = request, stack.entry(id)?.presented == true {
            if presenting[id] != nil { presenting[id] = .some(name) } else { returning[id] = name }
        } else {
            stack.present(id)
            presenting[id] = .some(name)
        }
        return .done
    }

    private mutating func open(_ change: ContentChange, layer: SheetStack.Layer, detent: String?, owner: UInt64,
                               like engine: Engine, at time: Timestamp) -> ControlResult {
        var name: DetentName?
        if let detent {
            guard let known = DetentName(detent), engine.sheet.detents.detents.contains(where: { $0.name == known }) else {
                return .unknownDetent(detent, known: engine.sheet.detents.detents.map(\.name.description))
            }
            name = known
        }
        guard let id = stack.open(owner: owner, layer: layer) else { return .tooManySheets(limit: stack.limit(for: owner) ?? 0) }
        // The panel's configuration as it is now (screen, presentation, look), at its floor.
        var sheet = Engine(configuration: engine.configuration, startingAt: engine.sheet.detents.floor.name)
        var unseen: [EngineOutput] = []
        sheet.setContent(change.applied(to: .empty), at: time, into: &unseen)
        sheet.start(at: time, into: &unseen)
        parked[id] = sheet
        presenting[id] = .some(name)
        return .opened(id.description)
    }

    /// Closes `id`: the shown one is dismissed (animated, guarded or not) and goes at rest
    /// (`settle`); a waiting one goes now.
    private mutating func close(_ id: SheetStack.ID, shown engine: inout Engine, at time: Timestamp, into out: inout [EngineOutput]) {
        guard id == shown else { return remove(id) }
        closing.insert(id)
        _ = engine.perform(SheetCommand.dismiss(force: true), at: time, into: &out)
    }

    /// The sheets `call`'s caller may see: all of them to a renderer or root, else its own.
    private func listing(for call: SheetCall) -> [SheetListing] {
        stack.entries.filter { call.fromRenderer || $0.owner == call.program }.map { entry in
            let opener = openers[entry.id] ?? (0, 0, "")
            return SheetListing(sheet: entry.id.description, layer: entry.layer, presented: entry.presented && !closing.contains(entry.id),
                                shown: entry.id == shown, pid: opener.pid, uid: opener.uid, command: opener.command)
        }
    }

    private mutating func remove(_ id: SheetStack.ID) {
        openers[id] = nil
        returning[id] = nil
        focusing[id] = nil
        stack.close(id)
        parked[id] = nil
        presenting[id] = nil
        closing.remove(id)
    }

    /// The program `owner` is gone (its last connection hung up): its sheets close.
    public mutating func ownerGone(_ owner: UInt64, shown engine: inout Engine, at time: Timestamp, into out: inout [EngineOutput]) {
        for id in stack.sheets(ownedBy: owner) { close(id, shown: &engine, at: time, into: &out) }
    }

    /// What `update` did.
    public enum Update: Sendable, Equatable {
        /// Nothing about the stack.
        case none
        /// The stack changed (a sheet went beneath or away, or the shown one began stepping
        /// aside or came back), the same sheet shown.
        case restacked
        /// The engines traded places: another sheet is shown.
        case shown
    }

    /// After a call or a turn: the shown program's sheet at rest at its floor goes beneath the
    /// others (a person or its owner dismissed it) or away (it was closing); and the change to
    /// the sheet the stack shows goes a step on (see the type's comment). Outputs go to `out`.
    public mutating func update(_ engine: inout Engine, at time: Timestamp, into out: inout [EngineOutput]) -> Update {
        let restacked = settle(engine, at: time)
        if !mustSwap {
            guard steppingAside else { return restacked ? .restacked : .none }
            // The sheet over it went before it was down: it goes back up.
            steppingAside = false
            bringBack(shown, &engine, at: time, into: &out)
            return .restacked
        }
        if !steppingAside {
            if let detent = engine.stepAside(at: time, into: &out) { returning[shown] = detent }
            // Going down (stepping aside, or closing already): the change waits for the floor.
            steppingAside = engine.isSteppingAside
            if steppingAside { return .restacked }
        }
        // Down, or caught on the way by a finger or sent elsewhere by a call: the change now.
        if engine.isSteppingAside { return restacked ? .restacked : .none }
        trade(&engine, at: time, into: &out)
        return .shown
    }

    /// The shown program's sheet at rest at its floor, not stepping aside, goes beneath or away.
    private mutating func settle(_ engine: borrowing Engine, at time: Timestamp) -> Bool {
        guard let id = shown, !steppingAside, presenting[id] == nil, engine.restsAtFloor else { return false }
        if closing.contains(id) {
            remove(id)
        } else if stack.entry(id)?.presented == true {
            stack.dismiss(id)
        } else {
            return false
        }
        return true
    }

    /// Trades the caller's engine for the one of the sheet the stack shows now. The leaving
    /// sheet's touches and keys are let go (unseen); it waits where it was, or is gone if it
    /// was closed. The coming one is presented where its owner asked, or comes back to where it
    /// rested; its state and list go into `out`.
    private mutating func trade(_ engine: inout Engine, at time: Timestamp, into out: inout [EngineOutput]) {
        var unseen: [EngineOutput] = []
        engine.cancelAllTouches(at: time, into: &unseen)
        engine.releaseKeys(at: time, into: &unseen)
        steppingAside = false
        let next = stack.shown
        let coming = next.map { parked.removeValue(forKey: $0)! } ?? shared.take()!
        if let leaving = shown {
            if closing.contains(leaving) {
                remove(leaving)
            } else if stack.entry(leaving) != nil {
                parked[leaving] = engine
            }
        } else {
            shared = engine
        }
        engine = coming
        shown = next
        if let list = engine.listSnapshot(at: time) { out.append(.list(list)) }
        let before = out.count
        bringBack(next, &engine, at: time, into: &out)
        // Its state: moving up, or, when it does not move, as it rests.
        if !out[before...].contains(where: { if case .sheet = $0 { true } else { false } }) {
            out.append(.sheet(engine.snapshot(at: time)))
        }
    }

    /// The shown sheet goes up: presented where its owner asked, or back where it rested; and
    /// the focus its owner set while it waited.
    private mutating func bringBack(_ id: SheetStack.ID?, _ engine: inout Engine, at time: Timestamp, into out: inout [EngineOutput]) {
        if let id, let detent = presenting.removeValue(forKey: id) {
            returning[id] = nil
            _ = engine.perform(SheetCommand.present(detent), at: time, into: &out)
        } else if let detent = returning.removeValue(forKey: id) {
            engine.comeBack(to: detent, at: time, into: &out)
        }
        if let element = focusing.removeValue(forKey: id) {
            _ = engine.perform(.focus(element: element, command: nil), at: time, into: &out)
        }
    }

    /// Whether a sheet not shown (or stepping aside) is to come up when the stack shows it.
    private func willComeBack(_ id: SheetStack.ID?) -> Bool {
        returning[id] != nil || id.map { presenting[$0] != nil } ?? false
    }

    /// Runs `body` on the shared sheet's engine, wherever it is (what persists is its), with the
    /// detent it will come back to when it stepped aside for a program's sheet.
    public mutating func withShared<Result>(_ engine: inout Engine, _ body: (inout Engine, DetentName?) -> Result) -> Result {
        shown == nil ? body(&engine, returning[nil]) : body(&shared!, returning[nil])
    }
}
