#if canImport(Glibc)
import Glibc
#endif
import CDisplay

/// udev's word that a display may have been plugged into or unplugged from one card: the
/// DRM `change` event with `HOTPLUG=1` that the kernel sends when a connector's status
/// changes (what a compositor probes its connectors again on), as udevd passes it on, or one
/// asked for by hand (`udevadm trigger --action=change`, `change` written to the card's
/// `uevent`: `SYNTH_UUID`), after a connector's status was forced through sysfs. Other changes
/// of the card (a lease, content protection) are not. Wrapped once; the drm backend probes its
/// connector when it says so.
final class DisplayHotplug {
    private let udev: OpaquePointer
    private let monitor: OpaquePointer
    /// The card's device number: events of other cards are not its.
    private let card: dev_t
    /// Readable when udev said something of a DRM device.
    let descriptor: Int32

    /// Listens for the card open as `cardDescriptor`; nil (errno says why) when udev cannot
    /// be listened to (no netlink socket: a sandbox without AF_NETLINK, or a private network
    /// namespace, which udev's messages do not reach).
    init?(cardDescriptor: Int32) {
        var status = stat()
        guard fstat(cardDescriptor, &status) == 0, let udev = udev_new() else { return nil }
        guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else {
            udev_unref(udev)
            return nil
        }
        guard udev_monitor_filter_add_match_subsystem_devtype(monitor, "drm", nil) >= 0,
              udev_monitor_enable_receiving(monitor) >= 0 else {
            udev_monitor_unref(monitor)
            udev_unref(udev)
            return nil
        }
        self.udev = udev
        self.monitor = monitor
        card = status.st_rdev
        descriptor = udev_monitor_get_fd(monitor)
    }

    deinit {
        udev_monitor_unref(monitor)
        udev_unref(udev)
    }

    /// Takes what udev said since the last call (its socket does not block); true when this
    /// card changed.
    func take() -> Bool {
        var changed = false
        while let device = udev_monitor_receive_device(monitor) {
            defer { udev_device_unref(device) }
            guard udev_device_get_devnum(device) == card, let action = udev_device_get_action(device),
                  String(cString: action) == "change" else { continue }
            let hotplug = udev_device_get_property_value(device, "HOTPLUG").map { String(cString: $0) == "1" } ?? false
            if hotplug || udev_device_get_property_value(device, "SYNTH_UUID") != nil { changed = true }
        }
        return changed
    }
}
