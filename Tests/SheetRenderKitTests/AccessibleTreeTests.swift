import SheetCore
import SheetProtocol
import Testing
@testable import SheetRenderKit

/// The tree a screen reader reads, and the events between two trees, without a bus
/// (WaylandTests reads it through at-spi2-core).
@Suite struct AccessibleTreeTests {
    static let content = AnnouncerTests.content

    func state(_ detent: DetentName, focus: FocusedElement? = nil, modal: Bool = true, canClose: Bool = true) -> SheetState {
        var presentation = SheetPresentation()
        presentation.modal = modal
        presentation.canClose = canClose
        return SheetState(state: .resting, detent: detent, target: nil, topInPixels: detent == .hidden ? 1920 : 960,
                          progress: 0.5, dim: 0.5, velocityInPixelsPerSecond: 0,
                          screen: ScreenSize(widthInPixels: 1080, heightInPixels: 1920), cause: .initial, detents: [],
                          presentation: presentation, focus: focus)
    }

    @Test func theTreeHoldsTheSheetItsCloseButtonAndItsItems() {
        let tree = AccessibleTree(state: state(.half, focus: .item("guide")), content: Self.content)
        // A list per section, named by its header, as libadwaita's preferences groups.
        #expect(tree.nodes.map(\.role) == [.dialog, .pushButton, .list, .checkBox, .checkBox, .list, .switch, .listItem, .listItem])
        #expect(tree.nodes.filter { $0.role == .list }.map(\.name) == ["Fares", "Help"])
        #expect(tree.nodes[0].children == [1, 2, 5] && tree.nodes[2].children == [3, 4] && tree.nodes[5].children == [6, 7, 8])
        #expect(tree.nodes[3].states.isSuperset(of: [.checkable, .checked]) && tree.nodes[4].states.contains(.checkable), "checks are checkable")
        #expect(tree.nodes[2].path == "list_4661726573")
        #expect(tree.nodes[0].name == "Tickets" && tree.nodes[0].states.isSuperset(of: [.modal, .showing, .active]))
        let guide = tree.nodes[tree.index(of: AccessibleTree.path(ofItem: "guide"))!]
        #expect(guide.states.isSuperset(of: [.focused, .focusable, .checkable]) && !guide.states.contains(.checked))
        #expect(guide.attributes.first { $0.key == "posinset" }?.value == "1" && guide.attributes.first { $0.key == "setsize" }?.value == "3")
        #expect(guide.actions.map(\.name) == ["toggle"])
        let older = AccessibleTree(state: state(.half), content: Self.content, toggleRole: .checkBox)
        #expect(older.nodes[6].role == .checkBox, "where at-spi knows no switch, as GTK does there")
        let unsectioned = AccessibleTree(state: state(.half), content: SheetContent(title: "Plain", items: [SheetItem(id: "a", label: "A")]))
        #expect(unsectioned.nodes.map(\.path) == ["sheet", "close", "list", "item_61"] && unsectioned.nodes[2].name == "")
        #expect(AccessibleTree(state: state(.half), content: nil).nodes.map(\.path) == ["sheet", "close", "list"], "an empty list still")
        let more = tree.nodes[tree.index(of: AccessibleTree.path(ofItem: "more"))!]
        #expect(!more.states.contains(.sensitive) && !more.states.contains(.focusable) && more.actions.isEmpty)
        #expect(tree.nodes[tree.index(of: AccessibleTree.path(ofItem: "zone"))!].description == "A+B")
        #expect(tree.nodes[tree.index(of: AccessibleTree.path(ofItem: "single"))!].description == "2.80 €")
        let panel = AccessibleTree(state: state(.half, modal: false, canClose: false), content: Self.content)
        #expect(panel.nodes[0].role == .panel && !panel.nodes.contains { $0.role == .pushButton })
        #expect(!panel.nodes[0].actions.contains { $0.name == "dismiss" })
        #expect(AccessibleTree.path(ofItem: "a-é") == "item_612dc3a9")
    }

    @Test func theFocusLeavesBeforeItComesAndAFlipIsChecked() {
        let before = AccessibleTree(state: state(.half, focus: .item("single")), content: Self.content)
        let after = AccessibleTree(state: state(.half, focus: .item("guide")), content: Self.content)
        #expect(after.events(from: before, announcing: nil) == [
            .stateChanged(path: AccessibleTree.path(ofItem: "single"), state: "focused", on: false),
            .stateChanged(path: AccessibleTree.path(ofItem: "guide"), state: "focused", on: true),
        ])
        var flipped = Self.content
        flipped.items[2].accessory = .toggle(isOn: true)
        let on = AccessibleTree(state: state(.half, focus: .item("guide")), content: flipped)
        #expect(on.events(from: after, announcing: nil) == [
            .stateChanged(path: AccessibleTree.path(ofItem: "guide"), state: "checked", on: true),
        ])
    }

    /// A program's sheet shown in the shared one's place is a dialog of its own, which comes
    /// as the other goes, activated and announced.
    @Test func anotherProgramsSheetIsAnotherDialog() {
        let shared = AccessibleTree(state: state(.half), content: Self.content)
        var shown = state(.half)
        shown.stacked = StackedSheets(sheet: "sheet-12", stack: ["sheet-12"])
        let media = AccessibleTree(state: shown, content: SheetContent(title: "Media"))
        #expect(media.nodes[0].path == "sheet_12" && media.nodes[0].name == "Media")
        let events = media.events(from: shared, announcing: "Media, sheet, half open")
        #expect(events.contains(.windowActivated(path: "sheet_12", on: true)))
        #expect(events.contains(.announcement(path: "sheet_12", text: "Media, sheet, half open")))
    }

    /// Each program's sheet of the stack is a window of the application, named by its title;
    /// only the shown one is `showing`. A sheet that comes over another: the other stops
    /// showing and stays a window; one that goes is removed from the application.
    @Test func everySheetOfTheStackIsAWindowAndOnlyTheShownOneShows() {
        var navigationShown = state(.half)
        navigationShown.stacked = StackedSheets(sheet: "sheet-1", stack: ["sheet-1"])
        let navigation = AccessibleTree(state: navigationShown, content: SheetContent(title: "Navigation"),
                                        waiting: [(sheet: "sheet-1", title: "Navigation")])
        #expect(navigation.windows == [0], "the shown sheet is not listed twice")
        var mediaShown = state(.half)
        mediaShown.stacked = StackedSheets(sheet: "sheet-2", stack: ["sheet-1", "sheet-2"])
        let both = AccessibleTree(state: mediaShown, content: SheetContent(title: "Media"),
                                  waiting: [(sheet: "sheet-1", title: "Navigation"), (sheet: "sheet-2", title: "Media")])
        let windows = both.windows.map { both.nodes[$0] }
        #expect(windows.map(\.path) == ["sheet_2", "sheet_1"] && windows.map(\.name) == ["Media", "Navigation"])
        #expect(windows[0].states.contains(.showing) && !windows[1].states.contains(.showing) && windows[1].children.isEmpty)
        let events = both.events(from: navigation, announcing: nil)
        #expect(events.contains(.childAdded(parent: "", index: 0, child: "sheet_2")), "\(events)")
        #expect(events.contains(.stateChanged(path: "sheet_1", state: "showing", on: false)), "\(events)")
        #expect(!events.contains(.childRemoved(parent: "", index: 0, child: "sheet_1")), "\(events)")
        // Media closes: its window goes.
        let back = AccessibleTree(state: navigationShown, content: SheetContent(title: "Navigation"),
                                  waiting: [(sheet: "sheet-1", title: "Navigation")])
        #expect(back.events(from: both, announcing: nil).contains(.childRemoved(parent: "", index: 0, child: "sheet_2")))
    }

    @Test func newContentAddsAndRemovesChildrenAndClosingIsSaidOnceBySheet() {
        let before = AccessibleTree(state: state(.half), content: Self.content)
        var changed = Self.content
        changed.items.removeLast()
        changed.items.append(SheetItem(id: "help", label: "Help"))
        changed.title = "Fares"
        let after = AccessibleTree(state: state(.half), content: changed)
        let events = after.events(from: before, announcing: nil)
        let help = "list_" + "Help".utf8.map { String($0, radix: 16) }.joined()
        #expect(events.contains(.childRemoved(parent: help, index: 2, child: AccessibleTree.path(ofItem: "zone"))))
        #expect(events.contains(.childAdded(parent: help, index: 2, child: AccessibleTree.path(ofItem: "help"))))
        // An item moved to another section goes from its list and comes to the other's.
        var moved = changed
        moved.items.insert(moved.items.remove(at: 3), at: 1)
        let regrouped = AccessibleTree(state: state(.half), content: moved).events(from: after, announcing: nil)
        #expect(regrouped == [.childRemoved(parent: help, index: 1, child: AccessibleTree.path(ofItem: "more")),
                              .childAdded(parent: "list_4661726573", index: 1, child: AccessibleTree.path(ofItem: "more"))])
        #expect(events.contains(.nameChanged(path: "sheet", name: "Fares")))
        let closed = AccessibleTree(state: state(.hidden), content: changed)
        let closing = closed.events(from: after, announcing: "Fares, sheet, closed")
        #expect(closing.filter { if case .stateChanged(_, "showing", _) = $0 { true } else { false } }
                == [.stateChanged(path: "sheet", state: "showing", on: false)], "the sheet alone says it is hidden")
        #expect(closing.suffix(2) == [.announcement(path: "sheet", text: "Fares, sheet, closed"), .windowActivated(path: "sheet", on: false)])
    }
}
