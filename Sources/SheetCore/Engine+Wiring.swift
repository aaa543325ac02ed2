/// How the engine passes each touch and each of the arena's outputs to the sheet and the list,
/// and publishes what they change.
extension Engine {
    // MARK: Wiring

    mutating func cancelSlot(_ slot: Int, at time: Timestamp, into out: inout [EngineOutput]) {
        slotDown[slot] = false
        activeTouchCount -= 1
        if slotPassesThrough[slot] {
            slotPassesThrough[slot] = false
            out.append(.touch(TouchReport(time: time, slot: slot, phase: .cancel, positionInPixels: slotPosition[slot],
                                          passThrough: true)))
            return
        }
        trackers[slot].reset()
        out.append(.touch(TouchReport(time: time, slot: slot, phase: .cancel, positionInPixels: slotPosition[slot])))
        arena.touchCancelled(slot: slot, time: time, into: &arenaScratch)
        forwardArena(into: &out)
    }

    mutating func liftSlot(_ slot: Int, at time: Timestamp, into out: inout [EngineOutput]) {
        if slotPassesThrough[slot] {
            slotDown[slot] = false
            slotPassesThrough[slot] = false
            activeTouchCount -= 1
            out.append(.touch(TouchReport(time: time, slot: slot, phase: .up, positionInPixels: slotPosition[slot],
                                          passThrough: true)))
            return
        }
        let velocity = trackers.span[slot].estimate(at: time)
        slotDown[slot] = false
        activeTouchCount -= 1
        trackers[slot].reset()
        out.append(.touch(TouchReport(time: time, slot: slot, phase: .up, positionInPixels: slotPosition[slot],
                                      velocityInPixelsPerSecond: velocity.pixelsPerSecond)))
        arena.touchUp(slot: slot, at: slotPosition[slot], time: time, velocity: velocity, into: &arenaScratch)
        forwardArena(into: &out)
    }

    /// Passes the arena's outputs on: gestures to the output, and each to the sheet in points.
    /// Empties `arenaScratch`, which is empty between the arena's calls: every call that fills it
    /// is followed by this one.
    mutating func forwardArena(into out: inout [EngineOutput]) {
        for index in arenaScratch.indices {
            let item = arenaScratch[index]
            switch item {
            case .gesture(let gesture):
                out.append(.gesture(gesture))
                switch (gesture.kind, gesture.phase) {
                case (.tap, _):
                    let point = points(gesture.positionInPixels)
                    feedSheet(.tap(point, source, gesture.time), into: &out)
                    tapItem(at: point, gesture.time, into: &out)
                case (.swipe, _):
                    if let direction = gesture.direction {
                        feedSheet(.swipe(direction, start: points(gesture.startInPixels), source, gesture.time),
                                  into: &out)
                    }
                case (.pan, .began):
                    let start = points(gesture.startInPixels)
                    let translation = gesture.translationInPixels.scaled(by: pointsPerPixel)
                    if beginsNestedPan(at: start, translation: translation) {
                        let dragging = sheet.kind == .dragging
                        var nested = NestedPan(start: start, startTop: sheet.top, rawOffset: list.offset,
                                               sheetDragging: dragging)
                        moveNested(&nested, translationY: translation.dy, fingerVelocity: 0, gesture.time, into: &out)
                        panRoute = .nested(nested)
                    } else {
                        feedSheet(.panBegan(start: start, translation: translation, source, gesture.time), into: &out)
                    }
                case (.pan, .changed):
                    var finger = 0.0
                    if let primary = arena.primarySlot { finger = trackers.span[primary].verticalVelocity(at: gesture.time) }
                    let translationY = gesture.translationInPixels.dy * pointsPerPixel
                    if case .nested(var nested) = panRoute {
                        moveNested(&nested, translationY: translationY, fingerVelocity: finger * pointsPerPixel,
                                   gesture.time, into: &out)
                        panRoute = .nested(nested)
                    } else {
                        feedSheet(.panChanged(translationY: translationY, velocityY: finger * pointsPerPixel, gesture.time),
                                  into: &out)
                    }
                case (.pan, _), (.longPress, _):
                    break
                }
            case .primaryDown(let point, let time):
                sequenceBeganAtRest = sheet.kind == .resting && sheet.isShown && list.state.kind == .idle
                panRoute = .sheet
                feedSheet(.touchDown(points(point), source, time), into: &out)
                feedList(.touchDown(time), into: &out)
            case .primaryUp(_, let time, let velocity):
                let fingerY = velocity.dy * pointsPerPixel
                if case .nested(let nested) = panRoute {
                    releaseNested(nested, fingerVelocity: fingerY, time, into: &out)
                } else {
                    feedSheet(.release(velocityY: fingerY, time), into: &out)
                }
                panRoute = .sheet
            case .primaryCancelled(let time):
                feedSheet(.cancel(time), into: &out)
                if case .nested = panRoute { feedList(.cancel(time), into: &out) }
                panRoute = .sheet
            case .primaryHeld(let point, let time):
                let held = points(point)
                if sequenceBeganAtRest, source == .touchscreen, sheet.kind == .resting,
                   feedList(.hold(held, cardTop: sheet.top, time), into: &out) == .claimed {
                    arena.claimHold(at: time)
                } else {
                    arena.declineHold(at: time)
                }
            case .heldMoved(let point, let time):
                feedList(.holdMoved(points(point), time), into: &out)
            case .heldEnded(_, let time):
                feedList(.release(offsetPointsPerSecond: 0, time), into: &out)
            case .heldCancelled(let time):
                feedList(.cancel(time), into: &out)
            }
        }
        arenaScratch.removeAllFromTheEnd()
    }

    func points(_ pixels: Point) -> Point { pixels.scaled(by: pointsPerPixel) }

    mutating func feedSheet(_ event: SheetMachine.Event, into out: inout [EngineOutput]) {
        // A frame of an animation leaves the cause as it is; anything else moves the sheet.
        if case .frame = event {} else { focusCause = nil }
        let effect = sheet.handle(event)
        if let transition = sheet.lastTransition { emit(transition, into: &out) }
        if let cause = sheet.lastDismissAttempt {
            out.append(.content(ContentEventReport(time: event.time, event: .dismissAttempted(cause))))
        }
        if let cause = sheet.lastPresented {
            out.append(.content(ContentEventReport(time: event.time, event: .presented(cause))))
        }
        if focus.isSet { focusFollowsSheet() }
        if scans, sheet.isShown != (scanDeadline != nil) { restartScan(at: event.time) }
        if effect == .changed { publish(at: event.time, into: &out) }
    }

    /// A transition of the sheet, and after a release (the only transition out of dragging
    /// with a velocity) the rule that chose where it goes, asked again of the drag it let go.
    /// Out of line: the frames that change nothing (most) take no more code than before.
    /// Mutating though it changes nothing: called on a `self` being mutated, a non-mutating
    /// call copied the whole engine (3,338 bytes) to keep it apart.
    @inline(never)
    private mutating func emit(_ transition: SheetTransition, into out: inout [EngineOutput]) {
        out.append(.transition(transition))
        if transition.from == .dragging, let velocity = transition.eventPointsPerSecond {
            out.append(.release(sheet.releaseDecision(drag: sheet.dragging, velocity: velocity)))
        }
    }

    @discardableResult
    mutating func feedList(_ event: ListMachine.Event, into out: inout [EngineOutput]) -> ListMachine.Effect {
        guard !content.items.isEmpty else { return .none }
        listScratch.removeAll(keepingCapacity: true)
        let effect = list.handle(event, into: &listScratch)
        for report in listScratch { out.append(.content(report)) }
        if effect != .none { publish(at: event.time, into: &out) }
        return effect
    }

    /// Emits the sheet's state unless it looks the same as the last one published (to the
    /// hundredth of a pixel, the ten-thousandth of dim and the tenth of a pixel per second, the
    /// precision of the output), the list's first while the sheet has content.
    mutating func publish(at time: Timestamp, into out: inout [EngineOutput]) {
        let snapshot = snapshot(at: time)
        guard !content.isEmpty else {
            // No list: the sheet's state alone, without building, comparing and storing an
            // empty optional of the list (about a fifth of a publish when it was done anyway).
            if lastPublishedList == nil, lastPublished.looksTheSame(as: snapshot) { return }
            lastPublished = snapshot
            if lastPublishedList != nil { lastPublishedList = nil }
            out.append(.sheet(snapshot))
            return
        }
        // The list is read through its address: called as `list.snapshot(at:)` from here, it
        // was copied whole (872 bytes and its arrays' references) on every publish.
        let listSnapshot = withUnsafePointer(to: &list) { $0.pointee.snapshot(at: time) }
        if lastPublished.looksTheSame(as: snapshot), lastPublishedList == listSnapshot { return }
        lastPublished = snapshot
        lastPublishedList = listSnapshot
        out.append(.list(listSnapshot))
        out.append(.sheet(snapshot))
    }
}

extension SheetSnapshot {
    /// The same as `other` to the precision of the output: the hundredth of a pixel, the
    /// ten-thousandth of dim and the tenth of a pixel per second.
    @inline(__always)
    func looksTheSame(as other: SheetSnapshot) -> Bool {
        state == other.state && detent == other.detent && target == other.target
            && reduceMotion == other.reduceMotion && appearanceRevision == other.appearanceRevision
            && presentationRevision == other.presentationRevision && focus == other.focus
            && (topInPixels * 100).rounded() == (other.topInPixels * 100).rounded()
            && (dim * 10_000).rounded() == (other.dim * 10_000).rounded()
            && (velocityInPixelsPerSecond * 10).rounded() == (other.velocityInPixelsPerSecond * 10).rounded()
    }
}
