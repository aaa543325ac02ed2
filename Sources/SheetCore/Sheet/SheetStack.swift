/// Which of the sheets programs own is shown: one at a time, the topmost presented sheet of the
/// `system` layer if there is one, else the topmost presented sheet of the `app` layer, else the
/// shared sheet (the one sheet of a daemon no program opened a sheet of, `nil` here). A sheet
/// opened or presented goes to the top of its layer; a sheet dismissed rests, owned, beneath
/// the others until its owner presents it again; a sheet closed, or whose owner went, is gone.
///
/// Pure and small: the daemon keeps one engine per sheet beside it and shows the engine of
/// `shown`. Owners are numbers the caller gives (a program's), never looked at here.
public struct SheetStack: Sendable, Equatable {
    /// A sheet's name on the wire: `sheet-` and a number, never reused while the daemon runs.
    public struct ID: Sendable, Hashable, CustomStringConvertible {
        public let number: Int
        public var description: String { "sheet-\(number)" }

        public init(number: Int) { self.number = number }

        /// The id `text` names, or nil: no sheet could have that name.
        public init?(_ text: some StringProtocol) {
            guard text.hasPrefix("sheet-"), let number = Int(text.dropFirst(6)), number > 0,
                  String(number) == text.dropFirst(6) else { return nil }
            self.number = number
        }
    }

    /// Where a sheet is stacked: a program's (`app`), or the system's, over every app sheet
    /// (a phone shell's prompt, a kiosk's staff overlay).
    public enum Layer: Sendable, Hashable, Named {
        case app
        case system

        public var name: StaticString {
            switch self {
            case .app: "app"
            case .system: "system"
            }
        }
    }

    public struct Entry: Sendable, Equatable {
        public let id: ID
        public let owner: UInt64
        public let layer: Layer
        /// Opened or presented and not dismissed since: it may be shown.
        public fileprivate(set) var presented: Bool
    }

    /// How many sheets there may be, per owner and in all (`TooManySheets`).
    public struct Limits: Sendable, Equatable {
        public var perOwner = 8
        public var all = 64

        public init() {}
    }

    public let limits: Limits
    /// Bottom to top: the app layer's sheets, then the system layer's, each in the order they
    /// were opened or last presented.
    public private(set) var entries: [Entry] = []
    private var opened = 0

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// The sheet shown: the topmost presented one; nil: the shared sheet.
    public var shown: ID? { entries.last { $0.presented }?.id }

    /// The presented sheets, bottom to top, the shown one last (a state's `stack`).
    public var presented: [ID] { entries.filter(\.presented).map(\.id) }

    public func entry(_ id: ID) -> Entry? { entries.first { $0.id == id } }

    /// The sheet of `owner` a call that names none acts on: its topmost, presented or not, but
    /// for those `excluding` names (closing ones, gone to their owner already).
    public func topmost(ownedBy owner: UInt64, excluding: Set<ID> = []) -> ID? {
        entries.last { $0.owner == owner && !excluding.contains($0.id) }?.id
    }

    public func sheets(ownedBy owner: UInt64) -> [ID] { entries.filter { $0.owner == owner }.map(\.id) }

    /// Opens a presented sheet for `owner` at the top of `layer`; nil when a limit would be
    /// passed (`limit(for:)` says which).
    public mutating func open(owner: UInt64, layer: Layer) -> ID? {
        guard limit(for: owner) == nil else { return nil }
        opened += 1
        let id = ID(number: opened)
        place(Entry(id: id, owner: owner, layer: layer, presented: true))
        return id
    }

    /// The limit another sheet of `owner` would pass, or nil.
    public func limit(for owner: UInt64) -> Int? {
        if entries.count >= limits.all { return limits.all }
        if entries.count { $0.owner == owner } >= limits.perOwner { return limits.perOwner }
        return nil
    }

    /// `id` presented again: to the top of its layer.
    public mutating func present(_ id: ID) {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return }
        var entry = entries.remove(at: index)
        entry.presented = true
        place(entry)
    }

    /// `id` dismissed: it rests beneath the presented sheets until presented again.
    public mutating func dismiss(_ id: ID) {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return }
        entries[index].presented = false
    }

    public mutating func close(_ id: ID) {
        entries.removeAll { $0.id == id }
    }

    /// Above every sheet of its layer and below every sheet of a higher one.
    private mutating func place(_ entry: Entry) {
        let above = entries.firstIndex { $0.layer == .system && entry.layer == .app } ?? entries.endIndex
        entries.insert(entry, at: above)
    }
}
