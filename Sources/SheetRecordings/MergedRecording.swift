import SheetCore

/// A `libinput record` file holding a touch device and keys together (a touchscreen and a
/// keyboard, a panel and its knob), read by one reader for each: their events in the order of
/// their times, the touch device's first where two fall at the same time, each device's own
/// order kept. Both readers stream the same file, so memory does not grow with it.
public final class MergedRecording: KernelEventSource {
    private let touch: LibinputRecordReader
    private let keys: LibinputRecordReader
    /// The next event of each reader, read ahead (nil: that reader has ended).
    private var pending: (touch: KernelEvent?, keys: KernelEvent?)
    private var started = false
    /// The lines of the events read ahead.
    private var lines = (touch: 0, keys: 0)
    public private(set) var lastDevice = 0
    public private(set) var lineNumber = 0

    init(touch: LibinputRecordReader, keys: LibinputRecordReader) {
        self.touch = touch
        self.keys = keys
        pending = (nil, nil)
    }

    public var path: String { touch.path }
    public var device: DeviceDescription { touch.device }
    public var devices: [DeviceDescription] { [touch.device, keys.device] }

    /// The file's other devices, in its order: those neither reader reads.
    public var ignoredDevices: [DeviceDescription] {
        var byIndex: [Int: DeviceDescription] = [:]
        for (index, device) in zip(touch.ignoredIndices, touch.ignoredDevices) where index != keys.deviceIndex { byIndex[index] = device }
        for (index, device) in zip(keys.ignoredIndices, keys.ignoredDevices) where index != touch.deviceIndex { byIndex[index] = device }
        return byIndex.keys.sorted().map { byIndex[$0]! }
    }

    /// Both readers' warnings, each said once.
    public var warnings: [RecordingWarning] {
        var all = touch.warnings
        for warning in keys.warnings where !all.contains(warning) { all.append(warning) }
        return all
    }

    /// How far into the file the reader further on has come.
    public var bytesRead: Int { max(touch.bytesRead, keys.bytesRead) }

    public func next() throws -> KernelEvent? {
        if !started {
            started = true
            pending = (try touch.next(), try keys.next())
            lines = (touch.lineNumber, keys.lineNumber)
        }
        let fromKeys: Bool
        switch pending {
        case (nil, nil): return nil
        case (let a?, let b?): fromKeys = b.time < a.time
        case (nil, _): fromKeys = true
        case (_, nil): fromKeys = false
        }
        if fromKeys {
            let event = pending.keys
            (lastDevice, lineNumber) = (1, lines.keys)
            pending.keys = try keys.next()
            lines.keys = keys.lineNumber
            return event
        }
        let event = pending.touch
        (lastDevice, lineNumber) = (0, lines.touch)
        pending.touch = try touch.next()
        lines.touch = touch.lineNumber
        return event
    }
}
