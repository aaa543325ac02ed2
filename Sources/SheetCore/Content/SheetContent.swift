/// What an item shows at its trailing edge, as settings lists have it.
public enum ItemAccessory: Hashable, Sendable {
    /// A switch, on or off. A tap flips it at once (the client hears `item-toggled`).
    case toggle(isOn: Bool)
    /// A check mark, shown or not (a choice among the items).
    case check(isChecked: Bool)
    /// A chevron: the item opens something more.
    case chevron
    /// A short text, such as `80 %` or `Home`.
    case value(String)

    /// What it is, without its value: `toggle`, `check`, `chevron` or `value` on the wire.
    public enum Kind: UInt8, Sendable, BitwiseCopyable, Named {
        case toggle, check, chevron, value

        public var name: StaticString {
            switch self {
            case .toggle: return "toggle"
            case .check: return "check"
            case .chevron: return "chevron"
            case .value: return "value"
            }
        }
    }

    public var kind: Kind {
        switch self {
        case .toggle: return .toggle
        case .check: return .check
        case .chevron: return .chevron
        case .value: return .value
        }
    }
}

/// One row of the sheet's list: an id the client chose and the label people read, and what a
/// settings row has besides: a second line, an icon, an accessory, whether it can be used, and
/// the section it is in. Example: `SheetItem(id: "wifi", label: "Wi-Fi", subtitle: "Home",
/// icon: "network-wireless-symbolic", accessory: .toggle(isOn: true), section: "Network")`.
public struct SheetItem: Hashable, Sendable {
    public var id: String
    public var label: String
    /// A second line under the label; the row grows to two lines (72 pt). Empty: none.
    public var subtitle: String
    /// A freedesktop icon name (`network-wireless-symbolic`), looked up by renderers in the
    /// icon theme; never a path. Empty: none.
    public var icon: String
    public var accessory: ItemAccessory?
    /// Drawn dimmed; taps and long presses on it do nothing.
    public var disabled: Bool
    /// The section the item is in: a header with this name stands above the first item of
    /// each run of items in one section, and a reorder stays within the run. Empty: none, or
    /// (in content as a client gives it) the section of the item before it.
    public var section: String

    public init(id: String, label: String, subtitle: String = "", icon: String = "", accessory: ItemAccessory? = nil,
                disabled: Bool = false, section: String = "") {
        self.id = id
        self.label = label
        self.subtitle = subtitle
        self.icon = icon
        self.accessory = accessory
        self.disabled = disabled
        self.section = section
    }

    /// Whether `name` can be an icon's name: 1 to 64 bytes of ASCII letters, digits, `-`, `_`
    /// and `.`, not starting with a dot (so no path, no `..`, nothing hidden).
    public static func isIconName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard (1...SheetContent.Limits.iconBytes).contains(bytes.count), bytes.first != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."): return true
            default: return false
            }
        }
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
    /// The language its text is in, a BCP 47 tag (`ko`, `pt-BR`); empty: not said (the
    /// system's). It chooses the voice the sheet is spoken in.
    public var language: String

    public init(title: String = "", items: [SheetItem] = [], guarded: Bool = false, language: String = "") {
        self.title = title
        self.items = items
        self.guarded = guarded
        self.language = language
    }

    public static let empty = SheetContent()

    /// No title, no items, no guard: nothing for a renderer to draw.
    public var isEmpty: Bool { title.isEmpty && items.isEmpty && !guarded }

    /// The same content with every item's section written out: an item that names none is in
    /// the section of the item before it, so that a section keeps its name on every item
    /// whatever order a reorder leaves them in.
    public var withSectionsWrittenOut: SheetContent {
        var content = self
        var section = ""
        for index in content.items.indices {
            if content.items[index].section.isEmpty { content.items[index].section = section } else { section = content.items[index].section }
        }
        return content
    }

    /// The limits every boundary holds content to (the wire, files, the configuration).
    public enum Limits {
        /// Bytes of UTF-8 in the title.
        public static let titleBytes = 256
        public static let items = 1024
        /// Bytes of UTF-8 in an item's id: 1 to 64.
        public static let idBytes = 64
        /// Bytes of UTF-8 in an item's label, and in its second line.
        public static let labelBytes = 256
        public static let subtitleBytes = 256
        /// Bytes of an icon's name (`SheetItem.isIconName`).
        public static let iconBytes = 64
        /// Bytes of UTF-8 in a `value` accessory's text, and in a section's name.
        public static let valueBytes = 64
        public static let sectionBytes = 128
        /// A language tag: 35 bytes, the longest tag RFC 5646 asks every implementation to take.
        public static let languageBytes = 35
    }

    /// Whether `tag` has the shape of a BCP 47 language tag: subtags of 1 to 8 ASCII letters
    /// and digits joined by `-`, the first 2 to 8 letters, at most `Limits.languageBytes`.
    public static func isLanguageTag(_ tag: String) -> Bool {
        let bytes = Array(tag.utf8)
        guard !bytes.isEmpty, bytes.count <= Limits.languageBytes else { return false }
        let subtags = bytes.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        func letter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        guard let first = subtags.first, (2...8).contains(first.count), first.allSatisfy(letter) else { return false }
        return subtags.allSatisfy { subtag in
            (1...8).contains(subtag.count) && subtag.allSatisfy { letter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }
        }
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
        if !language.isEmpty, !Self.isLanguageTag(language) {
            return ContentProblem(field: "lang", index: nil,
                                  reason: "not a language tag (such as ko or pt-BR: letters and digits in subtags joined by -, at most \(Limits.languageBytes) bytes)")
        }
        var seen: [String: Int] = [:]
        seen.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            let idBytes = item.id.utf8.count
            if idBytes == 0 { return ContentProblem(field: "items.id", index: index, reason: "empty") }
            if idBytes > Limits.idBytes {
                return ContentProblem(field: "items.id", index: index, reason: "longer than \(Limits.idBytes) bytes")
            }
            if item.id == "close" {
                // The state's `focus` names the close button so.
                return ContentProblem(field: "items.id", index: index, reason: "\"close\" is the close button's name in the state's focus")
            }
            if let first = seen[item.id] {
                return ContentProblem(field: "items.id", index: index, reason: "the same as item \(first)'s")
            }
            seen[item.id] = index
            if item.label.utf8.count > Limits.labelBytes {
                return ContentProblem(field: "items.label", index: index, reason: "longer than \(Limits.labelBytes) bytes")
            }
            if item.subtitle.utf8.count > Limits.subtitleBytes {
                return ContentProblem(field: "items.subtitle", index: index, reason: "longer than \(Limits.subtitleBytes) bytes")
            }
            if !item.icon.isEmpty, !SheetItem.isIconName(item.icon) {
                return ContentProblem(field: "items.icon", index: index,
                                      reason: "not an icon name (1 to \(Limits.iconBytes) bytes of letters, digits, -, _ and ., not starting with a dot; never a path)")
            }
            if case .value(let text) = item.accessory, text.utf8.count > Limits.valueBytes {
                return ContentProblem(field: "items.value", index: index, reason: "longer than \(Limits.valueBytes) bytes")
            }
            if item.section.utf8.count > Limits.sectionBytes {
                return ContentProblem(field: "items.section", index: index, reason: "longer than \(Limits.sectionBytes) bytes")
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
    public var language: String?

    public init(title: String? = nil, items: [SheetItem]? = nil, guarded: Bool? = nil, language: String? = nil) {
        self.title = title
        self.items = items
        self.guarded = guarded
        self.language = language
    }

    /// Every field given.
    public init(_ content: SheetContent) {
        self.init(title: content.title, items: content.items, guarded: content.guarded, language: content.language)
    }

    /// The first limit a given field breaks (each field's limits stand alone, so the change
    /// applied to any valid content is valid).
    public func problem() -> ContentProblem? {
        SheetContent(title: title ?? "", items: items ?? [], language: language ?? "").problem()
    }

    public func applied(to content: SheetContent) -> SheetContent {
        SheetContent(title: title ?? content.title, items: items ?? content.items, guarded: guarded ?? content.guarded,
                     language: language ?? content.language)
    }
}

/// Why content was refused: the field, the item's index when it is an item's, and the reason.
/// Example: `items[3].id: the same as item 1's`.
public struct ContentProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// `title`, `items`, `items.id`, `items.label`, `items.subtitle`, `items.icon`,
    /// `items.accessory`, `items.on`, `items.value`, `items.disabled`, `items.section`, `guarded`;
    /// an appearance's `theme`, `accent`, `font`, `textScale`, `card`, `dim`, `cornerRadius`.
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
    /// A tap on the close button, or a key that activates it.
    case closeButton
    /// A key mapped to `back` (Escape, `KEY_BACK`).
    case back

    public var name: StaticString {
        switch self {
        case .swipeDown: return "swipe-down"
        case .drag: return "drag"
        case .dimTap: return "dim-tap"
        case .closeButton: return "close-button"
        case .back: return "back"
        }
    }
}

/// What the content tells its client, in the order it happened. Items are named by their
/// index in `SheetContent.items`; the list's order is given in the same indices.
public enum ContentEvent: Sendable, Equatable, BitwiseCopyable {
    case itemTapped(item: Int)
    /// A tap flipped the item's toggle; it is `isOn` now (`SheetContent.items` says so too).
    case itemToggled(item: Int, isOn: Bool)
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
    /// The sheet left its floor (hidden or the bar) for a detent above it.
    case presented(PresentCause)

    /// Which event it is, without its numbers: what a reader of the socket matches on.
    public enum Kind: UInt8, Sendable, BitwiseCopyable, Named {
        case itemTapped, itemToggled, reorderBegan, reorderMoved, reorderEnded, dismissAttempted, presented

        public var name: StaticString {
            switch self {
            case .itemTapped: return "item-tapped"
            case .itemToggled: return "item-toggled"
            case .reorderBegan: return "reorder-began"
            case .reorderMoved: return "reorder-moved"
            case .reorderEnded: return "reorder-ended"
            case .dismissAttempted: return "dismiss-attempted"
            case .presented: return "presented"
            }
        }
    }

    public var kind: Kind {
        switch self {
        case .itemTapped: return .itemTapped
        case .itemToggled: return .itemToggled
        case .reorderBegan: return .reorderBegan
        case .reorderMoved: return .reorderMoved
        case .reorderEnded: return .reorderEnded
        case .dismissAttempted: return .dismissAttempted
        case .presented: return .presented
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
