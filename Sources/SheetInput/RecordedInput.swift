import SheetCore
import SheetProtocol
import SheetRecordings

/// A recording as an input: touch frames and keys in the recording's own time, from zero at its
/// first event, decoded exactly as `sheetctl replay` decodes them (`RecordingDecoder`). The
/// daemon decides when each falls due (at the recording's pace, faster, or at once).
public final class RecordedInput {
    public let path: String
    public let decoder: RecordingDecoder
    public var source: KernelEventSource { decoder.source }
    public private(set) var finished = false

    /// Opens `path` (evemu or `libinput record` YAML); errors name the file and line.
    public init(path: String, descriptionPath: String? = nil, screen: ScreenSize) throws {
        self.path = path
        decoder = try RecordingDecoder(source: try Recording.open(path, descriptionPath: descriptionPath), screen: screen)
    }

    /// The devices the frames and keys come from, and the ones in the file that are not replayed.
    public var devices: [InputDevice] {
        var list = source.devices.map {
            InputDevice(node: path, name: $0.name, kind: Self.kind($0.kind), used: true, reason: "recording")
        }
        for device in source.ignoredDevices {
            list.append(InputDevice(node: path, name: device.name, kind: Self.kind(device.kind), used: false,
                                    reason: "recording: only the first touch device and the first device of keys are replayed"))
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

    /// Reads the next report into `frame` and `keys` (the caller's, emptied here), positions in
    /// pixels of `screen` (scaled when the screen changed after the recording was opened);
    /// false at the end. A frame without contacts and without keys is time passing (the engine
    /// advances to it), as in `sheetctl replay`.
    public func next(screen: ScreenSize, into frame: inout TouchFrame, keys: inout [KeyEvent]) throws -> Bool {
        guard !finished, try decoder.next(into: &frame, keys: &keys) else {
            finished = true
            return false
        }
        let recorded = decoder.touch.screen
        if screen != recorded, frame.source == .touchscreen {
            let sx = Double(screen.widthInPixels) / Double(recorded.widthInPixels)
            let sy = Double(screen.heightInPixels) / Double(recorded.heightInPixels)
            for index in frame.contacts.indices {
                frame.contacts[index].positionInPixels.x *= sx
                frame.contacts[index].positionInPixels.y *= sy
            }
        }
        return true
    }

    /// What the device sent against what it declares (its touches are clamped), met since the
    /// last call: each handed out once.
    public func takeNewAxisWarnings() -> [AxisWarning] { decoder.takeNewAxisWarnings() }

    /// Time of the last event read, from the recording's start.
    public var lastEventTime: Timestamp { decoder.lastTime }

    /// What the file got wrong that did not stop the replay (a cut-off end).
    public var warnings: [RecordingWarning] { decoder.warnings(ended: finished) }
}
