#if canImport(Glibc)
import Glibc
#endif
import SheetClient
import SheetCore
import SheetProtocol

/// The compositor's touches and keys, forwarded to the daemon: under Wayland the compositor
/// owns the touchscreen and the keyboard (it routes each touch to the surface under it, in that
/// surface's rotated and scaled frame, and each key to the surface it focused), so what reaches
/// the sheet's surface reaches sheetd over `io.sheetd.Input`, on one connection: a touch device
/// in the surface's pixels, which are the screen's that `SetScreen` named, and a device of keys
/// (`OpenKeys`) in the kernel's key codes. Touches keep the compositor's times, on the
/// device's `own` clock (`CompositorClock`): a swipe is as fast as the finger was, however late
/// it is read. Keys are stamped when read (a key's moment only starts its repeat, which a late
/// stamp would hasten).
///
/// The touch device is declared as soon as the surface has a size (`declare`, at each connection
/// to the daemon and each resize) and again when it changes size, the keys' on the first key.
/// It says whose touches it carries (`forwards`): a compositor's, read from the seat's
/// touchscreens, so that the daemon leaves those touchscreens alone while it is open and each
/// touch reaches the sheet once (`SeatTouchGate`); a daemon that goes away takes both along, and nothing is forwarded
/// until a new touch begins or a new key is pressed once the daemon is back (a touch it never
/// saw begin, or a key it never saw pressed, is not sent on). Frames are checked as the daemon
/// checks them, so a refusal (`InvalidFrame`) means a bug here or a limit met: it is said once,
/// the connection and the device stay (a finger whose lift was in the refused frame the daemon
/// cancels). A connection that fails is said once and opened
/// afresh at the next touch or key. No key is ever named in the log.
final class InputForwarder {
    /// Fingers tracked at once (the compositor's touch points, and the pointer as one more).
    static let slots = 10

    private let path: String
    private let log: Log
    private var client: InputClient?
    private var touchDevice: Int?
    private var keysDevice: Int?
    /// The surface's size the touch device was declared with, in pixels.
    private var declared: (width: Int, height: Int) = (0, 0)
    /// The size touches are in now.
    var size: (width: Int, height: Int) = (0, 0)
    private var sequence: Int64 = 0
    /// The compositor's touch times unwrapped.
    private var clock = CompositorClock()
    /// Which slots the daemon holds down (it saw their `down`).
    private var daemonHolds = [Bool](repeating: false, count: slots)
    /// Which keys the daemon holds pressed, by code.
    private var keysHeld = [Bool](repeating: false, count: PluginKeyReport.maximumCode + 1)
    /// The frame being sent.
    private var sending = PluginContacts()
    private var failureSaid = false

    /// Where the touches and keys come from, in the devices' names (`wayland touch (sheet-render)`).
    var source = "wayland"
    /// Whose touches they are: a compositor's that read the seat's touchscreens (a Wayland
    /// surface's; a page's in a browser on this machine), or nil (a page elsewhere).
    var forwards: PluginForwarding? = .compositor

    init(path: String, log: Log) {
        self.path = path
        self.log = log
    }

    /// Sends the contacts that changed in one of the compositor's frames, stamped with the
    /// compositor's time of its latest event (milliseconds, `CompositorClock`).
    func forward(_ contacts: PluginContacts, at compositorTime: UInt32) {
        let time = clock.advance(to: compositorTime, now: monotonicMicroseconds())
        sending.removeAll()
        var begins = false
        for var contact in contacts where contact.slot >= 0 && contact.slot < Self.slots {
            // A touch the daemon did not see begin (it was away, or the device was reopened)
            // is not its; only a new one is.
            guard contact.phase == .down || daemonHolds[contact.slot] else { continue }
            if contact.phase == .down { begins = true }
            contact.x = min(max(contact.x, 0), Double(max(size.width, 1)))
            contact.y = min(max(contact.y, 0), Double(max(size.height, 1)))
            guard sending.append(contact) else { break }
        }
        guard !sending.isEmpty else { return }
        if touchDevice == nil || declared != size {
            guard begins, openTouch() else { return }
            // The device is new: only what begins now is its.
            sending.keep { $0.phase == .down }
        }
        guard let client, let touchDevice else { return }
        sequence += 1
        do {
            try client.send(PluginFrame(sequence: sequence, timeInMicroseconds: time, contacts: sending), device: touchDevice)
            for contact in sending {
                daemonHolds[contact.slot] = contact.phase == .down || contact.phase == .move
            }
        } catch {
            guard Self.isRefusal(error) else { return failed("forwarding a touch", error) }
            // The daemon refused the frame: the connection and the device stay. A finger the
            // frame lifted the daemon has cancelled (a refusal leaves no finger down).
            say("sheet-render: the daemon refused a forwarded frame (\(error)); forwarding on")
            for contact in sending where contact.phase == .up || contact.phase == .cancel { daemonHolds[contact.slot] = false }
        }
    }

    /// Declares the touch device for a surface of `size` ahead of its first touch (the daemon
    /// then leaves the seat's touchscreens to the compositor from now on); a declaration of
    /// that size made already stands.
    func declare(size: (width: Int, height: Int)) {
        self.size = size
        guard size.width > 0, size.height > 0, touchDevice == nil || declared != size else { return }
        _ = openTouch()
    }

    /// A frame the daemon refused (`InvalidFrame`), as opposed to a connection that failed.
    static func isRefusal(_ error: ClientError) -> Bool {
        if case .remote(let name, _) = error { return name == "io.sheetd.Input.InvalidFrame" }
        return false
    }

    /// Sends a key pressed or released (a kernel key code), stamped `time` (CLOCK_MONOTONIC
    /// microseconds). A release of a key the daemon did not see pressed is dropped.
    func forwardKey(_ code: UInt16, pressed: Bool, at time: Int64) {
        guard Int(code) < keysHeld.count, pressed != keysHeld[Int(code)] else { return }
        if keysDevice == nil { guard pressed, openKeys() else { return } }
        guard let client, let keysDevice else { return }
        sequence += 1
        do {
            try client.send(PluginKeyReport(sequence: sequence, timeInMicroseconds: time,
                                            keys: [.key(code: code, value: pressed ? 1 : 0)]), device: keysDevice)
            keysHeld[Int(code)] = pressed
        } catch {
            failed("forwarding a key", error)
        }
    }

    /// Cancels every touch the daemon holds (where they came from went away: a web page closed
    /// with a finger down), stamped with the touches' last time: no tap, no fling, no finger left down.
    func cancelTouches() {
        cancel(slots: daemonHolds.indices.filter { daemonHolds[$0] }, at: clock.microseconds)
    }

    /// Cancels the touches of `slots` the daemon holds, at `time` (the device's own clock).
    private func cancel(slots: [Int], at time: Int64) {
        guard let client, let touchDevice, !slots.isEmpty else { return }
        var cancels = PluginContacts()
        for slot in slots { _ = cancels.append(PluginContact(slot: slot, phase: .cancel, x: 0, y: 0)) }
        sequence += 1
        do {
            try client.send(PluginFrame(sequence: sequence, timeInMicroseconds: time, contacts: cancels), device: touchDevice)
            for slot in slots { daemonHolds[slot] = false }
        } catch {
            failed("cancelling the touches held", error)
        }
    }

    /// Lets go of every key the daemon holds (the surface lost the keyboard's focus).
    func releaseKeys(at time: Int64) {
        for code in keysHeld.indices where keysHeld[code] { forwardKey(UInt16(code), pressed: false, at: time) }
    }

    /// The daemon restarted (the subscription connected anew): what was open went with it.
    func lost() {
        client = nil
        touchDevice = nil
        keysDevice = nil
        for slot in daemonHolds.indices { daemonHolds[slot] = false }
        for code in keysHeld.indices { keysHeld[code] = false }
    }

    /// The connection, made when there is none.
    private func connection() -> InputClient? {
        if let client { return client }
        do {
            let client = try InputClient(path: path)
            self.client = client
            if failureSaid {
                log.say("sheet-render: forwarding input to \(path) again")
                failureSaid = false
            }
            return client
        } catch {
            say("sheet-render: cannot forward touches and keys to \(path) (\(error)); the sheet takes neither until it can")
            return nil
        }
    }

    /// A touch device of the surface's size, in place of the one declared before. The new one
    /// opens before the old one closes, so that the daemon is never without a device forwarding
    /// the compositor's touches in between (it would read the seat's touchscreens meanwhile).
    private func openTouch() -> Bool {
        guard size.width > 0, size.height > 0, let client = connection() else { return false }
        let old = touchDevice
        do {
            let declaration = PluginDevice(name: "\(source) touch (sheet-render)", kind: .touchscreen,
                                           x: 0...Double(size.width), y: 0...Double(size.height),
                                           slots: Self.slots, clock: .own, forwards: forwards)
            touchDevice = try client.open(declaration)
            declared = size
        } catch {
            failed("opening a touch device", error)
            return false
        }
        if let old {
            // Its fingers are cancelled with it.
            for slot in daemonHolds.indices { daemonHolds[slot] = false }
            do { try client.close(device: old) } catch {
                failed("closing the touch device of the surface's old size", error)
                return false
            }
        }
        return true
    }

    private func openKeys() -> Bool {
        guard let client = connection() else { return false }
        do {
            keysDevice = try client.openKeys(name: "\(source) keyboard (sheet-render)", clock: .monotonic)
            return true
        } catch {
            failed("opening a device of keys", error)
            return false
        }
    }

    /// A call failed: said once, and the connection dropped, so that the next touch or key
    /// starts afresh.
    private func failed(_ what: String, _ error: ClientError) {
        say("sheet-render: \(what) on \(path) failed (\(error)); forwarding again from the next touch or key")
        lost()
    }

    private func say(_ message: String) {
        guard !failureSaid else { return }
        failureSaid = true
        log.say(message)
    }
}
