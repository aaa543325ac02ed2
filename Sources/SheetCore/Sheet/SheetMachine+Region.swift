/// The screen the sheet shares: the region it takes (what a renderer under a compositor makes
/// its input region), which touches are its, and the gestures that open it from closed.
extension SheetMachine {
    func isOnCard(_ point: Point, _ source: TouchSource) -> Bool {
        source == .touchpad || layout.isOnCard(point, top: top, span: span)
    }

    /// The part of the screen the sheet takes now, in points: what a renderer under a
    /// compositor makes its input region. The whole screen while a modal sheet is shown or
    /// moving; the card (with the grabber's touch target) while a non-modal one is; at rest
    /// closed, the bar, or the edge band when an edge swipe may open it, or nothing.
    public var region: ScreenRegion {
        region(top: top, closedAtRest: kind == .resting && restingDetent == detents.hiddenIndex)
    }

    /// The region of this sheet with its card at `top` (points), resting closed or not: what a
    /// published state (`SheetSnapshot`) is given when it goes on the wire, so that the
    /// snapshot every output copies stays small.
    public func region(top: Double, closedAtRest: Bool) -> ScreenRegion {
        if closedAtRest && !floorIsBar { return closedRegion }
        if !closedAtRest && configuration.presentation.modal { return wholeScreen }
        // On the screen whatever the card does (a spring's overshoot below the bottom edge).
        let y = min(max(0, top - layout.grabberReach), height)
        return ScreenRegion(x: span.left, y: y, width: span.width, height: height - y)
    }

    /// Closed at `hidden`: the edge band when an edge swipe may open the sheet, else nothing.
    static func closedRegion(_ presentation: SheetPresentation, screen: ScreenSize) -> ScreenRegion {
        guard presentation.gestures.contains(.edgeSwipe), presentation.canOpen else { return .empty }
        let height = screen.heightInPoints, band = min(presentation.edgeBandInPoints, height)
        return ScreenRegion(x: 0, y: height - band, width: screen.widthInPoints, height: band)
    }


    /// Whether a touch that starts at `point` is the sheet's: every touch of a modal sheet
    /// and of a touchpad; for a non-modal sheet, one that starts in `region`. The engine
    /// passes the others through: no gesture, no effect.
    public func owns(_ point: Point, _ source: TouchSource) -> Bool {
        source == .touchpad || presentation.modal || region.contains(point)
    }

    /// Changes how the sheet opens, closes and shares the screen, but for the bar (on or off,
    /// its height): that shapes the detents, and a new one needs a new machine.
    public mutating func setPresentation(_ presentation: SheetPresentation) {
        var next = presentation
        next.gestures.remove(.bottomBar)
        next.gestures.formUnion(configuration.presentation.gestures.intersection(.bottomBar))
        next.barHeightInPoints = configuration.presentation.barHeightInPoints
        configuration.presentation = next
        closedRegion = Self.closedRegion(next, screen: screen)
    }

    /// The gesture that may open a closed sheet from `start`, with its cause: a touchscreen
    /// pan upwards that starts on the bar, or in the edge band.
    func openingGesture(from start: Point, translation: Vector, _ source: TouchSource) -> PresentCause? {
        guard presentation.canOpen, source == .touchscreen, translation.dy < 0 else { return nil }
        if floorIsBar, layout.isOnCard(start, top: top, span: span) { return .barSwipe }
        if presentation.gestures.contains(.edgeSwipe), start.y >= height - presentation.edgeBandInPoints { return .edgeSwipe }
        return nil
    }
}
