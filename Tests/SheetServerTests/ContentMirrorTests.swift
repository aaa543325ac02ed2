import SheetClient
import SheetCore
import SheetProtocol
import Testing

/// How a renderer keeps the items in the list's order: swaps from the stream when they account
/// for the revision, `GetContent` when they do not.
@Suite struct ContentMirrorTests {
    static let content = SheetContent(title: "Menu", items: ["a", "b", "c", "d"].map { SheetItem(id: $0, label: $0.uppercased()) },
                                      guarded: false)

    func update(revision: Int?, swaps: [(Int, Int)] = []) -> MonitorUpdate {
        let list = revision.map {
            ListState(titleBarHeightInPixels: 56, itemHeightInPixels: 56, scrollInPixels: 0, revision: $0, lifted: nil,
                      othersScale: 1, moving: [])
        }
        let state = SheetState(state: .resting, detent: "half", target: nil, topInPixels: 960, progress: 0.5, dim: 0.7,
                               velocityInPixelsPerSecond: 0, screen: ScreenSize(widthInPixels: 1080, heightInPixels: 1920, scale: 1),
                               cause: .initial, detents: [], list: list)
        return MonitorUpdate(sequence: 1, timestampInMicroseconds: 0, state: state, gesture: nil,
                             events: swaps.map { SheetEvent(kind: .reorderMoved, item: "x", from: $0.0, to: $0.1) })
    }

    func ask(_ mirror: inout ContentMirror, _ update: MonitorUpdate) -> Bool { mirror.follow(update) }

    @Test func swapsThatAccountForTheRevisionAreAppliedWithoutACall() {
        var mirror = ContentMirror()
        #expect(ask(&mirror, update(revision: 3)) == true, "nothing fetched yet")
        mirror.fetched(Self.content, revision: 3)
        #expect(ask(&mirror, update(revision: 5, swaps: [(1, 2), (2, 3)])) == false)
        #expect(mirror.content?.items.map(\.id) == ["a", "c", "d", "b"])
        #expect(mirror.revision == 5)
        // A state still queued from before the fetch changes nothing.
        #expect(ask(&mirror, update(revision: 4, swaps: [(0, 1)])) == false)
        #expect(mirror.content?.items.map(\.id) == ["a", "c", "d", "b"])
    }

    /// A switch flipped by a tap is drawn flipped in the next frame: the `item-toggled` event
    /// accounts for its revision, so the mirror flips it with no call.
    @Test func aFlippedSwitchIsFollowedWithoutACall() {
        var mirror = ContentMirror()
        var content = Self.content
        content.items[1].accessory = .toggle(isOn: false)
        mirror.fetched(content, revision: 3)
        var flipped = update(revision: 4)
        flipped.events = [SheetEvent(kind: .itemToggled, item: "b", on: true)]
        #expect(ask(&mirror, flipped) == false)
        #expect(mirror.content?.items[1].accessory == .toggle(isOn: true) && mirror.revision == 4)
        var unknown = update(revision: 5)
        unknown.events = [SheetEvent(kind: .itemToggled, item: "zz", on: true)]
        #expect(ask(&mirror, unknown) == true, "an item the mirror does not have: ask")
    }

    @Test func aRevisionTheSwapsDoNotExplainAsksForTheContent() {
        var mirror = ContentMirror()
        mirror.fetched(Self.content, revision: 3)
        #expect(ask(&mirror, update(revision: 4)) == true, "new content")
        #expect(ask(&mirror, update(revision: 6, swaps: [(0, 1)])) == true, "a missed swap")
        #expect(ask(&mirror, update(revision: 4, swaps: [(0, 9)])) == true, "a swap outside the list")
    }

    @Test func aFailedFetchIsNotRetriedUntilTheRevisionMoves() {
        var mirror = ContentMirror()
        #expect(ask(&mirror, update(revision: 2)) == true)
        mirror.fetchFailed(at: 2)
        #expect(ask(&mirror, update(revision: 2)) == false)
        #expect(ask(&mirror, update(revision: 3)) == true)
    }

    @Test func noListMeansNoContent() {
        var mirror = ContentMirror()
        mirror.fetched(Self.content, revision: 1)
        #expect(ask(&mirror, update(revision: nil)) == false)
        #expect(mirror.content == nil)
    }
}
