#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// What went wrong with a file, naming it.
public struct FileError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}

/// A small file that is replaced whole: the new bytes go to a temporary file beside it, which
/// is synced, renamed over the old one, and the folder synced, so that a crash or a power cut
/// leaves the old file or the new one, never a mix or nothing.
public enum AtomicFile {
    /// The file's bytes, or nil when there is none; a file longer than `limit` bytes is an
    /// error (the one reader of small files: configuration, content, the state file).
    /// `regularOnly`: a file the program keeps itself (the state file), which is read only
    /// when it is a regular file: a symlink is not followed and a FIFO not waited on (both are
    /// an error that says so). A configuration may be anything that reads: a symlink, a pipe
    /// (`--config <(…)`), `/dev/null`.
    public static func read(_ path: String, limit: Int, regularOnly: Bool = false) throws(FileError) -> [UInt8]? {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(FilePath(path), .readOnly,
                                                 options: regularOnly ? [.closeOnExec, .noFollow, .nonBlocking] : [.closeOnExec])
        } catch Errno.noSuchFileOrDirectory {
            return nil
        } catch Errno.tooManySymbolicLinkLevels where regularOnly {
            throw FileError(path: path, reason: "is not a regular file (a symlink); not followed")
        } catch {
            throw FileError(path: path, reason: "\(error)")
        }
        defer { try? descriptor.close() }
        if regularOnly {
            var status = stat()
            guard fstat(descriptor.rawValue, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
                throw FileError(path: path, reason: "is not a regular file (a FIFO, a device or a folder); not read")
            }
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try descriptor.read(into: $0, retryOnInterrupt: true) }
            } catch {
                throw FileError(path: path, reason: "\(error)")
            }
            if count == 0 { return bytes }
            guard bytes.count + count <= limit else {
                let size = limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : "\(limit) bytes"
                throw FileError(path: path, reason: "larger than \(size); is it the right file?")
            }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    /// Replaces `path` with `bytes` (mode 0600). Whatever stands where the temporary goes (a
    /// symlink, a FIFO, a file left by a crash) is removed first and the temporary made anew,
    /// so nothing is written through a link or waits on a FIFO; the rename replaces whatever
    /// is at `path` itself, a symlink included, never what it points to.
    public static func write(_ bytes: [UInt8], to path: String) throws(FileError) {
        let temporary = path + ".tmp"
        guard unlink(temporary) == 0 || errno == ENOENT else {
            throw FileError(path: temporary, reason: "cannot be removed before writing: \(String(cString: strerror(errno)))")
        }
        do {
            let descriptor = try FileDescriptor.open(FilePath(temporary), .writeOnly,
                                                     options: [.create, .exclusiveCreate, .noFollow, .closeOnExec],
                                                     permissions: [.ownerReadWrite])
            try descriptor.closeAfter {
                _ = try descriptor.writeAll(bytes)
                guard fsync(descriptor.rawValue) == 0 else { throw Errno(rawValue: errno) }
            }
        } catch {
            // What was written of it goes (on a full disk it holds the space a next try needs).
            unlink(temporary)
            throw FileError(path: temporary, reason: "cannot be written: \(error)")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw FileError(path: path, reason: "cannot replace it with \(temporary): \(reason)")
        }
        try syncFolder(of: path)
    }

    /// Makes the folder `path` (mode 0700) unless it exists.
    public static func makeFolder(_ path: String) throws(FileError) {
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw FileError(path: path, reason: "cannot be made: \(String(cString: strerror(errno)))")
        }
    }

    /// Moves `path` aside as `path + suffix` (replacing an older one) and returns where it went.
    public static func moveAside(_ path: String, suffix: String) throws(FileError) -> String {
        let aside = path + suffix
        guard rename(path, aside) == 0 else { throw FileError(path: path, reason: "cannot be moved to \(aside): \(String(cString: strerror(errno)))") }
        try syncFolder(of: path)
        return aside
    }

    /// Makes a rename in the folder of `path` durable.
    private static func syncFolder(of path: String) throws(FileError) {
        let folder = FilePath(path).removingLastComponent()
        let name = folder.isEmpty ? "." : folder.string
        do {
            let descriptor = try FileDescriptor.open(FilePath(name), .readOnly, options: [.directory, .closeOnExec])
            try descriptor.closeAfter {
                guard fsync(descriptor.rawValue) == 0 else { throw Errno(rawValue: errno) }
            }
        } catch {
            throw FileError(path: name, reason: "cannot be synced: \(error)")
        }
    }
}
