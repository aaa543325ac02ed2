import SheetCore
import SheetProtocol

/// The sheet's content as a follower of the `Monitor` stream needs it to draw: the items in
/// the list's current order, kept in step with the states' `list.revision`.
///
/// Each `reorder-moved` event is one swap and one revision, and each `item-toggled` one flip
/// and one revision, so while a finger drags an item or flips a switch the mirror follows with
/// no call (the renderer draws the new value in the next frame); anything it cannot account for (new content,
/// a missed update, a daemon that restarted) makes `follow` ask for `GetContent`, whose
/// answer `fetched` takes with its own revision.
public struct ContentMirror: Sendable {
    /// The content, items in the list's order; nil until fetched, or when the sheet has none.
    public private(set) var content: SheetContent?
    public private(set) var revision: Int?
    /// Whose content it is (`SheetState.sheet`): another sheet shown is another content.
    public private(set) var sheet: String?
    /// The state revision a fetch last failed for: not asked again until the revision moves.
    private var failed: Int?

    public init() {}

    /// Takes `update` in: applies its swaps when they lead from the mirror's revision to the
    /// state's. Returns whether the mirror needs `GetContent` to draw this state.
    public mutating func follow(_ update: MonitorUpdate) -> Bool {
        guard let list = update.state.list else {
            content = nil
            revision = nil
            return false
        }
        if update.state.sheet != sheet {
            // Another program's sheet shown (or the shared one back): its revisions are its own.
            sheet = update.state.sheet
            content = nil
            revision = nil
            failed = nil
        }
        guard let count = content?.items.count, let known = revision else { return failed != list.revision }
        // A fetch can be ahead of the states still queued on the stream: their swaps are in it.
        if known >= list.revision { return false }
        // Each swap and each toggle flipped is one revision.
        var steps = 0
        for event in update.events {
            switch event.kind {
            case .reorderMoved:
                guard let from = event.from, let to = event.to, (0..<count).contains(from), (0..<count).contains(to) else {
                    revision = nil
                    return failed != list.revision
                }
            case .itemToggled:
                guard event.on != nil, let id = event.item, content?.items.contains(where: { $0.id == id }) == true else {
                    revision = nil
                    return failed != list.revision
                }
            default:
                continue
            }
            steps += 1
        }
        guard known + steps == list.revision else { return failed != list.revision }
        for event in update.events {
            switch event.kind {
            case .reorderMoved:
                content?.items.swapAt(event.from!, event.to!)
            case .itemToggled:
                if let index = content?.items.firstIndex(where: { $0.id == event.item }) {
                    content?.items[index].accessory = .toggle(isOn: event.on!)
                }
            default:
                break
            }
        }
        revision = list.revision
        return false
    }

    /// What `GetContent` answered.
    /// What `GetContent` answered; `sheet`, whose content it is: another than the states'
    /// (the shown sheet changed meanwhile) is not taken, and the next state asks again.
    public mutating func fetched(_ content: SheetContent, revision: Int, sheet: String? = nil) {
        guard sheet == self.sheet else { return }
        self.content = content
        self.revision = revision
        failed = nil
    }

    /// `GetContent` failed while the states were at `revision`; the mirror keeps what it had
    /// and asks again once the revision moves on.
    public mutating func fetchFailed(at revision: Int) {
        failed = revision
    }

    /// The daemon went away: what it held may not be what the next one holds.
    public mutating func reset() {
        self = ContentMirror()
    }
}
