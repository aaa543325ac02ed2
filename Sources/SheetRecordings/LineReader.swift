#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file line by line through one fixed buffer, so that a recording of any size is read
/// in constant memory. A line is handed out as bytes (without its `\n` or `\r\n`) that stay
/// valid only until the next call; a line longer than `maximumLineLength` is an error naming it.
public final class LineReader {
    let path: String
    private var descriptor: Int32
    private let ownsDescriptor: Bool
    let maximumLineLength: Int
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var start = 0
    private var end = 0
    private var atEndOfFile = false
    /// The number of the line last handed out (1-based).
    public private(set) var lineNumber = 0
    /// Whether the last line handed out ended with a newline (false: the file was cut there).
    private(set) var lastLineTerminated = true
    /// Total bytes read so far.
    private(set) var bytesRead = 0

    static let initialCapacity = 256 * 1024
    static let maximumLineLength = 4 * 1024 * 1024

    init(path: String) throws {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            throw RecordingError(file: path, line: nil, reason: "cannot open: \(String(cString: strerror(errno)))")
        }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw RecordingError(file: path, line: nil, reason: "cannot open: Is a directory")
        }
        descriptor = fd
        ownsDescriptor = true
        maximumLineLength = Self.maximumLineLength
        capacity = Self.initialCapacity
        buffer = .allocate(capacity: capacity)
    }

    /// A reader of an open descriptor it does not close (standard input), named `name` in
    /// errors, whose lines may be at most `maximumLineLength` bytes.
    public init(descriptor: Int32, name: String, maximumLineLength: Int) {
        path = name
        self.descriptor = descriptor
        ownsDescriptor = false
        self.maximumLineLength = maximumLineLength
        capacity = min(Self.initialCapacity, maximumLineLength)
        buffer = .allocate(capacity: capacity)
    }

    /// A reader over bytes in memory (for tests and generated recordings).
    init(bytes: [UInt8], name: String) {
        path = name
        descriptor = -1
        ownsDescriptor = false
        maximumLineLength = Self.maximumLineLength
        capacity = max(bytes.count, 1)
        buffer = .allocate(capacity: capacity)
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { buffer.update(from: base, count: bytes.count) }
        }
        end = bytes.count
        bytesRead = bytes.count
        atEndOfFile = true
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
        buffer.deallocate()
    }

    /// Calls `body` with the next line, or returns nil at the end of the file.
    public func nextLine<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) throws -> Result? {
        while true {
            let available = end - start
            if available > 0, let newline = memchr(buffer + start, 0x0A, available) {
                let lineEnd = buffer.distance(to: newline.assumingMemoryBound(to: UInt8.self))
                let lineStart = start
                start = lineEnd + 1
                lineNumber += 1
                lastLineTerminated = true
                var length = lineEnd - lineStart
                if length > 0, buffer[lineStart + length - 1] == 0x0D { length -= 1 }
                return try body(UnsafeBufferPointer(start: buffer + lineStart, count: length))
            }
            if atEndOfFile {
                guard available > 0 else { return nil }
                let lineStart = start
                start = end
                lineNumber += 1
                lastLineTerminated = false
                return try body(UnsafeBufferPointer(start: buffer + lineStart, count: available))
            }
            try refill()
        }
    }

    private func refill() throws {
        // Move the unfinished line to the front, growing the buffer for a long line.
        let pending = end - start
        if start > 0 {
            if pending > 0 { memmove(buffer, buffer + start, pending) }
            start = 0
            end = pending
        }
        if end == capacity {
            guard capacity < maximumLineLength else {
                let limit = maximumLineLength >= 1024 * 1024 ? "\(maximumLineLength / 1024 / 1024) MiB" : "\(maximumLineLength / 1024) KiB"
                throw RecordingError(file: path, line: lineNumber + 1, reason: "line longer than \(limit)")
            }
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: min(capacity * 2, maximumLineLength))
            bigger.update(from: buffer, count: end)
            buffer.deallocate()
            buffer = bigger
            capacity = min(capacity * 2, maximumLineLength)
        }
        guard descriptor >= 0 else {
            atEndOfFile = true
            return
        }
        while true {
            let count = read(descriptor, buffer + end, capacity - end)
            if count < 0 {
                if errno == EINTR { continue }
                throw RecordingError(file: path, line: lineNumber + 1, reason: "read failed: \(String(cString: strerror(errno)))")
            }
            if count == 0 { atEndOfFile = true }
            end += count
            bytesRead += count
            return
        }
    }
}

/// Small byte-level helpers shared by the readers.
enum Bytes {
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let hash: UInt8 = 0x23

    static func isSpace(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    /// The largest event time in seconds that still fits in microseconds (about 285,000 years).
    static let maximumSeconds: Int64 = 9_000_000_000_000

    static func containsNul(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = line.baseAddress, line.count > 0 else { return false }
        return memchr(base, 0, line.count) != nil
    }

    static func hasPrefix(_ line: UnsafeBufferPointer<UInt8>, _ prefix: StaticString, at offset: Int = 0) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard line.count - offset >= count else { return false }
        let bytes = prefix.utf8Start
        for index in 0..<count where line[offset + index] != bytes[index] { return false }
        return true
    }

    /// Index of the first byte at or after `index` that is not a space or tab.
    static func skipSpaces(_ line: UnsafeBufferPointer<UInt8>, from index: Int) -> Int {
        var i = index
        while i < line.count, isSpace(line[i]) { i += 1 }
        return i
    }

    /// Decodes as UTF-8, replacing what is not.
    static func string(_ line: UnsafeBufferPointer<UInt8>, from: Int = 0, to: Int? = nil) -> String {
        let upper = to ?? line.count
        guard from < upper else { return "" }
        return String(decoding: UnsafeBufferPointer(rebasing: line[from..<upper]), as: UTF8.self)
    }

    static func isValidUTF8(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        // Fast path: ASCII.
        var ascii = true
        for byte in line where byte >= 0x80 { ascii = false; break }
        if ascii { return true }
        return String(validating: line, as: UTF8.self) != nil
    }

    /// Parses a decimal integer (optional sign) at `index`; advances `index` past it.
    static func parseDecimal(_ line: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Int64? {
        var i = index
        var negative = false
        if i < line.count, line[i] == 0x2D || line[i] == 0x2B {
            negative = line[i] == 0x2D
            i += 1
        }
        let digitsStart = i
        var value: Int64 = 0
        while i < line.count {
            let digit = line[i] &- 0x30
            guard digit < 10 else { break }
            if value > (Int64.max - Int64(digit)) / 10 { return nil }
            value = value * 10 + Int64(digit)
            i += 1
        }
        guard i > digitsStart else { return nil }
        index = i
        return negative ? -value : value
    }

    /// Parses a hexadecimal integer without prefix at `index`; advances `index` past it.
    static func parseHex(_ line: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Int64? {
        var i = index
        var value: Int64 = 0
        while i < line.count {
            let byte = line[i]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x61...0x66: digit = byte - 0x61 + 10
            case 0x41...0x46: digit = byte - 0x41 + 10
            default: digit = 255
            }
            guard digit < 16 else { break }
            guard value < (1 << 40) else { return nil }
            value = value * 16 + Int64(digit)
            i += 1
        }
        guard i > index else { return nil }
        index = i
        return value
    }
}
