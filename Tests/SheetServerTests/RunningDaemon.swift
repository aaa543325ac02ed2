import Foundation
import Glibc
import SheetClient
import SheetProtocol
import SheetTestSupport
import SheetSystem

/// The real `sheetd`, started on a socket in a temporary folder, with a notify socket of the
/// test's own standing in for systemd: the test waits for `READY=1` and for `STATUS=` lines
/// (events), never for a fixed time.
final class RunningDaemon {
    let folder: URL
    let socketPath: String
    let logPath: String
    let process = Process()
    private let notify: NotifySocket
    var statuses: [String] { notify.statuses }

    /// Safety net for a broken daemon: a wait that takes longer than this fails the test.
    static let patienceSeconds = 60

    /// Starts sheetd with `arguments`, on `socketPath` or a socket in a folder of its own;
    /// `watchdogMicroseconds`: systemd's watchdog is on, with that `WATCHDOG_USEC`.
    init(_ arguments: [String], socketPath: String? = nil, watchdogMicroseconds: Int? = nil) throws {
        folder = try temporaryFolder()
        self.socketPath = socketPath ?? folder.appendingPathComponent("io.sheetd.Sheet").path
        logPath = folder.appendingPathComponent("sheetd.log").path
        let notifyPath = folder.appendingPathComponent("notify").path
        notify = NotifySocket(notifyPath, patienceSeconds: Self.patienceSeconds)

        process.executableURL = builtExecutable("sheetd")
        process.arguments = ["--socket", self.socketPath, "--config", "/dev/null"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notifyPath
        environment["WATCHDOG_USEC"] = watchdogMicroseconds.map(String.init)
        environment["WATCHDOG_PID"] = nil
        process.environment = environment
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        try process.run()
        try waitForStatus { $0 == "READY=1" }
    }

    deinit {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
    }

    /// Reads notification lines, in order, until one satisfies `match`.
    @discardableResult
    func waitForStatus(_ match: (String) -> Bool) throws -> String {
        guard let line = notify.next(match) else {
            throw DaemonTestError("no notification from sheetd within \(Self.patienceSeconds) s; log:\n\(log)")
        }
        return line
    }

    /// Asks `client` for the state until it satisfies `match`, within the tests' patience.
    @discardableResult
    func waitForState(_ client: SheetClient, _ match: (SheetState) -> Bool) throws -> SheetState {
        var last: SheetState?
        for _ in 0..<(Self.patienceSeconds * 50) {
            let state = try client.state()
            if match(state) { return state }
            last = state
            usleep(20_000)
        }
        throw DaemonTestError("the state never came within \(Self.patienceSeconds) s (last: \(String(describing: last))); log:\n\(log)")
    }

    /// Asks `client` for the stats until they satisfy `match`, within the tests' patience.
    func waitForStats(_ client: SheetClient, _ match: (DaemonStats) -> Bool) throws {
        for _ in 0..<(Self.patienceSeconds * 50) {
            if match(try client.stats()) { return }
            usleep(20_000)
        }
        throw DaemonTestError("the stats never came within \(Self.patienceSeconds) s; log:\n\(log)")
    }

    /// Reads the notifications waiting, without waiting for more: a long run that sends many
    /// (a reload a second) would otherwise fill the socket's queue, and the daemon's later
    /// notifications would be lost, as they would not be under systemd, which reads them all.
    func drainNotifications() { notify.drain() }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func client() throws -> SheetClient {
        let client = try SheetClient(path: socketPath)
        var timeout = timeval.of(seconds: Self.patienceSeconds)
        setsockopt(client.connection.fileDescriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return client
    }

    /// SIGTERM, as systemd stops it; returns the exit status.
    func stop() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Lines from a descriptor as they come (a FIFO, a pipe); each wait is bounded by the daemon
/// tests' patience, the safety net against a process that never writes.
final class DescriptorLines {
    let descriptor: Int32
    private let what: String
    private var buffer: [UInt8] = []

    /// `what` names the lines in the error of a wait that runs out (`frame`, `line`).
    init(_ descriptor: Int32, what: String) {
        self.descriptor = descriptor
        self.what = what
    }

    /// The next line without its newline, or nil when the writer has gone.
    func next() throws -> [UInt8]? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                return line
            }
            var ready = pollfd.readable(descriptor)
            guard poll(&ready, 1, Int32(RunningDaemon.patienceSeconds * 1000)) > 0 else {
                throw DaemonTestError("no \(what) within \(RunningDaemon.patienceSeconds) s")
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return nil }
            if count > 0 { buffer += chunk[..<count] }
        }
    }

    /// Whether a whole line or more bytes can be read now (without waiting).
    var hasUnread: Bool {
        if buffer.contains(0x0A) { return true }
        var ready = pollfd.readable(descriptor)
        return poll(&ready, 1, 0) > 0
    }
}

struct DaemonTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The Python that runs the test clients: the project's virtual environment (`make deps` makes
/// it in .build/venv with packaging/python-requirements.txt), or the system's when there is none.
let testPython: String = {
    let venv = fixtures.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/venv/bin/python3").path
    return FileManager.default.isExecutableFile(atPath: venv) ? venv : "/usr/bin/python3"
}()

/// Runs a built executable of this package and collects what it prints.
func runTool(_ name: String, _ arguments: [String], prefix: [String] = []) throws -> (status: Int32, stdout: String, stderr: String) {
    if prefix.isEmpty { return try runProcess(builtExecutable(name), arguments) }
    return try runProcess(URL(fileURLWithPath: prefix[0]),
                          Array(prefix.dropFirst()) + (name.isEmpty ? [] : [builtExecutable(name).path]) + arguments)
}

/// Copies `source` to `destination` as an executable, through `install(1)` in a child process.
/// A copy written by this process (as Foundation's `copyItem` does) is open for writing while
/// other tests spawn daemons; a child forked in that moment can keep the descriptor, and every
/// later exec of the copy fails with ETXTBSY ("Text file busy"). A child's descriptors are its own.
func installExecutable(_ source: URL, at destination: URL) throws {
    let log = destination.path + ".install.log"
    let status = try spawnAndWait(["/usr/bin/install", "-m", "0755", source.path, destination.path], output: log)
    guard status == 0 else {
        throw DaemonTestError("install \(source.path) \(destination.path): \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "exit \(status)")")
    }
}

/// Starts `executable` with `environment`'s variables set (nil: removed) and in `directory`;
/// what it prints comes through the pipes returned.
func startProcess(_ executable: URL, _ arguments: [String], environment changes: [String: String?] = [:],
                  directory: URL? = nil) throws -> (process: Process, stdout: Pipe, stderr: Pipe) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if !changes.isEmpty {
        var environment = ProcessInfo.processInfo.environment
        for (name, value) in changes { environment[name] = value }
        process.environment = environment
    }
    if let directory { process.currentDirectoryURL = directory }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    return (process, out, err)
}

/// Runs `executable` to its end (as `startProcess`) and collects what it prints.
func runProcess(_ executable: URL, _ arguments: [String], environment changes: [String: String?] = [:],
                directory: URL? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
    let (process, out, err) = try startProcess(executable, arguments, environment: changes, directory: directory)
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}

/// The last `sheet` line of `sheetctl replay FILE`, decoded.
func replayEnd(_ file: String, _ flags: [String] = []) throws -> [String: Any] {
    let result = try runTool("sheetctl", ["replay", file, "--config", "/dev/null"] + flags)
    guard result.status == 0 else { throw DaemonTestError("sheetctl replay failed: \(result.stderr)") }
    let last = result.stdout.split(separator: "\n").last { $0.contains("\"kind\":\"sheet\"") }!
    return try JSONSerialization.jsonObject(with: Data(last.utf8)) as! [String: Any]
}

/// Kills every process but this one whose command line or environment names `text` (a test's
/// folder): what a bus or a server a test started has started in turn, and outlives it.
func killProcesses(mentioning text: String) {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return }
    for entry in entries {
        guard let pid = Int32(entry), pid != getpid() else { continue }
        for file in ["cmdline", "environ"] {
            guard let bytes = FileManager.default.contents(atPath: "/proc/\(entry)/\(file)"),
                  String(decoding: bytes, as: UTF8.self).contains(text) else { continue }
            kill(pid, SIGKILL)
            break
        }
    }
}

/// A notify socket standing in for systemd's (`NOTIFY_SOCKET`): the datagrams a program sends
/// there (`READY=1`, `STATUS=…`, `WATCHDOG=1`), as lines.
final class NotifySocket {
    let path: String
    private let descriptor: Int32
    /// Every line received, in order.
    private(set) var statuses: [String] = []
    /// Lines of a notification not yet looked at (one datagram may carry several).
    private var unread: [String] = []

    /// Binds `path`; a wait for a line gives up after `patienceSeconds`.
    init(_ path: String, patienceSeconds: Int) {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        var timeout = timeval.of(seconds: patienceSeconds)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    /// The next line that satisfies `match`, reading as needed; nil when none came in time.
    func next(_ match: (String) -> Bool) -> String? {
        while true {
            while !unread.isEmpty {
                let line = unread.removeFirst()
                if match(line) { return line }
            }
            guard receive(flags: 0) else { return nil }
        }
    }

    /// Reads what is waiting, without waiting for more.
    func drain() { while receive(flags: Int32(MSG_DONTWAIT)) {} }

    private func receive(flags: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, flags) }
        guard count > 0 else { return false }
        let lines = String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").map(String.init)
        statuses += lines
        unread += lines
        return true
    }
}
