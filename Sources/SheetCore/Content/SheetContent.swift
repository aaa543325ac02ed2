/// One row of the sheet's list: an id the client chose and the label people read.
/// Example: `SheetItem(id: "wifi", label: "Wi-Fi")`.
public struct SheetItem: Hashable, Sendable {
    public var id: String
    public var label: String

    public init(id: String, label: String) {
        self.id = id
        self.label = label
    }
}

/// What a client puts in the sheet: a title, a list of items, and whether dismissing it would
/// lose something (then every way a user dismisses springs back and is reported instead).
public struct SheetContent: Hashable, Sendable {
    public var title: String
    /// In the order the client gave; the list's current order is `ListMachine.order`.
    public var items: [SheetItem]
    /// Unsaved changes: the user cannot dismiss the sheet, a control `Dismiss` needs `force`.
    public var guarded: Bool

    public init(title: String = "", items: [SheetItem] = [], guarded: Bool = false) {
        self.title = title
        self.items = items
        self.guarded = guarded
    }

    public static let empty = SheetContent()

    /// No title, no items, no guard: nothing for a renderer to draw.
    public var isEmpty: Bool { title.isEmpty && items.isEmpty && !guarded }

    /// The limits every boundary holds content to (the wire, files, the configuration).
    public enum Limits {
        /// Bytes of UTF-8 in the title.
        public static let titleBytes = 256
        public static let items = 1024
        /// Bytes of UTF-8 in an item's id: 1 to 64.
        public static let idBytes = 64
        /// Bytes of UTF-8 in an item's label.
        public static let labelBytes = 256
    }

    /// The first thing wrong with this content, or nil when every limit holds.
    /// Swift strings are valid Unicode, so invalid UTF-8 is refused where bytes become text.
    public func problem() -> ContentProblem? {
        if title.utf8.count > Limits.titleBytes {
            return ContentProblem(field: "title", index: nil, reason: "longer than \(Limits.titleBytes) bytes")
        }
        if items.count > Limits.items {
            return ContentProblem(field: "items", index: nil, reason: "more than \(Limits.items) items")
        }
        var seen: [String: Int] = [:]
        seen.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            let idBytes = item.id.utf8.count
            if idBytes == 0 { return ContentProblem(field: "items.id", index: index, reason: "empty") }
            if idBytes > Limits.idBytes {
                return ContentProblem(field: "items.id", index: index, reason: "longer than \(Limits.idBytes) bytes")
            }
            if let first = seen[item.id] {
                return ContentProblem(field: "items.id", index: index, reason: "the same as item \(first)'s")
            }
            seen[item.id] = index
            if item.label.utf8.count > Limits.labelBytes {
                return ContentProblem(field: "items.label", index: index, reason: "longer than \(Limits.labelBytes) bytes")
            }
        }
        return nil
    }
}

/// A change to the content, as `SetContent` asks for it: each field given replaces the current
/// one; nil keeps it. New items reset the list's order.
public struct ContentChange: Sendable, Equatable {
    public var title: String?
    public var items: [SheetItem]?
    public var guarded: Bool?

    public init(title: String? = nil, items: [SheetItem]? = nil, guarded: Bool? = nil) {
        self.title = title
        self.items = items
        self.guarded = guarded
    }

    /// Every field given.
    public init(_ content: SheetContent) {
        self.init(title: content.title, items: content.items, guarded: content.guarded)
    }

    /// The first limit a given field breaks (each field's limits stand alone, so the change
    /// applied to any valid content is valid).
    public func problem() -> ContentProblem? {
        SheetContent(title: title ?? "", items: items ?? []).problem()
    }

    public func applied(to content: SheetContent) -> SheetContent {
        SheetContent(title: title ?? content.title, items: items ?? content.items, guarded: guarded ?? content.guarded)
    }
}

/// Why content was refused: the field, the item's index when it is an item's, and the reason.
/// Example: `items[3].id: the same as item 1's`.
public struct ContentProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// `title`, `items`, `items.id`, `items.label`, `guarded`.
    public var field: String
    public var index: Int?
    public var reason: String

    public init(field: String, index: Int?, reason: String) {
        self.field = field
        self.index = index
        self.reason = reason
    }

    /// `items[3].id`, or the field alone.
    public var path: String {
        guard let index else { return field }
        let parts = field.split(separator: ".", maxSplits: 1)
        return parts.count == 2 ? "\(parts[0])[\(index)].\(parts[1])" : "\(field)[\(index)]"
    }

    public var description: String { "\(path): \(reason)" }
}

/// How a user tried to dismiss a guarded sheet.
public enum DismissCause: UInt8, Sendable, BitwiseCopyable, Named {
    /// A fast flick down released the card (the rule set's fling).
    case swipeDown
    /// The card was dragged down and let go past the dismiss line.
    case drag
    /// A tap on the dim.
    case dimTap
    /// A tap on the close button.
    case closeButton

    public var name: StaticString {
        switch self {
        case .swipeDown: return "swipe-down"
        case .drag: return "drag"
        case .dimTap: return "dim-tap"
        case .closeButton: return "close-button"
        }
    }
}

/// What the content tells its client, in the order it happened. Items are named by their
/// index in `SheetContent.items`; the list's order is given in the same indices.
public enum ContentEvent: Sendable, Equatable, BitwiseCopyable {
    case itemTapped(item: Int)
    /// A long press picked the item up at this position of the list.
    case reorderBegan(item: Int, index: Int)
    /// The dragged item moved from one position to another (one per swap).
    case reorderMoved(item: Int, from: Int, to: Int)
    /// The item was dropped. The list's order it leaves is `ListMachine.order`, which only
    /// another reorder's swaps or new content change: a consumer reads it there before giving
    /// the engine more input, so that every output stays a plain value (an array here made each
    /// one cost a release to discard).
    case reorderEnded(item: Int)
    case dismissAttempted(DismissCause)

    /// Which event it is, without its numbers: what a reader of the socket matches on.
    public enum Kind: UInt8, Sendable, BitwiseCopyable, Named {
        case itemTapped, reorderBegan, reorderMoved, reorderEnded, dismissAttempted

        public var name: StaticString {
            switch self {
            case .itemTapped: return "item-tapped"
            case .reorderBegan: return "reorder-began"
            case .reorderMoved: return "reorder-moved"
            case .reorderEnded: return "reorder-ended"
            case .dismissAttempted: return "dismiss-attempted"
            }
        }
    }

    public var kind: Kind {
        switch self {
        case .itemTapped: return .itemTapped
        case .reorderBegan: return .reorderBegan
        case .reorderMoved: return .reorderMoved
        case .reorderEnded: return .reorderEnded
        case .dismissAttempted: return .dismissAttempted
        }
    }

    public var name: StaticString { kind.name }
}

/// A content event with the time it happened.
public struct ContentEventReport: Sendable, Equatable, BitwiseCopyable {
    public var time: Timestamp
    public var event: ContentEvent

    public init(time: Timestamp, event: ContentEvent) {
        self.time = time
        self.event = event
    }
}
