import SheetCore

/// What a state carries that changes only with calls, reloads and content (the screen, the
/// list's layout, the content, the detents, the appearance, the presentation): given to the
/// server when it changes, not with every frame.
public struct StateSettings: Sendable {
    public var screen: ScreenSize
    public var layout: ListConfiguration
    public var content: SheetContent
    public var detents: [DetentPosition]
    public var appearance: Appearance
    public var presentation: SheetPresentation
    /// Which sheet is shown, and the stack (`SheetState.stacked`).
    public var stacked: StackedSheets?

    public init(screen: ScreenSize, layout: ListConfiguration, content: SheetContent, detents: [DetentPosition],
                appearance: Appearance, presentation: SheetPresentation, stacked: StackedSheets? = nil) {
        self.stacked = stacked
        self.screen = screen
        self.layout = layout
        self.content = content
        self.detents = detents
        self.appearance = appearance
        self.presentation = presentation
    }
}

/// A state kept unbuilt: what moves with every frame, as the engine gave it (two snapshots
/// that are plain bytes), built into a `MonitorUpdate` with the `StateSettings` it was
/// published under only when someone asks. Two kinds of state are kept so: one published
/// while no one watches (for `GetState` or a new subscriber; building the whole state for
/// every frame was most of what a daemon with no subscriber spent publishing), and one every
/// paced subscriber holds (built when it falls due, if it is still the newest). It carries no
/// content events: a state with events is never held, and no one was there to hear the events
/// of a state no one watched (a new subscriber is never offered events from before it came).
/// A held state keeps its gesture, one that changed (a pan, a long press).
public struct DeferredUpdate: Sendable {
    public var sequence: Int64
    public var timestampInMicroseconds: Int64
    public var snapshot: SheetSnapshot
    public var list: ListSnapshot?
    public var inputActive: Bool
    public var regionInPixels: ScreenRegion
    public var gesture: GestureReport?

    public init(sequence: Int64, timestampInMicroseconds: Int64, snapshot: SheetSnapshot, list: ListSnapshot?,
                inputActive: Bool, regionInPixels: ScreenRegion, gesture: GestureReport? = nil) {
        self.sequence = sequence
        self.timestampInMicroseconds = timestampInMicroseconds
        self.snapshot = snapshot
        self.list = list
        self.inputActive = inputActive
        self.regionInPixels = regionInPixels
        self.gesture = gesture
    }

    /// The update a subscriber would have been sent.
    public func update(with settings: StateSettings) -> MonitorUpdate {
        let state = SheetState(snapshot, list: list, screen: settings.screen, layout: settings.layout, content: settings.content,
                               detents: settings.detents, inputActive: inputActive, appearance: settings.appearance,
                               presentation: settings.presentation, regionInPixels: regionInPixels, stacked: settings.stacked)
        return MonitorUpdate(sequence: sequence, timestampInMicroseconds: timestampInMicroseconds, state: state, gesture: gesture)
    }
}
