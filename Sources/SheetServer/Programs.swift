#if canImport(Glibc)
import Glibc
#endif
import SheetProtocol
import SheetSystem

/// Which program each connection is: the process on the other end, known by its pid and the
/// time it started, so that every connection of one process acts on its sheets and hears
/// their events, and a process that later gets the same pid is another program.
///
/// A process is told by what the kernel says when it connects: SO_PEERCRED's pid and the start
/// time of that pid in `/proc/PID/stat` (field 22, in clock ticks since boot), read at once; and,
/// where the kernel gives it (SO_PEERPIDFD, Linux 6.5), the peer's pidfd, which a program keeps
/// while it has connections. A pid and a start time alone can name two processes (a pid reused
/// within the same clock tick, 10 ms); a pidfd cannot: a new connection joins a program only
/// while the process its pidfd names has not exited. A connection whose process cannot be read
/// (no pid, as from another pid namespace; `/proc` mounted with `hidepid`; a process already
/// gone) is a program of its own, as every connection was before.
///
/// A program's sheets close when its last connection closes (the process exits, or hangs up
/// every connection); a connection passed to another process (a child that inherits it) stays
/// its opener's.
struct ProgramTable {
    /// A process, as the kernel named it when it connected.
    struct Process: Hashable {
        var pid: pid_t
        /// Clock ticks since boot (`/proc/PID/stat`'s starttime).
        var started: UInt64
    }

    private struct Program {
        var process: Process?
        /// The pidfd of the process it is, -1 where the kernel gives none.
        var pidfd: CInt = -1
        var connections = 0
        var ownsSheets = false
    }

    private var programs: [UInt64: Program] = [:]
    private var byProcess: [Process: UInt64] = [:]
    private var nextNumber: UInt64 = 0

    /// The program a new connection from `process` belongs to: the one that process already is,
    /// if it has not exited since, else a new one (nil: a process not known, a program of its
    /// own). `pidfd` (≥ 0: the connection's, SO_PEERPIDFD) is kept by a new program, else closed.
    mutating func join(_ process: Process?, pidfd: CInt) -> UInt64 {
        if let process, let number = byProcess[process], !Self.exited(programs[number]!.pidfd) {
            programs[number]!.connections += 1
            if pidfd >= 0 { close(pidfd) }
            return number
        }
        nextNumber += 1
        programs[nextNumber] = Program(process: process, pidfd: process == nil ? -1 : pidfd, connections: 1)
        if process == nil, pidfd >= 0 { close(pidfd) }
        if let process { byProcess[process] = nextNumber }
        return nextNumber
    }

    /// Whether the process `pidfd` names has exited (readable, as poll says); false without one.
    private static func exited(_ pidfd: CInt) -> Bool {
        guard pidfd >= 0 else { return false }
        var poll = pollfd.readable(pidfd)
        return Glibc.poll(&poll, 1, 0) != 0
    }

    /// A connection of `program` closed; true when it was the program's last and the program
    /// holds sheets, which close now.
    mutating func leave(_ program: UInt64) -> Bool {
        guard var entry = programs[program] else { return false }
        entry.connections -= 1
        guard entry.connections == 0 else {
            programs[program] = entry
            return false
        }
        programs[program] = nil
        if entry.pidfd >= 0 { close(entry.pidfd) }
        if let process = entry.process, byProcess[process] == program { byProcess[process] = nil }
        return entry.ownsSheets
    }

    /// `program` opened a sheet: its sheets close with its last connection.
    mutating func ownsSheets(_ program: UInt64) { programs[program]?.ownsSheets = true }

    /// Whether `program` has opened a sheet (a call of its without `sheet` goes to the daemon,
    /// which finds its topmost).
    func holdsSheets(_ program: UInt64) -> Bool { programs[program]?.ownsSheets ?? false }

    /// The process `pid` as it is now, if it can be read: its start time, read while the peer's
    /// pidfd (`pidfd` ≥ 0, when the kernel gives one) says it has not exited, so that the time
    /// read is the peer's and not that of a process given its pid since.
    static func process(_ pid: pid_t, pidfd: CInt) -> Process? {
        guard pid > 0, let started = startTime(of: pid), !exited(pidfd) else { return nil }
        return Process(pid: pid, started: started)
    }

    /// Field 22 of `/proc/PID/stat`, counted after the command's closing parenthesis (a command
    /// may hold spaces and parentheses); nil when it cannot be read.
    static func startTime(of pid: pid_t) -> UInt64? {
        let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // 52 fields of at most 20 digits and a 16-byte command: well under 1 KiB.
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0, let close = bytes[..<count].lastIndex(of: UInt8(ascii: ")")) else { return nil }
        // After ") ": field 3 (state) onwards; starttime is field 22, the 20th of these.
        let fields = bytes[(close + 1)..<count].split(separator: UInt8(ascii: " "))
        guard fields.count >= 20 else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self))
    }
}
