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

    public init(screen: ScreenSize, layout: ListConfiguration, content: SheetContent, detents: [DetentPosition],
                appearance: Appearance, presentation: SheetPresentation) {
        self.screen = screen
        self.layout = layout
        self.content = content
        self.detents = detents
        self.appearance = appearance
        self.presentation = presentation
    }
}

/// A state published while no one watches: what moves with every frame, kept as the engine
/// gave it (two snapshots that are plain bytes) and built into a `MonitorUpdate`, with the
/// `StateSettings` it was published under, only when someone asks (`GetState`, a new
/// subscriber). Building the whole state for every frame was most of what a daemon with no
/// subscriber spent publishing. It carries no gesture or content events: no one was there to
/// hear them, and a new subscriber is never offered events from before it came.
public struct DeferredUpdate: Sendable {
    public var sequence: Int64
    public var timestampInMicroseconds: Int64
    public var snapshot: SheetSnapshot
    public var list: ListSnapshot?
    public var inputActive: Bool
    public var regionInPixels: ScreenRegion

    public init(sequence: Int64, timestampInMicroseconds: Int64, snapshot: SheetSnapshot, list: ListSnapshot?,
                inputActive: Bool, regionInPixels: ScreenRegion) {
        self.sequence = sequence
        self.timestampInMicroseconds = timestampInMicroseconds
        self.snapshot = snapshot
        self.list = list
        self.inputActive = inputActive
        self.regionInPixels = regionInPixels
    }

    /// The update a subscriber would have been sent.
    public func update(with settings: StateSettings) -> MonitorUpdate {
        let state = SheetState(snapshot, list: list, screen: settings.screen, layout: settings.layout, content: settings.content,
                               detents: settings.detents, inputActive: inputActive, appearance: settings.appearance,
                               presentation: settings.presentation, regionInPixels: regionInPixels)
        return MonitorUpdate(sequence: sequence, timestampInMicroseconds: timestampInMicroseconds, state: state, gesture: nil)
    }
}
