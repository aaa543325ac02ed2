/// A panel's seat, as logind and udev name it (`ID_SEAT`; a device without the property is
/// seat0's): one daemon per seat reads that seat's input devices and has sockets of its own,
/// which its clients find by the seat's name. seat0 keeps the paths a single panel always had.
public struct Seat: Sendable, Equatable, CustomStringConvertible {
    public let name: String

    /// The seat of every device no rule gave another.
    public static let main = Seat(checked: "seat0")
    /// Where the daemons' sockets live.
    public static let runtimeDirectory = "/run/sheetd"

    /// A seat named as logind names them: `seat` and then letters, digits, `-` and `_` (at
    /// most 64 bytes: a socket's path is short); nil for anything else.
    public init?(_ name: String) {
        guard name.hasPrefix("seat"), (5...64).contains(name.utf8.count),
              name.utf8.allSatisfy({ Self.allowed($0) }) else { return nil }
        self.name = name
    }

    private init(checked name: String) { self.name = name }

    private static func allowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }

    /// Why `name` is not a seat's name, for an error that names the setting.
    public static let rule = "a seat's name: `seat`, then letters, digits, - or _ (seat0, seat1, seat-rear), at most 64 bytes"

    /// The folder of its sockets: /run/sheetd for seat0, /run/sheetd/NAME for another.
    public var socketDirectory: String { self == .main ? Self.runtimeDirectory : "\(Self.runtimeDirectory)/\(name)" }
    /// `io.sheetd.Sheet` in its folder; `io.sheetd.Input` is beside it.
    public var socketPath: String { "\(socketDirectory)/io.sheetd.Sheet" }
    public var inputSocketPath: String { InputInterface.socketPath(besideSocket: socketPath) }

    public var description: String { name }

    /// The seat of a device by its udev property `ID_SEAT`: seat0 without it. A value that is
    /// not a seat's name (a rule's typo) is nil with the reason: libinput puts the device on a
    /// seat of that name, which no daemon (and no logind) can have.
    public static func of(udevSeat value: String?) -> (seat: Seat?, problem: String?) {
        guard let value, !value.isEmpty else { return (.main, nil) }
        guard let seat = Seat(value) else { return (nil, "ID_SEAT=\(value) is not \(rule): no sheetd reads it") }
        return (seat, nil)
    }
}
