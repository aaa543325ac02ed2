// The daemon end to end: from a touch frame entering sheetd to a subscriber receiving the
// state, with 1, 16 and 64 subscribers, and with one subscriber that stalls; and how often an
// idle daemon wakes up.
import SheetRecordings
#if canImport(Glibc)
import Glibc
import SheetSystem
#endif

/// CLOCK_MONOTONIC in microseconds (the clock of `timestampUSec`).
func monotonicMicroseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
}

/// A recording that keeps the sheet moving: a tap on the card at 0 (nothing happens), half a
/// second of quiet for subscribers to connect, then slow drags up and down at 100 Hz.
func writeDragRecording(path: String, seconds: Int) {
    var r = SyntheticRecording()
    r.tap(x: 540, y: 1500)
    r.wait(0.5)
    for _ in 0..<(seconds / 2) {
        r.stroke(from: (540, 1000), to: (540, 400), seconds: 0.9, holdSeconds: 0.05)
        r.wait(0.1)
        r.stroke(from: (540, 400), to: (540, 1000), seconds: 0.9, holdSeconds: 0.05)
        r.wait(0.1)
    }
    let text = r.evemu()
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    var copy = text
    copy.withUTF8 { _ = write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
}

func unixSocket(_ type: Int32, path: String, bindIt: Bool) -> Int32 {
    let descriptor = socket(AF_UNIX, type, 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: path.utf8)
        raw[path.utf8.count] = 0
    }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bindIt ? bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                   : connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    if result != 0 { fatalError("\(bindIt ? "bind" : "connect") \(path): \(String(cString: strerror(errno)))") }
    return descriptor
}

/// Waits for a notification line starting with `prefix` (30 s at most).
func waitForNotification(_ descriptor: Int32, _ prefix: String) {
    var buffer = [UInt8](repeating: 0, count: 4096)
    var timeout = timeval.of(seconds: 60)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count <= 0 { fatalError("sheetd sent no \(prefix)") }
        if String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").contains(where: { $0.hasPrefix(prefix) }) { return }
    }
}

/// Starts sheetd on `socketPath` with `--input input` and waits for its READY=1 on a
/// notification socket at `notifyPath` (returned, with the pid, for the caller to close).
func spawnSheetd(_ sheetd: String, socketPath: String, input: String, notifyPath: String) -> (pid: pid_t, notify: Int32) {
    unlink(notifyPath)
    let notify = unixSocket(Int32(SOCK_DGRAM.rawValue), path: notifyPath, bindIt: true)
    var pid: pid_t = 0
    let argv: [UnsafeMutablePointer<CChar>?] = [
        strdup(sheetd), strdup("--config"), strdup("/dev/null"), strdup("--socket"), strdup(socketPath),
        strdup("--input"), strdup(input), strdup("--log-level"), strdup("warning"), nil,
    ]
    var environment: [UnsafeMutablePointer<CChar>?] = [strdup("NOTIFY_SOCKET=\(notifyPath)")]
    var entry = environ
    while let pointer = entry.pointee {
        if !String(cString: pointer).hasPrefix("NOTIFY_SOCKET=") { environment.append(pointer) }
        entry += 1
    }
    environment.append(nil)
    guard posix_spawn(&pid, sheetd, nil, nil, argv, environment) == 0 else { fatalError("cannot run \(sheetd)") }
    waitForNotification(notify, "READY=1")
    return (pid, notify)
}

struct DaemonRun {
    var latencies: [Int64] = []
    var idleWakeupsPerSecond = 0.0
    /// The daemon's CPU time (user and system, clock ticks) from the subscriptions to the
    /// replay's end.
    var cpuTicks = 0
    /// Replies the subscribers read, the first of each (the state at subscription) included.
    var replies = 0
}

/// Starts sheetd on the recording at its own pace, subscribes (at `maxRate` states a second
/// when given), and measures every reply.
func runDaemon(sheetd: String, recording: String, subscribers: Int, stalled: Bool, folder: String,
               maxRate: Int? = nil) -> DaemonRun {
    let socketPath = "\(folder)/io.sheetd.Sheet"
    let notifyPath = "\(folder)/notify"
    let (pid, notify) = spawnSheetd(sheetd, socketPath: socketPath, input: "replay:\(recording)@1", notifyPath: notifyPath)
    defer { close(notify); unlink(notifyPath) }

    let parameters = maxRate.map { "{\"maxRate\":\($0)}" } ?? "{}"
    let monitorCall = Array("{\"method\":\"io.sheetd.Sheet.Monitor\",\"parameters\":\(parameters),\"more\":true}\0".utf8)
    let ticksBefore = cpuTicks(pid: pid)
    var clients: [Int32] = []
    for _ in 0..<subscribers {
        let client = unixSocket(Int32(SOCK_STREAM.rawValue), path: socketPath, bindIt: false)
        _ = monitorCall.withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
        clients.append(client)
    }
    var stalledClient: Int32 = -1
    if stalled {
        stalledClient = unixSocket(Int32(SOCK_STREAM.rawValue), path: socketPath, bindIt: false)
        var small: Int32 = 1024
        setsockopt(stalledClient, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        _ = monitorCall.withUnsafeBytes { send(stalledClient, $0.baseAddress, $0.count, 0) }
    }

    var run = DaemonRun()
    run.latencies.reserveCapacity(subscribers * 2000)
    var fds = clients.map { pollfd.readable($0) }
    fds.append(pollfd.readable(notify))
    var buffer = [UInt8](repeating: 0, count: 65536)
    var first = true
    let key = Array("\"timestampUSec\":".utf8)
    var done = false
    var notifyBuffer = [UInt8](repeating: 0, count: 4096)
    while !done {
        guard poll(&fds, nfds_t(fds.count), 60_000) > 0 else { fatalError("sheetd went quiet") }
        let received = monotonicMicroseconds()
        for index in fds.indices where fds[index].revents != 0 {
            if fds[index].fd == notify {
                let count = notifyBuffer.withUnsafeMutableBytes { recv(notify, $0.baseAddress, $0.count, 0) }
                if count > 0, String(decoding: notifyBuffer[..<count], as: UTF8.self).contains("STATUS=replay done") {
                    done = true
                    run.cpuTicks = cpuTicks(pid: pid) - ticksBefore
                }
                continue
            }
            let count = buffer.withUnsafeMutableBytes { recv(fds[index].fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { continue }
            // Each reply carries "timestampUSec":N; the first reply per client is the state at
            // subscription, not a change, and is skipped.
            var position = 0
            while position < count {
                guard let start = findBytes(key, in: buffer, from: position, to: count) else { break }
                var cursor = start + key.count
                var value: Int64 = 0
                while cursor < count, buffer[cursor] >= 48, buffer[cursor] <= 57 { value = value * 10 + Int64(buffer[cursor] - 48); cursor += 1 }
                if !first { run.latencies.append(received - value) }
                run.replies += 1
                position = cursor
            }
            first = false
        }
    }
    // Idle: the sheet rests and no finger is down; count the daemon's context switches.
    let before = contextSwitches(pid: pid)
    let idleStart = monotonicMicroseconds()
    var pause = timespec.of(seconds: 2, nanoseconds: 0)
    nanosleep(&pause, nil)
    let after = contextSwitches(pid: pid)
    run.idleWakeupsPerSecond = Double(after - before) / (Double(monotonicMicroseconds() - idleStart) / 1e6)

    kill(pid, SIGTERM)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    for client in clients { close(client) }
    if stalledClient >= 0 { close(stalledClient) }
    return run
}

/// Where `needle` starts in `haystack[from..<end]`, compared in place (no copies: the reader
/// must not slow itself down between replies).
func findBytes(_ needle: [UInt8], in haystack: [UInt8], from: Int, to end: Int) -> Int? {
    guard end - from >= needle.count else { return nil }
    var index = from
    search: while index <= end - needle.count {
        for offset in needle.indices where haystack[index + offset] != needle[offset] {
            index += 1
            continue search
        }
        return index
    }
    return nil
}

/// User and system time of `pid` (all its threads) in clock ticks: /proc/PID/stat's utime and
/// stime, the fields after the command's closing parenthesis.
func cpuTicks(pid: pid_t) -> Int {
    let descriptor = open("/proc/\(pid)/stat", O_RDONLY)
    guard descriptor >= 0 else { return 0 }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: 4096)
    let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    guard count > 0, let end = bytes[..<count].lastIndex(of: UInt8(ascii: ")")) else { return 0 }
    let fields = String(decoding: bytes[(end + 2)..<count], as: UTF8.self).split(separator: " ")
    // After the command: state (3), ppid … utime is field 14 and stime 15, so 11 and 12 here.
    guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
    return user + system
}

/// Voluntary plus involuntary context switches of every thread of `pid`.
func contextSwitches(pid: pid_t) -> Int {
    var total = 0
    guard let directory = opendir("/proc/\(pid)/task") else { return 0 }
    defer { closedir(directory) }
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        guard Int(name) != nil else { continue }
        let descriptor = open("/proc/\(pid)/task/\(name)/status", O_RDONLY)
        guard descriptor >= 0 else { continue }
        var bytes = [UInt8](repeating: 0, count: 8192)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard count > 0 else { continue }
        for line in String(decoding: bytes[..<count], as: UTF8.self).split(separator: "\n") where line.contains("ctxt_switches") {
            total += Int(line.split(separator: "\t").last.map(String.init)?.trimmingCharacters(in: " ") ?? "") ?? 0
        }
    }
    return total
}

extension String {
    func trimmingCharacters(in set: Character) -> String { String(self.drop(while: { $0 == set })) }
}

func percentile(_ sorted: [Int64], _ fraction: Double) -> Int64 {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}

struct LatencySummary {
    var p50: Int64
    var p99: Int64
    var count: Int
    var maximum: Int64

    init(p50: Int64, p99: Int64, count: Int, maximum: Int64) {
        self.p50 = p50
        self.p99 = p99
        self.count = count
        self.maximum = maximum
    }

    init(_ latencies: [Int64]) {
        let sorted = latencies.sorted()
        p50 = percentile(sorted, 0.5)
        p99 = percentile(sorted, 0.99)
        count = sorted.count
        maximum = sorted.last ?? 0
    }
}

func median(_ values: [Int64]) -> Int64 { values.sorted()[values.count / 2] }

/// 1 and 64 subscribers once; 16 subscribers with and without a stalled one three times each,
/// interleaved, so that the comparison sees the same drift of a shared machine on both sides;
/// and the floor of the same path without the daemon.
func benchmarkDaemon(sheetd: String) {
    let folder = "/tmp/sheetd-bench-daemon-\(getpid())"
    mkdir(folder, 0o755)
    let recording = "\(folder)/drags.evemu"
    writeDragRecording(path: recording, seconds: 20)
    func measure(_ subscribers: Int, stalled: Bool) -> (LatencySummary, Double) {
        let run = runDaemon(sheetd: sheetd, recording: recording, subscribers: subscribers, stalled: stalled, folder: folder)
        return (LatencySummary(run.latencies), run.idleWakeupsPerSecond)
    }
    func line(_ subscribers: Int, stalled: Bool, _ summary: LatencySummary, _ detail: String) {
        let name = "daemon: frame to subscriber, \(subscribers) subscriber(s)\(stalled ? " + 1 stalled" : "")"
        print("\(name): p50 \(summary.p50) µs, p99 \(summary.p99) µs  (\(detail))")
    }
    for subscribers in [1, 64] {
        let (summary, idle) = measure(subscribers, stalled: false)
        line(subscribers, stalled: false, summary,
             "\(summary.count) replies, max \(summary.maximum) µs, idle \(Int(idle.rounded())) wakeups/s")
    }
    var plain: [LatencySummary] = [], stalled: [LatencySummary] = []
    for _ in 0..<3 {
        plain.append(measure(16, stalled: false).0)
        stalled.append(measure(16, stalled: true).0)
    }
    for (runs, isStalled) in [(plain, false), (stalled, true)] {
        let p50 = median(runs.map(\.p50)), p99 = median(runs.map(\.p99))
        var detail = "median of 3 runs; p99 per run \(runs.map { String($0.p99) }.joined(separator: ", ")) µs"
        if isStalled {
            let base = median(plain.map(\.p99))
            detail += "; p99 \(Int((Double(p99 - base) / Double(base) * 100).rounded()))% vs. no stalled client"
        }
        line(16, stalled: isStalled, LatencySummary(p50: p50, p99: p99, count: 0, maximum: 0), detail)
    }
    // What pacing saves: the daemon's CPU over the same 20 s recording (100 Hz drags) with 16
    // subscribers that take every state and 16 that ask for 60 a second, alternating.
    var every: [DaemonRun] = [], paced: [DaemonRun] = []
    for _ in 0..<3 {
        every.append(runDaemon(sheetd: sheetd, recording: recording, subscribers: 16, stalled: false, folder: folder))
        paced.append(runDaemon(sheetd: sheetd, recording: recording, subscribers: 16, stalled: false, folder: folder, maxRate: 60))
    }
    func ticks(_ runs: [DaemonRun]) -> String { runs.map { String($0.cpuTicks) }.joined(separator: ", ") }
    print("daemon: CPU over a 20 s replay, 16 subscribers: every state \(ticks(every)) ticks (\(every[0].replies / 16) replies each); "
          + "at 60 Hz \(ticks(paced)) ticks (\(paced[0].replies / 16) replies each); \(sysconf(Int32(_SC_CLK_TCK))) ticks a second")
    for subscribers in [1, 16, 64] {
        let floor = LatencySummary(floorLatencies(subscribers: subscribers, frames: 1500))
        print("floor: timer → thread hop → \(subscribers) socket write(s) → reader, no daemon: p50 \(floor.p50) µs, p99 \(floor.p99) µs")
    }
    unlink(recording)
    rmdir(folder)
}
