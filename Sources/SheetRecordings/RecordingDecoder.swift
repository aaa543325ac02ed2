import SheetCore

/// A recording's input decoded as the daemon decodes live input: the touch frames of its touch
/// device (`MultitouchDecoder`) and the presses of its keys (`KeyDecoder`), in the recording's
/// own time from zero at its first event, never going back. The one algorithm behind
/// `sheetctl replay` and `sheetd --input replay:`.
public final class RecordingDecoder {
    public let source: KernelEventSource
    public private(set) var touch: MultitouchDecoder
    private var keys = KeyDecoder()
    /// The touch device's report being gathered; handed out whole.
    private var gathering: TouchFrame
    private var origin: Timestamp?
    /// Time of the last event read, from the recording's start.
    public private(set) var lastTime = Timestamp.zero
    /// The line of the last event read.
    public private(set) var lastLine = 0
    /// Events read since the last whole report: a recording cut short in a report leaves some.
    public private(set) var eventsSinceReport = 0
    /// Which of the source's devices are keys (a keyboard, buttons, a knob).
    private let isKeys: [Bool]

    /// Decodes `source` for `screen`; throws unless it holds a touch device or keys.
    public init(source: KernelEventSource, screen: ScreenSize) throws {
        try Recording.requireTouch(source, orKeys: true)
        self.source = source
        touch = MultitouchDecoder(device: source.device, screen: screen)
        gathering = TouchFrame(time: .zero, source: touch.source)
        gathering.contacts.reserveCapacity(16)
        isKeys = source.devices.map { $0.kind == .keys }
    }

    /// Whole reports of the touch device and of keys so far.
    public var framesSeen: Int { touch.framesSeen + keys.framesSeen }

    /// Reads on to the end of the next report of any device; false at the end of the
    /// recording. A touch device's report is left in `frame` (no contacts: only time passing)
    /// with `keys` empty; a report of keys leaves their presses and releases in `keys` and
    /// `frame` empty at their time. Both are the caller's and emptied here, so that reading
    /// allocates nothing once they have grown.
    public func next(into frame: inout TouchFrame, keys out: inout [KeyEvent]) throws -> Bool {
        out.removeAll(keepingCapacity: true)
        while let event = try source.next() {
            let start = origin ?? event.time
            origin = start
            var rebased = event
            rebased.time = Timestamp(microseconds: max(event.time.microseconds - start.microseconds, lastTime.microseconds))
            lastTime = rebased.time
            lastLine = source.lineNumber
            if isKeys[source.lastDevice] {
                guard keys.feed(rebased) else {
                    eventsSinceReport += 1
                    continue
                }
                eventsSinceReport = 0
                out.append(contentsOf: keys.events)
                keys.clear()
                frame.removeAll()
                frame.time = rebased.time
                return true
            }
            guard touch.feed(rebased, into: &gathering) else {
                eventsSinceReport += 1
                continue
            }
            eventsSinceReport = 0
            swap(&frame, &gathering)
            gathering.removeAll()
            return true
        }
        return false
    }

    /// What the device sent against what it declares, met since the last call.
    public func takeNewAxisWarnings() -> [AxisWarning] { touch.takeNewAxisWarnings() }

    /// What the file got wrong that did not stop the reading, and, once it has ended, the
    /// events of a last report it never finished.
    public func warnings(ended: Bool) -> [RecordingWarning] {
        var list = source.warnings
        if ended, eventsSinceReport > 0 {
            list.append(RecordingWarning(file: source.path, line: lastLine,
                                         message: "the recording ends in the middle of a frame (no SYN_REPORT after its last \(eventsSinceReport) event(s)); they were not replayed"))
        }
        return list
    }
}
