import SheetCore

/// Where a detent puts the card's top edge, in pixels from the top of the screen.
public struct DetentPosition: Sendable, Equatable {
    public var name: DetentName
    public var topInPixels: Double

    public init(name: DetentName, topInPixels: Double) {
        self.name = name
        self.topInPixels = topInPixels
    }
}

/// Everything a renderer needs to draw the sheet: `{"state":"settling","detent":null,
/// "target":"expanded","top":812.5,"progress":0.62,"dim":0.31,...}`.
///
/// The state's kind and its cause are the core's own types (`SheetMachine.StateKind`,
/// `SheetCause`), named on the wire by their `name`.
public struct SheetState: Sendable, Equatable {
    /// Resting, dragging or settling.
    public var state: SheetMachine.StateKind
    /// The detent the card is at, or nil between detents.
    public var detent: DetentName?
    /// While settling: the detent it is going to.
    public var target: DetentName?
    /// The card's top edge, in pixels from the top of the screen.
    public var topInPixels: Double
    /// 0 when hidden, 1 when fully expanded.
    public var progress: Double
    /// The dim's opacity, 0…1.
    public var dim: Double
    /// The card's vertical velocity, pixels per second, positive downwards.
    public var velocityInPixelsPerSecond: Double
    public var screen: ScreenSize
    /// What moved the sheet last: nothing yet, a finger, an animation, or a control call.
    public var cause: SheetCause
    public var detents: [DetentPosition]
    /// The list in the card, while the sheet has content.
    public var list: ListState?
    /// Input is under way: a finger is down, or a recording the daemon plays has frames still
    /// to come. The sheet may move without a call while this holds.
    public var inputActive: Bool
    /// Reduced motion is on: the card is placed at once where it goes and only the dim fades;
    /// a renderer adds no motion of its own.
    public var reduceMotion: Bool
    /// The card's horizontal extent (pixels from the screen's left edge): the whole width, or
    /// at most `SheetLayout.maximumWidth` placed by its alignment. Beside it is the dim, and a
    /// tap there is a tap on the dim. `"card":{"x":640,"width":640}` on the wire; a state from
    /// a daemon that sends none spans the screen.
    public var cardInPixels: CardSpan
    /// How to draw it: the theme, accent, font, text scale, colours and corners the daemon
    /// says, so that every renderer draws the same sheet. A state from a daemon that sends
    /// none has the standard appearance.
    public var appearance: Appearance
    /// How the sheet opens, closes and shares the screen (`SetPresentation`). A state from a
    /// daemon that sends none has the defaults.
    public var presentation: SheetPresentation
    /// The part of the screen the sheet takes now (pixels, `SheetMachine.region`): what a
    /// renderer under a compositor makes its input region, so that touches elsewhere reach
    /// what lies beneath. A state from a daemon that sends none takes the whole screen.
    public var regionInPixels: ScreenRegion
    /// What holds the focus (keys, a knob, a switch): the close button, an item, or nothing.
    /// `"focus":"close"`, the item's id, or null on the wire; a daemon before it sent none.
    public var focus: FocusedElement?
    /// The focus ring is drawn: a key was used since the last touch. `"focusVisible"`.
    public var focusVisible: Bool
    /// Which sheet this is and the stack, once a program has opened a sheet; nil before (one
    /// optional, not two fields: a frame's state is copied several times on its way out).
    public var stacked: StackedSheets?
    /// Which sheet this is: a program's (`OpenSheet`, `sheet-3`), nil for the shared sheet.
    public var sheet: String? { stacked?.sheet }
    /// The programs' sheets presented, bottom to top, the shown one last; empty while there is none.
    public var stack: [String] { stacked?.stack ?? [] }

    /// Nothing moves: the sheet rests and its list, if any, is settled.
    public var isAtRest: Bool { state == .resting && (list?.isSettled ?? true) }

    /// Nothing moves and nothing will until a new touch or a call: at rest, with no input
    /// under way.
    public var isIdle: Bool { isAtRest && !inputActive }
    /// At rest on the floor (hidden, or the bar): nothing of the sheet is open.
    public var isClosed: Bool { state == .resting && (detent?.isFloor ?? false) }

    public init(state: SheetMachine.StateKind, detent: DetentName?, target: DetentName?, topInPixels: Double,
                progress: Double, dim: Double, velocityInPixelsPerSecond: Double,
                screen: ScreenSize, cause: SheetCause, detents: [DetentPosition], list: ListState? = nil,
                inputActive: Bool = false, reduceMotion: Bool = false, cardInPixels: CardSpan? = nil,
                appearance: Appearance = .standard, presentation: SheetPresentation = SheetPresentation(),
                regionInPixels: ScreenRegion? = nil, focus: FocusedElement? = nil, focusVisible: Bool = false,
                stacked: StackedSheets? = nil) {
        self.stacked = stacked
        self.focus = focus
        self.focusVisible = focusVisible
        self.appearance = appearance
        self.presentation = presentation
        self.regionInPixels = regionInPixels
            ?? ScreenRegion(x: 0, y: 0, width: Double(screen.widthInPixels), height: Double(screen.heightInPixels))
        self.cardInPixels = cardInPixels ?? CardSpan(left: 0, width: Double(screen.widthInPixels))
        self.list = list
        self.inputActive = inputActive
        self.reduceMotion = reduceMotion
        self.state = state
        self.detent = detent
        self.target = target
        self.topInPixels = topInPixels
        self.progress = progress
        self.dim = dim
        self.velocityInPixelsPerSecond = velocityInPixelsPerSecond
        self.screen = screen
        self.cause = cause
        self.detents = detents
    }
}

/// A gesture as it happened, attached to the Monitor reply that it caused.
/// The part of the core's `GestureEvent` the wire carries, in its types.
public struct GestureReport: Sendable, Equatable {
    /// `tap`, `long-press`, `pan` or `swipe` on the wire.
    public var kind: GestureKind
    /// `began`, `changed`, `ended`, `cancelled` or `recognized` on the wire.
    public var phase: GesturePhase
    public var xInPixels: Double
    public var yInPixels: Double
    public var velocityInPixelsPerSecond: (x: Double, y: Double)?
    /// For a swipe: `up`, `down`, `left` or `right`.
    public var direction: SwipeDirection?

    public init(kind: GestureKind, phase: GesturePhase, xInPixels: Double, yInPixels: Double,
                velocityInPixelsPerSecond: (x: Double, y: Double)? = nil, direction: SwipeDirection? = nil) {
        self.kind = kind
        self.phase = phase
        self.xInPixels = xInPixels
        self.yInPixels = yInPixels
        self.velocityInPixelsPerSecond = velocityInPixelsPerSecond
        self.direction = direction
    }

    /// The core's gesture as the wire carries it: where it is, its velocity, its direction.
    public init(_ gesture: GestureEvent) {
        self.init(kind: gesture.kind, phase: gesture.phase, xInPixels: gesture.positionInPixels.x,
                  yInPixels: gesture.positionInPixels.y,
                  velocityInPixelsPerSecond: gesture.velocityInPixelsPerSecond.map { ($0.dx, $0.dy) },
                  direction: gesture.direction)
    }

    public static func == (a: GestureReport, b: GestureReport) -> Bool {
        a.kind == b.kind && a.phase == b.phase && a.xInPixels == b.xInPixels && a.yInPixels == b.yInPixels
            && a.velocityInPixelsPerSecond?.x == b.velocityInPixelsPerSecond?.x
            && a.velocityInPixelsPerSecond?.y == b.velocityInPixelsPerSecond?.y && a.direction == b.direction
    }
}

/// What kind of input device a node is (`type` on the wire).
public enum InputDeviceKind: String, Sendable, CaseIterable {
    /// `keyboard`: it can type text (letter keys); `keys`: keys, buttons or a knob that cannot
    /// (a panel's buttons, a steering wheel's, a remote, a knob's push), whose keys move the
    /// sheet's focus.
    case touchscreen, touchpad, keyboard, keys, pointer, tablet, other

    /// Whether sheetd uses devices of this kind.
    public var isTouch: Bool { self == .touchscreen || self == .touchpad }
}

/// An input device the daemon saw, and whether it uses it: what the input layer finds and
/// what `ListDevices` sends.
public struct InputDevice: Sendable, Equatable {
    /// `/dev/input/event5`, a recording's path, or `plugin:N`.
    public var node: String
    public var name: String
    public var kind: InputDeviceKind
    public var used: Bool
    /// Why it is used or not (`has touch capability`, `a keyboard: never opened`), for the
    /// log, `ListDevices` and `sheetctl doctor`.
    public var reason: String
    /// For a plugin device (`io.sheetd.Input`): the process that feeds it, and its user.
    public var pid: Int32?
    public var uid: UInt32?

    public init(node: String, name: String, kind: InputDeviceKind, used: Bool, reason: String,
                pid: Int32? = nil, uid: UInt32? = nil) {
        self.node = node
        self.name = name
        self.kind = kind
        self.used = used
        self.reason = reason
        self.pid = pid
        self.uid = uid
    }
}

/// One reply of `Monitor`: the state after a change, numbered, with the CLOCK_MONOTONIC instant
/// (microseconds) that it describes.
public struct MonitorUpdate: Sendable, Equatable {
    public var sequence: Int64
    public var timestampInMicroseconds: Int64
    public var state: SheetState
    public var gesture: GestureReport?
    /// What the content's client hears, in order (item taps, reorders, refused dismissals).
    public var events: [SheetEvent]

    public init(sequence: Int64, timestampInMicroseconds: Int64, state: SheetState, gesture: GestureReport?,
                events: [SheetEvent] = []) {
        self.events = events
        self.sequence = sequence
        self.timestampInMicroseconds = timestampInMicroseconds
        self.state = state
        self.gesture = gesture
    }
}

// MARK: - Encoding: fixed key order and rounding, so equal states give equal bytes

extension SheetState {
    /// Written in stretches through a cursor (`JSONWriter.appendBounded`): what moves (at most
    /// about 170 bytes: 4 numbers of at most 33, 2 names of at most 17, the rest fixed), the
    /// screen (at most about 110), the cause and the flags (at most 70), then the settled part
    /// (`writeSettled`), then the list.
    public func write(to w: inout JSONWriter) {
        writeMoving(to: &w)
        writeScreen(to: &w)
        writeFlags(to: &w)
        writeSettled(to: &w)
        writeList(to: &w)
    }

    /// The same, with the screen's bytes and the settled part's taken from `settled` when it
    /// holds this state's (and kept there when it does not): what a subscriber is sent, state
    /// after state, where only the first stretch and the flags change while a finger drags.
    public func write(to w: inout JSONWriter, reusing settled: inout SettledBytes) {
        writeMoving(to: &w)
        if settled.screen != screen {
            let start = w.bytes.count
            writeScreen(to: &w)
            settled.keep(screen, bytes: w.bytes[start...])
        } else {
            w.bytes.append(contentsOf: settled.screenBytes)
        }
        writeFlags(to: &w)
        if settled.holds(card: cardInPixels, appearance: appearance, presentation: presentation, region: regionInPixels,
                         detents: detents) {
            w.bytes.append(contentsOf: settled.bytes)
        } else {
            let start = w.bytes.count
            writeSettled(to: &w)
            settled.keep(self, bytes: w.bytes[start...])
        }
        writeList(to: &w)
    }

    // The stretches' closures read locals, not `self`: a closure that read the state's fields
    // copied the whole state into its context first (its value witness, with a retain for each
    // string and array in it), once a stretch, state after state.
    private func writeMoving(to w: inout JSONWriter) {
        let (state, detent, target, topInPixels, progress, dim, velocityInPixelsPerSecond) =
            (self.state, self.detent, self.target, self.topInPixels, self.progress, self.dim, self.velocityInPixelsPerSecond)
        w.appendBounded { c in
            c.append("{\"state\":\"")
            c.append(state.name)
            c.append("\",\"detent\":")
            if let detent { c.appendName(detent) } else { c.append("null") }
            c.append(",\"target\":")
            if let target { c.appendName(target) } else { c.append("null") }
            c.append(",\"top\":")
            c.append(topInPixels, decimals: 2)
            c.append(",\"progress\":")
            c.append(progress, decimals: 4)
            c.append(",\"dim\":")
            c.append(dim, decimals: 4)
            c.append(",\"velocity\":")
            c.append(velocityInPixelsPerSecond, decimals: 1)
        }
    }

    private func writeScreen(to w: inout JSONWriter) {
        let screen = self.screen
        w.appendBounded { c in
            c.append(",\"screen\":{\"width\":")
            c.appendInteger(Int64(screen.widthInPixels))
            c.append(",\"height\":")
            c.appendInteger(Int64(screen.heightInPixels))
            c.append(",\"scale\":")
            c.append(screen.scale, decimals: 4)
            c.append(UInt8(ascii: "}"))
        }
    }

    private func writeFlags(to w: inout JSONWriter) {
        let (cause, inputActive, reduceMotion, focusVisible, focus) = (self.cause, self.inputActive, self.reduceMotion, self.focusVisible, self.focus)
        w.appendBounded { c in
            c.append(",\"cause\":\"")
            c.append(cause.name)
            c.append("\",\"inputActive\":")
            c.append(inputActive)
            c.append(",\"reduceMotion\":")
            c.append(reduceMotion)
            c.append(",\"focusVisible\":")
            c.append(focusVisible)
            c.append(",\"focus\":")
            switch focus {
            case nil: c.append("null")
            case .close: c.append("\"close\"")
            case .item: break
            }
        }
        // An id is at most 64 bytes, but written escaped.
        if case .item(let id) = focus { w.appendString(id) }
    }

    /// What changes only with calls, reloads and the screen: the card's span, the appearance
    /// (its head, the font, its tail), then the presentation, the region and the detents (at
    /// most about 660 bytes and 67 for each detent, 8 detents to a stretch).
    private func writeSettled(to w: inout JSONWriter) {
        w.appendBounded { c in
            c.append(",\"card\":{\"x\":")
            c.append(cardInPixels.left, decimals: 2)
            c.append(",\"width\":")
            c.append(cardInPixels.width, decimals: 2)
            c.append("},\"appearance\":")
            appearance.writeHead(to: &c)
        }
        w.appendString(appearance.font)
        w.appendBounded { c in
            appearance.writeTail(to: &c)
            c.append(",\"presentation\":")
            presentation.write(to: &c)
            c.append(",\"region\":")
            regionInPixels.write(to: &c)
            c.append(",\"detents\":[")
        }
        var index = 0
        while index < detents.count {
            w.appendBounded { c in
                for detent in detents[index..<min(index + 8, detents.count)] {
                    if index > 0 { c.append(UInt8(ascii: ",")) }
                    index += 1
                    c.append("{\"name\":")
                    c.appendName(detent.name)
                    c.append(",\"top\":")
                    c.append(detent.topInPixels, decimals: 2)
                    c.append(UInt8(ascii: "}"))
                }
            }
        }
        w.append(UInt8(ascii: "]"))
    }

    private func writeList(to w: inout JSONWriter) {
        if let list {
            w.append(",\"list\":")
            list.write(to: &w)
        }
        // Only once a program has opened a sheet: a daemon of one sheet writes what it always did.
        stacked?.writeFields(to: &w)
        w.append(UInt8(ascii: "}"))
    }
}

/// The bytes of the settled parts of the last state written with it (its screen; its card's
/// span, appearance, presentation, screen region and detents, which change only with calls,
/// reloads and the screen), for the next state that carries the same: a subscriber's states
/// mostly differ in where the card is, and the settled parts were two thirds of each one's
/// writing. One per writer that writes state after state (the server's).
public struct SettledBytes: Sendable {
    /// The screen, and the bytes written for it.
    fileprivate private(set) var screen: ScreenSize?
    fileprivate private(set) var screenBytes: [UInt8] = []
    /// Whether `bytes` are a settled part yet.
    private var kept = false
    private var card = CardSpan(left: 0, width: 0)
    private var appearance = Appearance()
    private var presentation = SheetPresentation()
    private var region = ScreenRegion(x: 0, y: 0, width: 0, height: 0)
    private var detents: [DetentPosition] = []
    fileprivate private(set) var bytes: [UInt8] = []

    public init() {}

    /// Whether the bytes are the settled part of a state with these. The detents compare by
    /// their storage first, which the daemon's states share. Given field by field: handed the
    /// whole state, the call copied its list and its appearance first.
    fileprivate func holds(card: CardSpan, appearance: borrowing Appearance, presentation: SheetPresentation,
                           region: ScreenRegion, detents: borrowing [DetentPosition]) -> Bool {
        kept && self.card == card && self.appearance == appearance && self.presentation == presentation
            && self.region == region && self.detents == detents
    }

    fileprivate mutating func keep(_ screen: ScreenSize, bytes written: ArraySlice<UInt8>) {
        self.screen = screen
        screenBytes.removeAll(keepingCapacity: true)
        screenBytes.append(contentsOf: written)
    }

    fileprivate mutating func keep(_ state: SheetState, bytes written: ArraySlice<UInt8>) {
        kept = true
        card = state.cardInPixels
        appearance = state.appearance
        presentation = state.presentation
        region = state.regionInPixels
        detents = state.detents
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: written)
    }
}

extension GestureReport {
    /// At most 196 bytes, in one stretch.
    public func write(to w: inout JSONWriter) {
        w.appendBounded { write(to: &$0) }
    }

    /// The same through a cursor.
    public func write(to c: inout JSONCursor) {
        c.append("{\"kind\":\"")
        c.append(kind.name)
        c.append("\",\"phase\":\"")
        c.append(phase.name)
        c.append(UInt8(ascii: "\""))
        c.append(",\"x\":")
        c.append(xInPixels, decimals: 2)
        c.append(",\"y\":")
        c.append(yInPixels, decimals: 2)
        if let velocity = velocityInPixelsPerSecond {
            c.append(",\"vx\":")
            c.append(velocity.x, decimals: 1)
            c.append(",\"vy\":")
            c.append(velocity.y, decimals: 1)
        }
        if let direction {
            c.append(",\"direction\":\"")
            c.append(direction.name)
            c.append(UInt8(ascii: "\""))
        }
        c.append(UInt8(ascii: "}"))
    }
}

extension InputDevice {
    public func write(to w: inout JSONWriter) {
        w.append("{\"name\":")
        w.appendString(name)
        w.append(",\"node\":")
        w.appendString(node)
        w.append(",\"type\":")
        w.appendString(kind.rawValue)
        w.append(",\"used\":")
        w.append(used ? "true" : "false")
        w.append(",\"reason\":")
        w.appendString(reason)
        if let pid, let uid {
            w.append(",\"pid\":")
            w.appendInteger(Int64(pid))
            w.append(",\"uid\":")
            w.appendInteger(Int64(uid))
        }
        w.append(UInt8(ascii: "}"))
    }
}

extension MonitorUpdate {
    /// The reply's `parameters` object.
    public func writeParameters(to w: inout JSONWriter) {
        writeHead(to: &w)
        state.write(to: &w)
        writeTail(to: &w)
    }

    /// The whole Monitor reply of this update (`{"continues":true,"parameters":…}` and its NUL,
    /// as `VarlinkReply.encode` writes it), into `w`, whose bytes it replaces, the state's
    /// settled part reused from `settled`: what the server sends, state after state. The
    /// reply's envelope goes in the stretches the head and the tail take anyway.
    public func writeReply(into w: inout JSONWriter, reusing settled: inout SettledBytes) {
        w.bytes.removeAll(keepingCapacity: true)
        writeHead(to: &w, reply: true)
        state.write(to: &w, reusing: &settled)
        writeTail(to: &w, reply: true)
    }

    private func writeHead(to w: inout JSONWriter, reply: Bool = false) {
        let (sequence, timestampInMicroseconds) = (self.sequence, self.timestampInMicroseconds)
        w.appendBounded { c in
            if reply { c.append("{\"continues\":true,\"parameters\":") }
            c.append("{\"seq\":")
            c.appendInteger(sequence)
            c.append(",\"timestampUSec\":")
            c.appendInteger(timestampInMicroseconds)
            c.append(",\"state\":")
        }
    }

    private func writeTail(to w: inout JSONWriter, reply: Bool = false) {
        if let gesture = self.gesture {
            w.appendBounded { c in
                c.append(",\"gesture\":")
                gesture.write(to: &c)
            }
        }
        if !events.isEmpty {
            w.append(",\"events\":[")
            for (index, event) in events.enumerated() {
                if index > 0 { w.append(UInt8(ascii: ",")) }
                event.write(to: &w)
            }
            w.append(UInt8(ascii: "]"))
        }
        w.append(reply ? "}}\u{0}" : "}")
    }
}

extension SheetState {
    /// The core's snapshot (and its list's) as the wire carries them: pixels, names, items by
    /// id from `content`, rows as `layout` (the engine's `ListConfiguration`) sizes them;
    /// `detents` as the screen places them. It takes the two parts of the engine's
    /// configuration it reads, not the whole: a caller holding the engine in a class passes
    /// them without copying the configuration for every state.
    public init(_ snapshot: SheetSnapshot, list: ListSnapshot?, screen: ScreenSize, layout: ListConfiguration,
                content: SheetContent, detents: [DetentPosition], inputActive: Bool, appearance: Appearance = .standard,
                presentation: SheetPresentation = SheetPresentation(), regionInPixels: ScreenRegion? = nil,
                stacked: StackedSheets? = nil) {
        let scale = screen.scale
        self.init(
            state: snapshot.state, detent: snapshot.detent, target: snapshot.target, topInPixels: snapshot.topInPixels,
            progress: snapshot.progress, dim: snapshot.dim, velocityInPixelsPerSecond: snapshot.velocityInPixelsPerSecond,
            screen: screen, cause: snapshot.cause, detents: detents,
            list: list.map { ListState($0, layout: layout, content: content, scale: scale) },
            inputActive: inputActive, reduceMotion: snapshot.reduceMotion, cardInPixels: snapshot.cardInPixels,
            appearance: appearance, presentation: presentation, regionInPixels: regionInPixels,
            focus: FocusedElement(snapshot.focus.target, content: content), focusVisible: snapshot.focus.visible, stacked: stacked)
    }
}

/// What holds the focus, as the wire names it: the close button, or an item by its id.
public enum FocusedElement: Sendable, Equatable {
    case close
    case item(String)

    /// The core's focus, its item named by `content`; nil for nothing (or an index that
    /// `content` does not hold).
    public init?(_ target: FocusTarget, content: SheetContent) {
        switch target {
        case .none: return nil
        case .close: self = .close
        case .item(let index):
            guard index >= 0, index < content.items.count else { return nil }
            self = .item(content.items[index].id)
        }
    }
}
