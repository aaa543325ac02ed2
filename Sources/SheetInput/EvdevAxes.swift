import CLibInput
import SheetRecordings
#if canImport(Glibc)
import Glibc
#endif

/// The position axes of an open evdev node (EVIOCGBIT and EVIOCGABS), as a description the
/// decoder's rules read: `DeviceDescription.positionProblem` says whether the node can place a
/// touch. libinput refuses a zero-width axis with a line of its own; the daemon says it first,
/// naming the device.
enum EvdevAxes {
    static let positionCodes = [EventCode.ABS_X, EventCode.ABS_Y, EventCode.ABS_MT_POSITION_X, EventCode.ABS_MT_POSITION_Y]

    /// The node's position axes and their ranges, or nil when the node does not answer (not
    /// an evdev node).
    static func description(of descriptor: Int32, name: String) -> DeviceDescription? {
        var bits = [UInt](repeating: 0, count: 2)  // ABS_MAX is 0x3f: 64 bits
        let asked = bits.withUnsafeMutableBufferPointer {
            sheetd_evdev_abs_bits(descriptor, $0.baseAddress, UInt32($0.count * MemoryLayout<UInt>.size))
        }
        guard asked >= 0 else { return nil }
        var description = DeviceDescription(name: name)
        var codes = Set<Int>()
        for code in positionCodes where bits[Int(code) / UInt.bitWidth] & (1 << (UInt(code) % UInt(UInt.bitWidth))) != 0 {
            var info = input_absinfo()
            guard sheetd_evdev_abs_info(descriptor, UInt32(code), &info) == 0 else { continue }
            codes.insert(Int(code))
            description.absinfo[Int(code)] = AbsInfo(minimum: info.minimum, maximum: info.maximum, fuzz: info.fuzz,
                                                     flat: info.flat, resolution: info.resolution)
        }
        description.codes[Int(EventCode.EV_ABS)] = codes
        return description
    }
}
