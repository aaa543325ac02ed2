import Glibc

/// A command run to its end, its standard output kept: `/bin/sh -c COMMAND NAME ARGUMENTS…`
/// (the shell's `$0` is `name`, `$1`… the arguments), with the caller's environment and
/// `environment` added, its standard input /dev/null, its standard error the caller's.
public struct CommandRun: Sendable {
    /// How it ended: its exit status, or 128 + the signal that ended it (as a shell says).
    public var status: Int32
    /// What it printed, up to the limit.
    public var output: [UInt8]
    /// It printed more than the limit: `output` is its first `limit` bytes; the rest was read
    /// and dropped, so that the command never blocks on a full pipe.
    public var outputCut: Bool

    /// Runs `command` and waits for it. Throws the errno of a pipe or spawn that failed.
    public static func shell(_ command: String, name: String, arguments: [String] = [], environment: [String: String] = [:],
                             limit: Int = 4 << 20) throws(SystemError) -> CommandRun {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw SystemError(call: "pipe", errno: errno) }
        let (reading, writing) = (pipeEnds[0], pipeEnds[1])
        // Not to be inherited by another thread's spawn (the child gets `writing` as its stdout).
        _ = fcntl(reading, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writing, F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writing, 1)
        var variables: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "="), environment[String(text[..<equals])] != nil {
                index += 1
                continue
            }
            variables.append(text)
            index += 1
        }
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) { variables.append("\(key)=\(value)") }
        let argv = ["/bin/sh", "-c", command, name] + arguments
        var pid: pid_t = 0
        let spawned = withCStrings(argv) { argv in
            withCStrings(variables) { envp in posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp) }
        }
        close(writing)
        guard spawned == 0 else {
            close(reading)
            throw SystemError(call: "posix_spawn /bin/sh", errno: spawned)
        }
        var run = CommandRun(status: 0, output: [], outputCut: false)
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(reading, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            let room = max(0, limit - run.output.count)
            run.output.append(contentsOf: chunk[..<min(count, room)])
            if count > room { run.outputCut = true }
        }
        close(reading)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Glibc's module does not import (macros).
        let signal = status & 0x7f
        run.status = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        return run
    }
}

/// A system call that failed, and why.
public struct SystemError: Error, Sendable, CustomStringConvertible {
    public var call: String
    public var errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call): \(String(cString: strerror(errno)))" }
}

/// `strings` as a NULL-ended array of C strings, for the length of `body`.
private func withCStrings<Result>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result) -> Result {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
