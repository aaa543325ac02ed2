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

    /// `,"sheet":…,"stack":[…]`: the members a state (and a replay's sheet line) ends with.
    public func writeFields(to w: inout JSONWriter) {
        w.append(",\"sheet\":")
        if let sheet { w.appendString(sheet) } else { w.append("null") }
        w.append(",\"stack\":[")
        for (index, name) in stack.enumerated() {
            if index > 0 { w.append(UInt8(ascii: ",")) }
            w.appendString(name)
        }
        w.append(UInt8(ascii: "]"))
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

    /// `ListSheets`' object for it.
    public func write(to w: inout JSONWriter) {
        w.append("{\"sheet\":")
        w.appendString(sheet)
        w.append(",\"layer\":\"")
        w.append(layer.name)
        w.append(presented ? "\",\"presented\":true" : "\",\"presented\":false")
        w.append(shown ? ",\"shown\":true,\"pid\":" : ",\"shown\":false,\"pid\":")
        w.appendInteger(Int64(pid))
        w.append(",\"uid\":")
        w.appendInteger(Int64(uid))
        w.append(",\"command\":")
        w.appendString(command)
        w.append(UInt8(ascii: "}"))
    }

    /// One of `ListSheets`' objects, as a client reads it.
    public init(json item: JSONValue) throws(ProtocolError) {
        guard let sheet = item["sheet"]?.stringValue, let layer = item["layer"]?.stringValue.flatMap({ SheetStack.Layer(name: $0) }),
              let presented = item["presented"]?.boolValue, let shown = item["shown"]?.boolValue,
              let pid = item["pid"]?.intValue.flatMap({ Int32(exactly: $0) }), let uid = item["uid"]?.intValue.flatMap({ UInt32(exactly: $0) }),
              let command = item["command"]?.stringValue else {
            throw ProtocolError("ListSheets: a sheet without its sheet, layer, presented, shown, pid, uid or command")
        }
        self.init(sheet: sheet, layer: layer, presented: presented, shown: shown, pid: pid, uid: uid, command: command)
    }
}
