import SheetCore

/// A plugin device's own clock mapped onto the daemon's monotonic one (docs/protocol.md).
///
/// A frame is taken at its own time plus the least delay that frames of the device have taken
/// to arrive lately: the least of the current window's and the one before it (windows of
/// `windowMicroseconds`, by arrival: a stall, when nothing arrives, moves no window on). So
/// frames that a stall held back, arriving together, are as far apart as they were made, and
/// are taken as late as they are; a frame that arrives sooner than any lately lowers the delay;
/// and a clock that runs slow or fast is followed within a window or two (10 % slow: under
/// 50 ms behind), so that in steady use a frame is taken at about its arrival and the engine's
/// deadlines (a long press, a held item) come when they should. A frame is never taken more than
/// `PluginDevice.Limits.clockLagMicroseconds` behind now (the frames after it keep their spacing
/// from there), nor before the frame before it, nor after now.
struct OwnClockMapping {
    static let windowMicroseconds: Int64 = 250_000

    /// The least arrival − time in the current window, and in the one before.
    private var least: Int64?
    private var leastBefore: Int64?
    private var windowStart: Int64 = 0
    private var last: Int64?

    /// The monotonic time of a frame stamped `time` on the device's clock arriving at `now`.
    mutating func map(_ time: Int64, now: Int64) -> Int64 {
        let delay = now - time
        if let current = least, now - windowStart < Self.windowMicroseconds {
            least = min(current, delay)
        } else {
            leastBefore = least
            least = delay
            windowStart = now
        }
        var lately = min(least ?? delay, leastBefore ?? delay)
        let floor = now - PluginDevice.Limits.clockLagMicroseconds
        if time + lately < floor {
            // Held back too long: taken at the floor, and the delay from there on is this one's.
            lately = floor - time
            least = lately
            leastBefore = nil
        }
        var mapped = time + lately
        if let last { mapped = max(mapped, last) }
        mapped = min(mapped, now)
        last = mapped
        return mapped
    }
}
