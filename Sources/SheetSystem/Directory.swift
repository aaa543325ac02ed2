#if canImport(Glibc)
import Glibc
#endif

/// The names in the folder at `path` (`.` and `..` among them, in the order the file system
/// gives them), or nil when it cannot be opened (errno says why). opendir(3) and readdir(3),
/// wrapped once for every caller.
public func directoryNames(_ path: String) -> [String]? {
    guard let directory = opendir(path) else { return nil }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
    }
    return names
}
