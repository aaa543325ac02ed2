/// A value with one fixed name, the one replay output, logs and the socket all use: the core's
/// enums carry their own names, so that no layer above keeps a twin of them.
public protocol Named: CaseIterable {
    var name: StaticString { get }
}

extension Named {
    /// The case called `name`, or nil: how a reader of the socket or of replay output turns a
    /// name back into the value (compared byte for byte, without building a string).
    public init?(name: some StringProtocol) {
        for value in Self.allCases where value.name.withUTF8Buffer({ $0.elementsEqual(name.utf8) }) {
            self = value
            return
        }
        return nil
    }

    /// Every name, for an error that lists what is accepted.
    public static var names: [String] { allCases.map { $0.name.description } }
}
