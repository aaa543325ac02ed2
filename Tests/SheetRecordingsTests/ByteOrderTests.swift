import Foundation
import Testing
import SheetCore
@testable import SheetRecordings

/// Recordings are text, and the one place where bytes could be read in the machine's order is
/// an evemu description's bit masks (`P:` and `B:` lines). They are read byte by byte, bit N of
/// a mask in byte N/8 at bit N%8, never as words of the machine, so a recording made on an x86
/// panel names the same codes on an arm64 or a big-endian machine.
@Suite struct ByteOrderTests {
    /// The Atmel panel's EV_ABS line, `B: 03 03 00 00 00 00 80 e0 0a`: a word-wise read on a
    /// big-endian machine would put ABS_X in bit 56 and find no ABS_MT_SLOT.
    @Test func theAtmelPanelsAxesAreItsBytesBitByBit() throws {
        let (_, source) = try readAll(trace("ts-atmel-maxtouch.1-finger-fast-taps.evemu"))
        #expect(source.device.codes[Int(EventCode.EV_ABS)] == [0x00, 0x01, 0x2f, 0x35, 0x36, 0x37, 0x39, 0x3b])
        #expect(source.device.codes[Int(EventCode.EV_KEY)] == [0x14a], "BTN_TOUCH: byte 1 of the sixth EV_KEY line")
        #expect(source.device.properties == [1], "INPUT_PROP_DIRECT")
    }

    /// Every bundled evemu description: the codes the reader reports are the masks' bits as this
    /// test reads them from the file's text, byte by byte.
    @Test func everyBundledDescriptionReadsByteByByte() throws {
        let folder = URL(fileURLWithPath: trace(""))
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".evemu") || $0.hasSuffix(".desc") }.sorted()
        #expect(names.count >= 8)
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            var expected: [Int: Set<Int>] = [:], properties: Set<Int> = [], offsets: [Int: Int] = [:]
            var propertyOffset = 0
            for line in text.split(separator: "\n") where line.hasPrefix("B:") || line.hasPrefix("P:") {
                var bytes = line.dropFirst(2).split(separator: " ").map { Int($0, radix: 16)! }
                let type = line.hasPrefix("B:") ? bytes.removeFirst() : -1
                let offset = type < 0 ? propertyOffset : offsets[type, default: 0]
                for (index, byte) in bytes.enumerated() {
                    for bit in 0..<8 where byte >> bit & 1 == 1 {
                        if type < 0 { properties.insert(offset + index * 8 + bit) } else { expected[type, default: []].insert(offset + index * 8 + bit) }
                    }
                }
                if type < 0 { propertyOffset += bytes.count * 8 } else { offsets[type] = offset + bytes.count * 8 }
            }
            let device = try EvemuReader.readDescription(path: folder.appendingPathComponent(name).path)
            #expect(device.codes.filter { !$0.value.isEmpty } == expected.filter { !$0.value.isEmpty }, "\(name)")
            #expect(device.properties == properties, "\(name)")
        }
    }
}
