/// A point on the monotonic clock of the input events, in whole microseconds.
///
/// The core never reads a clock: every event carries its `Timestamp`, and the core answers with
/// the next `Timestamp` at which it wants to be woken. Kernel input events are stamped with
/// microsecond resolution (`struct input_event`), so microseconds lose nothing.
/// Example: `Timestamp(microseconds: 1_500_000).seconds == 1.5`.
public struct Timestamp: Comparable, Hashable, Sendable, CustomStringConvertible, BitwiseCopyable {
    public var microseconds: Int64

    public init(microseconds: Int64) {
        self.microseconds = microseconds
    }

    public init(seconds: Double) {
        self.microseconds = Int64((seconds * 1_000_000).rounded())
    }

    public static let zero = Timestamp(microseconds: 0)

    public var seconds: Double { Double(microseconds) / 1_000_000 }

    /// Seconds from `earlier` to `self` (negative when `earlier` is later).
    public func seconds(since earlier: Timestamp) -> Double {
        Double(microseconds - earlier.microseconds) / 1_000_000
    }

    public func adding(microseconds delta: Int64) -> Timestamp {
        Timestamp(microseconds: microseconds + delta)
    }

    public func adding(seconds delta: Double) -> Timestamp {
        Timestamp(microseconds: microseconds + Int64((delta * 1_000_000).rounded()))
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.microseconds < rhs.microseconds
    }

    public var description: String { "\(seconds)s" }
}

extension Optional where Wrapped == Timestamp {
    /// The earlier of two optional deadlines; `nil` means "no deadline".
    @inlinable
    func earliest(_ other: Timestamp?) -> Timestamp? {
        switch (self, other) {
        case (nil, nil): return nil
        case (let a?, nil): return a
        case (nil, let b?): return b
        case (let a?, let b?): return Swift.min(a, b)
        }
    }
}
