#if canImport(Glibc)
import Glibc
#endif
import SheetCore

/// Who is on the other end of a connection, as it was when it connected (SO_PEERCRED and
/// SO_PEERGROUPS).
public struct PeerCredentials: Sendable, Equatable, CustomStringConvertible {
    public var pid: pid_t
    public var uid: uid_t
    public var gid: gid_t
    /// Supplementary groups.
    public var groups: [gid_t]

    public init(pid: pid_t, uid: uid_t, gid: gid_t, groups: [gid_t] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}

/// A control call, for the daemon to perform.
public enum ControlRequest: Sendable, Equatable, CustomStringConvertible {
    case present(detent: String?)
    case dismiss(force: Bool)
    case setDetent(String)
    case setScreen(width: Int, height: Int, scale: Double?)
    case setReduceMotion(Bool)
    /// Already held to `SheetContent`'s limits.
    case setContent(ContentChange)
    /// Already held to `Appearance`'s limits.
    case setAppearance(AppearanceChange)
    /// Already held to `SheetPresentation`'s limits.
    case setPresentation(PresentationChange)
    /// The focus on an element (an item's id or `close`), then a command, as a person's key.
    case focus(element: String?, command: FocusCommand?)

    /// For the log: the call and its parameters, content summarised (a full list is 300 KiB).
    public var description: String {
        switch self {
        case .present(let detent): "Present(\(detent ?? "initial"))"
        case .dismiss(let force): "Dismiss(force: \(force))"
        case .setDetent(let detent): "SetDetent(\(detent))"
        case .setScreen(let width, let height, let scale): "SetScreen(\(width)x\(height)\(scale.map { " scale \($0)" } ?? ""))"
        case .setReduceMotion(let enabled): "SetReduceMotion(\(enabled))"
        case .setAppearance(let change):
            "SetAppearance(" + [change.theme.map { "theme \($0.name)" }, change.accent.map { "accent \($0)" },
                                change.font.map { "font \($0.utf8.count) bytes" }, change.textScale.map { "text scale \($0.map { "\($0)" } ?? "auto")" },
                                change.card.map { "card \($0?.description ?? "the theme's")" },
                                change.dim.map { "dim \($0?.description ?? "the theme's")" },
                                change.cornerRadiusInPoints.map { "corner radius \($0)" }].compactMap { $0 }.joined(separator: ", ") + ")"
        case .setPresentation(let change):
            "SetPresentation(" + [change.gestures.map { "gestures \($0.members.isEmpty ? "none" : $0.members.map { $0.name.description }.joined(separator: ","))" },
                                  change.edgeBandInPoints.map { "edge band \($0)" }, change.barHeightInPoints.map { "bar height \($0)" },
                                  change.modal.map { "modal \($0)" }, change.canOpen.map { "can open \($0)" },
                                  change.canClose.map { "can close \($0)" },
                                  change.touchExploration.map { "touch exploration \($0)" },
                                  change.speech.map { "speech \($0.name)" }, change.speechRate.map { "speech rate \($0)" },
                                  change.speechVolume.map { "speech volume \($0)" }].compactMap { $0 }.joined(separator: ", ") + ")"
        case .focus(let element, let command):
            "Focus(" + [element.map { "element \($0.utf8.count) bytes" }, command.map { "command \($0.name)" }]
                .compactMap { $0 }.joined(separator: ", ") + ")"
        case .setContent(let change):
            "SetContent(" + [change.title.map { "title \($0.utf8.count) bytes" }, change.items.map { "\($0.count) items" },
                             change.guarded.map { "guarded \($0)" }].compactMap { $0 }.joined(separator: ", ") + ")"
        }
    }

    public var methodName: String {
        switch self {
        case .present: "Present"
        case .dismiss: "Dismiss"
        case .setDetent: "SetDetent"
        case .setScreen: "SetScreen"
        case .setReduceMotion: "SetReduceMotion"
        case .setContent: "SetContent"
        case .setAppearance: "SetAppearance"
        case .setPresentation: "SetPresentation"
        case .focus: "Focus"
        }
    }
}

/// A call about a sheet as the daemon takes it: what to do, which sheet the caller named, and
/// who called (the program, whose sheets these are, and its credentials).
public struct SheetCall: Sendable, Equatable, CustomStringConvertible {
    public enum Action: Sendable, Equatable {
        /// A control call (`Present`, `SetContent`, `SetScreen`, …).
        case control(ControlRequest)
        /// `OpenSheet`: a new sheet of the caller's, with this content, on `layer`, presented at
        /// `detent` (nil: the configuration's initial detent).
        case open(ContentChange, layer: SheetStack.Layer, detent: String?)
        /// `CloseSheet`.
        case close
        /// `GetContent` of a sheet the daemon's loop must find (a program's).
        case content
        /// `ListSheets`.
        case list
    }

    public var action: Action
    /// The `sheet` parameter; nil: the caller's topmost sheet, else the shared sheet.
    public var sheet: String?
    /// The caller's program (unique for the server's life: every connection of one process,
    /// `ProgramTable` in the server): the owner of the sheets it opens.
    public var program: UInt64
    public var peer: PeerCredentials
    /// A renderer's call (it reads every sheet): a `Focus` naming no sheet is a person's, on
    /// the sheet shown (an assistive technology's click), not on the shared sheet.
    public var fromRenderer: Bool
    /// The caller's command name (`/proc/PID/comm`), read when it opens a sheet.
    public var command = ""

    public init(_ action: Action, sheet: String? = nil, program: UInt64, peer: PeerCredentials, fromRenderer: Bool = false) {
        self.action = action
        self.sheet = sheet
        self.program = program
        self.peer = peer
        self.fromRenderer = fromRenderer
    }

    public var methodName: String {
        switch action {
        case .control(let request): request.methodName
        case .open: "OpenSheet"
        case .close: "CloseSheet"
        case .content: "GetContent"
        case .list: "ListSheets"
        }
    }

    public var description: String {
        let call = switch action {
        case .control(let request): request.description
        case .open(let change, let layer, let detent):
            "OpenSheet(" + [change.title.map { "title \($0.utf8.count) bytes" }, change.items.map { "\($0.count) items" },
                            "layer \(layer.name)", detent.map { "detent \($0)" }].compactMap { $0 }.joined(separator: ", ") + ")"
        case .close: "CloseSheet"
        case .content: "GetContent"
        case .list: "ListSheets"
        }
        return call + (sheet.map { " on \($0)" } ?? "")
    }
}

/// How the daemon answered a control call.
public enum ControlResult: Sendable, Equatable {
    case done
    /// `OpenSheet`: the new sheet's id.
    case opened(String)
    /// `GetContent`: what the sheet holds.
    case content(SharedContent)
    /// `ListSheets`: the programs' sheets the caller may see, bottom to top.
    case sheets([SheetListing])
    /// The call named a sheet that is not there (never was, closed, or its owner gone).
    case noSuchSheet(String)
    /// The call named another program's sheet.
    case notOwner(String)
    /// Another sheet would pass a limit (`SheetStack.Limits`): per program or in all.
    case tooManySheets(limit: Int)
    case unknownDetent(String, known: [String])
    case invalidScreen(String)
    /// Dismiss without force on a guarded sheet.
    case guarded
    /// Focus on an element that cannot take it, and why.
    case cannotFocus(String, reason: String)
}

/// What `GetContent` answers: the content, the list's order (positions → indices into its
/// items) and the revision of both, as the states' `list.revision` counts it.
public struct SharedContent: Sendable, Equatable {
    public var content: SheetContent
    public var order: [Int]
    public var revision: Int
    /// Whose it is: a program's sheet (`OpenSheet`), nil for the shared sheet.
    public var sheet: String?

    public init(content: SheetContent, order: [Int], revision: Int, sheet: String? = nil) {
        self.content = content
        self.order = order
        self.revision = revision
        self.sheet = sheet
    }
}
