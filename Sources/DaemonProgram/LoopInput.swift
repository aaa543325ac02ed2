import Logging
import SheetConfig
import SheetCore
import SheetInput
import SheetProtocol
import Synchronization

/// Where the loop's touches come from: libinput's devices or a recording (`--input`), and the
/// devices programs feed over `io.sheetd.Input`; the list of all of them, as `ListDevices`
/// reports it on the server's thread.
final class LoopInput: @unchecked Sendable {
    enum Source {
        case live(LibinputInput)
        case recording(RecordingPlayer)
        case none
    }

    let source: Source
    /// Devices that programs feed over `io.sheetd.Input`.
    let plugins: PluginInput
    /// The seat's own touchscreens held back while a plugin device forwards a compositor's
    /// touches: one touch, read once.
    private(set) var seatGate = SeatTouchGate()
    private let logger: Logger
    private let deviceList = Mutex<[InputDevice]>([])
    /// Fed devices that have closed, with the frames they sent, the newest last: at most
    /// `closedKept`, the older ones summed into the first entry.
    private var closed: [DeviceFrames] = []
    static let closedKept = 32

    init(_ spec: InputSpec, screen: ScreenSize, keys: KeyReading, output: String? = nil, logger: Logger) throws {
        self.logger = logger
        plugins = PluginInput(screen: screen)
        source = switch spec {
        case .udev(let seat): .live(try LibinputInput(mode: .udev(seat: seat), keyReading: keys, output: output, logger: logger))
        case .paths(let nodes): .live(try LibinputInput(mode: .paths(nodes), keyReading: keys, output: output, logger: logger))
        case .replay(let path, let speed):
            .recording(RecordingPlayer(try RecordedInput(path: path, screen: screen), speed: speed, logger: logger))
        case .none: .none
        }
    }

    var devices: [InputDevice] { deviceList.withLock { $0 } }

    /// The recording played as input, if it is one.
    var recording: RecordingPlayer? {
        guard case .recording(let player) = source else { return nil }
        return player
    }

    /// Frames each device sent (`GetStats`): libinput's or the recording's, then the plugins'.
    var framesRead: [DeviceFrames] {
        let own: [DeviceFrames] = switch source {
        case .live(let input): input.framesRead
        case .recording(let player): player.framesReadByDevice
        case .none: []
        }
        return own + closed + plugins.framesRead
    }

    /// Keeps the frame counts of the fed devices that `change` closes.
    private func keepingCounts<Result>(_ change: () -> Result) -> Result {
        guard !plugins.isEmpty else { return change() }
        let before = plugins.framesRead
        let result = change()
        let open = Set(plugins.framesRead.map(\.node))
        for device in before where !open.contains(device.node) {
            closed.append(device)
            if closed.count > Self.closedKept {
                let frames = closed[0].frames + closed[1].frames
                closed.removeFirst(2)
                closed.insert(DeviceFrames(node: "plugin:closed", name: "devices closed earlier", frames: frames), at: 0)
            }
        }
        return result
    }

    /// libinput's descriptor, for the loop to wait on.
    var fileDescriptor: Int32? {
        guard case .live(let input) = source else { return nil }
        return input.fileDescriptor
    }

    /// Makes the device list again; true when it changed.
    @discardableResult
    func refreshDevices() -> Bool {
        var list: [InputDevice] = switch source {
        case .live(let input): input.devices
        case .recording(let player): player.input.devices
        case .none: []
        }
        if seatGate.isForwarded, let forwarder = plugins.compositorForwarder {
            for index in list.indices where list[index].used && list[index].kind == .touchscreen {
                list[index].used = false
                list[index].reason = "left to the compositor: \(forwarder.node) \"\(forwarder.name)\" (pid \(forwarder.pid)) forwards the touches that reach the sheet"
            }
        }
        if !plugins.isEmpty { list += plugins.reports }
        return deviceList.withLock { old -> Bool in
            defer { old = list }
            return old != list
        }
    }

    /// Moves the keys libinput read and programs fed into `keys` (libinput's first); true
    /// when a key device went away meanwhile.
    func takeKeys(into keys: inout [KeyEvent]) -> Bool {
        var lost = false
        if case .live(let input) = source { lost = input.takeKeys(into: &keys) } else { keys.removeAll(keepingCapacity: true) }
        if plugins.isEmpty, !pluginKeysPending { return lost }
        pluginKeysPending = false
        var fed = pluginKeys
        defer { pluginKeys = fed }
        if plugins.takeKeys(into: &fed) { lost = true }
        keys.append(contentsOf: fed)
        return lost
    }

    /// The plugins' keys, taken through this buffer (kept, so that taking them allocates nothing).
    private var pluginKeys: [KeyEvent] = []
    /// A key device of a plugin closed, or keys came, since the loop last took them.
    private var pluginKeysPending = false

    /// Reads libinput's events into `frames`; true when devices came or went with them.
    func dispatchLive(screen: ScreenSize, into frames: inout TouchFrameBatch) -> Bool {
        guard case .live(let input) = source else { return false }
        // Devices come and go in the same dispatch as touches, rarely.
        return input.dispatch(screen: screen, into: &frames)
    }

    /// Whether headphones are plugged, when a headphone switch changed since the last call.
    func takeHeadphones() -> Bool? {
        guard case .live(let input) = source else { return nil }
        return input.takeHeadphones()
    }

    /// Judges libinput's key devices again by `reading` (a reload); true when they were
    /// opened again, touches down cancelled into `frames`.
    func judgeKeysAgain(by reading: KeyReading, screen: ScreenSize, into frames: inout TouchFrameBatch) -> Bool {
        guard case .live(let input) = source else { return false }
        return input.judgeKeysAgain(by: reading, screen: screen, into: &frames)
    }

    /// An input call: a device opened or closed, a frame checked and decoded into `frames`.
    func perform(_ call: LoopInbox.InputCall, into frames: inout TouchFrameBatch) -> InputResult {
        let result: InputResult
        if case .keys = call.request { pluginKeysPending = true }
        if case .close = call.request { pluginKeysPending = true }
        if case .frame = call.request {
            result = plugins.perform(call.request, owner: call.connection, pid: call.peer.pid, uid: call.peer.uid,
                                     now: LibinputInput.monotonicNow(), into: &frames)
        } else {
            result = keepingCounts {
                plugins.perform(call.request, owner: call.connection, pid: call.peer.pid, uid: call.peer.uid,
                                now: LibinputInput.monotonicNow(), into: &frames)
            }
        }
        switch (call.request, result) {
        case (.open(let declaration), .opened(let id)):
            logger.notice("input: device \(id) \"\(declaration.name)\", a \(declaration.kind.name) with \(declaration.slots) slot(s), opened by \(call.peer)")
        case (.openKeys(let name, _), .opened(let id)):
            logger.notice("input: device \(id) \"\(name)\", keys, opened by \(call.peer)")
        case (.close(let device), .done):
            logger.notice("input: device \(device) closed by \(call.peer)")
        default:
            break
        }
        return result
    }

    /// Whether the seat's `frame` (libinput's, a recording's) reaches the engine (`SeatTouchGate`).
    /// Whether the gate lets every seat frame through now (no forwarder, no finger held).
    var seatPassesAll: Bool { seatGate.passesAll }
    func admitsSeat(_ frame: inout TouchFrame) -> Bool { seatGate.admit(&frame) }

    /// Follows the plugin devices: forwarding a compositor's touches begun or ended. Nil when
    /// nothing changed; else what did, and whether the seat's fingers down are to be cancelled.
    func followForwarding(seatFingersDown: UInt64) -> (forwarder: (node: String, name: String, pid: Int32)?, cancel: Bool)? {
        let forwarder = plugins.compositorForwarder
        guard (forwarder != nil) != seatGate.isForwarded else { return nil }
        let cancel = seatGate.setForwarded(forwarder != nil, seatFingersDown: seatFingersDown)
        return (forwarder, cancel)
    }

    /// Closes the devices of connections that have gone, their fingers lifted into `frames`.
    func closeDevices(of connections: [UInt64], into frames: inout TouchFrameBatch) {
        pluginKeysPending = true
        let now = LibinputInput.monotonicNow()
        for connection in connections {
            let count = keepingCounts { plugins.closeAll(owner: connection, now: now, into: &frames) }
            if count > 0 { logger.notice("input: \(count) device(s) of a connection that went away closed") }
        }
    }
}
