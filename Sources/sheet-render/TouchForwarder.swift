#if canImport(Glibc)
import Glibc
#endif
import SheetClient
import SheetCore
import SheetProtocol

/// The compositor's touches, forwarded to the daemon: under Wayland the compositor owns the
/// touchscreen (it routes each touch to the surface under it, in that surface's rotated and
/// scaled frame), so the touches that land on the sheet's surface reach sheetd as a device of
/// `io.sheetd.Input`, in the surface's pixels, which are the screen's that `SetScreen` named.
///
/// The device is opened on the first touch and again when the surface changes size; a daemon
/// that goes away takes it along, and nothing is forwarded until a new touch begins once the
/// daemon is back (a touch it never saw begin is not sent on). Frames are checked as the
/// daemon checks them, so a refusal means a bug here: it is said once, and the device opened
/// afresh at the next touch.
final class TouchForwarder {
    /// Fingers tracked at once (the compositor's touch points, and the pointer as one more).
    static let slots = 10

    private let path: String
    private let log: Log
    private var client: InputClient?
    private var device: Int?
    /// The surface's size the device was declared with, in pixels.
    private var declared: (width: Int, height: Int) = (0, 0)
    /// The size touches are in now.
    var size: (width: Int, height: Int) = (0, 0)
    private var sequence: Int64 = 0
    /// Which slots the daemon holds down (it saw their `down`).
    private var daemonHolds = [Bool](repeating: false, count: slots)
    /// The frame being sent.
    private var sending = PluginContacts()
    private var failureSaid = false

    init(path: String, log: Log) {
        self.path = path
        self.log = log
    }

    /// Sends the contacts that changed in one of the compositor's frames, stamped `time`
    /// (CLOCK_MONOTONIC microseconds).
    func forward(_ contacts: PluginContacts, at time: Int64) {
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
        if device == nil || declared != size {
            guard begins, open() else { return }
            // The device is new: only what begins now is its.
            sending.keep { $0.phase == .down }
        }
        guard let client, let device else { return }
        sequence += 1
        do {
            try client.send(PluginFrame(sequence: sequence, timeInMicroseconds: time, contacts: sending), device: device)
            for contact in sending {
                daemonHolds[contact.slot] = contact.phase == .down || contact.phase == .move
            }
        } catch {
            say("sheet-render: forwarding a touch to \(path) failed (\(error)); forwarding again from the next touch")
            lost()
        }
    }

    /// The daemon restarted (the subscription connected anew): what was open went with it.
    func lost() {
        client = nil
        device = nil
        for slot in daemonHolds.indices { daemonHolds[slot] = false }
    }

    private func open() -> Bool {
        lost()
        guard size.width > 0, size.height > 0 else { return false }
        do {
            let client = try InputClient(path: path)
            let declaration = PluginDevice(name: "wayland touch (sheet-render)", kind: .touchscreen,
                                           x: 0...Double(size.width), y: 0...Double(size.height),
                                           slots: Self.slots, clock: .monotonic)
            device = try client.open(declaration)
            self.client = client
            declared = size
            if failureSaid {
                log.say("sheet-render: forwarding touches to \(path) again")
                failureSaid = false
            }
            return true
        } catch {
            say("sheet-render: cannot forward touches to \(path) (\(error)); the sheet takes no touch until it can")
            return false
        }
    }

    private func say(_ message: String) {
        guard !failureSaid else { return }
        failureSaid = true
        log.say(message)
    }
}
