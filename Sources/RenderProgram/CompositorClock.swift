/// The compositor's input times, made fit for a plugin device on its `own` clock.
///
/// Wayland stamps each touch and pointer event in milliseconds: 32 bits that wrap (every
/// 49.7 days), on a base the protocol leaves open (wlroots and mutter pass libinput's, which is
/// the kernel's CLOCK_MONOTONIC; a virtual pointer's are whatever its client sent). The times are
/// unwrapped into microseconds that never go back, and the daemon maps them onto its monotonic
/// clock keeping their spacing (docs/protocol.md, "the device's own clock"). So a gesture's
/// speed is the finger's, as the compositor read it, and not the moment the renderer got round
/// to reading the socket: a renderer held back for a while reads a swipe's last frames in one
/// go, and stamped on arrival they would make a slow drag a fling.
struct CompositorClock {
    /// A step back larger than this is the compositor's clock set anew (or a device of another
    /// base: a virtual pointer's times are its client's), taken as the time that passed here
    /// since the last event; a smaller one (two devices' events a little out of order) is no
    /// step.
    static let setAnewMilliseconds: Int64 = 1000
    /// The unwrapped time stops at the largest the input socket takes (2^53 µs, 285 years)
    /// rather than run past it (a compositor sending steps of days for a million events).
    static let ceilingMicroseconds: Int64 = 1 << 53

    private var last: (time: UInt32, now: Int64)?
    /// The time of the latest event, in microseconds from the first one; never goes back.
    private(set) var microseconds: Int64 = 0

    /// The compositor's time `time` (milliseconds), read at `now` (CLOCK_MONOTONIC
    /// microseconds), as microseconds on this clock.
    mutating func advance(to time: UInt32, now: Int64) -> Int64 {
        guard let last else {
            self.last = (time, now)
            return microseconds
        }
        let step = Int64(Int32(bitPattern: time &- last.time))
        if step > 0 {
            microseconds = min(microseconds + step * 1000, Self.ceilingMicroseconds)
            self.last = (time, now)
        } else if step < -Self.setAnewMilliseconds {
            microseconds = min(microseconds + max(0, now - last.now), Self.ceilingMicroseconds)
            self.last = (time, now)
        }
        return microseconds
    }
}
