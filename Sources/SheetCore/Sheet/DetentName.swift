/// A detent's name: 1 to 15 bytes of UTF-8, letters, digits, `-` and `_` (`expanded`, `half`,
/// `peek`). It is held inline, in 16 bytes: the states and transitions the engine emits on
/// every frame name detents, and a name that holds no reference is copied and dropped as bytes
/// (a `String` is retained and released, and one longer than 15 bytes would be allocated where
/// the engine's name becomes a wire state's). The limit keeps every state on the wire small too.
/// Sixteen bytes and not more: the outputs carry two names, and larger outputs were copied by
/// `memcpy` calls that cost more than the retains they saved (sheet-bench).
///
/// Text from outside (a configuration, a client's call, a state read from the socket) becomes a
/// name through `init?(_:)`, which refuses what the rules above do not allow; the characters it
/// allows need no escaping in JSON. Names are compared byte for byte: `café` written with a
/// combining accent is not the `café` written with `é` (a `String` would take them as equal).
public struct DetentName: Hashable, Sendable, CustomStringConvertible, BitwiseCopyable {
    public static let maximumBytes = 15
    /// The rule, as errors say it.
    public static let rule = "1 to \(maximumBytes) bytes of letters, digits, - and _"

    /// The name's bytes, then zeros; the last byte holds the count.
    @usableFromInline var storage: (UInt64, UInt64) = (0, 0)

    /// The name `text`, or nil when it is empty, longer than `maximumBytes` bytes, or holds a
    /// character other than a letter, a digit, `-` or `_`.
    public init?(_ text: some StringProtocol) {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= Self.maximumBytes,
              text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else { return nil }
        withUnsafeMutableBytes(of: &storage) { bytes in
            var index = 0
            for byte in utf8 {
                bytes[index] = byte
                index += 1
            }
            bytes[Self.maximumBytes] = UInt8(index)
        }
    }

    /// The standard detents' names.
    public static let expanded = DetentName("expanded")!
    public static let half = DetentName("half")!
    public static let hidden = DetentName("hidden")!
    /// The bottom bar's detent (`present-gesture: bottom-bar`): where the sheet rests closed.
    public static let collapsed = DetentName("collapsed")!

    /// `hidden` or `collapsed`: a closed sheet's detent, with a bar or without.
    public var isFloor: Bool { self == .hidden || self == .collapsed }

    /// The name's length in bytes.
    public var count: Int {
        withUnsafeBytes(of: storage) { Int($0[Self.maximumBytes]) }
    }

    /// Calls `body` with the name's UTF-8 bytes.
    public func withUTF8<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try withUnsafeBytes(of: storage) { try body(UnsafeRawBufferPointer(rebasing: $0[..<Int($0[Self.maximumBytes])])) }
    }

    /// Stores the name's 16 bytes of storage at `out` (room for 16, which may be unaligned)
    /// and returns how many of them are the name. Inlinable, for the wire, which writes names
    /// into every state.
    @inlinable @inline(__always)
    public func store(to out: UnsafeMutableRawPointer) -> Int {
        out.storeBytes(of: storage.0, as: UInt64.self)
        out.storeBytes(of: storage.1, toByteOffset: 8, as: UInt64.self)
        return Int(out.load(fromByteOffset: Self.maximumBytes, as: UInt8.self))
    }

    public var description: String {
        withUTF8 { String(decoding: $0, as: UTF8.self) }
    }

    public static func == (lhs: DetentName, rhs: DetentName) -> Bool {
        lhs.storage.0 == rhs.storage.0 && lhs.storage.1 == rhs.storage.1
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.0)
        hasher.combine(storage.1)
    }
}
