import RealModule

/// The list's reorder, by a held finger or by a key, and the focus's scroll into view.
extension ListMachine {
    // MARK: The focus

    /// Scrolls the row at `position` into view, by the list's own spring (at once under reduced
    /// motion): its header too when it heads a section, the least distance that shows it whole.
    mutating func reveal(_ position: Int, visibleHeight: Double, from start: Double, at time: Timestamp) -> Effect {
        guard position >= 0, position < layout.count, visibleHeight > 0 else { return .none }
        let top = layout.top(position) - (layout.headed[position] ? layout.headerHeight : 0)
        let bottom = layout.top(position) + layout.heights[position]
        var target = min(max(start, 0), maximumOffset)
        if top < target {
            target = top
        } else if bottom > target + visibleHeight {
            target = min(bottom - visibleHeight, top)
        }
        target = min(max(target, 0), maximumOffset)
        // Already whole in view: a list flinging by itself goes on.
        guard target != start else { return .none }
        if sheet.reduceMotion {
            state = .idle
            return setOffset(target)
        }
        let spring = Spring(from: start, target: target, initialVelocity: 0,
                            stiffness: sheet.springStiffness, dampingRatio: sheet.springDampingRatio)
        state = .flinging(.bounce(.spring(spring, clampAtTarget: true), startedAt: time))
        offset = start
        return .changed
    }

    /// Moves the item at `position` one place within its section, as a drag that swaps once.
    mutating func move(_ position: Int, by delta: Int, at time: Timestamp,
                               into out: inout [ContentEventReport]) -> Effect {
        guard position >= 0, position < layout.count, delta == 1 || delta == -1 else { return .none }
        let destination = position + delta
        guard layout.section(of: position).contains(destination) else { return .none }
        let item = order[position]
        let startTop = layout.top(position)
        out.append(ContentEventReport(time: time, event: .reorderBegan(item: item, index: position)))
        var reorder = Reorder(item: item, position: position, grabInPoints: 0, fingerY: 0, listTop: 0, lastStep: time)
        swap(&reorder, to: destination, at: time, into: &out)
        // The item slides from its old slot as its neighbour does from its own, from where it
        // is drawn if it was still sliding from a move before.
        var drawnOffset = 0.0
        if let index = moving.firstIndex(where: { $0.item == item }) {
            drawnOffset = moving[index].offset.value(at: time)
            moving.remove(at: index)
        }
        if !sheet.reduceMotion {
            if moving.count == MovingItems.capacity { moving.remove(at: 0) }
            let start = startTop - layout.top(destination) + drawnOffset
            var tween = Tween(value: start, restDistance: restDistance)
            tween.start(.curve(from: start, to: 0, seconds: configuration.swapSeconds, .easeInOut), at: time)
            moving.append(MovingTween(item: item, position: destination, offset: tween))
        }
        out.append(ContentEventReport(time: time, event: .reorderEnded(item: item)))
        return .changed
    }

    // MARK: Reordering

    mutating func pickUp(at point: Point, cardTop: Double, time: Timestamp,
                                 into out: inout [ContentEventReport]) -> Effect {
        guard let position = position(at: point, cardTop: cardTop), !items[order[position]].disabled else { return .none }
        // A drop still in flight ends where it was going.
        lifted = nil
        moving.removeAll(keepingCapacity: true)
        let listTop = cardTop + configuration.titleBarHeightInPoints
        let item = order[position]
        let grab = point.y - listTop + offset - layout.top(position)
        state = .reordering(Reorder(item: item, position: position, grabInPoints: grab, fingerY: point.y,
                                    listTop: listTop, lastStep: time))
        var tween = LiftedTween(item: item, position: position, offset: Tween(value: 0, restDistance: restDistance),
                                shift: Tween(value: 0, restDistance: restDistance),
                                scale: Tween(value: 1, restDistance: 0.001), opacity: Tween(value: 1, restDistance: 0.001))
        let c = configuration
        tween.shift.start(ListConfiguration.spring(from: 0, to: c.liftedShiftInPoints, seconds: c.liftSeconds,
                                                   dampingRatio: c.liftDampingRatio), at: time, atOnce: sheet.reduceMotion)
        tween.scale.start(ListConfiguration.spring(from: 1, to: c.liftedScale, seconds: c.liftSeconds,
                                                   dampingRatio: c.liftDampingRatio), at: time, atOnce: sheet.reduceMotion)
        tween.opacity.start(ListConfiguration.spring(from: 1, to: c.liftedOpacity, seconds: c.liftSeconds,
                                                     dampingRatio: c.liftDampingRatio), at: time, atOnce: sheet.reduceMotion)
        lifted = tween
        // The others start from wherever they are.
        othersScale.start(ListConfiguration.spring(from: othersScale.value(at: time), to: c.othersScale,
                                                   seconds: c.liftSeconds, dampingRatio: c.liftDampingRatio), at: time, atOnce: sheet.reduceMotion)
        out.append(ContentEventReport(time: time, event: .reorderBegan(item: item, index: position)))
        return .claimed
    }

    /// How fast the list scrolls by itself for a finger at `y` (pt/s, positive = list moves up).
    @inline(__always)
    public func autoScrollSpeed(fingerY y: Double, listTop: Double) -> Double {
        let band = configuration.autoScrollBandInPoints
        let fastest = configuration.autoScrollMaximumPointsPerSecond
        guard band > 0 else { return 0 }
        if y < listTop + band, offset > 0 {
            return -fastest * min(1, (listTop + band - y) / band)
        }
        let bottom = screen.heightInPoints
        if y > bottom - band, offset < maximumOffset {
            return fastest * min(1, (y - (bottom - band)) / band)
        }
        return 0
    }

    /// Scrolls by itself when the finger is near an edge, moves the held item under the finger
    /// and swaps it with each neighbour whose centre its centre has crossed.
    mutating func step(_ reorder: inout Reorder, at time: Timestamp, into out: inout [ContentEventReport]) -> Effect {
        var changed = false
        let speed = autoScrollSpeed(fingerY: reorder.fingerY, listTop: reorder.listTop)
        let elapsed = time.seconds(since: reorder.lastStep)
        reorder.lastStep = time
        if speed != 0, elapsed > 0 {
            let scrolled = min(max(offset + speed * elapsed, 0), maximumOffset)
            if scrolled != offset {
                offset = scrolled
                changed = true
            }
        }
        let top = reorder.fingerY - reorder.listTop + offset - reorder.grabInPoints
        // The held item swaps with a neighbour whose centre its centre has crossed, within its
        // section (a header is a wall).
        let section = layout.section(of: reorder.position)
        var centre: Double { top + layout.heights[reorder.position] / 2 }
        while reorder.position + 1 < section.upperBound, centre > layout.centre(reorder.position + 1) {
            swap(&reorder, to: reorder.position + 1, at: time, into: &out)
            changed = true
        }
        while reorder.position > section.lowerBound, centre < layout.centre(reorder.position - 1) {
            swap(&reorder, to: reorder.position - 1, at: time, into: &out)
            changed = true
        }
        state = .reordering(reorder)
        let itemOffset = top - layout.top(reorder.position)
        if var tween = lifted, tween.offset.restValue != itemOffset || tween.position != reorder.position {
            tween.offset = Tween(value: itemOffset, restDistance: restDistance)
            tween.position = reorder.position
            lifted = tween
            changed = true
        }
        return changed ? .changed : .none
    }

    private mutating func swap(_ reorder: inout Reorder, to position: Int, at time: Timestamp,
                               into out: inout [ContentEventReport]) {
        let from = reorder.position
        let neighbour = order[position]
        let neighbourTop = layout.top(position)
        order.swapAt(from, position)
        layout.swapWithNext(min(from, position))
        revision += 1
        reorder.position = position
        // The neighbour slides from where it is drawn to its new slot.
        var start = neighbourTop - layout.top(from)
        if let index = moving.firstIndex(where: { $0.item == neighbour }) {
            start += moving[index].offset.value(at: time)
            moving.remove(at: index)
        }
        // Reduced motion: it is in its new slot at once.
        if !sheet.reduceMotion {
            if moving.count == MovingItems.capacity { moving.remove(at: 0) }  // the oldest lands at once
            var offsetTween = Tween(value: start, restDistance: restDistance)
            offsetTween.start(.curve(from: start, to: 0, seconds: configuration.swapSeconds, .easeInOut), at: time)
            moving.append(MovingTween(item: neighbour, position: from, offset: offsetTween))
        }
        out.append(ContentEventReport(time: time, event: .reorderMoved(item: reorder.item, from: from, to: position)))
    }

    mutating func drop(_ reorder: Reorder, at time: Timestamp, into out: inout [ContentEventReport]) -> Effect {
        state = .idle
        let c = configuration
        if sheet.reduceMotion {
            lifted = nil  // in its slot at once
        } else if var tween = lifted {
            let start = tween.offset.value(at: time)
            tween.offset.start(ListConfiguration.spring(from: start, to: 0, seconds: c.liftSeconds,
                                                        dampingRatio: c.liftDampingRatio), at: time)
            tween.shift.start(ListConfiguration.spring(from: tween.shift.value(at: time), to: 0, seconds: c.liftSeconds,
                                                       dampingRatio: c.liftDampingRatio), at: time)
            tween.scale.start(ListConfiguration.spring(from: tween.scale.value(at: time), to: 1, seconds: c.liftSeconds,
                                                       dampingRatio: c.liftDampingRatio), at: time)
            tween.opacity.start(ListConfiguration.spring(from: tween.opacity.value(at: time), to: 1,
                                                         seconds: c.liftSeconds, dampingRatio: c.liftDampingRatio), at: time)
            lifted = tween
        }
        othersScale.start(.curve(from: othersScale.value(at: time), to: 1, seconds: c.dropOthersSeconds, .easeInOut),
                          at: time, atOnce: sheet.reduceMotion)
        out.append(ContentEventReport(time: time, event: .reorderEnded(item: reorder.item)))
        return .changed
    }
}
