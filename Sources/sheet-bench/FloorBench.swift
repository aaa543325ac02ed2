// The floor under the daemon's latency on this machine: the same path with nothing of sheetd
// in it. A thread wakes for a frame's due time (timer set early, the rest waited out, as the
// daemon's replay does), wakes a second thread through a pipe (the hop from the input
// thread to the server's event loop), which writes 600 bytes to each of N Unix stream sockets;
// this thread polls them and takes the time from the due time to each receipt.
#if canImport(Glibc)
import Glibc
import SheetSystem
#endif

/// The writer side: its sockets, its wake-up pipe, and the due time it is sending.
private final class FloorWriter: @unchecked Sendable {
    let sockets: [Int32]
    /// Read end and write end of the wake-up pipe.
    let wake: (read: Int32, write: Int32) = {
        var ends: [Int32] = [0, 0]
        pipe(&ends)
        return (ends[0], ends[1])
    }()
    /// The due time of the message to send, written before `wake` is signalled.
    var due: Int64 = 0
    var stop = false

    init(sockets: [Int32]) { self.sockets = sockets }

    /// Stops `run` on `thread`, waits for it, and closes the pipe.
    func finish(thread: pthread_t) {
        stop = true
        var one: UInt8 = 1
        _ = write(wake.write, &one, 1)
        pthread_join(thread, nil)
        close(wake.read)
        close(wake.write)
    }

    func run() {
        var message = [UInt8](repeating: 32, count: 600)
        var value: UInt8 = 0
        while read(wake.read, &value, 1) == 1, !stop {
            withUnsafeBytes(of: due) { message.replaceSubrange(0..<8, with: $0) }
            for socket in sockets { _ = message.withUnsafeBytes { write(socket, $0.baseAddress, $0.count) } }
        }
    }
}

/// Due-to-receipt latencies (µs) of `frames` messages to `subscribers` sockets, 10 ms apart.
func floorLatencies(subscribers: Int, frames: Int) -> [Int64] {
    var pairs: [(Int32, Int32)] = []
    for _ in 0..<subscribers {
        var pair: [Int32] = [0, 0]
        socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair)
        pairs.append((pair[0], pair[1]))
    }
    let writer = FloorWriter(sockets: pairs.map(\.0))
    let writerThread = spawnThread { writer.run() }

    // The timer thread: sleeps to 300 µs before each due time, waits out the rest, hops.
    let timerThread = spawnThread {
        for _ in 0..<frames {
            let due = monotonicMicroseconds() + 10_000
            let early = due - 300
            var wake = timespec.of(microseconds: early)
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, nil) == EINTR {}
            while monotonicMicroseconds() < due {}
            writer.due = due
            var one: UInt8 = 1
            _ = write(writer.wake.write, &one, 1)
        }
    }

    var latencies: [Int64] = []
    latencies.reserveCapacity(subscribers * frames)
    var fds = pairs.map { pollfd.readable($0.1) }
    var buffer = [UInt8](repeating: 0, count: 65536)
    while latencies.count < subscribers * frames {
        guard poll(&fds, nfds_t(fds.count), 5_000) > 0 else { break }
        let received = monotonicMicroseconds()
        for index in fds.indices where fds[index].revents != 0 {
            let count = buffer.withUnsafeMutableBytes { recv(fds[index].fd, $0.baseAddress, $0.count, 0) }
            var offset = 0
            while offset + 600 <= count {
                let due = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Int64.self) }
                latencies.append(received - due)
                offset += 600
            }
        }
    }
    pthread_join(timerThread, nil)
    writer.finish(thread: writerThread)
    for (a, b) in pairs { close(a); close(b) }
    return latencies
}

/// The floor under a forwarded frame's latency: the same three wake-ups with nothing of sheetd
/// in them. This thread writes a frame's stamp to a socket (the feeder); a relay thread wakes
/// on it and wakes a second thread through a pipe (the server's event loop handing the frame
/// to the daemon's loop), which writes 600 bytes to the subscriber's socket, polled by this
/// thread. Due-to-receipt latencies (µs) of `frames` frames, 10 ms apart.
func forwardedFloorLatencies(frames: Int) -> [Int64] {
    var feed: [Int32] = [0, 0], subscriber: [Int32] = [0, 0]
    socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &feed)
    socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &subscriber)
    let writer = FloorWriter(sockets: [subscriber[0]])
    let writerThread = spawnThread { writer.run() }
    let relay = feed[1]
    let relayThread = spawnThread {
        var due: Int64 = 0
        while withUnsafeMutableBytes(of: &due, { read(relay, $0.baseAddress, 8) }) == 8 {
            writer.due = due
            var one: UInt8 = 1
            _ = write(writer.wake.write, &one, 1)
        }
    }
    var latencies: [Int64] = []
    latencies.reserveCapacity(frames)
    var buffer = [UInt8](repeating: 0, count: 4096)
    for _ in 0..<frames {
        var stamp = monotonicMicroseconds()
        _ = withUnsafeBytes(of: &stamp) { write(feed[0], $0.baseAddress, 8) }
        var received = 0
        while received < 600 {
            var fds = [pollfd.readable(subscriber[1])]
            guard poll(&fds, 1, 5_000) > 0 else { break }
            let count = buffer.withUnsafeMutableBytes { recv(subscriber[1], $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            if received == 0 { latencies.append(monotonicMicroseconds() - stamp) }
            received += count
        }
        var pause = timespec.of(seconds: 0, nanoseconds: 10_000_000)
        nanosleep(&pause, nil)
    }
    close(feed[0])
    pthread_join(relayThread, nil)
    writer.finish(thread: writerThread)
    for descriptor in [feed[1], subscriber[0], subscriber[1]] { close(descriptor) }
    return latencies
}

private final class ThreadBody: @unchecked Sendable {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

func spawnThread(_ body: @escaping () -> Void) -> pthread_t {
    var thread = pthread_t()
    let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    pthread_create(&thread, nil, { raw in
        let body = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
        body.body()
        return nil
    }, box)
    return thread
}
