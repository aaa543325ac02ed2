#if canImport(Glibc)
import Glibc
#endif
import SheetCore
import SheetProtocol

/// Bytes on their way out: a growing buffer that flushes to a file descriptor past 64 KiB,
/// or that keeps everything when it has none (tests).
public final class OutputBuffer {
    private var writer = JSONWriter(capacity: OutputBuffer.flushThreshold + 4096)
    public var bytes: [UInt8] { writer.bytes }
    private let descriptor: Int32?
    private static let flushThreshold = 64 * 1024

    /// Output to standard output.
    public static func standardOutput() -> OutputBuffer { OutputBuffer(descriptor: 1) }

    public init(descriptor: Int32? = nil) {
        self.descriptor = descriptor
    }

    deinit { try? flush() }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    @inline(__always)
    func append(_ byte: UInt8) { writer.append(byte) }

    func append(_ string: StaticString) { writer.append(string) }

    func append(_ string: String) { writer.appendRaw(string) }

    /// A detent's name as it is, for the text lines.
    func appendName(_ name: DetentName) { name.withUTF8 { for byte in $0 { writer.append(byte) } } }

    /// Lets a protocol type write itself into the line.
    func appendWritten(_ body: (inout JSONWriter) -> Void) { body(&writer) }

    /// Ends a line and flushes if the buffer is full.
    func endLine() throws {
        writer.append(0x0A)
        if descriptor != nil, writer.bytes.count >= Self.flushThreshold { try flush() }
    }

    public func flush() throws {
        guard let descriptor, !writer.bytes.isEmpty else { return }
        var offset = 0
        while offset < writer.bytes.count {
            let written = writer.bytes.withUnsafeBytes { raw in
                write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                writer.bytes.removeAll(keepingCapacity: true)
                throw OutputError(reason: reason)
            }
            offset += written
        }
        writer.bytes.removeAll(keepingCapacity: true)
    }

    // MARK: Numbers and strings, deterministic (SheetProtocol's JSONWriter)

    func append(_ value: Double, decimals: Int) { writer.append(value, decimals: decimals) }

    func appendInteger(_ value: Int64) { writer.appendInteger(value) }

    /// Seconds with six decimals, always (`0.095573`).
    func appendSeconds(_ microseconds: Int64) { writer.appendSeconds(microseconds) }

    /// A JSON string literal.
    func appendJSONString(_ string: String) { writer.appendString(string) }

    /// A detent's name as a JSON string.
    func appendJSONName(_ name: DetentName) { writer.appendName(name) }
}

/// Standard output could not be written (a closed pipe, a full disk).
public struct OutputError: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { "cannot write the output: \(reason)" }
}
