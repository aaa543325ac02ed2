import Logging
import SheetCore
import SheetInput
import SheetProtocol

/// A recording played as the daemon's input (`--input replay:…`): its reports read one ahead,
/// so that the loop knows when the next falls due, and its end told once. The report read
/// ahead and the one handed out are two buffers swapped, so that playing allocates nothing.
final class RecordingPlayer {
    let input: RecordedInput
    /// Frames per second of recorded time; nil: as fast as possible (`@max`).
    let speed: Double?
    private let logger: Logger
    /// The next recorded report, read ahead to know when it is due: a touch frame, or keys
    /// at its time.
    private var ahead = TouchFrame(time: .zero)
    private var aheadKeys: [KeyEvent] = []
    /// When the report read ahead is due; nil once there is none.
    private(set) var nextTime: Timestamp?
    /// The last report has been read (or the recording could not be read on).
    private(set) var ended = false
    /// Frames with touches in them handed out so far.
    private(set) var framesRead = 0
    private var endTold = false

    init(_ input: RecordedInput, speed: Double?, logger: Logger) {
        self.input = input
        self.speed = speed
        self.logger = logger
        ahead.contacts.reserveCapacity(16)
        aheadKeys.reserveCapacity(16)
    }

    /// Reads the report after the one taken; an error ends the recording there.
    func readAhead(screen: ScreenSize) {
        do {
            nextTime = try input.next(screen: screen, into: &ahead, keys: &aheadKeys) ? ahead.time : nil
        } catch {
            logger.error("\(error); the replay stops here")
            nextTime = nil
        }
        for warning in input.takeNewAxisWarnings() { logger.warning("\(input.path): \(warning)") }
        if nextTime == nil { ended = true }
    }

    /// The next report into `frame` and `keys` if it is due by `now` (any time when nil, for
    /// `@max`), the one after read ahead; false when none is.
    func take(dueBy now: Timestamp?, screen: ScreenSize, into frame: inout TouchFrame, keys: inout [KeyEvent]) -> Bool {
        guard let time = nextTime, now.map({ time <= $0 }) ?? true else { return false }
        swap(&frame, &ahead)
        swap(&keys, &aheadKeys)
        if !frame.isEmpty { framesRead += 1 }
        readAhead(screen: screen)
        return true
    }

    /// The recording's device and the frames handed out, as `GetStats` reports them.
    var framesReadByDevice: [DeviceFrames] {
        let device = input.devices.first { $0.used }
        return [DeviceFrames(node: device?.node ?? input.path, name: device?.name ?? input.path, frames: framesRead)]
    }

    /// True once, when the recording has ended: its warnings are logged here, and the caller
    /// cancels the fingers still down (as `sheetctl replay` does).
    func takeEnd() -> Bool {
        guard ended, !endTold else { return false }
        endTold = true
        for warning in input.warnings { logger.warning("\(warning)") }
        return true
    }
}
