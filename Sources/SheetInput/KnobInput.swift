#if canImport(Glibc)
import Glibc
#endif
import CEvdev
import CLibInput
import Logging
import SheetCore
import SheetProtocol
import SheetRecordings

/// Rotary knobs (`REL_DIAL`, the Griffin PowerMate, the kernel's rotary-encoder) read with
/// libevdev: libinput does not read a knob's turn. The udev seat still finds them (libinput
/// asks to open every node; a knob is taken here instead), and their reports go through
/// `KeyDecoder`, the decoder of key recordings, so a live knob and a recorded one step the
/// focus alike. Their descriptors share an epoll set with libinput's, which the loop waits on
/// in its place once a knob is open. Owned by `LibinputInput`, on the loop's thread.
///
/// Headphone switches (`SW_HEADPHONE_INSERT`: a sound card's jack, a kiosk's headset socket)
/// are read here too, which libinput does not either: whether headphones are plugged turns
/// speech on for `speech: headset`.
final class KnobInput {
    private struct Knob {
        let node: String
        let descriptor: Int32
        let device: OpaquePointer
        var decoder = KeyDecoder()
    }

    private let logger: Logger
    /// The epoll set of libinput's descriptor and the knobs', made with the first knob.
    private(set) var set: Int32 = -1
    private var knobs: [Int32: Knob] = [:]
    private let libinputDescriptor: Int32
    /// What epoll says of libinput's descriptor (a knob's is its descriptor).
    private static let libinputTag = UInt64.max

    init(libinputDescriptor: Int32, logger: Logger) {
        self.libinputDescriptor = libinputDescriptor
        self.logger = logger
    }

    deinit {
        for knob in knobs.values { close(knob) }
        if set >= 0 { Glibc.close(set) }
    }

    var isEmpty: Bool { knobs.isEmpty }

    /// Each headphone switch's state, by node: plugged or not.
    private var switches: [String: Bool] = [:]
    /// A switch changed, came or went since `takeHeadphones`.
    private var switchesChanged = false

    /// Whether headphones are plugged into any switch, when that changed since the last call.
    func takeHeadphones() -> Bool? {
        guard switchesChanged else { return nil }
        switchesChanged = false
        return switches.values.contains(true)
    }

    static let SW_HEADPHONE_INSERT: UInt16 = 0x02
    static let EV_SW: UInt16 = 0x05

    /// Closes every knob (the seat's devices are opened again); their nodes.
    func closeAll() -> [String] {
        let nodes = knobs.values.map(\.node)
        for knob in knobs.values { close(knob) }
        knobs.removeAll()
        if !switches.isEmpty {
            switches.removeAll()
            switchesChanged = true
        }
        return nodes
    }

    /// Opens the knob at `node` on the monotonic clock; false, said in the log, when it cannot.
    func open(node: String) -> Bool {
        let descriptor = Glibc.open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            logger.warning("cannot open the knob \(node): \(String(cString: strerror(errno)))")
            return false
        }
        var device: OpaquePointer?
        let status = libevdev_new_from_fd(descriptor, &device)
        guard status == 0, let device else {
            logger.warning("libevdev cannot read the knob \(node): \(String(cString: strerror(-status)))")
            Glibc.close(descriptor)
            return false
        }
        _ = libevdev_set_clock_id(device, CLOCK_MONOTONIC)
        if set < 0 {
            set = epoll_create1(Int32(EPOLL_CLOEXEC))
            guard set >= 0, watch(libinputDescriptor, tag: Self.libinputTag) else {
                logger.warning("cannot wait on the knob \(node): epoll: \(String(cString: strerror(errno)))")
                libevdev_free(device)
                Glibc.close(descriptor)
                return false
            }
        }
        guard watch(descriptor, tag: UInt64(descriptor)) else {
            logger.warning("cannot wait on the knob \(node): epoll_ctl: \(String(cString: strerror(errno)))")
            libevdev_free(device)
            Glibc.close(descriptor)
            return false
        }
        knobs[descriptor] = Knob(node: node, descriptor: descriptor, device: device)
        if libevdev_has_event_code(device, UInt32(Self.EV_SW), UInt32(Self.SW_HEADPHONE_INSERT)) != 0 {
            switches[node] = libevdev_get_event_value(device, UInt32(Self.EV_SW), UInt32(Self.SW_HEADPHONE_INSERT)) != 0
            switchesChanged = true
        }
        return true
    }

    private func watch(_ descriptor: Int32, tag: UInt64) -> Bool {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = tag
        return epoll_ctl(set, EPOLL_CTL_ADD, descriptor, &event) == 0
    }

    /// Reads every knob that has something, appending the key events of each whole report to
    /// `keys`; the nodes of the knobs that went away (closed here).
    func read(into keys: inout [KeyEvent], limit: Int) -> [String] {
        guard set >= 0 else { return [] }
        var gone: [String] = []
        var events = (epoll_event(), epoll_event(), epoll_event(), epoll_event())
        let count = withUnsafeMutableBytes(of: &events) { raw in
            epoll_wait(set, raw.baseAddress!.assumingMemoryBound(to: epoll_event.self), 4, 0)
        }
        for index in 0..<max(0, Int(count)) {
            let tag = withUnsafeBytes(of: &events) {
                $0.loadUnaligned(fromByteOffset: index * MemoryLayout<epoll_event>.stride, as: epoll_event.self).data.u64
            }
            guard tag != Self.libinputTag, var knob = knobs[Int32(truncatingIfNeeded: tag)] else { continue }
            var event = input_event()
            var flag = LIBEVDEV_READ_FLAG_NORMAL.rawValue
            var open = true
            while true {
                let status = libevdev_next_event(knob.device, flag, &event)
                if status == -EAGAIN {
                    if flag == LIBEVDEV_READ_FLAG_SYNC.rawValue { flag = LIBEVDEV_READ_FLAG_NORMAL.rawValue; continue }
                    break
                }
                if status < 0 {
                    open = false
                    break
                }
                if status == LIBEVDEV_READ_STATUS_SYNC.rawValue, flag == LIBEVDEV_READ_FLAG_NORMAL.rawValue {
                    // Events were lost: the decoder lets held keys go and drops what comes up to
                    // the next report (as a recording's SYN_DROPPED), libevdev's resync included.
                    flag = LIBEVDEV_READ_FLAG_SYNC.rawValue
                }
                if event.type == Self.EV_SW, event.code == Self.SW_HEADPHONE_INSERT {
                    switches[knob.node] = event.value != 0
                    switchesChanged = true
                    continue
                }
                let time = Timestamp(microseconds: Int64(event.time.tv_sec) * 1_000_000 + Int64(event.time.tv_usec))
                if knob.decoder.feed(KernelEvent(time: time, type: event.type, code: event.code, value: event.value)) {
                    // Past the limit a report's presses are dropped, never its releases: a held
                    // key must not repeat for ever.
                    if keys.count + knob.decoder.events.count <= limit {
                        keys.append(contentsOf: knob.decoder.events)
                    } else {
                        keys.append(contentsOf: knob.decoder.events.lazy.filter { $0.action == .release })
                    }
                    knob.decoder.clear()
                }
            }
            if open {
                knobs[knob.descriptor] = knob
            } else {
                gone.append(knob.node)
                if switches.removeValue(forKey: knob.node) != nil { switchesChanged = true }
                close(knob)
                knobs[knob.descriptor] = nil
            }
        }
        return gone
    }

    private func close(_ knob: Knob) {
        if set >= 0 { epoll_ctl(set, EPOLL_CTL_DEL, knob.descriptor, nil) }
        libevdev_free(knob.device)
        Glibc.close(knob.descriptor)
    }
}
