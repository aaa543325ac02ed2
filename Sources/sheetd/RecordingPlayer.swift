import Logging
import SheetCore
import SheetInput
import SheetProtocol

/// A recording played as the daemon's input (`--input replay:…`): its frames read one ahead, so
/// that the loop knows when the next falls due, and its end told once.
final class RecordingPlayer {
    let input: RecordedInput
    /// Frames per second of recorded time; nil: as fast as possible (`@max`).
    let speed: Double?
    private let logger: Logger
    /// The next recorded frame, read ahead to know when it is due.
    private(set) var next: TouchFrame?
    /// The last frame has been read (or the recording could not be read on).
    private(set) var ended = false
    /// Frames with touches in them handed out so far.
    private(set) var framesRead = 0
    private var endTold = false

    init(_ input: RecordedInput, speed: Double?, logger: Logger) {
        self.input = input
        self.speed = speed
        self.logger = logger
    }

    /// Reads the frame after the one taken; an error ends the recording there.
    func readAhead(screen: ScreenSize) {
        do {
            next = try input.next(screen: screen)
        } catch {
            logger.error("\(error); the replay stops here")
            next = nil
        }
        for warning in input.takeNewAxisWarnings() { logger.warning("\(input.path): \(warning)") }
        if next == nil { ended = true }
    }

    /// The next frame if it is due by `now`, the one after read ahead.
    func take(dueBy now: Timestamp, screen: ScreenSize) -> TouchFrame? {
        guard let frame = next, frame.time <= now else { return nil }
        return taken(frame, screen: screen)
    }

    /// The next frame whenever it is due (`@max`).
    func take(screen: ScreenSize) -> TouchFrame? {
        guard let frame = next else { return nil }
        return taken(frame, screen: screen)
    }

    private func taken(_ frame: TouchFrame, screen: ScreenSize) -> TouchFrame {
        if !frame.isEmpty { framesRead += 1 }
        readAhead(screen: screen)
        return frame
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
