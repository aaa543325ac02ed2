/// The gestures on the sheet's content: a tap on an item, and a pan that the list scrolls
/// before the sheet moves (or the sheet moves before the list) handed between the two.
extension Engine {
    /// A tap on a row of a resting sheet taps its item (the title bar, the close button and
    /// the dim keep their meaning).
    /// A disabled item takes no tap; a toggle flips at once, so the next state draws it, and
    /// its client hears `itemToggled` (and may set it back).
    mutating func tapItem(at point: Point, _ time: Timestamp, into out: inout [EngineOutput]) {
        guard sequenceBeganAtRest, source == .touchscreen, !content.items.isEmpty, sheet.kind == .resting,
              let position = list.position(at: point, cardTop: sheet.top) else { return }
        useItem(list.order[position], at: time, into: &out)
    }

    /// Mutating though it changes nothing, so that asking does not copy the engine.
    mutating func beginsNestedPan(at start: Point, translation: Vector) -> Bool {
        guard source == .touchscreen, list.scrolls, abs(translation.dy) >= abs(translation.dx),
              sheet.kind != .settling, sheet.isShown else { return false }
        return list.isOnList(start, cardTop: sheet.top)
    }

    /// Splits the finger's travel since the last step between the sheet and the list.
    mutating func moveNested(_ nested: inout NestedPan, translationY: Double, fingerVelocity: Double,
                                     _ time: Timestamp, into out: inout [EngineOutput]) {
        let delta = translationY - nested.lastTranslationY
        nested.lastTranslationY = translationY
        let rawBefore = nested.rawOffset
        var sheetShare = 0.0
        if delta < 0 {
            let room = max(0, nested.startTop + nested.sheetTranslationY - list.topmostTop)
            sheetShare = -min(room, -delta)
            nested.rawOffset += -delta + sheetShare
        } else if delta > 0 {
            let listShare = min(max(nested.rawOffset, 0), delta)
            nested.rawOffset -= listShare
            sheetShare = delta - listShare
        }
        nested.sheetTranslationY += sheetShare
        if nested.rawOffset != rawBefore || list.state.kind == .scrolling {
            feedList(.scroll(rawOffset: nested.rawOffset, time), into: &out)
        }
        guard sheetShare != 0 || nested.sheetDragging else { return }
        if nested.sheetDragging {
            feedSheet(.panChanged(translationY: nested.sheetTranslationY, velocityY: sheetShare != 0 ? fingerVelocity : 0,
                                  time), into: &out)
        } else {
            feedSheet(.panBegan(start: nested.start, translation: Vector(dx: 0, dy: nested.sheetTranslationY), source,
                                time), into: &out)
            nested.sheetDragging = sheet.kind == .dragging
        }
    }

    /// The lift of a nested pan: the list keeps the momentum when it has been scrolled or the
    /// finger flicks up with the sheet at its top; otherwise the sheet's release rule decides.
    mutating func releaseNested(_ nested: NestedPan, fingerVelocity: Double, _ time: Timestamp,
                                        into out: inout [EngineOutput]) {
        let sheetAtTop = sheet.top <= list.topmostTop + 0.5 / configuration.screen.scale
        let toList = nested.rawOffset > 0 || (fingerVelocity < 0 && sheetAtTop)
        feedSheet(.release(velocityY: toList ? 0 : fingerVelocity, time), into: &out)
        if toList && list.state.kind == .idle { feedList(.scroll(rawOffset: nested.rawOffset, time), into: &out) }
        feedList(.release(offsetPointsPerSecond: toList ? -fingerVelocity : 0, time), into: &out)
    }
}
