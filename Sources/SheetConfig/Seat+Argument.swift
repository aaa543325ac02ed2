import ArgumentParser
import SheetProtocol

/// `--seat NAME` for the clients (sheetctl, sheet-render): a name that is not a seat's is a
/// usage error that says the rule.
extension Seat: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }

    public static var defaultValueDescription: String { Seat.main.name }
}
