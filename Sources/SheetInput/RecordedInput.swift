import SheetCore
import SheetProtocol
import SheetRecordings

/// A recording as an input: touch frames in the recording's own time, from zero at its first
/// event, decoded exactly as `sheetctl replay` decodes them. The daemon decides when each frame
/// is due (at the recording's pace, faster, or at once).
public final class RecordedInput {
    public let path: String
    public let source: KernelEventSource
    private var decoder: MultitouchDecoder
    private var frame: TouchFrame
    private var origin: Timestamp?
    private var lastTime = Timestamp.zero
    private var eventsSinceFrame = 0
    private var lastLine = 0
    public private(set) var finished = false

    /// Opens `path` (evemu or `libinput record` YAML); errors name the file and line.
    public init(path: String, descriptionPath: String? = nil, screen: ScreenSize) throws {
        self.path = path
        source = try Recording.open(path, descriptionPath: descriptionPath)
        try Recording.requireTouch(source)
        decoder = MultitouchDecoder(device: source.device, screen: screen)
        frame = TouchFrame(time: .zero, source: decoder.source)
    }

    /// The device the frames come from, and the ones in the file that are not replayed.
    public var devices: [InputDevice] {
        var list = [InputDevice(node: path, name: source.device.name, kind: Self.kind(source.device.kind), used: true,
                                reason: "recording")]
        for device in source.ignoredDevices {
            list.append(InputDevice(node: path, name: device.name, kind: Self.kind(device.kind), used: false,
                                    reason: "recording: only the first touch device is replayed"))
        }
        return list
    }

    static func kind(_ kind: DeviceKind) -> InputDeviceKind {
        switch kind {
        case .touchscreen: .touchscreen
        case .touchpad: .touchpad
        case .keys: .keyboard
        case .other: .other
        }
    }

    /// The next frame, positions in pixels of `screen` (scaled when the screen changed after
    /// the recording was opened), or nil at the end. A frame without contacts is time passing
    /// (the engine advances to it), as in `sheetctl replay`.
    public func next(screen: ScreenSize) throws -> TouchFrame? {
        while !finished {
            guard let event = try source.next() else {
                finished = true
                return nil
            }
            let start = origin ?? event.time
            origin = start
            var rebased = event
            rebased.time = Timestamp(microseconds: max(event.time.microseconds - start.microseconds, lastTime.microseconds))
            lastTime = rebased.time
            lastLine = source.lineNumber
            eventsSinceFrame += 1
            guard decoder.feed(rebased, into: &frame) else { continue }
            eventsSinceFrame = 0
            var out = frame
            frame.removeAll()
            if screen != decoder.screen, out.source == .touchscreen {
                let sx = Double(screen.widthInPixels) / Double(decoder.screen.widthInPixels)
                let sy = Double(screen.heightInPixels) / Double(decoder.screen.heightInPixels)
                for index in out.contacts.indices {
                    out.contacts[index].positionInPixels.x *= sx
                    out.contacts[index].positionInPixels.y *= sy
                }
            }
            return out
        }
        return nil
    }

    /// What the device sent against what it declares (its touches are clamped), met since the
    /// last call: each handed out once.
    public func takeNewAxisWarnings() -> [AxisWarning] { decoder.takeNewAxisWarnings() }

    /// Time of the last event read, from the recording's start.
    public var lastEventTime: Timestamp { lastTime }

    /// What the file got wrong that did not stop the replay (a cut-off end).
    public var warnings: [RecordingWarning] {
        var list = source.warnings
        if finished, eventsSinceFrame > 0 {
            list.append(RecordingWarning(file: path, line: lastLine,
                                         message: "the recording ends in the middle of a frame (no SYN_REPORT after its last \(eventsSinceFrame) event(s)); they were not replayed"))
        }
        return list
    }
}
