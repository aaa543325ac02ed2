import ArgumentParser
import SheetProtocol

/// `--seat NAME` for the clients (sheetctl, sheet-render): a name that is not a seat's is a
/// usage error.
extension Seat: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}
