#if canImport(Glibc)
import Glibc
#endif
import SheetSystem

/// What went wrong writing pictures, naming the file.
public struct PictureError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}

/// Writes one PNG per frame (or every Nth) into a folder, named `frame-000001.png`,
/// `frame-000002.png`… so that they sort in time order. One canvas is reused and only the
/// damaged rows are redrawn. `finish()` writes the last scene if the Nth-frame rule skipped it,
/// so the last picture always shows where the sheet ended.
public final class PNGFrameWriter {
    public let folder: String
    public let every: Int
    public let painter: Painter
    public private(set) var written = 0
    private var canvas: Canvas?
    /// The scene on the canvas, which is also the last one written.
    private var drawn: SheetScene?
    private var offered = 0
    /// The last scene offered, when the Nth-frame rule skipped it.
    private var pending: SheetScene?

    public init(folder: String, every: Int = 1, painter: Painter) throws(PictureError) {
        precondition(every >= 1, "every Nth frame needs N ≥ 1")
        self.folder = folder
        self.every = every
        self.painter = painter
        if mkdir(folder, 0o755) != 0 && errno != EEXIST {
            throw PictureError(path: folder, reason: "cannot create the folder: \(String(cString: strerror(errno)))")
        }
        try removeEarlierFrames()
    }

    /// Frames a run before left in the folder (`frame-NNNNNN.png` only): a shorter run would
    /// otherwise end among stale pictures of a longer one.
    private func removeEarlierFrames() throws(PictureError) {
        guard let names = directoryNames(folder) else {
            throw PictureError(path: folder, reason: "cannot read the folder: \(String(cString: strerror(errno)))")
        }
        for name in names {
            guard name.hasPrefix("frame-"), name.hasSuffix(".png"), name.utf8.count == 16,
                  name.dropFirst(6).dropLast(4).allSatisfy(\.isASCIIDigit) else { continue }
            if unlink("\(folder)/\(name)") != 0 && errno != ENOENT {
                throw PictureError(path: "\(folder)/\(name)", reason: "cannot remove an earlier frame: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Paths of the pictures written so far, in order.
    public var paths: [String] { (0..<written).map(path(of:)) }

    private func path(of index: Int) -> String {
        let number = String(index + 1)
        return "\(folder)/frame-\(String(repeating: "0", count: max(0, 6 - number.count)))\(number).png"
    }

    /// One frame; written when it is the first or every Nth. Returns whether it was written.
    @discardableResult
    public func frame(_ scene: SheetScene) throws(PictureError) -> Bool {
        offered += 1
        if (offered - 1) % every == 0 {
            try write(scene)
            return true
        }
        pending = scene
        return false
    }

    /// Writes the last frame offered if it was skipped. Returns whether it wrote one.
    @discardableResult
    public func finish() throws(PictureError) -> Bool {
        defer { pending = nil }
        guard let pending, pending != drawn else { return false }
        try write(pending)
        return true
    }

    private func write(_ scene: SheetScene) throws(PictureError) {
        pending = nil
        if canvas == nil || canvas!.width != scene.width || canvas!.height != scene.height {
            canvas = Canvas(width: scene.width, height: scene.height, format: .xrgb8888)
            drawn = nil
        }
        let canvas = canvas!
        if let rows = scene.damage(since: drawn) { painter.draw(scene, into: canvas, rows: rows) }
        drawn = scene
        try writeFile(PNG.encode(canvas), to: path(of: written))
        written += 1
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
