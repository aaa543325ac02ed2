// The live path without a kernel device: frames as a plugin sends them over io.sheetd.Input,
// checked and turned into kernel events by PluginInput, decoded by the same protocol-B decoder
// as recordings and libinput-free replays, batched, and run through the engine, as the daemon's
// input loop does for each call.
import CAllocationCounter
import SheetCore
import SheetInput
import SheetProtocol

func benchmarkLivePath() {
    let screen = EngineConfiguration().screen
    let plugins = PluginInput(screen: screen)
    let declaration = PluginDevice(name: "bench", kind: .touchscreen, x: 0...Double(screen.widthInPixels - 1),
                                   y: 0...Double(screen.heightInPixels - 1), slots: 2)
    guard case .success(let device) = plugins.open(declaration, owner: 1, pid: 1, uid: 0, now: .zero) else {
        fatalError("the bench device was refused")
    }
    var sequence: Int64 = 0
    let sent: [PluginFrame] = makeFrames(count: 300_000).map { frame in
        sequence += 1
        return PluginFrame(sequence: sequence, timeInMicroseconds: frame.time.microseconds, contacts: PluginContacts(frame.contacts.map {
            PluginContact(slot: $0.slot, phase: $0.phase, x: $0.positionInPixels.x, y: $0.positionInPixels.y)
        })!)
    }
    var engine = Engine(configuration: EngineConfiguration())
    var batch = TouchFrameBatch()
    var outputs: [EngineOutput] = []
    outputs.reserveCapacity(256)
    var refused = 0
    func run(_ frames: ArraySlice<PluginFrame>) {
        for frame in frames {
            do {
                try plugins.feed(frame, device: device, owner: 1, now: Timestamp(microseconds: frame.timeInMicroseconds), into: &batch)
            } catch {
                refused += 1
            }
            for decoded in batch { engine.process(decoded, into: &outputs) }
            batch.removeAll()
            outputs.removeAll(keepingCapacity: true)
        }
    }
    let warmUp = 20_000
    run(sent.prefix(warmUp))
    let allocationsBefore = sheetd_allocation_count()
    let start = now()
    run(sent.dropFirst(warmUp))
    let elapsed = now() - start
    let allocations = sheetd_allocation_count() - allocationsBefore
    let measured = Double(sent.count - warmUp)
    if refused > 0 { fatalError("\(refused) bench frames refused") }
    report("live path (io.sheetd.Input frame → PluginInput → decoder → engine): frames per second", measured / elapsed, "frames/s",
           "\(Int(measured)) frames in \((elapsed * 1000).rounded()) ms, one core")
    report("live path: heap allocations per frame after warm-up", Double(allocations) / measured, "allocations/frame",
           "\(allocations) in all")
    benchmarkSendFrameParsing()
}

/// A `SendFrame` call as `sheet-render` forwards a finger under a compositor, read as the
/// server reads it (`SendFrameCall`, straight from the bytes), and by the general readers
/// (the varlink call's tree, then the frame) that a call it declines goes to: the heap
/// allocations each takes. The forwarded path's target is none per frame.
func benchmarkSendFrameParsing() {
    let message = Array(#"{"method":"io.sheetd.Input.SendFrame","parameters":{"device":1,"sequence":42,"time":123456789,"contacts":[{"slot":0,"phase":"move","x":540.25,"y":1200.5}]}}"#.utf8)
    var checksum = 0
    func fast() {
        guard let call = message.withUnsafeBytes({ SendFrameCall(message: $0) }) else { fatalError("SendFrameCall declined the bench's call") }
        checksum &+= call.frame.contacts.count
    }
    func general() {
        guard let call = try? VarlinkCall(message: message), let frame = try? PluginFrame(json: call.parameters) else {
            fatalError("the bench's SendFrame call was refused")
        }
        checksum &+= frame.contacts.count
    }
    let count = 100_000
    for (name, read) in [("SendFrameCall, as the server reads it", fast), ("the general readers (JSON tree, call, frame)", general)] {
        for _ in 0..<1_000 { read() }
        let before = sheetd_allocation_count()
        let started = monotonicMicroseconds()
        for _ in 0..<count { read() }
        let elapsed = monotonicMicroseconds() - started
        let allocations = sheetd_allocation_count() - before
        report("forwarded path: heap allocations to read one SendFrame call, \(name)", Double(allocations) / Double(count),
               "allocations/call", "\(allocations) in \(count) calls of \(message.count) bytes; \(elapsed * 1000 / Int64(count)) ns a call")
    }
    if checksum != 2 * 101_000 { fatalError("the bench's calls read \(checksum) contacts") }
}
