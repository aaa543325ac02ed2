import SheetCore
import SheetProtocol

/// The sheet as a screen reader sees it (AT-SPI 2): the nodes a renderer puts on the session's
/// accessibility bus, made from a published state and the content it shows, and the events that
/// tell a screen reader what changed between two of them. Pure: the D-Bus side only serves
/// what this says.
///
/// The tree is the sheet (a `dialog`, modal or not, named by the content's title), holding the
/// close button (where a person may close the sheet) and the list, which holds one node per
/// item in the list's order: a `list item` named by its label, described by its second line,
/// with its place in its section; a switch or a check is a list item that is `checkable` and
/// `checked` when on. (Orca counts a list's items by that role: switches as `toggle button`
/// siblings made a list of six read as two.)
public struct AccessibleTree: Sendable, Equatable {
    /// AT-SPI's roles (`AtspiRole`) that the sheet uses.
    public enum Role: UInt32, Sendable {
        case application = 75
        case dialog = 16
        case panel = 39
        case pushButton = 43
        case list = 31
        case listItem = 32

        /// libatspi's name for it (what `getRoleName` gives).
        public var name: String {
            switch self {
            case .application: "application"
            case .dialog: "dialog"
            case .panel: "panel"
            case .pushButton: "push button"
            case .list: "list"
            case .listItem: "list item"
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

    /// One node. `path` is its last D-Bus path element: `sheet`, `close`, `list`, or `item_`
    /// and the item's id in hex (ids are any UTF-8; a path element is letters, digits and `_`).
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

    /// The sheet first, then the close button (if drawn) and the list, then the items.
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
    /// gives them); the close button and the actions named in `words` (the content's language).
    public init(state: SheetState, content: SheetContent?, words: SheetWords = .english) {
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
        nodes = [Node(path: "sheet", role: state.presentation.modal ? .dialog : .panel,
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
        nodes.append(Node(path: "list", role: .list, name: "", description: "", states: everyone.union(.vertical), parent: 0,
                          children: [], actions: [], attributes: [], extents: (left, listTop, width, max(0, height - (listTop - top))),
                          element: nil))
        let list = nodes.count - 1
        nodes[0].children.append(list)
        var y = Double(listTop) - (state.list?.scrollInPixels ?? 0)
        var section: String?
        for (index, item) in content.items.enumerated() {
            if let layout = state.list, !item.section.isEmpty, item.section != section { y += layout.headerHeightInPixels }
            section = item.section
            let rowHeight = state.list.map { item.subtitle.isEmpty ? $0.itemHeightInPixels : $0.twoLineItemHeightInPixels } ?? 0
            var states = everyone
            if !item.disabled { states.formUnion([.focusable]) } else { states.subtract([.enabled, .sensitive]) }
            if state.focus == .item(item.id) { states.insert(.focused) }
            let role = Role.listItem
            var action = Action(name: "click", localizedName: words[.click], description: words[.clickItemDescription], command: .activate)
            switch item.accessory {
            case .toggle(let isOn)?:
                states.insert(.checkable)
                if isOn { states.insert(.checked) }
                action = Action(name: "toggle", localizedName: words[.toggle], description: words[.toggleDescription], command: .activate)
            case .check(let isChecked)?:
                states.insert(.checkable)
                if isChecked { states.insert(.checked) }
            default:
                break
            }
            let members = content.items.indices.filter { content.items[$0].section == item.section }
            let place = (members.firstIndex(of: index) ?? 0) + 1
            var attributes = [(key: "posinset", value: String(place)), (key: "setsize", value: String(members.count))]
            if case .value(let text)? = item.accessory { attributes.append((key: "value", value: text)) }
            if !item.section.isEmpty { attributes.append((key: "section", value: item.section)) }
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
    }

    /// `item_` and the id's bytes in hex: a D-Bus path element for any id.
    public static func path(ofItem id: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes = Array("item_".utf8)
        for byte in id.utf8 {
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
        /// `ChildrenChanged` on `parent`: `child` added at or removed from `index`.
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
        let oldPaths = Dictionary(old.nodes.enumerated().map { ($1.path, $0) }, uniquingKeysWith: { a, _ in a })
        let newPaths = Dictionary(nodes.enumerated().map { ($1.path, $0) }, uniquingKeysWith: { a, _ in a })
        for node in old.nodes.reversed() where newPaths[node.path] == nil {
            if let parent = node.parent, let place = old.nodes[parent].children.firstIndex(of: oldPaths[node.path]!) {
                events.append(.childRemoved(parent: old.nodes[parent].path, index: place, child: node.path))
            }
        }
        for (index, node) in nodes.enumerated() where oldPaths[node.path] == nil {
            if let parent = node.parent, let place = nodes[parent].children.firstIndex(of: index) {
                events.append(.childAdded(parent: nodes[parent].path, index: place, child: node.path))
            }
        }
        var focusGained: [Event] = []
        for node in nodes {
            guard let was = oldPaths[node.path].map({ old.nodes[$0] }) else {
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
        let opened = sheet.states.contains(.showing) && !wasSheet.states.contains(.showing)
        let closed = !sheet.states.contains(.showing) && wasSheet.states.contains(.showing)
        if opened { events.append(.windowActivated(path: sheet.path, on: true)) }
        if let announcement, !announcement.isEmpty { events.append(.announcement(path: sheet.path, text: announcement)) }
        events += focusGained
        if closed { events.append(.windowActivated(path: sheet.path, on: false)) }
        return events
    }
}
