#if canImport(Glibc)
import Glibc
#endif

/// An animated PNG (APNG) of a sequence of scenes, each shown until the next one's time: for a
/// README or a bug report. A frame stores only the band of rows that changed since the frame
/// before (a full-width sub-rectangle drawn over it), so a drag costs a few kilobytes a frame.
/// Viewers without APNG show the first frame. Frames closer than `minimumIntervalMicroseconds`
/// to the last one kept are dropped, except the last, which is held for a second.
public final class AnimatedPNGWriter {
    public let path: String
    public let painter: Painter
    public let minimumIntervalMicroseconds: Int64
    private var canvas: Canvas?
    private var drawn: SheetScene?
    /// Kept frames: the rows stored, their deflated pixels, and when each starts.
    private var frames: [(rows: Range<Int>, data: [UInt8], time: Int64)] = []
    private var pending: (scene: SheetScene, time: Int64)?

    public init(path: String, painter: Painter, framesPerSecond: Int = 30) {
        precondition(framesPerSecond >= 1, "an animation needs at least a frame a second")
        self.path = path
        self.painter = painter
        minimumIntervalMicroseconds = 1_000_000 / Int64(framesPerSecond)
    }

    public var frameCount: Int { frames.count }

    /// The scene at `microseconds` (any clock; only differences count).
    public func frame(_ scene: SheetScene, at microseconds: Int64) {
        if let last = frames.last, microseconds - last.time < minimumIntervalMicroseconds {
            pending = (scene, microseconds)
            return
        }
        add(scene, at: microseconds)
    }

    private func add(_ scene: SheetScene, at microseconds: Int64) {
        pending = nil
        if let canvas, canvas.width != scene.width || canvas.height != scene.height {
            // A new size cannot join the same animation; start it again at that size.
            frames = []
            drawn = nil
        }
        if canvas == nil || drawn == nil { canvas = Canvas(width: scene.width, height: scene.height, format: .xrgb8888) }
        let canvas = canvas!
        let rows = scene.damage(since: drawn)
        if let rows { painter.draw(scene, into: canvas, rows: rows) }
        drawn = scene
        let stored = frames.isEmpty ? 0..<scene.height : (rows ?? 0..<1)
        frames.append((stored, PNG.deflate(rows: 0..<stored.count, width: scene.width, rgb: canvas.rgbBytes(rows: stored)), microseconds))
    }

    /// Writes the file.
    public func finish() throws(PictureError) {
        if let pending { add(pending.scene, at: pending.time) }
        guard let canvas, !frames.isEmpty else { throw PictureError(path: path, reason: "no frames to animate") }
        var file = PNG.signature
        PNG.appendChunk("IHDR", PNG.header(width: canvas.width, height: canvas.height), to: &file)
        var control = [UInt8]()
        control.appendBigEndian(UInt32(frames.count))
        control.appendBigEndian(0)  // play for ever
        PNG.appendChunk("acTL", control, to: &file)
        var sequence: UInt32 = 0
        for (index, frame) in frames.enumerated() {
            let next = index + 1 < frames.count ? frames[index + 1].time : frame.time + 1_000_000
            let milliseconds = UInt16(clamping: max(1, (next - frame.time + 500) / 1000))
            var header = [UInt8]()
            header.appendBigEndian(sequence)
            header.appendBigEndian(UInt32(canvas.width))
            header.appendBigEndian(UInt32(frame.rows.count))
            header.appendBigEndian(0)
            header.appendBigEndian(UInt32(frame.rows.lowerBound))
            header += [UInt8(milliseconds >> 8), UInt8(milliseconds & 0xFF), 0x03, 0xE8]  // delay: ms / 1000
            header += [0, 0]  // leave the frame in place; draw over (opaque pixels replace)
            PNG.appendChunk("fcTL", header, to: &file)
            sequence += 1
            if index == 0 {
                PNG.appendChunk("IDAT", frame.data, to: &file)
            } else {
                var data = [UInt8]()
                data.appendBigEndian(sequence)
                sequence += 1
                PNG.appendChunk("fdAT", data + frame.data, to: &file)
            }
        }
        PNG.appendChunk("IEND", [], to: &file)
        try writeFile(file, to: path)
    }
}

/// Writes `bytes` to a new file at `path`, replacing one that is there.
func writeFile(_ bytes: [UInt8], to path: String) throws(PictureError) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw PictureError(path: path, reason: String(cString: strerror(errno))) }
    defer { close(descriptor) }
    var offset = 0
    while offset < bytes.count {
        let count = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw PictureError(path: path, reason: String(cString: strerror(errno)))
        }
        offset += count
    }
}
