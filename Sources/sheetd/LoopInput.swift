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
    private let logger: Logger
    private let deviceList = Mutex<[InputDevice]>([])
    /// libinput's `devicesRevision` when the device list was last made.
    private var seenDevicesRevision = -1

    init(_ spec: InputSpec, screen: ScreenSize, logger: Logger) throws {
        self.logger = logger
        plugins = PluginInput(screen: screen)
        source = switch spec {
        case .udev(let seat): .live(try LibinputInput(mode: .udev(seat: seat), logger: logger))
        case .paths(let nodes): .live(try LibinputInput(mode: .paths(nodes), logger: logger))
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
        if !plugins.isEmpty { list += plugins.reports }
        return deviceList.withLock { old -> Bool in
            defer { old = list }
            return old != list
        }
    }

    /// Reads libinput's events into `frames`; true when devices came or went with them.
    func dispatchLive(screen: ScreenSize, into frames: inout TouchFrameBatch) -> Bool {
        guard case .live(let input) = source else { return false }
        input.dispatch(screen: screen, into: &frames)
        // Devices come and go in the same dispatch as touches, rarely.
        guard input.devicesRevision != seenDevicesRevision else { return false }
        seenDevicesRevision = input.devicesRevision
        return true
    }

    /// An input call: a device opened or closed, a frame checked and decoded into `frames`.
    func perform(_ call: LoopInbox.InputCall, into frames: inout TouchFrameBatch) -> InputResult {
        let result = plugins.perform(call.request, owner: call.connection, pid: call.peer.pid, uid: call.peer.uid,
                                     now: LibinputInput.monotonicNow(), into: &frames)
        switch (call.request, result) {
        case (.open(let declaration), .opened(let id)):
            logger.notice("input: device \(id) \"\(declaration.name)\", a \(declaration.kind.name) with \(declaration.slots) slot(s), opened by \(call.peer)")
        case (.close(let device), .done):
            logger.notice("input: device \(device) closed by \(call.peer)")
        default:
            break
        }
        return result
    }

    /// Closes the devices of connections that have gone, their fingers lifted into `frames`.
    func closeDevices(of connections: [UInt64], into frames: inout TouchFrameBatch) {
        let now = LibinputInput.monotonicNow()
        for connection in connections {
            let closed = plugins.closeAll(owner: connection, now: now, into: &frames)
            if closed > 0 { logger.notice("input: \(closed) device(s) of a connection that went away closed") }
        }
    }
}
