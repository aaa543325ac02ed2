#if canImport(Glibc)
import Glibc
#endif

/// Bytes on their way out: a growing buffer that flushes to a file descriptor past 64 KiB,
/// or that keeps everything when it has none (tests).
public final class OutputBuffer {
    public private(set) var bytes: [UInt8] = []
    private let descriptor: Int32?
    private static let flushThreshold = 64 * 1024

    /// Output to standard output.
    public static func standardOutput() -> OutputBuffer { OutputBuffer(descriptor: 1) }

    public init(descriptor: Int32? = nil) {
        self.descriptor = descriptor
        bytes.reserveCapacity(Self.flushThreshold + 4096)
    }

    deinit { try? flush() }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    @inline(__always)
    func append(_ byte: UInt8) { bytes.append(byte) }

    func append(_ string: StaticString) {
        string.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    func append(_ string: String) {
        var copy = string
        copy.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Ends a line and flushes if the buffer is full.
    func endLine() throws {
        bytes.append(0x0A)
        if descriptor != nil, bytes.count >= Self.flushThreshold { try flush() }
    }

    public func flush() throws {
        guard let descriptor, !bytes.isEmpty else { return }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                bytes.removeAll(keepingCapacity: true)
                throw OutputError(reason: reason)
            }
            offset += written
        }
        bytes.removeAll(keepingCapacity: true)
    }

    // MARK: Numbers, deterministic and allocation-free

    /// Writes `value` rounded to `decimals` places, without trailing zeros (`12.5`, `-3`, `0`).
    func append(_ value: Double, decimals: Int) {
        guard value.isFinite else { append("null"); return }
        var power: Double = 1
        for _ in 0..<decimals { power *= 10 }
        var scaled = (abs(value) * power).rounded()
        if scaled >= 9.0e15 { scaled = 9.0e15 }
        let units = Int64(scaled)
        if units == 0 { append(UInt8(ascii: "0")); return }
        if value < 0 { append(UInt8(ascii: "-")) }
        var divisor: Int64 = 1
        for _ in 0..<decimals { divisor *= 10 }
        appendInteger(units / divisor)
        var fraction = units % divisor
        guard fraction != 0 else { return }
        var places = decimals
        while fraction % 10 == 0 { fraction /= 10; places -= 1 }
        append(UInt8(ascii: "."))
        var digits: Int64 = 1
        for _ in 1..<max(places, 1) { digits *= 10 }
        while digits > 0 {
            append(UInt8(ascii: "0") + UInt8(fraction / digits % 10))
            digits /= 10
        }
    }

    func appendInteger(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")); appendInteger(-value); return }
        if value >= 10 { appendInteger(value / 10) }
        append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// Seconds with six decimals, always (`0.095573`).
    func appendSeconds(_ microseconds: Int64) {
        if microseconds < 0 { append(UInt8(ascii: "-")); appendSeconds(-microseconds); return }
        appendInteger(microseconds / 1_000_000)
        append(UInt8(ascii: "."))
        var fraction = microseconds % 1_000_000
        var digits: Int64 = 100_000
        while digits > 0 {
            append(UInt8(ascii: "0") + UInt8(fraction / digits))
            fraction %= digits
            digits /= 10
        }
    }

    /// A JSON string literal.
    func appendJSONString(_ string: String) {
        append(UInt8(ascii: "\""))
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": append("\\\"")
            case "\\": append("\\\\")
            case "\n": append("\\n")
            case "\r": append("\\r")
            case "\t": append("\\t")
            default:
                if scalar.value < 0x20 {
                    append("\\u00")
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    append(hex[Int(scalar.value >> 4)])
                    append(hex[Int(scalar.value & 0xF)])
                } else {
                    for byte in String(scalar).utf8 { append(byte) }
                }
            }
        }
        append(UInt8(ascii: "\""))
    }
}

/// Standard output could not be written (a closed pipe, a full disk).
public struct OutputError: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { "cannot write the output: \(reason)" }
}
