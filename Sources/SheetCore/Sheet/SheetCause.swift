/// What last changed the published state: what moved the sheet, or the focus.
public enum SheetCause: UInt8, Sendable, BitwiseCopyable, Named {
    /// Nothing yet: the sheet is where it started.
    case initial
    /// A finger (dragging).
    case user
    /// The card moving on its own after a release, a tap on the dim or a swipe.
    case animation
    /// A program: a present, dismiss or detent change, or its `Focus`.
    case command
    /// A key, a knob or a switch (pressed, or scanning by itself): the focus moved, or what it
    /// was on was used, or the sheet moved by a key.
    case keys

    public var name: StaticString {
        switch self {
        case .initial: return "initial"
        case .user: return "user"
        case .animation: return "animation"
        case .command: return "command"
        case .keys: return "keys"
        }
    }
}
