#if canImport(Glibc)
import Glibc
#endif
import CGio
import SheetClient
import SheetCore
import SheetProtocol
import SheetRenderKit
import Synchronization
import SheetSystem

/// The sheet on the session's accessibility bus (AT-SPI 2), so that a screen reader (Orca)
/// reads it as it reads a GTK 4 window: the tree `AccessibleTree` makes of each state drawn,
/// served over GDBus, and its events sent as the state changes. What an assistive technology
/// asks of it (a click, a toggle, a focus, expand, collapse, dismiss) reaches sheetd as
/// `Focus` calls, a person's; a renderer that may not control the sheet still serves the tree,
/// and says once why its actions are refused.
///
/// GDBus answers on a thread of its own, which only waits and dispatches (a GLib main loop);
/// the render loop hands it each tree under a lock and sends the events itself (GDBus's
/// signals may go from any thread). With no accessibility bus (no session, no at-spi2-core)
/// nothing is served, and that is said once.
final class Accessibility: @unchecked Sendable {
    /// The application's root, as AT-SPI names it, and where the sheet's nodes live.
    static let rootPath = "/org/a11y/atspi/accessible/root"
    static let nodesPath = "/io/sheetd/a11y"
    static let cachePath = "/org/a11y/atspi/cache"

    private struct Shared {
        var tree = AccessibleTree()
        /// The registry's root, answered to `Embed`: the application's parent.
        var desktop: (bus: String, path: String) = ("", "/org/a11y/atspi/null")
        /// What the registry told the application its id is.
        var id: Int32 = 0
    }

    private let shared = Mutex(Shared())
    private let connection: BusConnection
    private let socketPath: String
    private let thread = GLibThread()
    private let refusalSaid = Atomic<Bool>(false)
    private var wasOpen = false
    private var announcedSheet: String?
    /// What the last tree was made of: a state that changes none of it makes the same tree.
    private struct Key: Equatable {
        var content: SheetContent?
        var focus: FocusedElement?
        var closed: Bool
        var dragging: Bool
        var modal: Bool
        var canClose: Bool
        var restingTop: Double?
        var screen: ScreenSize
        var sheet: String?
        /// The stack: the waiting windows' titles are asked again only when it changes.
        var stack: [String]
    }
    private var shown: Key?
    private var objects: [UInt32] = []
    private let interfaces: UnsafeMutablePointer<GDBusNodeInfo>

    /// Connects to the session's accessibility bus and puts the sheet on it; nil (said in the
    /// log) when there is none. `socketPath`: sheetd's control socket, where actions go.
    static func start(socketPath: String, log: Log) -> Accessibility? {
        let address: String
        switch busAddress() {
        case .success(let found): address = found
        case .failure(let failure):
            log.say("sheet-render: no accessibility bus (\(failure)); a screen reader will not see the sheet")
            return nil
        }
        let connection: BusConnection
        switch BusConnection.open(address: address) {
        case .success(let opened): connection = opened
        case .failure(let failure):
            log.say("sheet-render: cannot reach the accessibility bus at \(address) (\(failure)); a screen reader will not see the sheet")
            return nil
        }
        let accessibility = Accessibility(connection: connection, socketPath: socketPath, toggleRole: Self.toggleRole())
        switch accessibility.serve() {
        case .success(let registry):
            log.say("sheet-render: on the accessibility bus as \(connection.uniqueName), embedded in \(registry); "
                    + "toggle rows are \(accessibility.toggleRole.name)es")
            return accessibility
        case .failure(let failure):
            log.say("sheet-render: the accessibility registry refused the sheet (\(failure)); a screen reader will not see it")
            return nil
        }
    }

    /// `AT_SPI_BUS_ADDRESS`, else what the session's `org.a11y.Bus` says (it starts the bus).
    private static func busAddress() -> Result<String, BusFailure> {
        if let address = getenv("AT_SPI_BUS_ADDRESS").map({ String(cString: $0) }), !address.isEmpty { return .success(address) }
        let session: BusConnection
        switch BusConnection.session() {
        case .success(let bus): session = bus
        case .failure(let failure): return .failure(failure)
        }
        defer { g_object_unref(UnsafeMutableRawPointer(session.raw)) }
        switch session.call("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress", nil, reply: "(s)") {
        case .success(let reply):
            defer { g_variant_unref(reply) }
            guard let address = GV.string(in: reply, at: 0) else { return .failure(BusFailure("GetAddress answered no address")) }
            return .success(address)
        case .failure(let failure): return .failure(failure)
        }
    }

    /// The role of a toggle row: `switch` when the screen reader's libatspi names role 130 so
    /// (at-spi2-core 2.50 and later; 2.46 calls it "last defined", and Orca 43 would read an
    /// unknown role), else `check box`, which GTK gives a switch there. No libatspi on the
    /// machine: `switch`, the role's own name in AT-SPI today. The library stays loaded (its
    /// role enum is now a GType of this process).
    static func toggleRole() -> AccessibleTree.Role {
        typealias RoleName = @convention(c) (UInt32) -> UnsafeMutablePointer<CChar>?
        guard let library = dlopen("libatspi.so.0", RTLD_NOW | RTLD_LOCAL) else { return .switch }
        guard let symbol = dlsym(library, "atspi_role_get_name") else { return .checkBox }
        guard let name = unsafeBitCast(symbol, to: RoleName.self)(AccessibleTree.Role.switch.rawValue) else { return .checkBox }
        defer { g_free(name) }
        return String(cString: name) == AccessibleTree.Role.switch.name ? .switch : .checkBox
    }

    let toggleRole: AccessibleTree.Role

    private init(connection: BusConnection, socketPath: String, toggleRole: AccessibleTree.Role) {
        self.connection = connection
        self.socketPath = socketPath
        self.toggleRole = toggleRole
        var error: UnsafeMutablePointer<GError>?
        interfaces = g_dbus_node_info_new_for_xml(Self.introspection, &error)!
    }

    deinit {
        g_dbus_node_info_unref(interfaces)
        g_object_unref(UnsafeMutableRawPointer(connection.raw))
    }

    // MARK: Serving

    /// Registers the objects on GDBus's thread (their calls are dispatched there), embeds the
    /// application in the registry, and leaves the thread waiting; the registry's name.
    private func serve() -> Result<String, BusFailure> {
        thread.start { [self] in register() }
    }

    private func register() -> Result<String, BusFailure> {
        let me = Unmanaged.passUnretained(self).toOpaque()
        for (path, name) in [(Self.rootPath, "org.a11y.atspi.Accessible"), (Self.rootPath, "org.a11y.atspi.Application"),
                             (Self.cachePath, "org.a11y.atspi.Cache")] {
            var error: UnsafeMutablePointer<GError>?
            let id = g_dbus_connection_register_object(connection.raw, path, g_dbus_node_info_lookup_interface(interfaces, name),
                                                       &Self.vtable, me, nil, &error)
            guard id > 0 else { return .failure(BusFailure("\(path) \(name): \(takeMessage(error))")) }
            objects.append(id)
        }
        var error: UnsafeMutablePointer<GError>?
        let subtree = g_dbus_connection_register_subtree(connection.raw, Self.nodesPath, &Self.subtreeVTable,
                                                         sheetd_subtree_flags_dispatch_to_unenumerated_nodes, me, nil, &error)
        guard subtree > 0 else { return .failure(BusFailure("\(Self.nodesPath): \(takeMessage(error))")) }
        let plug = GV.tuple([GV.reference(connection.uniqueName, Self.rootPath)])
        switch connection.call("org.a11y.atspi.Registry", Self.rootPath, "org.a11y.atspi.Socket", "Embed", plug,
                               reply: "((so))", timeoutMilliseconds: 5000) {
        case .success(let reply):
            defer { g_variant_unref(reply) }
            let reference = GV.child(reply, 0)
            defer { g_variant_unref(reference) }
            let desktop = (GV.string(in: reference, at: 0) ?? "", GV.string(in: reference, at: 1) ?? "/org/a11y/atspi/null")
            shared.withLock { $0.desktop = desktop }
            return .success(desktop.0)
        case .failure(let failure):
            return .failure(failure)
        }
    }

    // MARK: What the render loop hands over

    /// The tree of the state drawn; the events of what changed are sent at once. A drag's
    /// frames that move only the card change nothing a screen reader hears. `waiting`: the
    /// titles of the stack's sheets (`state.stack`), the same while the stack is.
    func show(_ state: SheetState, content: SheetContent?, waiting: [(sheet: String, title: String)] = []) {
        // Where the nodes are matters once the sheet rests; a moving card's frames are skipped.
        let key = Key(content: content, focus: state.focus, closed: state.isClosed, dragging: state.state == .dragging,
                      modal: state.presentation.modal, canClose: state.presentation.canClose,
                      restingTop: state.isAtRest ? state.topInPixels : nil, screen: state.screen, sheet: state.sheet,
                      stack: state.stack)
        guard key != shown else { return }
        shown = key
        let words = SheetCatalog.shared.words(forTag: content?.language ?? "")
        let tree = AccessibleTree(state: state, content: content, words: words, toggleRole: toggleRole, waiting: waiting)
        let open = !state.isClosed && state.state != .dragging
        var announcement: String?
        // Another program's sheet in the place of the last one is announced as it opens.
        let another = state.sheet != announcedSheet
        announcedSheet = state.sheet
        if open && (!wasOpen || another) { announcement = Announcer.opening(state, content: content, words: words) }
        if state.isClosed && wasOpen { announcement = Announcer.closing(content: content, words: words) }
        if state.isClosed || open { wasOpen = open }
        let old = shared.withLock { shared -> AccessibleTree in
            defer { shared.tree = tree }
            return shared.tree
        }
        guard tree != old || announcement != nil else { return }
        for event in tree.events(from: old, announcing: announcement) { send(event) }
    }

    private func send(_ event: AccessibleTree.Event) {
        let object = "org.a11y.atspi.Event.Object"
        let path = Self.path(of:)
        func body(_ detail: String, _ one: Int32, _ two: Int32, _ data: GV.Value) -> GV.Value {
            GV.tuple([GV.string(detail), GV.int32(one), GV.int32(two), GV.variant(data), GV.array("{sv}", [])])
        }
        switch event {
        case .stateChanged(let node, let state, let on):
            connection.emit(path(node), object, "StateChanged", body(state, on ? 1 : 0, 0, GV.int32(0)))
        case .childAdded(let parent, let index, let child):
            connection.emit(parent.isEmpty ? Self.rootPath : path(parent), object, "ChildrenChanged",
                            body("add", Int32(index), 0, GV.reference(connection.uniqueName, path(child))))
        case .childRemoved(let parent, let index, let child):
            connection.emit(parent.isEmpty ? Self.rootPath : path(parent), object, "ChildrenChanged",
                            body("remove", Int32(index), 0, GV.reference(connection.uniqueName, path(child))))
        case .nameChanged(let node, let name):
            connection.emit(path(node), object, "PropertyChange", body("accessible-name", 0, 0, GV.string(name)))
        case .descriptionChanged(let node, let description):
            connection.emit(path(node), object, "PropertyChange", body("accessible-description", 0, 0, GV.string(description)))
        case .announcement(let node, let text):
            // Polite (1): after what the screen reader is saying.
            connection.emit(path(node), object, "Announcement", body("", 1, 0, GV.string(text)))
        case .windowActivated(let node, let on):
            connection.emit(path(node), "org.a11y.atspi.Event.Window", on ? "Activate" : "Deactivate", body("", 0, 0, GV.string("0")))
        }
    }

    // MARK: Answering (on GDBus's thread)

    /// The node a path names: the root (nil node), or a node of the tree.
    private enum Target {
        case root
        case node(Int)
        case cache
    }

    private func target(of path: String, in tree: AccessibleTree) -> Target? {
        if path == Self.rootPath { return .root }
        if path == Self.cachePath { return .cache }
        let prefix = Self.nodesPath + "/"
        guard path.hasPrefix(prefix) else { return nil }
        return tree.index(of: String(path.dropFirst(prefix.count))).map(Target.node)
    }

    /// The object path of the node whose path element is `node`.
    private static func path(of node: String) -> String { "\(nodesPath)/\(node)" }

    private static let null = ("", "/org/a11y/atspi/null")

    fileprivate func property(_ path: String, _ interface: String, _ name: String) -> GV.Value? {
        let (tree, desktop, id) = shared.withLock { ($0.tree, $0.desktop, $0.id) }
        guard let target = target(of: path, in: tree) else { return nil }
        let me = connection.uniqueName
        switch (target, interface, name) {
        case (.root, "org.a11y.atspi.Application", "ToolkitName"): return GV.string("sheet-render")
        case (.root, "org.a11y.atspi.Application", "Version"): return GV.string("0.1.0")
        case (.root, "org.a11y.atspi.Application", "AtspiVersion"): return GV.string("2.1")
        case (.root, "org.a11y.atspi.Application", "Id"): return GV.int32(id)
        case (.root, _, "Name"): return GV.string("sheet-render")
        case (.root, _, "Description"): return GV.string("")
        case (.root, _, "Parent"): return GV.reference(desktop.bus, desktop.path)
        case (.root, _, "ChildCount"): return GV.int32(Int32(tree.windows.count))
        case (.root, _, "Locale"), (.node, _, "Locale"): return GV.string(tree.language.isEmpty ? "en" : tree.language)
        case (.root, _, "AccessibleId"): return GV.string("")
        case (.node(let index), _, "Name"): return GV.string(tree.nodes[index].name)
        case (.node(let index), _, "Description"): return GV.string(tree.nodes[index].description)
        case (.node(let index), _, "Parent"):
            if let parent = tree.nodes[index].parent { return GV.reference(me, Self.path(of: tree.nodes[parent].path)) }
            return GV.reference(me, Self.rootPath)
        case (.node(let index), _, "ChildCount"): return GV.int32(Int32(tree.nodes[index].children.count))
        case (.node(let index), _, "AccessibleId"): return GV.string(tree.nodes[index].element ?? tree.nodes[index].path)
        case (.node(let index), "org.a11y.atspi.Action", "NActions"): return GV.int32(Int32(tree.nodes[index].actions.count))
        default: return nil
        }
    }

    fileprivate func setProperty(_ path: String, _ name: String, _ value: GV.Value) -> Bool {
        guard path == Self.rootPath, name == "Id", GV.typeString(value) == "i" else { return false }
        let id = g_variant_get_int32(value)
        shared.withLock { $0.id = id }
        return true
    }

    /// A method's answer, or nil with `error` set (the name and message GDBus replies with).
    fileprivate func method(_ path: String, _ interface: String, _ name: String, _ parameters: GV.Value,
                            error: inout (name: String, message: String)) -> GV.Value? {
        let tree = shared.withLock { $0.tree }
        guard let target = target(of: path, in: tree) else {
            error = ("org.freedesktop.DBus.Error.UnknownObject", "the sheet has no \(path) now")
            return nil
        }
        let me = connection.uniqueName
        func node(_ index: Int) -> GV.Value { GV.reference(me, Self.path(of: tree.nodes[index].path)) }
        let children: [Int] = switch target {
        case .root: tree.windows
        case .node(let index): tree.nodes[index].children
        case .cache: []
        }
        func child(_ position: Int) -> GV.Value { node(children[position]) }
        let info: AccessibleTree.Node? = if case .node(let index) = target { tree.nodes[index] } else { nil }
        switch (interface, name) {
        case ("org.a11y.atspi.Cache", "GetItems"):
            // Nothing cached ahead: a screen reader asks for what it reads.
            return GV.tuple([GV.array("((so)(so)(so)iiassusau)", [])])
        case ("org.a11y.atspi.Accessible", "GetChildAtIndex"):
            guard let position = GV.int32(in: parameters, at: 0), position >= 0, Int(position) < children.count else {
                error = ("org.freedesktop.DBus.Error.InvalidArgs", "no child at that index")
                return nil
            }
            return GV.tuple([child(Int(position))])
        case ("org.a11y.atspi.Accessible", "GetChildren"):
            return GV.tuple([GV.array("(so)", children.indices.map(child))])
        case ("org.a11y.atspi.Accessible", "GetIndexInParent"):
            guard let info, let index = tree.index(of: info.path) else { return GV.tuple([GV.int32(-1)]) }
            guard let parent = info.parent else { return GV.tuple([GV.int32(Int32(tree.windows.firstIndex(of: index) ?? -1))]) }
            return GV.tuple([GV.int32(Int32(tree.nodes[parent].children.firstIndex(of: index) ?? -1))])
        case ("org.a11y.atspi.Accessible", "GetRelationSet"):
            return GV.tuple([GV.array("(ua(so))", [])])
        case ("org.a11y.atspi.Accessible", "GetRole"):
            return GV.tuple([GV.uint32(info?.role.rawValue ?? AccessibleTree.Role.application.rawValue)])
        case ("org.a11y.atspi.Accessible", "GetRoleName"), ("org.a11y.atspi.Accessible", "GetLocalizedRoleName"):
            return GV.tuple([GV.string(info?.role.name ?? "application")])
        case ("org.a11y.atspi.Accessible", "GetState"):
            let states = info?.states.rawValue ?? 0
            return GV.tuple([GV.array("u", [GV.uint32(UInt32(truncatingIfNeeded: states)), GV.uint32(UInt32(truncatingIfNeeded: states >> 32))])])
        case ("org.a11y.atspi.Accessible", "GetAttributes"):
            let pairs = info?.attributes ?? [(key: "toolkit", value: "sheet-render")]
            return GV.tuple([GV.array("{ss}", pairs.map { GV.entry(GV.string($0.key), GV.string($0.value)) })])
        case ("org.a11y.atspi.Accessible", "GetApplication"):
            return GV.tuple([GV.reference(me, Self.rootPath)])
        case ("org.a11y.atspi.Accessible", "GetInterfaces"):
            var names = ["org.a11y.atspi.Accessible"]
            if info == nil { names.append("org.a11y.atspi.Application") } else { names.append("org.a11y.atspi.Component") }
            if let info, !info.actions.isEmpty { names.append("org.a11y.atspi.Action") }
            return GV.tuple([GV.array("s", names.map(GV.string))])
        case ("org.a11y.atspi.Application", "GetLocale"):
            return GV.tuple([GV.string(tree.language.isEmpty ? "en" : tree.language)])
        case ("org.a11y.atspi.Component", _):
            guard let info else { break }
            return component(name, info, parameters, tree: tree, error: &error)
        case ("org.a11y.atspi.Action", _):
            guard let info else { break }
            return action(name, info, parameters, error: &error)
        default:
            break
        }
        error = ("org.freedesktop.DBus.Error.UnknownMethod", "\(interface).\(name) is not offered at \(path)")
        return nil
    }

    private func component(_ name: String, _ node: AccessibleTree.Node, _ parameters: GV.Value, tree: AccessibleTree,
                           error: inout (name: String, message: String)) -> GV.Value? {
        let (x, y, width, height) = node.extents
        // The surface covers the output from its corner: window and screen coordinates agree.
        switch name {
        case "GetExtents": return GV.tuple([GV.tuple([GV.int32(x), GV.int32(y), GV.int32(width), GV.int32(height)])])
        case "GetPosition": return GV.tuple([GV.int32(x), GV.int32(y)])
        case "GetSize": return GV.tuple([GV.int32(width), GV.int32(height)])
        case "Contains":
            guard let px = GV.int32(in: parameters, at: 0), let py = GV.int32(in: parameters, at: 1) else { break }
            return GV.tuple([GV.bool(px >= x && px < x &+ width && py >= y && py < y &+ height)])
        case "GetAccessibleAtPoint":
            guard let px = GV.int32(in: parameters, at: 0), let py = GV.int32(in: parameters, at: 1) else { break }
            let hit = node.children.last { index in
                let (cx, cy, cw, ch) = tree.nodes[index].extents
                return px >= cx && px < cx &+ cw && py >= cy && py < cy &+ ch
            }
            return GV.tuple([hit.map { GV.reference(connection.uniqueName, Self.path(of: tree.nodes[$0].path)) }
                             ?? GV.reference(Self.null.0, Self.null.1)])
        case "GetLayer": return GV.tuple([GV.uint32(node.parent == nil ? 7 : 3)])
        case "GetMDIZOrder": return GV.tuple([GV.int16(0)])
        case "GetAlpha": return GV.tuple([GV.double(1)])
        case "GrabFocus":
            guard let element = node.element else { return GV.tuple([GV.bool(false)]) }
            return GV.tuple([GV.bool(ask(element: element, command: nil))])
        default: break
        }
        error = ("org.freedesktop.DBus.Error.InvalidArgs", "Component.\(name): not offered, or its arguments are wrong")
        return nil
    }

    private func action(_ name: String, _ node: AccessibleTree.Node, _ parameters: GV.Value,
                        error: inout (name: String, message: String)) -> GV.Value? {
        if name == "GetActions" {
            return GV.tuple([GV.array("(sss)", node.actions.map { GV.tuple([GV.string($0.localizedName), GV.string($0.description), GV.string("")]) })])
        }
        guard let index = GV.int32(in: parameters, at: 0), index >= 0, Int(index) < node.actions.count else {
            error = ("org.freedesktop.DBus.Error.InvalidArgs", "no action at that index")
            return nil
        }
        let action = node.actions[Int(index)]
        switch name {
        case "GetName": return GV.tuple([GV.string(action.name)])
        case "GetLocalizedName": return GV.tuple([GV.string(action.localizedName)])
        case "GetDescription": return GV.tuple([GV.string(action.description)])
        case "GetKeyBinding": return GV.tuple([GV.string("")])
        case "DoAction": return GV.tuple([GV.bool(ask(element: node.element, command: action.command))])
        default:
            error = ("org.freedesktop.DBus.Error.UnknownMethod", "Action.\(name) is not offered")
            return nil
        }
    }

    /// A person's action, through sheetd (`Focus`); false when it was refused. Not allowed to
    /// control the sheet (not in sheetd's control group) is said once.
    private func ask(element: String?, command: FocusCommand?) -> Bool {
        do {
            let client = try SheetClient(path: socketPath, timeoutSeconds: 2)
            try client.focus(element, command: command)
            return true
        } catch {
            if case .remote(let name, let parameters) = error, name == VarlinkErrorName.notAllowed {
                if !refusalSaid.exchange(true, ordering: .relaxed) {
                    let group = parameters["group"]?.stringValue ?? "the socket's group"
                    say("sheet-render: a screen reader's actions on the sheet are refused: this user is not in sheetd's control group (\(group)); the sheet is still read")
                }
            }
            return false
        }
    }

    /// A line on standard error from GDBus's thread (the wayland backend never holds the terminal).
    private func say(_ line: String) {
        try? writeAll(2, Array((line + "\n").utf8), naming: "standard error")
    }

    // MARK: GDBus's tables

    nonisolated(unsafe) static var vtable = zeroed(GDBusInterfaceVTable.self) {
        $0.method_call = { _, _, path, interface, method, parameters, invocation, me in
            let accessibility = Unmanaged<Accessibility>.fromOpaque(me!).takeUnretainedValue()
            var error = (name: "", message: "")
            if let reply = accessibility.method(String(cString: path!), String(cString: interface!), String(cString: method!),
                                                parameters!, error: &error) {
                g_dbus_method_invocation_return_value(invocation, reply)
            } else {
                g_dbus_method_invocation_return_dbus_error(invocation, error.name, error.message)
            }
        }
        $0.get_property = { _, _, path, interface, property, error, me in
            let accessibility = Unmanaged<Accessibility>.fromOpaque(me!).takeUnretainedValue()
            if let value = accessibility.property(String(cString: path!), String(cString: interface!), String(cString: property!)) {
                return value
            }
            g_set_error_literal(error, g_dbus_error_quark(), Int32(G_DBUS_ERROR_UNKNOWN_PROPERTY.rawValue), "no such property here")
            return nil
        }
        $0.set_property = { _, _, path, _, property, value, error, me in
            let accessibility = Unmanaged<Accessibility>.fromOpaque(me!).takeUnretainedValue()
            if accessibility.setProperty(String(cString: path!), String(cString: property!), value!) { return 1 }
            g_set_error_literal(error, g_dbus_error_quark(), Int32(G_DBUS_ERROR_PROPERTY_READ_ONLY.rawValue), "read only")
            return 0
        }
    }

    nonisolated(unsafe) static var subtreeVTable = zeroed(GDBusSubtreeVTable.self) {
        $0.enumerate = { _, _, _, me in
            let accessibility = Unmanaged<Accessibility>.fromOpaque(me!).takeUnretainedValue()
            let paths = accessibility.shared.withLock { $0.tree.nodes.map(\.path) }
            let list = g_malloc0(gsize(MemoryLayout<UnsafeMutablePointer<gchar>?>.stride * (paths.count + 1)))!
                .assumingMemoryBound(to: UnsafeMutablePointer<gchar>?.self)
            for (index, path) in paths.enumerated() { list[index] = g_strdup(path) }
            return list
        }
        $0.introspect = { _, _, _, node, me in
            guard let node else { return nil }
            let accessibility = Unmanaged<Accessibility>.fromOpaque(me!).takeUnretainedValue()
            let path = String(cString: node)
            let actions = accessibility.shared.withLock { shared in shared.tree.index(of: path).map { !shared.tree.nodes[$0].actions.isEmpty } }
            guard let actions else { return nil }
            var names = ["org.a11y.atspi.Accessible", "org.a11y.atspi.Component"]
            if actions { names.append("org.a11y.atspi.Action") }
            let list = g_malloc0(gsize(MemoryLayout<UnsafeMutablePointer<GDBusInterfaceInfo>?>.stride * (names.count + 1)))!
                .assumingMemoryBound(to: UnsafeMutablePointer<GDBusInterfaceInfo>?.self)
            for (index, name) in names.enumerated() {
                list[index] = g_dbus_interface_info_ref(g_dbus_node_info_lookup_interface(accessibility.interfaces, name))
            }
            return list
        }
        $0.dispatch = { _, _, _, _, _, userData, me in
            userData?.pointee = me
            return withUnsafePointer(to: &Accessibility.vtable) { $0 }
        }
    }

    /// The interfaces served, as AT-SPI 2.46 defines them (at-spi2-core's xml/), the parts used.
    static let introspection = """
    <node>
      <interface name="org.a11y.atspi.Accessible">
        <property name="Name" type="s" access="read"/>
        <property name="Description" type="s" access="read"/>
        <property name="Parent" type="(so)" access="read"/>
        <property name="ChildCount" type="i" access="read"/>
        <property name="Locale" type="s" access="read"/>
        <property name="AccessibleId" type="s" access="read"/>
        <method name="GetChildAtIndex"><arg direction="in" name="index" type="i"/><arg direction="out" type="(so)"/></method>
        <method name="GetChildren"><arg direction="out" type="a(so)"/></method>
        <method name="GetIndexInParent"><arg direction="out" type="i"/></method>
        <method name="GetRelationSet"><arg direction="out" type="a(ua(so))"/></method>
        <method name="GetRole"><arg direction="out" type="u"/></method>
        <method name="GetRoleName"><arg direction="out" type="s"/></method>
        <method name="GetLocalizedRoleName"><arg direction="out" type="s"/></method>
        <method name="GetState"><arg direction="out" type="au"/></method>
        <method name="GetAttributes"><arg direction="out" type="a{ss}"/></method>
        <method name="GetApplication"><arg direction="out" type="(so)"/></method>
        <method name="GetInterfaces"><arg direction="out" type="as"/></method>
      </interface>
      <interface name="org.a11y.atspi.Application">
        <property name="ToolkitName" type="s" access="read"/>
        <property name="Version" type="s" access="read"/>
        <property name="AtspiVersion" type="s" access="read"/>
        <property name="Id" type="i" access="readwrite"/>
        <method name="GetLocale"><arg direction="in" name="lctype" type="u"/><arg direction="out" type="s"/></method>
      </interface>
      <interface name="org.a11y.atspi.Component">
        <method name="Contains"><arg direction="in" name="x" type="i"/><arg direction="in" name="y" type="i"/><arg direction="in" name="coord_type" type="u"/><arg direction="out" type="b"/></method>
        <method name="GetAccessibleAtPoint"><arg direction="in" name="x" type="i"/><arg direction="in" name="y" type="i"/><arg direction="in" name="coord_type" type="u"/><arg direction="out" type="(so)"/></method>
        <method name="GetExtents"><arg direction="in" name="coord_type" type="u"/><arg direction="out" type="(iiii)"/></method>
        <method name="GetPosition"><arg direction="in" name="coord_type" type="u"/><arg direction="out" name="x" type="i"/><arg direction="out" name="y" type="i"/></method>
        <method name="GetSize"><arg direction="out" name="width" type="i"/><arg direction="out" name="height" type="i"/></method>
        <method name="GetLayer"><arg direction="out" type="u"/></method>
        <method name="GetMDIZOrder"><arg direction="out" type="n"/></method>
        <method name="GrabFocus"><arg direction="out" type="b"/></method>
        <method name="GetAlpha"><arg direction="out" type="d"/></method>
      </interface>
      <interface name="org.a11y.atspi.Action">
        <property name="NActions" type="i" access="read"/>
        <method name="GetDescription"><arg direction="in" name="index" type="i"/><arg direction="out" type="s"/></method>
        <method name="GetName"><arg direction="in" name="index" type="i"/><arg direction="out" type="s"/></method>
        <method name="GetLocalizedName"><arg direction="in" name="index" type="i"/><arg direction="out" type="s"/></method>
        <method name="GetKeyBinding"><arg direction="in" name="index" type="i"/><arg direction="out" type="s"/></method>
        <method name="GetActions"><arg direction="out" type="a(sss)"/></method>
        <method name="DoAction"><arg direction="in" name="index" type="i"/><arg direction="out" type="b"/></method>
      </interface>
      <interface name="org.a11y.atspi.Cache">
        <method name="GetItems"><arg direction="out" type="a((so)(so)(so)iiassusau)"/></method>
      </interface>
    </node>
    """
}
