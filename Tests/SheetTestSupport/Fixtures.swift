import Foundation
import Synchronization

/// The project's fixtures folder (tests run from a clone with no sibling folders).
public let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

/// The checkout the tests were built from.
public let checkout = fixtures.deletingLastPathComponent().deletingLastPathComponent()

/// The repository's `examples` folder.
public let examples = checkout.appendingPathComponent("examples")

/// A real recording from `Tests/Fixtures/traces`.
public func trace(_ name: String) -> String { fixtures.appendingPathComponent("traces/\(name)").path }

/// A new empty folder for one test. It is removed when the test process exits, unless `keep`
/// (what a failure leaves to look at, such as a drawing that differs from its golden image)
/// or `SHEETD_KEEP_TEST_FILES=1` is set: a run makes hundreds of them.
public func temporaryFolder(keep: Bool = false) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sheetd-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    if !keep, ProcessInfo.processInfo.environment["SHEETD_KEEP_TEST_FILES"] != "1" {
        foldersToRemove.withLock { folders in
            if folders.isEmpty { atexit { removeTestFolders() } }
            folders.append(folder)
        }
    }
    return folder
}

private let foldersToRemove = Mutex<[URL]>([])

private func removeTestFolders() {
    for folder in foldersToRemove.withLock({ $0 }) { try? FileManager.default.removeItem(at: folder) }
}

/// Writes `contents` to a new file in a temporary folder and returns its path.
public func temporaryFile(_ name: String, _ contents: [UInt8]) throws -> String {
    let url = try temporaryFolder().appendingPathComponent(name)
    try Data(contents).write(to: url)
    return url.path
}

public func temporaryFile(_ name: String, _ text: String) throws -> String {
    try temporaryFile(name, Array(text.utf8))
}

/// A built executable of this package, next to the test bundle.
public func builtExecutable(_ name: String) -> URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent(name)
}

/// A small seeded random generator (SplitMix64): the same numbers on every run.
public struct SplitMix {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Runs `executable` with `arguments` to its end: its status, and its standard output and
/// error together.
public func runProgram(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, output)
}

/// The Debian release the tests run on (`debian-12`, `debian-13`), from /etc/os-release, or
/// `ID-VERSION_ID` of another system.
public let systemRelease: String = {
    let text = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
    var fields: [String: String] = [:]
    for line in text.split(separator: "\n") {
        let parts = line.split(separator: "=", maxSplits: 1)
        if parts.count == 2 { fields[String(parts[0])] = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
    }
    return "\(fields["ID"] ?? "unknown")-\(fields["VERSION_ID"] ?? "unknown")"
}()

/// The release whose Pango, HarfBuzz, FreeType and Noto fonts drew the goldens in
/// `Tests/Fixtures/golden` and the pictures in docs/images.
public let goldenRelease = "debian-12"

/// The golden image `name` as this release draws it: `golden/RELEASE/NAME.png` where another
/// release's text stack shapes and rasterises text differently (Debian 13: Pango 1.56,
/// HarfBuzz 10), else `golden/NAME.png`. `SHEETD_UPDATE_GOLDENS=1` writes to the first on a
/// release other than `goldenRelease`.
public func goldenImage(_ name: String) -> URL {
    let own = fixtures.appendingPathComponent("golden/\(systemRelease)/\(name).png")
    if systemRelease != goldenRelease,
       FileManager.default.fileExists(atPath: own.path) || ProcessInfo.processInfo.environment["SHEETD_UPDATE_GOLDENS"] == "1" {
        try? FileManager.default.createDirectory(at: own.deletingLastPathComponent(), withIntermediateDirectories: true)
        return own
    }
    return fixtures.appendingPathComponent("golden/\(name).png")
}

/// A sysfs tree of display connectors (`class/drm/cardN-NAME/status`), as `PanelMapping`
/// reads them: each `(card-connector, status)` pair, `connected` or `disconnected`.
public func sysfsWithConnectors(_ connectors: [(String, String)]) throws -> URL {
    let sysfs = try temporaryFolder()
    for (connector, status) in connectors {
        let folder = sysfs.appendingPathComponent("class/drm/\(connector)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "\(status)\n".write(to: folder.appendingPathComponent("status"), atomically: true, encoding: .utf8)
    }
    return sysfs
}
