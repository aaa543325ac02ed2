import CMtdev
import SheetCore

/// Multitouch protocol A turned into protocol B by libmtdev, the way libinput reads such a
/// device (`DeviceDescription.speaksProtocolA`).
///
/// A protocol-A device sends every contact of a frame anew, each closed by `SYN_MT_REPORT`,
/// with no slot and often no tracking id. mtdev matches the contacts of one frame with those
/// of the last, gives each a slot and a tracking id, and sends only what changed, so the
/// decoder's protocol-B rules apply unchanged. The converter is set up from the recorded
/// description exactly as `mtdev_configure` sets it up from the device node, with its default
/// fuzz (mtdev's signal-to-noise ratios: 250 for positions, 100 for sizes, 10 for the
/// orientation), so a recording or a fed device comes out as libinput sees the device live.
final class ProtocolATranslator: @unchecked Sendable {
    /// The slots libinput gives a protocol-A device (evdev-fallback.c: "10 slots as default").
    /// mtdev itself tracks up to 32 contacts; those past the tenth are not libinput's and are
    /// ignored, as there.
    static let slotCount = 10

    private let converter: UnsafeMutablePointer<mtdev>

    /// Nil when libmtdev cannot allocate its state.
    init?(device: DeviceDescription) {
        guard let converter = mtdev_new() else { return nil }
        guard mtdev_init(converter) == 0 else {
            mtdev_delete(converter)
            return nil
        }
        self.converter = converter
        for code in Int32(0x30)...Int32(0x3a) {  // ABS_MT_TOUCH_MAJOR … ABS_MT_PRESSURE
            guard let axis = device.absinfo[Int(code)] else { continue }
            mtdev_set_mt_event(converter, code, 1)
            mtdev_set_abs_minimum(converter, code, axis.minimum)
            mtdev_set_abs_maximum(converter, code, axis.maximum)
            mtdev_set_abs_fuzz(converter, code, axis.fuzz)
            mtdev_set_abs_resolution(converter, code, axis.resolution)
        }
        converter.pointee.caps.has_mtdata = 1
        if device.absinfo[Int(EventCode.ABS_MT_TRACKING_ID)] == nil {
            mtdev_set_abs_minimum(converter, Int32(EventCode.ABS_MT_TRACKING_ID), 0)
            mtdev_set_abs_maximum(converter, Int32(EventCode.ABS_MT_TRACKING_ID), 65535)
        }
        for (code, ratio) in [(0x35, 250), (0x36, 250), (0x30, 100), (0x31, 100), (0x32, 100), (0x33, 100), (0x34, 10)] {
            let code = Int32(code)
            guard mtdev_has_mt_event(converter, code) != 0, mtdev_get_abs_fuzz(converter, code) == 0 else { continue }
            let span = Int64(mtdev_get_abs_maximum(converter, code)) - Int64(mtdev_get_abs_minimum(converter, code))
            mtdev_set_abs_fuzz(converter, code, Int32(clamping: span / Int64(ratio)))
        }
    }

    deinit { mtdev_close_delete(converter) }

    /// Hands one kernel event to the converter. An event the kernel could not send (a code
    /// past its type's last) is dropped here: libmtdev indexes its tables by code and trusts
    /// it, as it may with a device node.
    func put(_ event: KernelEvent) {
        guard let last = EventCode.maximumCode(ofType: Int(event.type)), Int(event.code) <= last else { return }
        var raw = input_event()
        let seconds = event.time.microseconds >= 0 ? event.time.microseconds / 1_000_000 : (event.time.microseconds + 1) / 1_000_000 - 1
        raw.time.tv_sec = Int(seconds)
        raw.time.tv_usec = Int(event.time.microseconds - seconds * 1_000_000)
        raw.type = event.type
        raw.code = event.code
        raw.value = event.value
        mtdev_put_event(converter, &raw)
    }

    /// The next converted event, or nil when the converter holds none (it releases a frame's
    /// events at its `SYN_REPORT`).
    func next() -> KernelEvent? {
        guard mtdev_empty(converter) == 0 else { return nil }
        var raw = input_event()
        mtdev_get_event(converter, &raw)
        let microseconds = Int64(raw.time.tv_sec).multipliedReportingOverflow(by: 1_000_000)
        let time = microseconds.overflow ? Int64.max : microseconds.partialValue &+ Int64(raw.time.tv_usec)
        return KernelEvent(time: Timestamp(microseconds: time), type: raw.type, code: raw.code, value: raw.value)
    }
}
