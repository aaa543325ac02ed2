/// The picked-up item as it is drawn: its position in the list, how far it is from its slot
/// (points, down positive, the lift's 4 pt shift included), its scale and opacity.
///
/// Items and positions are `UInt16` (a list has at most 1,024) and the look is `Float`, so that
/// a whole `ListSnapshot` is no larger than a `SheetSnapshot`: every engine output is the size
/// of the largest, and each frame copies a few.
public struct LiftedItem: Sendable, Equatable, BitwiseCopyable {
    /// Index into `SheetContent.items`.
    public var item: UInt16
    /// Its slot in the list's current order.
    public var position: UInt16
    public var offsetInPoints: Float
    public var scale: Float
    public var opacity: Float
}

/// An item sliding to its slot after a swap: `offsetInPoints` from the slot, down positive.
public struct MovingItem: Sendable, Equatable, BitwiseCopyable {
    public var item: UInt16
    public var position: UInt16
    public var offsetInPoints: Float

    static let none = MovingItem(item: 0, position: 0, offsetInPoints: 0)
}

/// The items still sliding after swaps: at most four, stored inline (no heap allocation).
/// A fifth swap while four slide lands the oldest at once.
public struct MovingItems: Sendable, Equatable, RandomAccessCollection, BitwiseCopyable {
    public static let capacity = 4
    private var storage = (MovingItem.none, MovingItem.none, MovingItem.none, MovingItem.none)
    private var stored: UInt8 = 0

    public init() {}

    public var startIndex: Int { 0 }
    public var endIndex: Int { Int(stored) }

    public subscript(index: Int) -> MovingItem {
        precondition(index >= 0 && index < count, "index out of range")
        switch index {
        case 0: return storage.0
        case 1: return storage.1
        case 2: return storage.2
        default: return storage.3
        }
    }

    /// Appends; nothing when all four are taken (the machine keeps at most four sliding).
    mutating func append(_ item: MovingItem) {
        switch stored {
        case 0: storage.0 = item
        case 1: storage.1 = item
        case 2: storage.2 = item
        case 3: storage.3 = item
        default: return
        }
        stored += 1
    }

    public static func == (a: MovingItems, b: MovingItems) -> Bool {
        a.count == b.count && a.indices.allSatisfy { a[$0] == b[$0] }
    }
}

/// How the list is drawn now: the scroll offset and every item whose layout differs from rest.
/// Every other item sits in its slot at `othersScale` and full opacity. The order itself is
/// `ListMachine.order`; `revision` counts changes of the content and its order, so a consumer
/// knows when to read them.
public struct ListSnapshot: Sendable, Equatable, BitwiseCopyable {
    /// How far the list is scrolled (points; 0 = first item at the top; past the end while
    /// rubber-banding).
    public var scrollInPoints: Double = 0
    public var revision: UInt32 = 0
    /// Nothing in the list moves: no finger on it, no momentum, no animation.
    public var isSettled = true
    public var othersScale: Float = 1
    public var lifted: LiftedItem?
    public var moving = MovingItems()

    public init() {}
}
