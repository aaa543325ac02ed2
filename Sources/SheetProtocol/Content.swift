import SheetCore

// The content on the wire: `SheetContent` and its events, with items named by their ids.

extension ContentChange {
    /// Reads `SetContent`'s parameters: `title`, `items`, `guarded` and `lang`, each absent or null
    /// when it is to stay. Wrong types and broken limits are a `ContentProblem` naming the
    /// field and the item's index.
    public init(json parameters: JSONValue) throws(ContentProblem) {
        self.init()
        guard case .object = parameters else { throw ContentProblem(field: "parameters", index: nil, reason: "not an object") }
        if let title = parameters["title"], !title.isNull {
            guard let text = title.stringValue else { throw ContentProblem(field: "title", index: nil, reason: "not a string") }
            self.title = text
        }
        if let guarded = parameters["guarded"], !guarded.isNull {
            guard let flag = guarded.boolValue else { throw ContentProblem(field: "guarded", index: nil, reason: "not a boolean") }
            self.guarded = flag
        }
        if let language = parameters["lang"], !language.isNull {
            guard let tag = language.stringValue else { throw ContentProblem(field: "lang", index: nil, reason: "not a string") }
            self.language = tag
        }
        if let items = parameters["items"], !items.isNull {
            guard case .array(let list) = items else { throw ContentProblem(field: "items", index: nil, reason: "not an array") }
            guard list.count <= SheetContent.Limits.items else {
                throw ContentProblem(field: "items", index: nil, reason: "more than \(SheetContent.Limits.items) items")
            }
            var parsed: [SheetItem] = []
            parsed.reserveCapacity(list.count)
            for (index, item) in list.enumerated() {
                parsed.append(try SheetItem(json: item, index: index))
            }
            self.items = parsed
        }
        if let problem = problem() { throw problem }
    }

    /// `SetContent`'s parameters: the fields given.
    public var parameters: [String: JSONValue] {
        var parameters: [String: JSONValue] = [:]
        if let title { parameters["title"] = .string(title) }
        if let guarded { parameters["guarded"] = .bool(guarded) }
        if let language { parameters["lang"] = .string(language) }
        if let items { parameters["items"] = .array(items.map(\.json)) }
        return parameters
    }
}

extension SheetItem {
    /// Reads one item of `SetContent`'s `items` (at `index`, for the error): `id` and `label`,
    /// and each of `subtitle`, `icon`, `accessory` (`toggle` and `check` with `on`, `value`
    /// with `value`), `disabled` and `section` absent or null when the item has none.
    public init(json item: JSONValue, index: Int) throws(ContentProblem) {
        guard case .object = item else { throw ContentProblem(field: "items", index: index, reason: "not an object") }
        func text(_ key: String) throws(ContentProblem) -> String? {
            guard let value = item[key], !value.isNull else { return nil }
            guard let text = value.stringValue else { throw ContentProblem(field: "items.\(key)", index: index, reason: "not a string") }
            return text
        }
        func flag(_ key: String) throws(ContentProblem) -> Bool? {
            guard let value = item[key], !value.isNull else { return nil }
            guard let flag = value.boolValue else { throw ContentProblem(field: "items.\(key)", index: index, reason: "not a boolean") }
            return flag
        }
        guard let id = item["id"]?.stringValue else {
            throw ContentProblem(field: "items.id", index: index, reason: "missing or not a string")
        }
        var accessory: ItemAccessory?
        if let name = try text("accessory") {
            guard let kind = ItemAccessory.Kind(name: name) else {
                throw ContentProblem(field: "items.accessory", index: index,
                                     reason: "not one of \(ItemAccessory.Kind.names.joined(separator: ", "))")
            }
            let on = try flag("on") ?? false
            switch kind {
            case .toggle: accessory = .toggle(isOn: on)
            case .check: accessory = .check(isChecked: on)
            case .chevron: accessory = .chevron
            case .value: accessory = .value(try text("value") ?? "")
            }
        }
        self.init(id: id, label: try text("label") ?? "", subtitle: try text("subtitle") ?? "", icon: try text("icon") ?? "",
                  accessory: accessory, disabled: try flag("disabled") ?? false, section: try text("section") ?? "")
    }

    /// The fields it has, as `SetContent` takes them.
    public var json: JSONValue {
        var fields: [String: JSONValue] = ["id": .string(id), "label": .string(label)]
        if !subtitle.isEmpty { fields["subtitle"] = .string(subtitle) }
        if !icon.isEmpty { fields["icon"] = .string(icon) }
        if let accessory {
            fields["accessory"] = .string(accessory.kind.name.description)
            switch accessory {
            case .toggle(let on), .check(let on): fields["on"] = .bool(on)
            case .value(let text): fields["value"] = .string(text)
            case .chevron: break
            }
        }
        if disabled { fields["disabled"] = .bool(true) }
        if !section.isEmpty { fields["section"] = .string(section) }
        return .object(fields)
    }

    /// `{"id":…,"label":…}` and, when the item has them, `subtitle`, `icon`, `accessory` with
    /// `on` or `value`, `disabled` and `section`, in that order.
    public func write(to w: inout JSONWriter) {
        w.append("{\"id\":")
        w.appendString(id)
        w.append(",\"label\":")
        w.appendString(label)
        if !subtitle.isEmpty {
            w.append(",\"subtitle\":")
            w.appendString(subtitle)
        }
        if !icon.isEmpty {
            w.append(",\"icon\":")
            w.appendString(icon)
        }
        if let accessory {
            w.append(",\"accessory\":\"")
            w.append(accessory.kind.name)
            w.append(UInt8(ascii: "\""))
            switch accessory {
            case .toggle(let on), .check(let on):
                w.append(",\"on\":")
                w.append(on ? "true" : "false")
            case .value(let text):
                w.append(",\"value\":")
                w.appendString(text)
            case .chevron:
                break
            }
        }
        if disabled { w.append(",\"disabled\":true") }
        if !section.isEmpty {
            w.append(",\"section\":")
            w.appendString(section)
        }
        w.append(UInt8(ascii: "}"))
    }
}

extension SheetContent {
    /// `{"title":…,"items":[{"id":…,"label":…}…],"guarded":…,"lang":…}`, the items in `order`
    /// (positions → indices into `items`; the given order when nil or not a permutation).
    public func write(to w: inout JSONWriter, order: [Int]? = nil) {
        w.append("{\"title\":")
        w.appendString(title)
        w.append(",\"items\":[")
        let positions = order.flatMap { ListMachine.isPermutation($0, of: items.count) ? $0 : nil } ?? Array(items.indices)
        for (position, index) in positions.enumerated() {
            if position > 0 { w.append(UInt8(ascii: ",")) }
            items[index].write(to: &w)
        }
        w.append("],\"guarded\":")
        w.append(guarded ? "true" : "false")
        w.append(",\"lang\":")
        w.appendString(language)
        w.append(UInt8(ascii: "}"))
    }

    /// Reads what `write` wrote (a client's side of `GetContent`).
    public init(json: JSONValue) throws(ProtocolError) {
        do {
            self = try ContentChange(json: json).applied(to: .empty)
        } catch {
            throw ProtocolError("content: \(error)")
        }
    }
}

/// A content event as a client reads it: `{"event":"reorder-moved","item":"wifi","from":2,"to":3}`.
/// Items are named by id; `order` lists ids. The event's kind and a dismissal's cause are the
/// core's types (`ContentEvent.Kind`, `DismissCause`), named on the wire by their `name`.
public struct SheetEvent: Sendable, Equatable, CustomStringConvertible {
    /// `item-tapped`, `reorder-began`, `reorder-moved`, `reorder-ended` or `dismiss-attempted`
    /// on the wire (`event`).
    public var kind: ContentEvent.Kind
    public var item: String?
    public var index: Int?
    public var from: Int?
    public var to: Int?
    public var order: [String]?
    /// For `dismiss-attempted`: `swipe-down`, `drag`, `dim-tap` or `close-button`.
    public var cause: DismissCause?
    /// For `presented`: `edge-swipe`, `bar-tap`, `bar-swipe` or `control` (`cause` on the wire).
    public var presentCause: PresentCause?
    /// For `item-toggled`: the toggle's new value.
    public var on: Bool?
    /// The program's sheet it happened on (`OpenSheet`); nil on the shared sheet.
    public var sheet: String?
    /// On a program's sheet: the revision of the content it happened on (`GetContent`'s and
    /// the states' `list.revision`), so that its program knows which content a tap was on.
    public var revision: Int?

    public init(kind: ContentEvent.Kind, item: String? = nil, index: Int? = nil, from: Int? = nil, to: Int? = nil,
                order: [String]? = nil, cause: DismissCause? = nil, on: Bool? = nil, presentCause: PresentCause? = nil) {
        self.on = on
        self.presentCause = presentCause
        self.kind = kind
        self.item = item
        self.index = index
        self.from = from
        self.to = to
        self.order = order
        self.cause = cause
    }

    /// The core's event, its items named from `content`; a reorder's end names `order`, the
    /// list's order when it ended (`ListMachine.order`).
    public init(_ event: ContentEvent, content: SheetContent, order: [Int]) {
        func id(_ index: Int) -> String? { index >= 0 && index < content.items.count ? content.items[index].id : nil }
        self.init(kind: event.kind)
        switch event {
        case .itemTapped(let item):
            self.item = id(item)
        case .itemToggled(let item, let isOn):
            self.item = id(item)
            self.on = isOn
        case .reorderBegan(let item, let index):
            self.item = id(item)
            self.index = index
        case .reorderMoved(let item, let from, let to):
            self.item = id(item)
            self.from = from
            self.to = to
        case .reorderEnded(let item):
            self.item = id(item)
            self.order = order.compactMap(id)
        case .dismissAttempted(let cause):
            self.cause = cause
        case .presented(let cause):
            presentCause = cause
        }
    }

    public func write(to w: inout JSONWriter) {
        w.append(UInt8(ascii: "{"))
        writeFields(to: &w)
        w.append(UInt8(ascii: "}"))
    }

    /// The members without the braces, for a line that adds its own (`sheetctl replay`).
    public func writeFields(to w: inout JSONWriter) {
        w.append("\"event\":\"")
        w.append(kind.name)
        w.append(UInt8(ascii: "\""))
        if let sheet {
            w.append(",\"sheet\":")
            w.appendString(sheet)
        }
        if let revision {
            w.append(",\"revision\":")
            w.appendInteger(Int64(revision))
        }
        if let item {
            w.append(",\"item\":")
            w.appendString(item)
        }
        if let index {
            w.append(",\"index\":")
            w.appendInteger(Int64(index))
        }
        if let from {
            w.append(",\"from\":")
            w.appendInteger(Int64(from))
        }
        if let to {
            w.append(",\"to\":")
            w.appendInteger(Int64(to))
        }
        if let order {
            w.append(",\"order\":[")
            for (position, id) in order.enumerated() {
                if position > 0 { w.append(UInt8(ascii: ",")) }
                w.appendString(id)
            }
            w.append(UInt8(ascii: "]"))
        }
        if let cause {
            w.append(",\"cause\":\"")
            w.append(cause.name)
            w.append(UInt8(ascii: "\""))
        }
        if let presentCause {
            w.append(",\"cause\":\"")
            w.append(presentCause.name)
            w.append(UInt8(ascii: "\""))
        }
        if let on {
            w.append(",\"on\":")
            w.append(on ? "true" : "false")
        }
    }

    /// For people: `reorder-moved wifi 1 → 2`, `dismiss-attempted dim-tap`.
    public var description: String {
        var text = kind.name.description
        if let item { text += " \(item)" }
        if let index { text += " at \(index)" }
        if let from, let to { text += " \(from) → \(to)" }
        if let order { text += " order \(order.joined(separator: ","))" }
        if let cause { text += " \(cause.name)" }
        if let presentCause { text += " \(presentCause.name)" }
        if let on { text += on ? " on" : " off" }
        return text
    }

    public init(json: JSONValue) throws(ProtocolError) {
        var order: [String]?
        if case .array(let ids)? = json["order"] { order = ids.compactMap(\.stringValue) }
        let kind: ContentEvent.Kind = try named(json, "event")
        var cause: DismissCause?, presentCause: PresentCause?
        if let value = json["cause"], !value.isNull {
            if kind == .presented { presentCause = try named(json, "cause") } else { cause = try named(json, "cause") }
        }
        self.init(kind: kind, item: json["item"]?.stringValue, index: json["index"]?.intValue,
                  from: json["from"]?.intValue, to: json["to"]?.intValue, order: order, cause: cause,
                  on: json["on"]?.boolValue, presentCause: presentCause)
        sheet = json["sheet"]?.stringValue
        revision = json["revision"]?.intValue
    }
}

/// The list as a renderer draws it this frame, in pixels, items by id: where it lies on the
/// card (`titleBarHeight` below the card's top, rows `itemHeight` tall), its scroll, and what
/// is away from rest. `revision` changes with the content and its order: a renderer that
/// applied every `reorder-moved` swap has it already; otherwise `GetContent` says which
/// revision it returns.
public struct ListState: Sendable, Equatable {
    public struct Lifted: Sendable, Equatable {
        public var item: String
        public var index: Int
        public var offsetInPixels: Double
        public var scale: Double
        public var opacity: Double

        public init(item: String, index: Int, offsetInPixels: Double, scale: Double, opacity: Double) {
            self.item = item
            self.index = index
            self.offsetInPixels = offsetInPixels
            self.scale = scale
            self.opacity = opacity
        }
    }

    public struct Moving: Sendable, Equatable {
        public var item: String
        public var index: Int
        public var offsetInPixels: Double

        public init(item: String, index: Int, offsetInPixels: Double) {
            self.item = item
            self.index = index
            self.offsetInPixels = offsetInPixels
        }
    }

    public var titleBarHeightInPixels: Double
    public var itemHeightInPixels: Double
    /// A row with a second line, and a section's header (`ListLayout` places them); a daemon
    /// before them sent neither, and its items had neither.
    public var twoLineItemHeightInPixels: Double
    public var headerHeightInPixels: Double
    public var scrollInPixels: Double
    public var revision: Int
    /// Nothing in the list moves: no finger on it, no momentum, no animation.
    public var isSettled: Bool
    public var lifted: Lifted?
    public var othersScale: Double
    public var moving: [Moving]

    public init(titleBarHeightInPixels: Double, itemHeightInPixels: Double, twoLineItemHeightInPixels: Double? = nil,
                headerHeightInPixels: Double? = nil, scrollInPixels: Double, revision: Int,
                isSettled: Bool = true, lifted: Lifted?, othersScale: Double, moving: [Moving]) {
        self.titleBarHeightInPixels = titleBarHeightInPixels
        self.itemHeightInPixels = itemHeightInPixels
        self.twoLineItemHeightInPixels = twoLineItemHeightInPixels ?? itemHeightInPixels * 72 / 56
        self.headerHeightInPixels = headerHeightInPixels ?? itemHeightInPixels * 48 / 56
        self.scrollInPixels = scrollInPixels
        self.revision = revision
        self.isSettled = isSettled
        self.lifted = lifted
        self.othersScale = othersScale
        self.moving = moving
    }

    /// The core's snapshot laid out by `layout`, in pixels, items named from `content`.
    public init(_ list: ListSnapshot, layout: ListConfiguration, content: SheetContent, scale: Double) {
        func id(_ index: UInt16) -> String { Int(index) < content.items.count ? content.items[Int(index)].id : "" }
        self.init(titleBarHeightInPixels: layout.titleBarHeightInPoints * scale,
                  itemHeightInPixels: layout.itemHeightInPoints * scale,
                  twoLineItemHeightInPixels: layout.twoLineItemHeightInPoints * scale,
                  headerHeightInPixels: layout.sectionHeaderHeightInPoints * scale,
                  scrollInPixels: list.scrollInPoints * scale, revision: Int(list.revision), isSettled: list.isSettled,
                  lifted: list.lifted.map { Lifted(item: id($0.item), index: Int($0.position),
                                                   offsetInPixels: Double($0.offsetInPoints) * scale,
                                                   scale: Double($0.scale), opacity: Double($0.opacity)) },
                  othersScale: Double(list.othersScale),
                  moving: list.moving.map { Moving(item: id($0.item), index: Int($0.position),
                                                   offsetInPixels: Double($0.offsetInPoints) * scale) })
    }

    /// Written as a state is (`JSONCursor`): the fixed fields in one stretch (at most about
    /// 420 bytes: 7 numbers of at most 33 and a count), each item id on the escaping path.
    public func write(to w: inout JSONWriter) {
        w.appendBounded { c in
            c.append("{\"titleBar\":")
            c.append(titleBarHeightInPixels, decimals: 2)
            c.append(",\"itemHeight\":")
            c.append(itemHeightInPixels, decimals: 2)
            c.append(",\"twoLineItemHeight\":")
            c.append(twoLineItemHeightInPixels, decimals: 2)
            c.append(",\"headerHeight\":")
            c.append(headerHeightInPixels, decimals: 2)
            c.append(",\"scroll\":")
            c.append(scrollInPixels, decimals: 2)
            c.append(",\"revision\":")
            c.appendInteger(Int64(revision))
            c.append(",\"settled\":")
            c.append(isSettled)
            c.append(",\"othersScale\":")
            c.append(othersScale, decimals: 4)
            if lifted != nil { c.append(",\"lifted\":{\"item\":") }
        }
        if let lifted {
            w.appendString(lifted.item)
            w.appendBounded { c in
                c.append(",\"index\":")
                c.appendInteger(Int64(lifted.index))
                c.append(",\"offset\":")
                c.append(lifted.offsetInPixels, decimals: 2)
                c.append(",\"scale\":")
                c.append(lifted.scale, decimals: 4)
                c.append(",\"opacity\":")
                c.append(lifted.opacity, decimals: 4)
                c.append(UInt8(ascii: "}"))
            }
        }
        w.append(",\"moving\":[")
        for (position, moving) in self.moving.enumerated() {
            w.append(position > 0 ? ",{\"item\":" : "{\"item\":")
            w.appendString(moving.item)
            w.appendBounded { c in
                c.append(",\"index\":")
                c.appendInteger(Int64(moving.index))
                c.append(",\"offset\":")
                c.append(moving.offsetInPixels, decimals: 2)
                c.append(UInt8(ascii: "}"))
            }
        }
        w.append("]}")
    }

    /// Reads what `write` wrote. Numbers must be finite and counts not negative; what they
    /// mean for a picture (a scale of 100, an offset past the screen) is the renderer's to
    /// clamp.
    public init(json: JSONValue) throws(ProtocolError) {
        func number(_ value: JSONValue?, _ key: String) throws(ProtocolError) -> Double {
            guard let number = value?[key]?.doubleValue, number.isFinite else { throw ProtocolError("list: field \"\(key)\" is not a number") }
            return number
        }
        func integer(_ value: JSONValue?, _ key: String) throws(ProtocolError) -> Int {
            guard let integer = value?[key]?.intValue, integer >= 0 else { throw ProtocolError("list: field \"\(key)\" is not a count") }
            return integer
        }
        var lifted: Lifted?
        if let value = json["lifted"], !value.isNull {
            lifted = Lifted(item: value["item"]?.stringValue ?? "", index: try integer(value, "index"),
                            offsetInPixels: try number(value, "offset"), scale: try number(value, "scale"),
                            opacity: try number(value, "opacity"))
        }
        var moving: [Moving] = []
        if case .array(let list)? = json["moving"] {
            for value in list.prefix(MovingItems.capacity) {
                moving.append(Moving(item: value["item"]?.stringValue ?? "", index: try integer(value, "index"),
                                     offsetInPixels: try number(value, "offset")))
            }
        }
        func optionalNumber(_ key: String) throws(ProtocolError) -> Double? {
            guard let value = json[key], !value.isNull else { return nil }
            return try number(json, key)
        }
        self.init(titleBarHeightInPixels: try number(json, "titleBar"), itemHeightInPixels: try number(json, "itemHeight"),
                  twoLineItemHeightInPixels: try optionalNumber("twoLineItemHeight"),
                  headerHeightInPixels: try optionalNumber("headerHeight"),
                  scrollInPixels: try number(json, "scroll"), revision: try integer(json, "revision"),
                  isSettled: json["settled"]?.boolValue ?? true, lifted: lifted, othersScale: try number(json, "othersScale"), moving: moving)
    }
}
