import SheetCore

/// In tests, a detent's name may be written as a literal (`state.detent == "half"`). The daemon's
/// code has no such conversion: a literal that is not a valid name would trap, and every name
/// there comes through `DetentName.init?(_:)` or the standard ones.
extension DetentName: ExpressibleByStringLiteral {
    public init(stringLiteral text: String) {
        guard let name = DetentName(text) else { preconditionFailure("not a detent name: \(text)") }
        self = name
    }
}
