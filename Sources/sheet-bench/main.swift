// Benchmarks for the per-frame path and the recording readers. Run with `make bench`
// (a release build); it prints one line per figure. Not a test: figures depend on the machine.
import CAllocationCounter
import Foundation
import SheetCore
import SheetRecordings
import SheetReplay
#if canImport(Glibc)
import Glibc
#endif

func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

func report(_ name: String, _ value: Double, _ unit: String, _ detail: String = "") {
    let rounded = (value * 10).rounded() / 10
    print("\(name): \(rounded) \(unit)\(detail.isEmpty ? "" : "  (\(detail))")")
    fflush(nil)
}

// MARK: The core, frame by frame

/// A long, realistic stream: drags up and down, flicks, taps and a second finger, at 120 Hz.
/// The flick dismisses the sheet; `feed` presents it again when a gesture begins with the sheet
/// hidden, as a program would, so that the drags move the card (before that, every frame after
/// the first flick panned over an empty screen and no state was published).
func makeFrames(count: Int) -> [TouchFrame] {
    var frames: [TouchFrame] = []
    frames.reserveCapacity(count)
    var time: Int64 = 0
    let step: Int64 = 8_333
    var cycle = 0
    while frames.count < count {
        let phase = cycle % 4
        cycle += 1
        let length = [60, 12, 2, 90][phase]
        for index in 0...length {
            time += step
            var frame = TouchFrame(time: Timestamp(microseconds: time))
            let y = 1000 + Double(index) * (phase == 1 ? 25 : (phase == 3 ? -6 : 4))
            let contactPhase: ContactPhase = index == 0 ? .down : (index == length ? .up : .move)
            frame.contacts.append(Contact(slot: 0, phase: contactPhase, positionInPixels: Point(x: 540, y: y)))
            if phase == 3 && index == 30 { frame.contacts.append(Contact(slot: 1, phase: .down, positionInPixels: Point(x: 200, y: 300))) }
            if phase == 3 && index == 60 { frame.contacts.append(Contact(slot: 1, phase: .up, positionInPixels: Point(x: 200, y: 300))) }
            frames.append(frame)
        }
        time += 400_000  // let the sheet settle between gestures
    }
    return frames
}

/// One frame of the stream, after presenting the sheet if a gesture begins with it hidden.
@inline(__always)
func feed(_ frame: TouchFrame, to engine: inout Engine, into outputs: inout [EngineOutput]) {
    if let first = frame.contacts.first, first.slot == 0, first.phase == .down, !engine.sheet.isShown {
        engine.perform(.present(nil), at: frame.time, into: &outputs)
    }
    engine.process(frame, into: &outputs)
}

/// Passes (five unless told) of `frames` through an engine `makeEngine` makes, each warmed up
/// on the first frames (which grows every buffer to its working size): the frames per second of
/// each pass (sorted; the median says more than one pass on a shared machine), the allocations
/// after warm-up in all, and the outputs of the last pass.
@inline(__always)
func measureStream(_ frames: [TouchFrame], warmUp: Int, passes: Int, makeEngine: () -> Engine,
                   feed: (TouchFrame, inout Engine, inout [EngineOutput]) -> Void) -> (rates: [Double], allocations: UInt64, produced: Int) {
    var outputs: [EngineOutput] = []
    outputs.reserveCapacity(256)
    var rates: [Double] = []
    var allocations: UInt64 = 0
    var produced = 0
    for _ in 0..<passes {
        var engine = makeEngine()
        for frame in frames.prefix(warmUp) {
            feed(frame, &engine, &outputs)
            outputs.removeAll(keepingCapacity: true)
        }
        produced = 0
        let allocationsBefore = sheetd_allocation_count()
        let start = now()
        for frame in frames.dropFirst(warmUp) {
            feed(frame, &engine, &outputs)
            produced &+= outputs.count
            outputs.removeAll(keepingCapacity: true)
        }
        let elapsed = now() - start
        allocations += sheetd_allocation_count() - allocationsBefore
        rates.append(Double(frames.count - warmUp) / elapsed)
    }
    return (rates.sorted(), allocations, produced)
}

func benchmarkCore(passes: Int) {
    let frames = makeFrames(count: 1_000_000)
    let warmUp = 20_000
    let (rates, allocations, produced) = measureStream(frames, warmUp: warmUp, passes: passes,
                                                       makeEngine: { Engine(configuration: EngineConfiguration()) },
                                                       feed: { feed($0, to: &$1, into: &$2) })
    let measured = Double(frames.count - warmUp)
    report("core: frames per second", rates[rates.count / 2], "frames/s",
           "median of \(rates.count) passes of \(Int(measured)) frames, \(Int(rates[0] / 1000))k…\(Int(rates[rates.count - 1] / 1000))k, one core")
    report("core: heap allocations per frame after warm-up", Double(allocations) / (measured * Double(rates.count)),
           "allocations/frame", "\(allocations) in all; \(produced) outputs a pass")
}

/// The same stream with touch exploration on, over a list of twenty items: one finger moves the
/// focus and nothing is dragged. Exploration must allocate nothing per frame either.
func benchmarkExplore(passes: Int) {
    let frames = makeFrames(count: 300_000)
    let warmUp = 20_000
    var configuration = EngineConfiguration()
    configuration.sheet.presentation.touchExploration = true
    let content = SheetContent(title: "Settings", items: (0..<20).map {
        SheetItem(id: "item-\($0)", label: "Item \($0)", accessory: $0 % 3 == 0 ? .toggle(isOn: false) : nil)
    })
    let (rates, allocations, produced) = measureStream(frames, warmUp: warmUp, passes: passes, makeEngine: {
        var engine = Engine(configuration: configuration)
        var outputs: [EngineOutput] = []
        engine.setContent(content, at: .zero, into: &outputs)
        engine.perform(.present(nil), at: .zero, into: &outputs)
        return engine
    }, feed: { frame, engine, outputs in engine.process(frame, into: &outputs) })
    let measured = Double(frames.count - warmUp)
    report("explore: frames per second, touch exploration on", rates[rates.count / 2], "frames/s",
           "median of \(rates.count) passes of \(Int(measured)) frames, one core")
    report("explore: heap allocations per frame after warm-up", Double(allocations) / (measured * Double(rates.count)),
           "allocations/frame", "\(allocations) in all; \(produced) outputs a pass")
}

// MARK: Readers, end to end through sheetctl

/// Writes a recording of about `megabytes` MB by repeating a block of gestures with later times.
func writeLargeRecording(path: String, yaml: Bool, megabytes: Int) {
    var block = SyntheticRecording()
    block.stroke(from: (540, 1000), to: (540, 1400), seconds: 0.8, hertz: 120)
    block.wait(0.4)
    block.stroke(from: (540, 1200), to: (540, 300), seconds: 1.2, hertz: 120, holdSeconds: 0.05)
    block.wait(0.4)
    block.tap(x: 300, y: 1500)
    block.wait(0.5)
    let header = yaml ? block.libinputRecord() : block.evemu()
    // Keep only the header part (up to the first event) and re-emit events with offsets.
    let marker = yaml ? "  events:\n" : "E: "
    let headerEnd = header.range(of: marker)!
    let headText = yaml ? String(header[..<headerEnd.upperBound]) : String(header[..<headerEnd.lowerBound])
    guard let file = fopen(path, "w") else { fatalError("cannot write \(path)") }
    defer { fclose(file) }
    fputs(headText, file)
    let span = block.now + 100_000
    var written = headText.utf8.count
    var round: Int64 = 0
    var line = [UInt8]()
    line.reserveCapacity(128)
    func digits(_ value: Int64, width: Int, pad: UInt8) {
        // evemu writes -1 as `-001` (printf %04d); YAML pads with spaces before the sign.
        var text = Array(String(abs(value)).utf8)
        let sign: [UInt8] = value < 0 ? [0x2D] : []
        let room = width - text.count - sign.count
        if room > 0 { text = pad == 0x30 ? sign + [UInt8](repeating: pad, count: room) + text
                                         : [UInt8](repeating: pad, count: room) + sign + text }
        else { text = sign + text }
        line.append(contentsOf: text)
    }
    while written < megabytes * 1_000_000 {
        let offset = round * span
        round += 1
        var frameOpen = false
        for event in block.events {
            line.removeAll(keepingCapacity: true)
            let time = event.time.microseconds + offset
            if yaml {
                if !frameOpen { line.append(contentsOf: Array("  - evdev:\n".utf8)); frameOpen = true }
                line.append(contentsOf: Array("    - [".utf8))
                digits(time / 1_000_000, width: 3, pad: 0x20); line.append(contentsOf: [0x2C, 0x20])
                digits(time % 1_000_000, width: 6, pad: 0x20); line.append(contentsOf: [0x2C, 0x20])
                digits(Int64(event.type), width: 3, pad: 0x20); line.append(contentsOf: [0x2C, 0x20])
                digits(Int64(event.code), width: 3, pad: 0x20); line.append(contentsOf: [0x2C, 0x20])
                digits(Int64(event.value), width: 7, pad: 0x20)
                line.append(contentsOf: Array("] # event\n".utf8))
                if event.type == 0 && event.code == 0 { frameOpen = false }
            } else {
                line.append(contentsOf: Array("E: ".utf8))
                digits(time / 1_000_000, width: 1, pad: 0x30); line.append(0x2E)
                digits(time % 1_000_000, width: 6, pad: 0x30); line.append(0x20)
                line.append(contentsOf: Array(String(format4hex(Int(event.type))).utf8)); line.append(0x20)
                line.append(contentsOf: Array(String(format4hex(Int(event.code))).utf8)); line.append(0x20)
                digits(Int64(event.value), width: 4, pad: 0x30)
                line.append(contentsOf: Array("\t# comment\n".utf8))
            }
            _ = line.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
            written += line.count
        }
    }
}

func format4hex(_ value: Int) -> String {
    let text = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 4 - text.count)) + text
}

/// Runs `sheetctl replay FILE --summary` and returns (seconds, peak resident KiB).
func timeReplay(sheetctl: String, file: String) -> (Double, Int) {
    let start = now()
    var pid: pid_t = 0
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup(sheetctl), strdup("replay"), strdup(file), strdup("--summary"), nil]
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    guard posix_spawn(&pid, sheetctl, &actions, nil, argv, environ) == 0 else { fatalError("cannot run \(sheetctl)") }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    let elapsed = now() - start
    if status != 0 { fatalError("sheetctl failed on \(file) with status \(status)") }
    return (elapsed, Int(usage.ru_maxrss))
}

func benchmarkReaders(sheetctl: String) {
    let folder = "/tmp/sheetd-bench-\(getpid())"
    mkdir(folder, 0o755)
    for (yaml, name) in [(false, "large.evemu"), (true, "large.yml")] {
        let path = "\(folder)/\(name)"
        let small = "\(folder)/small-\(name)"
        writeLargeRecording(path: small, yaml: yaml, megabytes: 2)
        writeLargeRecording(path: path, yaml: yaml, megabytes: 60)
        var info = stat()
        stat(path, &info)
        let megabytes = Double(info.st_size) / 1_000_000
        var best = Double.infinity
        var memory = 0
        for _ in 0..<3 {
            let (seconds, kib) = timeReplay(sheetctl: sheetctl, file: path)
            best = min(best, seconds)
            memory = max(memory, kib)
        }
        let (_, smallMemory) = timeReplay(sheetctl: sheetctl, file: small)
        let format = yaml ? "libinput record YAML" : "evemu"
        report("reader: \(format) end to end (sheetctl replay --summary)", megabytes / best, "MB/s",
               "\((megabytes * 10).rounded() / 10) MB in \((best * 1000).rounded()) ms, best of 3")
        report("reader: \(format) peak memory", Double(memory) / 1024, "MiB",
               "\(Double(smallMemory) / 1024) MiB for a 2 MB file: constant, not proportional")
        unlink(path)
        unlink(small)
    }
    rmdir(folder)
}

// The readers go first: a child started while this process holds the core benchmark's frames
// would count this process's memory in its peak (vfork shares it until exec).
let arguments = CommandLine.arguments
func argument(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
/// `--only core,live`: just those groups (reader, core, explore, keys, live, content, render, daemon, forwarded), e.g.
/// under `perf record`; `--passes N`: the core's passes (5), e.g. 1 under valgrind.
/// Says what is wrong with the command line, on standard error, and exits with status 2.
func refuse(_ message: String) -> Never {
    let line = Array("sheet-bench: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}
let knownGroups: Set = ["reader", "core", "explore", "keys", "live", "content", "render", "daemon", "forwarded"]
let groups = argument("--only").map { Set($0.split(separator: ",").map(String.init)) }
if let unknown = groups?.subtracting(knownGroups), !unknown.isEmpty {
    refuse("--only: no group \(unknown.sorted().joined(separator: ", ")) (groups: \(knownGroups.sorted().joined(separator: ", ")))")
}
let passes = argument("--passes").map { Int($0) ?? 0 } ?? 5
guard (1...1000).contains(passes) else {
    refuse("--passes must be 1 to 1000")
}
func runs(_ group: String) -> Bool { groups?.contains(group) ?? true }
if runs("reader") {
    if let sheetctl = argument("--sheetctl") {
        benchmarkReaders(sheetctl: sheetctl)
    } else {
        print("reader: skipped (pass --sheetctl PATH to time `sheetctl replay --summary`)")
    }
}
if runs("core") { benchmarkCore(passes: passes) }
if runs("explore") { benchmarkExplore(passes: passes) }
if runs("keys") { benchmarkKeys() }
if runs("live") { benchmarkLivePath() }
if runs("content") { benchmarkContent() }
if runs("render") { benchmarkRenderKit() }
if runs("forwarded") {
    if let sheetd = argument("--sheetd") {
        benchmarkForwarded(sheetd: sheetd)
    } else {
        print("forwarded: skipped (pass --sheetd PATH to measure a forwarded frame to its state)")
    }
}
if runs("daemon") {
    if let sheetd = argument("--sheetd") {
        benchmarkDaemon(sheetd: sheetd)
    } else {
        print("daemon: skipped (pass --sheetd PATH to measure frame-to-subscriber latency)")
    }
}
