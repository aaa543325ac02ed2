import SheetCore

/// Which sheet a state is of, and the stack (`OpenSheet`): `sheet` nil for the shared sheet,
/// `stack` the programs' sheets presented, bottom to top, the shown one last.
public struct StackedSheets: Sendable, Equatable {
    public var sheet: String?
    public var stack: [String]

    public init(sheet: String?, stack: [String]) {
        self.sheet = sheet
        self.stack = stack
    }
}

/// A program's sheet as `ListSheets` tells it.
public struct SheetListing: Sendable, Equatable {
    public var sheet: String
    public var layer: SheetStack.Layer
    public var presented: Bool
    public var shown: Bool
    public var pid: Int32
    public var uid: UInt32
    public var command: String

    public init(sheet: String, layer: SheetStack.Layer, presented: Bool, shown: Bool, pid: Int32, uid: UInt32, command: String) {
        (self.sheet, self.layer, self.presented, self.shown) = (sheet, layer, presented, shown)
        (self.pid, self.uid, self.command) = (pid, uid, command)
    }
}
