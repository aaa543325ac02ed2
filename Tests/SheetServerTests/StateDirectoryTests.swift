import Foundation
import Glibc
import SheetClient
import SheetCore
import SheetProtocol
import SheetTestSupport
import Testing
import SheetSystem

/// A file system of its own for a state directory: a tmpfs of `kibibytes`, mounted on a new
/// folder (root only; where mount(2) is not allowed the tests that need one do not run).
struct SmallFileSystem {
    let path: String

    static let available: Bool = {
        guard getuid() == 0, let probe = try? SmallFileSystem(kibibytes: 16) else { return false }
        probe.unmount()
        return true
    }()

    init(kibibytes: Int) throws {
        path = try temporaryFolder().path + "/mounted"
        guard mkdir(path, 0o700) == 0, mount("tmpfs", path, "tmpfs", 0, "size=\(kibibytes)k,mode=0700") == 0 else {
            throw DaemonTestError("mount tmpfs on \(path): \(String(cString: strerror(errno)))")
        }
    }

    func remount(readOnly: Bool) throws {
        guard mount("tmpfs", path, "tmpfs", UInt(MS_REMOUNT) | (readOnly ? UInt(MS_RDONLY) : 0), nil) == 0 else {
            throw DaemonTestError("remount \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Fills what is free with a file of its own; returns its path.
    func fill() -> String {
        let filler = path + "/filler"
        let descriptor = open(filler, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        let block = [UInt8](repeating: 0x55, count: 1024)
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        close(descriptor)
        return filler
    }

    func unmount() { umount2(path, Int32(MNT_DETACH)) }
}

/// The state directory where it cannot be written, or changed under the daemon: sheetd keeps
/// running, says what went wrong once (and once when it is over), leaves the last good state
/// file as it was, and never writes through what replaced it.
extension PersistenceTests {
    /// A full disk: the save fails, the last saved file stays whole, the temporary it began is
    /// removed (it held the space the next try needs), the failure is said once however many
    /// saves fail; with space again, the next change is saved and that is said too.
    @Test(.enabled(if: SmallFileSystem.available))
    func aFullDiskIsSaidOnceAndLosesNothingSaved() throws {
        let disk = try SmallFileSystem(kibibytes: 64)
        defer { disk.unmount() }
        let daemon = try RunningDaemon(["--state-directory", disk.path, "--input", "none"])
        let client = try daemon.client()
        try client.setContent(ContentChange(title: "Saved first", items: [SheetItem(id: "a", label: "A")]))
        try waitForStateFile(in: disk.path) { $0.contains("Saved first") }
        let filler = disk.fill()
        let big = (0..<200).map { SheetItem(id: "item-\($0)", label: String(repeating: "label ", count: 20)) }
        for round in 0..<3 {
            try waitForFailedSave(in: disk.path) { try client.setContent(ContentChange(title: "Too big \(round)", items: big)) }
        }
        #expect(try String(contentsOfFile: disk.path + "/state.json", encoding: .utf8).contains("Saved first"))
        #expect(access(disk.path + "/state.json.tmp", F_OK) != 0, "no temporary is left")
        #expect(daemon.log.components(separatedBy: "cannot save the state").count == 2, "said once: \(daemon.log)")
        #expect(daemon.log.contains("No space left on device"))
        unlink(filler)
        try client.setContent(ContentChange(title: "Saved again", items: [SheetItem(id: "b", label: "B")]))
        try waitForStateFile(in: disk.path) { $0.contains("Saved again") }
        #expect(daemon.stop() == 0)
        #expect(daemon.log.contains("the state is saved again"), "\(daemon.log)")
    }

    /// A read-only file system under the state directory: each change is refused by the file
    /// system, the daemon goes on serving and stops cleanly, the file keeps the last good state.
    @Test(.enabled(if: SmallFileSystem.available))
    func aReadOnlyFileSystemKeepsTheLastGoodState() throws {
        let disk = try SmallFileSystem(kibibytes: 256)
        defer { disk.unmount() }
        let daemon = try RunningDaemon(["--state-directory", disk.path, "--input", "none"])
        let client = try daemon.client()
        try client.setContent(ContentChange(title: "Before", items: [SheetItem(id: "a", label: "A")]))
        try waitForStateFile(in: disk.path) { $0.contains("Before") }
        try disk.remount(readOnly: true)
        try client.setContent(ContentChange(title: "After", items: [SheetItem(id: "b", label: "B")]))
        try client.present(detent: "expanded")
        #expect(try client.content().title == "After", "the sheet goes on")
        #expect(daemon.stop() == 0)
        #expect(daemon.log.contains("cannot save the state") && daemon.log.contains("Read-only file system"), "\(daemon.log)")
        #expect(try String(contentsOfFile: disk.path + "/state.json", encoding: .utf8).contains("Before"))
        try disk.remount(readOnly: false)
    }

    /// The state file replaced while the daemon runs, by a symlink to a file elsewhere or by
    /// rubbish: the next save replaces what is there (never writing through the link), and the
    /// file it pointed to is untouched.
    @Test func aStateFileReplacedWhileRunningIsReplacedNotFollowed() throws {
        for shape in ["symlink", "rubbish"] {
            let state = try temporaryFolder().path
            let file = state + "/state.json"
            let outside = try temporaryFile("outside.json", "{\"precious\":true}\n")
            let daemon = try RunningDaemon(["--state-directory", state, "--input", "none"])
            let client = try daemon.client()
            try client.setContent(ContentChange(title: "First", items: [SheetItem(id: "a", label: "A")]))
            try waitForStateFile(in: state) { $0.contains("First") }
            let replacement = state + "/replacement"
            if shape == "symlink" {
                #expect(symlink(outside, replacement) == 0)
            } else {
                #expect(FileManager.default.createFile(atPath: replacement, contents: Data([0xff, 0x00, 0x7b])))
            }
            #expect(rename(replacement, file) == 0)
            try client.setContent(ContentChange(title: "Second", items: [SheetItem(id: "b", label: "B")]))
            try waitForStateFile(in: state) { $0.contains("Second") }
            #expect(daemon.process.isRunning)
            #expect(daemon.stop() == 0, "\(shape): \(daemon.log)")
            var status = stat()
            #expect(lstat(file, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG, "\(shape): a file of its own again")
            #expect(try String(contentsOfFile: outside, encoding: .utf8) == "{\"precious\":true}\n", "\(shape): the file outside is untouched")
        }
    }

    /// A change to a daemon that nothing else wakes is saved within a second of the last save.
    /// (The loop once planned the put-off save only after its next wake, so with no input and
    /// no other call the change stayed unsaved: a power cut lost it.)
    @Test func aChangeToAnIdleDaemonIsSavedWithinASecond() throws {
        let state = try temporaryFolder().path
        let daemon = try RunningDaemon(["--state-directory", state, "--input", "none"])
        let client = try daemon.client()
        try client.setContent(ContentChange(title: "One"))
        try waitForStateFile(in: state) { $0.contains("\"One\"") }
        try client.setContent(ContentChange(title: "Two"))
        try waitForStateFile(in: state) { $0.contains("\"Two\"") }
        #expect(daemon.stop() == 0)
    }

    /// Runs `change`, then waits until the daemon began a save in `folder` and gave it up: its
    /// temporary made and removed (inotify, watched from before the change), never by a timer.
    func waitForFailedSave(in folder: String, after change: () throws -> Void) throws {
        let notifications = inotify_init1(Int32(IN_CLOEXEC))
        defer { close(notifications) }
        guard inotify_add_watch(notifications, folder, UInt32(IN_DELETE)) >= 0 else {
            throw DaemonTestError("inotify on \(folder): \(String(cString: strerror(errno)))")
        }
        try change()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var ready = pollfd.readable(notifications)
            guard poll(&ready, 1, Int32(RunningDaemon.patienceSeconds * 1000)) > 0 else {
                throw DaemonTestError("no save was given up in \(folder)")
            }
            let count = buffer.withUnsafeMutableBytes { read(notifications, $0.baseAddress, $0.count) }
            // struct inotify_event: wd, mask, cookie, len, then the name.
            var offset = 0
            while offset + 16 <= count {
                let length = Int(buffer[offset + 12]) | Int(buffer[offset + 13]) << 8
                let name = String(decoding: buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }, as: UTF8.self)
                if name == "state.json.tmp" { return }
                offset += 16 + length
            }
        }
    }
}
