/// A touchscreen that sends something other than it declares, said once per problem:
/// - a position outside the range its axis declares;
/// - a touch while its position axes have never moved, though other axes did (an eGalax
///   controller that declares ABS_X and ABS_Y and sends its positions on ABS_Z and ABS_RX).
/// Either way the decoder clamps the touch to the axis's range, so it lands on the screen,
/// never at negative coordinates.
public struct AxisWarning: Sendable, Equatable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        case outsideRange(value: Int32, minimum: Int32, maximum: Int32)
        /// The axes that moved while the position stood still.
        case neverMoved(movedInstead: [UInt16])
    }

    public var device: String
    /// The position axes concerned.
    public var axes: [UInt16]
    public var problem: Problem

    public var description: String {
        let names = axes.map(EventCode.absName).joined(separator: " and ")
        switch problem {
        case let .outsideRange(value, minimum, maximum):
            return "\"\(device)\": \(names) sent \(value), outside the range \(minimum)…\(maximum) it declares; its touches are clamped to the screen"
        case let .neverMoved(movedInstead):
            let moved = movedInstead.map(EventCode.absName)
            let others = moved.isEmpty ? "" : ", while \(moved.count > 1 ? moved.dropLast().joined(separator: ", ") + " and " + moved.last! : moved[0]) did"
            return "\"\(device)\": a touch began but its position axes \(names) have never moved\(others); its touches sit at the axes' minimum, clamped to the screen (does it send its position on other axes than it declares?)"
        }
    }
}

/// Watches the axes of a touchscreen for `AxisWarning`s, in the decoder's own branches: a
/// position is checked against its range where it is stored, and other axes are noted in the
/// branch that ignores them, so that a well-behaved device pays two comparisons a position.
struct AxisCheck: Sendable {
    let device: String
    let xCode: UInt16, yCode: UInt16
    let x: AbsInfo, y: AbsInfo
    /// One bit per ABS code (0…63) other than the positions that has sent a value.
    private var others: UInt64 = 0
    /// The position axes that have sent a value: bit 0 x, bit 1 y.
    private var positions: UInt8 = 0
    private var warnedX = false, warnedY = false, warnedStill = false
    private(set) var warnings: [AxisWarning] = []

    init(device: DeviceDescription) {
        self.device = device.name
        let axes = device.positionAxes ?? (AbsInfo(minimum: 0, maximum: 0), AbsInfo(minimum: 0, maximum: 0))
        (x, y) = axes
        (xCode, yCode) = device.hasMultitouch ? (EventCode.ABS_MT_POSITION_X, EventCode.ABS_MT_POSITION_Y) : (EventCode.ABS_X, EventCode.ABS_Y)
    }

    /// Both position axes have sent a value.
    var positionSent: Bool { positions == 3 }

    /// An x position as the slot keeps it: held to the axis's range, said once when outside.
    @inline(__always)
    mutating func x(_ value: Int32) -> Int32 {
        positions |= 1
        guard value < x.minimum || value > x.maximum else { return value }
        if !warnedX { warnedX = true; warn(value, x, xCode) }
        return Self.held(value, x)
    }

    @inline(__always)
    mutating func y(_ value: Int32) -> Int32 {
        positions |= 2
        guard value < y.minimum || value > y.maximum else { return value }
        if !warnedY { warnedY = true; warn(value, y, yCode) }
        return Self.held(value, y)
    }

    private mutating func warn(_ value: Int32, _ axis: AbsInfo, _ code: UInt16) {
        warnings.append(AxisWarning(device: device, axes: [code], problem: .outsideRange(value: value, minimum: axis.minimum, maximum: axis.maximum)))
    }

    /// `value` held to the axis's range.
    static func held(_ value: Int32, _ axis: AbsInfo) -> Int32 {
        min(max(value, axis.minimum), max(axis.minimum, axis.maximum))
    }

    /// An axis the decoder does not read sent a value.
    @inline(__always)
    mutating func other(_ code: UInt16) {
        if code < 64 { others |= 1 << UInt64(code) }
    }

    /// A touch began: warns if it has no position of its own.
    mutating func touchBegan() {
        guard !positionSent, !warnedStill else { return }
        warnedStill = true
        var still: [UInt16] = []
        if positions & 1 == 0 { still.append(xCode) }
        if positions & 2 == 0 { still.append(yCode) }
        let bookkeeping: [UInt16] = [EventCode.ABS_MT_SLOT, EventCode.ABS_MT_TRACKING_ID, EventCode.ABS_MT_TOOL_TYPE, EventCode.ABS_X, EventCode.ABS_Y]
        let moved = (0..<UInt16(64)).filter { others & (1 << UInt64($0)) != 0 && !bookkeeping.contains($0) }
        warnings.append(AxisWarning(device: device, axes: still, problem: .neverMoved(movedInstead: moved)))
    }
}
