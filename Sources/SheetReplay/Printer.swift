import SheetCore
import SheetProtocol
import SheetRecordings

/// A sheet state of a replay with the list drawn with it and the list's order then.
public struct ReplayFrame {
    public var sheet: SheetSnapshot
    public var list: ListSnapshot?
    /// Positions → indices into the content's items.
    public var order: [Int]
    /// What the sheet shown holds (a program's sheet's with `--programs`).
    public var content: SheetContent
}

/// Formats engine outputs as JSON lines or as a text log.
struct Printer {
    let output: OutputBuffer
    let options: ReplayOptions
    /// Sees every sheet state as it is printed (pictures of a replay).
    let observer: ((ReplayFrame) throws -> Void)?
    /// The list's order as the events so far have left it (for the observer's pictures).
    private var order: [Int]
    private(set) var lastSheet: SheetSnapshot?
    /// The list that goes with the next sheet state (the engine emits it just before).
    private var pendingList: ListSnapshot?
    /// What the sheet shown holds: the replay's content, or a program's sheet's (`--programs`).
    private var content: SheetContent
    /// With programs: the sheet shown (nil: the shared one) and the stack, on each sheet line.
    private var stacked: StackedSheets?
    private var scale: Double { options.engine.screen.scale }

    init(output: OutputBuffer, options: ReplayOptions, observer: ((ReplayFrame) throws -> Void)? = nil) {
        self.output = output
        self.options = options
        self.observer = observer
        order = Array(0..<(options.content?.items.count ?? 0))
        content = options.content ?? .empty
        if !options.programs.calls.isEmpty { stacked = StackedSheets(sheet: nil, stack: []) }
    }

    /// The sheet shown and the stack, after a program's call or a turn: its content and order
    /// name its items from now on.
    mutating func shown(_ sheet: String?, stack: [String], content: SheetContent, order: [Int]) {
        stacked = StackedSheets(sheet: sheet, stack: stack)
        self.content = content
        self.order = order
    }

    /// A program's call (`--programs`) and its answer.
    func call(_ call: ProgramScript.Call, result: String, at moment: Timestamp) throws {
        guard !options.summary else { return }
        let o = output
        switch options.format {
        case .json:
            o.append("{\"kind\":\"call\",\"t\":")
            time(moment)
            o.append(",\"program\":")
            o.appendJSONString(call.program)
            o.append(",\"call\":")
            o.appendJSONString(call.name)
            o.append(",\"result\":")
            o.appendJSONString(result)
            o.append("}")
        case .text:
            time(moment)
            o.append(" \(call.program): \(call.name) → \(result)")
        }
        try o.endLine()
    }

    // MARK: Devices

    func device(_ device: DeviceDescription, used: Bool) throws {
        let o = output
        switch options.format {
        case .json:
            o.append("{\"kind\":\"device\",\"name\":")
            o.appendJSONString(device.name)
            o.append(",\"type\":\"")
            o.append(device.kind.rawValue)
            o.append("\",\"slots\":")
            o.appendInteger(Int64(device.slotCount))
            if device.isSemiMultitouch { o.append(",\"semiMultitouch\":true") }
            o.append(",\"used\":")
            o.append(used ? "true" : "false")
            if used {
                o.append(",\"screen\":{\"width\":")
                o.appendInteger(Int64(options.engine.screen.widthInPixels))
                o.append(",\"height\":")
                o.appendInteger(Int64(options.engine.screen.heightInPixels))
                o.append(",\"scale\":")
                o.append(scale, decimals: 3)
                o.append("},\"policy\":\"")
                o.append(options.engine.sheet.ruleSet.rawValue)
                o.append("\"")
            }
            o.append("}")
        case .text:
            o.append(used ? "device: " : "device (not replayed): ")
            o.appendJSONString(device.name)
            o.append(" ")
            o.append(device.kind.rawValue)
            o.append(", ")
            o.appendInteger(Int64(device.slotCount))
            o.append(device.slotCount == 1 ? " slot" : " slots")
            if used {
                o.append("; screen ")
                o.append(options.engine.screen.description)
                o.append(", rules ")
                o.append(options.engine.sheet.ruleSet.rawValue)
            }
        }
        try o.endLine()
    }

    // MARK: Engine outputs

    /// `revision`: the shown sheet's content revision after the step that made `outputs` (a
    /// program's sheet's events carry it, as the daemon's do).
    mutating func print(_ outputs: [EngineOutput], revision: Int, summary: inout ReplaySummary) throws {
        for item in outputs {
            switch item {
            case .touch(let touch):
                if touch.phase == .down { summary.touches += 1 }
                if options.touches && !options.summary { try self.touch(touch) }
            case .gesture(let gesture):
                if gesture.phase == .began || gesture.phase == .recognized {
                    summary.gestures[gesture.kind, default: 0] += 1
                }
                if !options.summary { try self.gesture(gesture) }
            case .list(let list):
                pendingList = list
            case .sheet(let sheet):
                lastSheet = sheet
                try observer?(ReplayFrame(sheet: sheet, list: pendingList, order: order, content: content))
                if !options.summary && options.format == .json { try self.sheet(sheet, list: pendingList) }
                pendingList = nil
            case .transition(let transition):
                if !options.summary && options.format == .text { try self.transition(transition) }
            case .release(let decision):
                if options.explain && !options.summary { try release(decision) }
            case .content(let report):
                if case .reorderMoved(_, let from, let to) = report.event, order.indices.contains(from), order.indices.contains(to) {
                    order.swapAt(from, to)
                }
                summary.events[report.event.name.description, default: 0] += 1
                if !options.summary { try self.event(report, revision: revision) }
            }
        }
    }

    private func time(_ time: Timestamp) {
        output.appendSeconds(time.microseconds)
    }

    /// The decoded contacts of one frame, as the device reported them.
    func contacts(_ frame: TouchFrame) throws {
        for contact in frame.contacts {
            finger("contact", time: frame.time, phase: contact.phase, slot: contact.slot, at: contact.positionInPixels)
            if options.format == .json { output.append("}") }
            try output.endLine()
        }
    }

    /// The start of a `contact` or `touch` line: when, which phase, which slot, where (JSON
    /// left open for more keys).
    private func finger(_ kind: StaticString, time moment: Timestamp, phase: ContactPhase, slot: Int, at position: Point) {
        let o = output
        switch options.format {
        case .json:
            o.append("{\"kind\":\"")
            o.append(kind)
            o.append("\",\"t\":")
            time(moment)
            o.append(",\"phase\":\"")
            o.append(Self.name(phase))
            o.append("\",\"slot\":")
            o.appendInteger(Int64(slot))
            o.append(",\"x\":")
            o.append(position.x, decimals: 2)
            o.append(",\"y\":")
            o.append(position.y, decimals: 2)
        case .text:
            time(moment)
            o.append(" ")
            o.append(kind)
            o.append(": ")
            o.append(Self.name(phase))
            o.append(" slot ")
            o.appendInteger(Int64(slot))
            o.append(" at (")
            o.append(position.x, decimals: 1)
            o.append(", ")
            o.append(position.y, decimals: 1)
            o.append(")")
        }
    }

    private func touch(_ touch: TouchReport) throws {
        let o = output
        finger("touch", time: touch.time, phase: touch.phase, slot: touch.slot, at: touch.positionInPixels)
        switch options.format {
        case .json:
            if let velocity = touch.velocityInPixelsPerSecond {
                o.append(",\"vx\":")
                o.append(velocity.dx, decimals: 1)
                o.append(",\"vy\":")
                o.append(velocity.dy, decimals: 1)
            }
            if touch.passThrough { o.append(",\"passThrough\":true") }
            o.append("}")
        case .text:
            if let velocity = touch.velocityInPixelsPerSecond {
                o.append(" v=(")
                o.append(velocity.dx, decimals: 0)
                o.append(", ")
                o.append(velocity.dy, decimals: 0)
                o.append(") px/s")
            }
            if touch.passThrough { o.append(" (not the sheet's: passed through)") }
        }
        try o.endLine()
    }

    private func gesture(_ gesture: GestureEvent) throws {
        let o = output
        switch options.format {
        case .json:
            o.append("{\"kind\":\"gesture\",\"t\":")
            time(gesture.time)
            o.append(",\"gesture\":\"")
            o.append(gesture.kind.name)
            o.append("\",\"phase\":\"")
            o.append(gesture.phase.name)
            o.append("\",\"x\":")
            o.append(gesture.positionInPixels.x, decimals: 2)
            o.append(",\"y\":")
            o.append(gesture.positionInPixels.y, decimals: 2)
            if gesture.kind == .pan || gesture.kind == .swipe {
                o.append(",\"dx\":")
                o.append(gesture.translationInPixels.dx, decimals: 2)
                o.append(",\"dy\":")
                o.append(gesture.translationInPixels.dy, decimals: 2)
            }
            if let velocity = gesture.velocityInPixelsPerSecond {
                o.append(",\"vx\":")
                o.append(velocity.dx, decimals: 1)
                o.append(",\"vy\":")
                o.append(velocity.dy, decimals: 1)
            }
            if let direction = gesture.direction {
                o.append(",\"direction\":\"")
                o.append(direction.name)
                o.append("\"")
            }
            o.append("}")
        case .text:
            // The log keeps the milestones; every `changed` would drown them.
            guard gesture.phase != .changed else { return }
            time(gesture.time)
            o.append(" gesture: ")
            o.append(gesture.kind.name)
            o.append(" ")
            o.append(gesture.phase.name)
            if let direction = gesture.direction {
                o.append(" ")
                o.append(direction.name)
            }
            o.append(" at (")
            o.append(gesture.positionInPixels.x, decimals: 1)
            o.append(", ")
            o.append(gesture.positionInPixels.y, decimals: 1)
            o.append(")")
            if let velocity = gesture.velocityInPixelsPerSecond {
                o.append(" v=(")
                o.append(velocity.dx, decimals: 0)
                o.append(", ")
                o.append(velocity.dy, decimals: 0)
                o.append(") px/s")
            }
        }
        try o.endLine()
    }

    private func sheet(_ sheet: SheetSnapshot, list: ListSnapshot?) throws {
        let o = output
        o.append("{\"kind\":\"sheet\",\"t\":")
        time(sheet.time)
        o.append(",\"state\":\"")
        o.append(sheet.state.name)
        o.append("\",\"detent\":")
        if let detent = sheet.detent { o.appendJSONName(detent) } else { o.append("null") }
        o.append(",\"top\":")
        o.append(sheet.topInPixels, decimals: 2)
        o.append(",\"dim\":")
        o.append(sheet.dim, decimals: 4)
        o.append(",\"progress\":")
        o.append(sheet.progress, decimals: 4)
        o.append(",\"velocity\":")
        o.append(sheet.velocityInPixelsPerSecond, decimals: 1)
        if let target = sheet.target {
            o.append(",\"target\":")
            o.appendJSONName(target)
        }
        o.append(",\"cause\":\"")
        o.append(sheet.cause.name)
        o.append("\"")
        switch sheet.focus.target {
        case .none: break
        case .close: o.append(",\"focus\":\"close\"")
        case .item(let index):
            o.append(",\"focus\":")
            appendItem(index)
        }
        if sheet.focus.target != .none {
            o.append(",\"focusVisible\":")
            o.append(sheet.focus.visible ? "true" : "false")
        }
        if let list { self.list(list) }
        if let stacked { o.appendWritten { stacked.writeFields(to: &$0) } }
        o.append("}")
        try o.endLine()
    }

    /// The list's scroll (px) and what is drawn away from rest, in the sheet line.
    private func list(_ list: ListSnapshot) {
        let o = output
        o.append(",\"scroll\":")
        o.append(list.scrollInPoints * scale, decimals: 2)
        if let lifted = list.lifted {
            o.append(",\"lifted\":{\"item\":")
            appendItem(Int(lifted.item))
            o.append(",\"index\":")
            o.appendInteger(Int64(lifted.position))
            o.append(",\"offset\":")
            o.append(Double(lifted.offsetInPoints) * scale, decimals: 2)
            o.append(",\"scale\":")
            o.append(Double(lifted.scale), decimals: 4)
            o.append(",\"opacity\":")
            o.append(Double(lifted.opacity), decimals: 4)
            o.append("}")
        }
        if list.othersScale != 1 {
            o.append(",\"othersScale\":")
            o.append(Double(list.othersScale), decimals: 4)
        }
        if !list.moving.isEmpty {
            o.append(",\"moving\":[")
            for (index, moving) in list.moving.enumerated() {
                if index > 0 { o.append(",") }
                o.append("{\"item\":")
                appendItem(Int(moving.item))
                o.append(",\"index\":")
                o.appendInteger(Int64(moving.position))
                o.append(",\"offset\":")
                o.append(Double(moving.offsetInPoints) * scale, decimals: 2)
                o.append("}")
            }
            o.append("]")
        }
    }

    private func appendItem(_ index: Int) {
        let items = content.items
        if index >= 0 && index < items.count { output.appendJSONString(items[index].id) } else { output.append("null") }
    }

    private func appendOrder(_ order: [Int]) {
        output.append("[")
        for (position, item) in order.enumerated() {
            if position > 0 { output.append(",") }
            appendItem(item)
        }
        output.append("]")
    }

    /// The content's event, named as on the socket (`SheetEvent`).
    private func event(_ report: ContentEventReport, revision: Int) throws {
        let o = output
        var event = SheetEvent(report.event, content: content, order: order)
        if let sheet = stacked?.sheet {
            event.sheet = sheet
            event.revision = revision
        }
        switch options.format {
        case .json:
            o.append("{\"kind\":\"event\",\"t\":")
            time(report.time)
            o.append(",")
            o.appendWritten { event.writeFields(to: &$0) }
            o.append("}")
        case .text:
            time(report.time)
            o.append(" event: ")
            o.append(event.description)
        }
        try o.endLine()
    }

    private func transition(_ transition: SheetTransition) throws {
        let o = output
        time(transition.time)
        o.append(" sheet: ")
        o.append(transition.from.name)
        if let from = transition.fromDetent {
            o.append("(")
            o.appendName(from)
            o.append(")")
        }
        o.append(" → ")
        o.append(transition.event)
        if let velocity = transition.eventPointsPerSecond {
            o.append("(v=")
            o.append(velocity, decimals: 0)
            o.append(" pt/s)")
        }
        o.append(" → ")
        o.append(transition.to.name)
        if let detent = transition.detent {
            o.append("(")
            o.appendName(detent)
            o.append(")")
        }
        try o.endLine()
    }

    /// Why a release went where it did, in points (the rules' own unit): the rule, where the
    /// card was let go and how fast, where momentum would carry it, what the rule compared.
    private func release(_ decision: ReleaseDecision) throws {
        let o = output
        switch options.format {
        case .json:
            o.append("{\"kind\":\"release\",\"rule\":\"")
            o.append(decision.rule.name)
            o.append("\",\"detent\":\"")
            o.appendName(decision.targetName)
            o.append("\",\"topPt\":")
            o.append(decision.topInPoints, decimals: 1)
            o.append(",\"velocityPtS\":")
            o.append(decision.pointsPerSecond, decimals: 1)
            if let projected = decision.projectedTopInPoints {
                o.append(",\"projectedTopPt\":")
                o.append(projected, decimals: 1)
            }
            if let threshold = decision.threshold {
                o.append(",\"threshold\":")
                o.append(threshold, decimals: 1)
            }
            o.append("}")
        case .text:
            o.append("  release: ")
            o.append(decision.rule.name)
            o.append(" → ")
            o.appendName(decision.targetName)
            o.append(" (let go at ")
            o.append(decision.topInPoints, decimals: 1)
            o.append(" pt, ")
            o.append(decision.pointsPerSecond, decimals: 0)
            o.append(" pt/s")
            if let projected = decision.projectedTopInPoints {
                o.append(", projected to ")
                o.append(projected, decimals: 1)
                o.append(" pt")
            }
            if let threshold = decision.threshold {
                o.append(", against ")
                o.append(threshold, decimals: 1)
                o.append(decision.rule == .fling || decision.rule == .dismissVelocity ? " pt/s" : " pt")
            }
            o.append(")")
        }
        try o.endLine()
    }

    // MARK: The end

    func finish(summary: ReplaySummary) throws {
        let o = output
        let sheet = summary.finalSheet
        switch (options.format, options.summary) {
        case (.json, true):
            o.append("{\"kind\":\"summary\",\"frames\":")
            o.appendInteger(Int64(summary.frames))
            o.append(",\"touches\":")
            o.appendInteger(Int64(summary.touches))
            o.append(",\"gestures\":{")
            for (index, kind) in GestureKind.allCases.enumerated() {
                if index > 0 { o.append(",") }
                o.append("\"")
                o.append(kind.name)
                o.append("\":")
                o.appendInteger(Int64(summary.gestures[kind, default: 0]))
            }
            o.append("},\"duration\":")
            o.appendSeconds(summary.durationMicroseconds)
            o.append(",\"bytes\":")
            o.appendInteger(Int64(summary.bytesRead))
            if let sheet {
                o.append(",\"sheet\":{\"state\":\"")
                o.append(sheet.state.name)
                o.append("\",\"detent\":")
                if let detent = sheet.detent { o.appendJSONName(detent) } else { o.append("null") }
                o.append(",\"top\":")
                o.append(sheet.topInPixels, decimals: 2)
                o.append(",\"dim\":")
                o.append(sheet.dim, decimals: 4)
                o.append("}")
            }
            if let order = summary.finalOrder {
                o.append(",\"order\":")
                appendOrder(order)
                o.append(",\"events\":{")
                for (index, name) in summary.events.keys.sorted().enumerated() {
                    if index > 0 { o.append(",") }
                    o.appendJSONString(name)
                    o.append(":")
                    o.appendInteger(Int64(summary.events[name]!))
                }
                o.append("}")
            }
            o.append("}")
            try o.endLine()
        case (.text, _):
            if options.summary {
                o.append("frames ")
                o.appendInteger(Int64(summary.frames))
                o.append(", touches ")
                o.appendInteger(Int64(summary.touches))
                for kind in GestureKind.allCases {
                    o.append(", ")
                    o.append(kind.name)
                    o.append(" ")
                    o.appendInteger(Int64(summary.gestures[kind, default: 0]))
                }
                try o.endLine()
            }
            if let sheet {
                o.append("end: ")
                o.append(sheet.state.name)
                if let detent = sheet.detent {
                    o.append("(")
                    o.appendName(detent)
                    o.append(")")
                }
                o.append(", top ")
                o.append(sheet.topInPixels, decimals: 2)
                o.append(" px, dim ")
                o.append(sheet.dim, decimals: 4)
                try o.endLine()
            }
        case (.json, false):
            break
        }
    }

    static func name(_ phase: ContactPhase) -> StaticString {
        switch phase {
        case .down: return "down"
        case .move: return "move"
        case .up: return "up"
        case .cancel: return "cancel"
        }
    }
}
