// A touch forwarded over io.sheetd.Input (what sheet-render does under a compositor) to a
// subscriber holding the state it caused: sheetd with --input none, one device, a drag at
// 100 Hz, each frame stamped on CLOCK_MONOTONIC when it is written.
#if canImport(Glibc)
import Glibc
#endif
import CAllocationCounter
import SheetClient
import SheetCore
import SheetSystem

/// Sends a NUL-terminated varlink call.
private func sendCall(_ descriptor: Int32, _ text: String) {
    let bytes = Array(text.utf8) + [0]
    _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
}

/// Reads one NUL-terminated reply (the feeder's replies are small).
private func readReply(_ descriptor: Int32, into buffer: inout [UInt8]) -> String {
    var length = 0
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + length, 1, 0) }
        guard count == 1 else { fatalError("sheetd closed the input socket") }
        if buffer[length] == 0 { return String(decoding: buffer[..<length], as: UTF8.self) }
        length += 1
        if length == buffer.count { fatalError("a reply over \(buffer.count) bytes") }
    }
}

func benchmarkForwarded(sheetd: String) {
    let folder = "/tmp/sheetd-bench-forwarded-\(getpid())"
    mkdir(folder, 0o755)
    let socketPath = "\(folder)/io.sheetd.Sheet", inputPath = "\(folder)/io.sheetd.Input", notifyPath = "\(folder)/notify"
    let (pid, notify) = spawnSheetd(sheetd, socketPath: socketPath, input: "none", notifyPath: notifyPath)

    let subscriber = unixSocket(Int32(SOCK_STREAM.rawValue), path: socketPath, bindIt: false)
    sendCall(subscriber, #"{"method":"io.sheetd.Sheet.Monitor","parameters":{},"more":true}"#)
    let feeder = unixSocket(Int32(SOCK_STREAM.rawValue), path: inputPath, bindIt: false)
    var replyBuffer = [UInt8](repeating: 0, count: 4096)
    sendCall(feeder, #"{"method":"io.sheetd.Input.OpenDevice","parameters":{"name":"bench","kind":"touchscreen","x":{"min":0,"max":1080},"y":{"min":0,"max":1920},"slots":1,"clock":"monotonic"}}"#)
    guard readReply(feeder, into: &replyBuffer).contains("\"device\":1") else { fatalError("OpenDevice refused") }

    var latencies: [Int64] = []
    latencies.reserveCapacity(2000)
    var buffer = [UInt8](repeating: 0, count: 65536)
    var sequence = 0
    // Drains what the subscriber has. After a move, the first reply to arrive is the state it
    // caused (every move of a dragged card changes it), measured from when the frame was sent.
    func drain(waitingFor stamp: Int64?) {
        var fds = [pollfd.readable(subscriber)]
        while poll(&fds, 1, stamp == nil ? 0 : 1000) > 0 {
            let received = monotonicMicroseconds()
            let count = buffer.withUnsafeMutableBytes { recv(subscriber, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            if let stamp {
                latencies.append(received - stamp)
                return
            }
        }
    }
    drain(waitingFor: nil)
    func frame(_ phase: String, y: Int) {
        sequence += 1
        let time = monotonicMicroseconds()
        sendCall(feeder, "{\"method\":\"io.sheetd.Input.SendFrame\",\"parameters\":{\"device\":1,\"sequence\":\(sequence),\"time\":\(time),\"contacts\":[{\"slot\":0,\"phase\":\"\(phase)\",\"x\":540,\"y\":\(y)}]}}")
        drain(waitingFor: phase == "move" ? time : nil)
        _ = readReply(feeder, into: &replyBuffer)
        var pause = timespec.of(seconds: 0, nanoseconds: 10_000_000)
        nanosleep(&pause, nil)
    }
    for _ in 0..<5 {
        // The first move passes the 16 pt slop at once, so that every move drags the card (a
        // finger held within it would be a long press, published half a second later).
        frame("down", y: 1020)
        for step in 1...100 { frame("move", y: 1000 - step * 6) }
        for step in 1...100 { frame("move", y: 400 + step * 6) }
        frame("up", y: 1000)
        var settle = timespec.of(seconds: 1, nanoseconds: 0)
        nanosleep(&settle, nil)
        drain(waitingFor: nil)
    }
    // The feeder's side, as sheet-render forwards a finger: InputClient sends each frame and
    // reads its reply. Its heap allocations are counted around each send, after the first.
    let client: InputClient
    let clientDevice: Int
    do {
        client = try InputClient(path: inputPath)
        clientDevice = try client.open(PluginDevice(name: "bench client", kind: .touchscreen, x: 0...1080, y: 0...1920, slots: 1))
    } catch { fatalError("InputClient: \(error)") }
    var clientAllocations: UInt64 = 0
    var clientFrames = 0
    for step in 0...201 {
        sequence += 1
        let phase: ContactPhase = step == 0 ? .down : step == 201 ? .up : .move
        let frame = PluginFrame(sequence: Int64(sequence), timeInMicroseconds: monotonicMicroseconds(),
                                contacts: [PluginContact(slot: 0, phase: phase, x: 540, y: Double(1000 - step * 3))])
        let before = sheetd_allocation_count()
        do { try client.send(frame, device: clientDevice) } catch { fatalError("InputClient.send: \(error)") }
        if step > 0 {
            clientAllocations += sheetd_allocation_count() - before
            clientFrames += 1
        }
        drain(waitingFor: nil)
        var pause = timespec.of(seconds: 0, nanoseconds: 2_000_000)
        nanosleep(&pause, nil)
    }
    kill(pid, SIGTERM)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    close(subscriber)
    close(feeder)
    close(notify)
    unlink(notifyPath)
    rmdir(folder)
    let summary = LatencySummary(latencies)
    print("forwarded: io.sheetd.Input frame written → subscriber has its state, 1 subscriber: p50 \(summary.p50) µs, p99 \(summary.p99) µs  (\(summary.count) of 1000 moves, max \(summary.maximum) µs)")
    let floor = LatencySummary(forwardedFloorLatencies(frames: 1000))
    print("forwarded floor: the same three wake-ups (a socket, a thread, a pipe, a thread, a socket), no daemon: p50 \(floor.p50) µs, p99 \(floor.p99) µs  (max \(floor.maximum) µs)")
    print("forwarded: the feeder's heap allocations per frame, InputClient.send with its reply: \(Double(clientAllocations) / Double(clientFrames)) allocations/frame  (\(clientAllocations) in \(clientFrames) frames)")
}
