/// Up to four values stored inline, so that a published frame carries them without a heap
/// allocation. Example: the neighbours still sliding to their new slots after swaps.
public struct InlineFour<Element: Sendable & Equatable>: Sendable, Equatable, RandomAccessCollection {
    private var storage: (Element?, Element?, Element?, Element?) = (nil, nil, nil, nil)
    public private(set) var count = 0

    public init() {}

    public static var capacity: Int { 4 }
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count, "index out of range")
            switch index {
            case 0: return storage.0!
            case 1: return storage.1!
            case 2: return storage.2!
            default: return storage.3!
            }
        }
        set {
            precondition(index >= 0 && index < count, "index out of range")
            switch index {
            case 0: storage.0 = newValue
            case 1: storage.1 = newValue
            case 2: storage.2 = newValue
            default: storage.3 = newValue
            }
        }
    }

    /// Appends; returns false when all four are taken.
    @discardableResult
    public mutating func append(_ element: Element) -> Bool {
        guard count < 4 else { return false }
        count += 1
        self[count - 1] = element
        return true
    }

    public mutating func remove(at index: Int) {
        precondition(index >= 0 && index < count, "index out of range")
        for i in index..<(count - 1) { self[i] = self[i + 1] }
        switch count - 1 {
        case 0: storage.0 = nil
        case 1: storage.1 = nil
        case 2: storage.2 = nil
        default: storage.3 = nil
        }
        count -= 1
    }

    public mutating func removeAll() {
        storage = (nil, nil, nil, nil)
        count = 0
    }

    public static func == (a: InlineFour, b: InlineFour) -> Bool {
        a.count == b.count && a.indices.allSatisfy { a[$0] == b[$0] }
    }
}

/// The picked-up item as it is drawn: its position in the list, how far it is from its slot
/// (points, down positive, the lift's 4 pt shift included), its scale and opacity.
public struct LiftedItem: Sendable, Equatable {
    /// Index into `SheetContent.items`.
    public var item: Int
    /// Its slot in the list's current order.
    public var position: Int
    public var offsetInPoints: Double
    public var scale: Double
    public var opacity: Double
}

/// An item sliding to its slot after a swap: `offsetInPoints` from the slot, down positive.
public struct MovingItem: Sendable, Equatable {
    public var item: Int
    public var position: Int
    public var offsetInPoints: Double
}

/// How the list is drawn now: the scroll offset and every item whose layout differs from rest.
/// Every other item sits in its slot at `othersScale` and full opacity. The order itself is
/// `ListMachine.order`; `orderRevision` counts its changes, so a consumer knows when to read it.
public struct ListSnapshot: Sendable, Equatable {
    /// How far the list is scrolled (points; 0 = first item at the top; past the end while
    /// rubber-banding).
    public var scrollInPoints: Double = 0
    public var orderRevision: Int = 0
    public var lifted: LiftedItem?
    public var othersScale: Double = 1
    public var moving = InlineFour<MovingItem>()

    public init() {}

    /// Nothing picked up, nothing sliding, every item at scale 1.
    public var isAtRest: Bool { lifted == nil && moving.isEmpty && othersScale == 1 }
}
