import SheetCore

/// Turns the kernel events of a device of keys, buttons or a knob into the engine's key events,
/// one `SYN_REPORT` at a time: `EV_KEY` presses and releases (the kernel's repeats are dropped,
/// as libinput drops them: the engine repeats held keys by its own clock), and each step of
/// `REL_DIAL` one way or the other. What a frame held after a `SYN_DROPPED` is dropped with it,
/// and the keys held then are let go (the kernel's state is unknown until the next report).
public struct KeyDecoder: Sendable {
    /// Key events of the frame being read; emptied by the caller once taken.
    public private(set) var events: [KeyEvent] = []
    /// Frames ended (`SYN_REPORT`s).
    public private(set) var framesSeen = 0
    /// Keys down now, so that a drop lets them go.
    private var down: [UInt16] = []
    private var dropping = false

    public init() {
        events.reserveCapacity(16)
        down.reserveCapacity(8)
    }

    /// Feeds one event; true when a frame ended (`events` holds its keys, stamped with its time).
    public mutating func feed(_ event: KernelEvent) -> Bool {
        switch event.type {
        case EventCode.EV_SYN:
            switch event.code {
            case EventCode.SYN_REPORT:
                framesSeen += 1
                if dropping {
                    dropping = false
                    return false
                }
                return true
            case EventCode.SYN_DROPPED:
                dropping = true
                events.removeAll(keepingCapacity: true)
                for code in down { events.append(KeyEvent(time: event.time, input: .key(code), action: .release)) }
                down.removeAll(keepingCapacity: true)
                return true
            default:
                return false
            }
        case _ where dropping:
            return false
        case EventCode.EV_KEY:
            switch event.value {
            case 0:
                // A release goes through even for a key not tracked (past 32 held): a held key
                // must never be left repeating.
                if let index = down.firstIndex(of: event.code) { down.remove(at: index) }
                events.append(KeyEvent(time: event.time, input: .key(event.code), action: .release))
            case 1:
                guard !down.contains(event.code) else { return false }
                if down.count < 32 { down.append(event.code) }
                events.append(KeyEvent(time: event.time, input: .key(event.code), action: .press))
            default:
                break
            }
        case EventCode.EV_REL where event.code == EventCode.REL_DIAL && event.value != 0:
            let steps = min(event.value.magnitude, UInt32(KeyInput.maximumDialSteps))
            for _ in 0..<steps {
                events.append(KeyEvent(time: event.time, input: event.value > 0 ? .dialUp : .dialDown, action: .press))
            }
        default:
            break
        }
        return false
    }

    /// Empties `events`, keeping their storage.
    public mutating func clear() {
        events.removeAll(keepingCapacity: true)
    }
}
