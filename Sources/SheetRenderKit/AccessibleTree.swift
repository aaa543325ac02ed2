import SheetCore
import SheetProtocol

/// The sheet as a screen reader sees it (AT-SPI 2): the nodes a renderer puts on the session's
/// accessibility bus, made from a published state and the content it shows, and the events that
/// tell a screen reader what changed between two of them. Pure: the D-Bus side only serves
/// what this says.
///
/// The tree is made as libadwaita makes a preferences page: the sheet (a `dialog`, modal or
/// not, named by the content's title) holds the close button (where a person may close the
/// sheet) and a `list` per section (as each AdwPreferencesGroup has a list box of its own),
/// named by the section's header, holding its items in the list's order. An item is named by
/// its label and described by its second line: a toggle row is a `switch` (AdwSwitchRow's
/// role), a check row a `check box`, `checked` when on; any other row is a `list item` with its
/// place in its section (`posinset`, `setsize`). One list per section keeps that place right for
/// a screen reader that counts a list's children (Orca 43) as for one that reads `posinset`
/// (Orca 48).
public struct AccessibleTree: Sendable, Equatable {
    /// AT-SPI's roles (`AtspiRole`) that the sheet uses.
    public enum Role: UInt32, Sendable {
        case application = 75
        case dialog = 16
        case panel = 39
        case pushButton = 43
        case list = 31
        case listItem = 32
        case checkBox = 7
        /// From at-spi2-core 2.50; before it, a screen reader's libatspi knows no role 130 and
        /// GTK names a switch a `check box` (`toggleRole`).
        case `switch` = 130

        /// libatspi's name for it (what `getRoleName` gives).
        public var name: String {
            switch self {
            case .application: "application"
            case .dialog: "dialog"
            case .panel: "panel"
            case .pushButton: "push button"
            case .list: "list"
            case .listItem: "list item"
            case .checkBox: "check box"
            case .switch: "switch"
            }
        }
    }

    /// AT-SPI's states (`AtspiStateType`), each a bit of the set `GetState` answers as two words.
    public struct States: OptionSet, Sendable, Hashable {
        public let rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }

        public static let active = States(bit: 1)
        public static let checked = States(bit: 4)
        public static let enabled = States(bit: 8)
        public static let focusable = States(bit: 11)
        public static let focused = States(bit: 12)
        public static let modal = States(bit: 16)
        public static let pressed = States(bit: 20)
        public static let sensitive = States(bit: 24)
        public static let showing = States(bit: 25)
        public static let vertical = States(bit: 29)
        public static let visible = States(bit: 30)
        public static let checkable = States(bit: 41)

        init(bit: Int) { rawValue = 1 << UInt64(bit) }

        /// The names events carry (`object:state-changed:focused`), by bit.
        static let names: [(States, String)] = [
            (.active, "active"), (.checked, "checked"), (.enabled, "enabled"), (.focusable, "focusable"),
            (.focused, "focused"), (.modal, "modal"), (.pressed, "pressed"), (.sensitive, "sensitive"),
            (.showing, "showing"), (.vertical, "vertical"), (.visible, "visible"), (.checkable, "checkable"),
        ]
    }

    /// What a node does when an assistive technology asks (`org.a11y.atspi.Action`): a key
    /// command, on the node's element when it has one, sent to sheetd as `Focus`.
    public struct Action: Sendable, Equatable {
        /// AT-SPI's name of the action (`click`, `toggle`), the same in every language.
        public var name: String
        /// Its name in the content's language (`GetLocalizedName`), and what it does.
        public var localizedName: String
        public var description: String
        public var command: FocusCommand
    }

    /// One node. `path` is its last D-Bus path element: `sheet` (`sheet_3` for a program's
    /// sheet-3: `path(ofSheet:)`), `close`, `list` (the items
    /// before any header), `list_` and the section's name in hex, or `item_` and the item's id
    /// in hex (ids are any UTF-8; a path element is letters, digits and `_`).
    public struct Node: Sendable, Equatable {
        public var path: String
        public var role: Role
        public var name: String
        public var description: String
        public var states: States
        /// Index of the parent in `nodes`; nil for the sheet (its parent is the application).
        public var parent: Int?
        public var children: [Int]
        public var actions: [Action]
        public var attributes: [(key: String, value: String)]
        /// Where it is on the surface, in pixels: x, y, width, height.
        public var extents: (x: Int32, y: Int32, width: Int32, height: Int32)
        /// The element `Focus` names for it (an item's id or `close`); nil for the sheet and list.
        public var element: String?

        public static func == (a: Node, b: Node) -> Bool {
            a.path == b.path && a.role == b.role && a.name == b.name && a.description == b.description && a.states == b.states
                && a.parent == b.parent && a.children == b.children && a.actions == b.actions
                && a.attributes.elementsEqual(b.attributes, by: { $0 == $1 }) && a.extents == b.extents && a.element == b.element
        }
    }

    /// The sheet first, then the close button (if drawn), then each list followed by its items,
    /// then the windows of the sheets that wait.
    public private(set) var nodes: [Node]
    /// The content's language (BCP 47), for `Locale`; empty: the process's.
    public private(set) var language: String

    /// The node at the path element `path`.
    public func index(of path: String) -> Int? { nodes.firstIndex { $0.path == path } }

    /// A sheet without content: the sheet alone, hidden.
    public init() {
        nodes = [Node(path: "sheet", role: .dialog, name: "Sheet", description: "", states: [.enabled, .sensitive],
                      parent: nil, children: [], actions: [], attributes: [], extents: (0, 0, 0, 0), element: nil)]
        language = ""
    }

    /// The tree of `state`, showing `content` (its items in the list's order, as `GetContent`
    /// gives them); the close button and the actions named in `words` (the content's language);
    /// toggle rows in `toggleRole`: `.switch`, or `.checkBox` where the screen reader's at-spi is
    /// older than 2.50. `waiting`: the other programs' sheets of the stack, each a window of its
    /// own, named by its title, not `showing` (what it holds is read when it is shown).
    public init(state: SheetState, content: SheetContent?, words: SheetWords = .english, toggleRole: Role = .switch,
                waiting: [(sheet: String, title: String)] = []) {
        let content = content?.withSectionsWrittenOut ?? SheetContent()
        language = content.language
        let shown = !state.isClosed
        let width = Int32(clamping: Int(state.cardInPixels.width.rounded()))
        let left = Int32(clamping: Int(state.cardInPixels.left.rounded()))
        let top = Int32(clamping: Int(state.topInPixels.rounded()))
        let height = Int32(clamping: max(0, state.screen.heightInPixels - Int(top)))
        let everyone: States = shown ? [.visible, .showing, .enabled, .sensitive] : [.enabled, .sensitive]
        var sheetStates = everyone
        if state.presentation.modal { sheetStates.insert(.modal) }
        if shown { sheetStates.insert(.active) }
        var sheetActions = [Action(name: "expand", localizedName: words[.expand], description: words[.expandDescription], command: .pageUp),
                            Action(name: "collapse", localizedName: words[.collapse], description: words[.collapseDescription], command: .pageDown)]
        if state.presentation.canClose {
            sheetActions.append(Action(name: "dismiss", localizedName: words[.dismiss], description: words[.dismissDescription], command: .back))
        }
        let sheetPath = Self.path(ofSheet: state.sheet)
        let windowRole: Role = state.presentation.modal ? .dialog : .panel
        nodes = [Node(path: sheetPath, role: windowRole,
                      name: content.title.isEmpty ? words[.untitledSheet] : content.title, description: "", states: sheetStates,
                      parent: nil, children: [], actions: shown ? sheetActions : [], attributes: [],
                      extents: (left, top, width, height), element: nil)]
        let titleBar = state.list?.titleBarHeightInPixels ?? 0
        if state.presentation.canClose {
            var states = everyone.union(.focusable)
            if state.focus == .close { states.insert(.focused) }
            let side = Int32(clamping: Int(titleBar.rounded()))
            nodes.append(Node(path: "close", role: .pushButton, name: words[.close], description: "", states: states, parent: 0,
                              children: [], actions: [Action(name: "click", localizedName: words[.click], description: words[.clickCloseDescription],
                                                             command: .activate)],
                              attributes: [], extents: (left + width - side, top, side, side), element: "close"))
            nodes[0].children.append(nodes.count - 1)
        }
        let listTop = top + Int32(clamping: Int(titleBar.rounded()))
        var y = Double(listTop) - (state.list?.scrollInPixels ?? 0)
        // The items in runs of one section each, as drawn: a header above each named one.
        var runs: [Range<Int>] = []
        for index in content.items.indices {
            if let last = runs.last, content.items[last.lowerBound].section == content.items[index].section {
                runs[runs.count - 1] = last.lowerBound..<(index + 1)
            } else {
                runs.append(index..<(index + 1))
            }
        }
        if runs.isEmpty { runs = [0..<0] }
        for run in runs {
            let section = run.isEmpty ? "" : content.items[run.lowerBound].section
            let listY = y
            if let layout = state.list, !section.isEmpty { y += layout.headerHeightInPixels }
            var path = section.isEmpty ? "list" : "list_" + Self.hex(section)
            while nodes.contains(where: { $0.path == path }) { path += "_" }
            nodes.append(Node(path: path, role: .list, name: section, description: "", states: everyone.union(.vertical), parent: 0,
                              children: [], actions: [], attributes: [], extents: (left, 0, width, 0), element: nil))
            let list = nodes.count - 1
            nodes[0].children.append(list)
            for index in run {
                let item = content.items[index]
                let rowHeight = state.list.map { item.subtitle.isEmpty ? $0.itemHeightInPixels : $0.twoLineItemHeightInPixels } ?? 0
                var states = everyone
                if !item.disabled { states.formUnion([.focusable]) } else { states.subtract([.enabled, .sensitive]) }
                if state.focus == .item(item.id) { states.insert(.focused) }
                var role = Role.listItem
                var action = Action(name: "click", localizedName: words[.click], description: words[.clickItemDescription], command: .activate)
                switch item.accessory {
                case .toggle(let isOn)?:
                    role = toggleRole
                    states.insert(.checkable)
                    if isOn { states.insert(.checked) }
                    action = Action(name: "toggle", localizedName: words[.toggle], description: words[.toggleDescription], command: .activate)
                case .check(let isChecked)?:
                    role = .checkBox
                    states.insert(.checkable)
                    if isChecked { states.insert(.checked) }
                default:
                    break
                }
                var attributes = [(key: "posinset", value: String(index - run.lowerBound + 1)), (key: "setsize", value: String(run.count))]
                if case .value(let text)? = item.accessory { attributes.append((key: "value", value: text)) }
                if !section.isEmpty { attributes.append((key: "section", value: section)) }
                var description = item.subtitle
                if case .value(let text)? = item.accessory { description = description.isEmpty ? text : "\(description), \(text)" }
                nodes.append(Node(path: Self.path(ofItem: item.id), role: role, name: item.label, description: description,
                                  states: states, parent: list, children: [], actions: item.disabled ? [] : [action],
                                  attributes: attributes,
                                  extents: (left, Int32(clamping: Int(y.rounded())), width, Int32(clamping: Int(rowHeight.rounded()))),
                                  element: item.id))
                nodes[list].children.append(nodes.count - 1)
                y += rowHeight
            }
            // On the card below its title bar: the first list from there, the last to the
            // card's foot, each other from its header to its last row.
            let cardFoot = Double(top) + Double(height)
            let from = run == runs.first ? Double(listTop) : min(max(Double(listTop), listY), cardFoot)
            let listBottom = run == runs.last ? cardFoot : max(from, min(y, cardFoot))
            nodes[list].extents = (left, Int32(clamping: Int(from.rounded())), width, Int32(clamping: Int((listBottom - from).rounded())))
        }
        for other in waiting where other.sheet != state.sheet {
            nodes.append(Node(path: Self.path(ofSheet: other.sheet), role: windowRole, name: other.title.isEmpty ? words[.untitledSheet] : other.title,
                              description: "", states: [.enabled, .sensitive], parent: nil, children: [], actions: [], attributes: [],
                              extents: (0, 0, 0, 0), element: nil))
        }
    }

    /// The windows, the application's children: the sheet shown first, then those that wait.
    public var windows: [Int] { nodes.indices.filter { nodes[$0].parent == nil } }

    /// A sheet's window: `sheet` for the shared sheet, `sheet_3` for a program's sheet-3 (another
    /// sheet shown is another window to a screen reader, which it meets anew).
    public static func path(ofSheet sheet: String?) -> String {
        sheet.map { "sheet_" + $0.dropFirst("sheet-".count).filter(\.isNumber) } ?? "sheet"
    }

    /// `item_` and the id's bytes in hex: a D-Bus path element for any id.
    public static func path(ofItem id: String) -> String { "item_" + hex(id) }

    /// The bytes of `text` in hex: letters and digits a D-Bus path element may hold.
    static func hex(_ text: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 15)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: What changed

    /// An event of `org.a11y.atspi.Event.Object` (or `Event.Window`) from a node: what a
    /// screen reader hears of a change.
    public enum Event: Sendable, Equatable {
        /// `StateChanged`: a state of the node came (true) or went.
        case stateChanged(path: String, state: String, on: Bool)
        /// `ChildrenChanged` on `parent` (empty: the application): `child` added at or removed
        /// from `index`.
        case childAdded(parent: String, index: Int, child: String)
        case childRemoved(parent: String, index: Int, child: String)
        /// `PropertyChange` `accessible-name` or `accessible-description`.
        case nameChanged(path: String, name: String)
        case descriptionChanged(path: String, description: String)
        /// `Announcement` of `text` (polite).
        case announcement(path: String, text: String)
        /// `Event.Window` `Activate` / `Deactivate`: the sheet came or went.
        case windowActivated(path: String, on: Bool)
    }

    /// The events that take a screen reader from `old` to `self`, in the order to send them:
    /// nodes gone, then nodes come, then what changed of those in both (the focus that left
    /// before the focus that came), and the sheet's showing with its window and announcement.
    public func events(from old: AccessibleTree, announcing announcement: String?) -> [Event] {
        var events: [Event] = []
        // A node is the same node only under the same parent and in the same role (an item
        // moved to another section's list, or made a switch, goes and comes anew).
        func key(_ node: Node, in tree: AccessibleTree) -> String {
            (node.parent.map { tree.nodes[$0].path } ?? "") + "/" + node.path + "/" + String(node.role.rawValue)
        }
        let oldPaths = Dictionary(old.nodes.enumerated().map { (key($1, in: old), $0) }, uniquingKeysWith: { a, _ in a })
        let newPaths = Dictionary(nodes.enumerated().map { (key($1, in: self), $0) }, uniquingKeysWith: { a, _ in a })
        // A window's parent is the application (""): its place is among the windows.
        let oldWindows = old.windows, newWindows = windows
        for node in old.nodes.reversed() where newPaths[key(node, in: old)] == nil {
            let index = oldPaths[key(node, in: old)]!
            if let parent = node.parent, let place = old.nodes[parent].children.firstIndex(of: index) {
                events.append(.childRemoved(parent: old.nodes[parent].path, index: place, child: node.path))
            } else if node.parent == nil, let place = oldWindows.firstIndex(of: index) {
                events.append(.childRemoved(parent: "", index: place, child: node.path))
            }
        }
        for (index, node) in nodes.enumerated() where oldPaths[key(node, in: self)] == nil {
            if let parent = node.parent, let place = nodes[parent].children.firstIndex(of: index) {
                events.append(.childAdded(parent: nodes[parent].path, index: place, child: node.path))
            } else if node.parent == nil, let place = newWindows.firstIndex(of: index) {
                events.append(.childAdded(parent: "", index: place, child: node.path))
            }
        }
        var focusGained: [Event] = []
        for node in nodes {
            guard let was = oldPaths[key(node, in: self)].map({ old.nodes[$0] }) else {
                if node.states.contains(.focused) { focusGained.append(.stateChanged(path: node.path, state: "focused", on: true)) }
                continue
            }
            if node.name != was.name { events.append(.nameChanged(path: node.path, name: node.name)) }
            if node.description != was.description { events.append(.descriptionChanged(path: node.path, description: node.description)) }
            let changed = States(rawValue: node.states.rawValue ^ was.states.rawValue)
            for (state, name) in States.names where changed.contains(state) {
                // Only the sheet says it is shown or hidden: its nodes go with it.
                if node.parent != nil, state == .showing || state == .visible { continue }
                let event = Event.stateChanged(path: node.path, state: name, on: node.states.contains(state))
                if state == .focused && node.states.contains(.focused) { focusGained.append(event) } else { events.append(event) }
            }
        }
        let sheet = nodes[0], wasSheet = old.nodes[0]
        let opened = sheet.states.contains(.showing) && (!wasSheet.states.contains(.showing) || sheet.path != wasSheet.path)
        let closed = !sheet.states.contains(.showing) && wasSheet.states.contains(.showing)
        if opened { events.append(.windowActivated(path: sheet.path, on: true)) }
        if let announcement, !announcement.isEmpty { events.append(.announcement(path: sheet.path, text: announcement)) }
        events += focusGained
        if closed { events.append(.windowActivated(path: sheet.path, on: false)) }
        return events
    }
}
