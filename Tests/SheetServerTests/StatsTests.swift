import Foundation
import SheetClient
import SheetCore
import SheetInput
import SheetProtocol
import SheetTestSupport
import Testing

/// `GetStats` and `sheetctl stats`: what an operator of a fleet of panels reads off a daemon.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: builtExecutable("sheetd").path)))
struct StatsTests {
    /// A finger held shows in the stats with how long it has been down; lifted, none is.
    @Test func aFingerHeldShowsWithItsTime() throws {
        let daemon = try RunningDaemon(["--input", "none"])
        let client = try daemon.client()
        var stats = try client.stats()
        #expect(stats.fingersDown == 0 && stats.fingersHeldInMicroseconds == 0)
        let feeder = try InputClient(path: InputInterface.socketPath(besideSocket: daemon.socketPath))
        let device = try feeder.open(PluginDevice(name: "panel", kind: .touchscreen, x: 0...1080, y: 0...1920, slots: 2))
        let down = LibinputInput.monotonicNow().microseconds
        try feeder.send(PluginFrame(sequence: 1, timeInMicroseconds: down, contacts: [PluginContact(slot: 0, phase: .down, x: 540, y: 1500)]),
                        device: device)
        stats = try client.stats()
        #expect(stats.fingersDown == 1 && stats.fingersHeldInMicroseconds > 0, "\(stats.fingersDown) \(stats.fingersHeldInMicroseconds)")
        // Held on, it is held longer.
        let later = try client.stats()
        #expect(later.fingersDown == 1 && later.fingersHeldInMicroseconds >= stats.fingersHeldInMicroseconds)
        let text = try runTool("sheetctl", ["stats", "--socket", daemon.socketPath])
        #expect(text.stdout.contains("\n1 finger(s) down, the first for "), "\(text.stdout)")
        try feeder.send(PluginFrame(sequence: 2, timeInMicroseconds: down + 8_000, contacts: [PluginContact(slot: 0, phase: .up, x: 540, y: 1500)]),
                        device: device)
        stats = try client.stats()
        #expect(stats.fingersDown == 0 && stats.fingersHeldInMicroseconds == 0)
        #expect(try runTool("sheetctl", ["stats", "--socket", daemon.socketPath]).stdout.contains("no finger down"))
        #expect(daemon.stop() == 0)
    }

    /// A program's touchscreen drags the card: 40 frames, while a subscriber watches. The counts
    /// say so, the states published are the stream's, one in 16 has its latency counted, and a
    /// reload is counted.
    @Test func theCountsAreWhatHappened() throws {
        let daemon = try RunningDaemon(["--input", "none"])
        let client = try daemon.client()
        // Someone watches from the first frame on.
        let subscription = SheetSubscription(path: daemon.socketPath)
        // Its first update, the state as it is, comes once the daemon has its route.
        var first: MonitorUpdate?
        for _ in 0..<4 where first == nil {
            if case .update(let update) = try subscription.next(timeoutMilliseconds: 5_000) { first = update }
        }
        try #require(first != nil, "the subscription's first state")
        let feeder = try InputClient(path: InputInterface.socketPath(besideSocket: daemon.socketPath))
        let device = try feeder.open(PluginDevice(name: #"panel "one" \ two"#, kind: .touchscreen, x: 0...1080, y: 0...1920, slots: 2))
        // Stamped in the recent past, 8 ms apart, as a panel's frames that arrive in a burst.
        let start = LibinputInput.monotonicNow().microseconds - 400_000
        for step in 0..<40 {
            let phase: ContactPhase = step == 0 ? .down : step == 39 ? .up : .move
            let contact = PluginContact(slot: 0, phase: phase, x: 540, y: 1000 + Double(step) * 5)
            try feeder.send(PluginFrame(sequence: Int64(step + 1), timeInMicroseconds: start + Int64(step) * 8_000, contacts: [contact]),
                            device: device)
        }
        // The last frame's effects are published before its reply; wait for rest.
        var last: MonitorUpdate?
        while last.map({ !$0.state.isIdle }) ?? true {
            guard case .update(let update) = try subscription.next(timeoutMilliseconds: 5_000) else { continue }
            last = update
        }
        subscription.disconnect()
        var stats = try client.stats()
        let fed = try #require(stats.devices.first { $0.node == "plugin:\(device)" }, "\(stats.devices)")
        #expect(fed.frames == 40 && fed.name == #"panel "one" \ two"#)
        #expect(stats.gestures >= 1, "the pan")
        #expect(stats.statesPublished == last?.sequence, "the Monitor stream's seq")
        // The 1st, the 17th, ...: watched or not, as a clock read can cost more than a frame.
        #expect(stats.publishLatency.count == Int((stats.statesPublished + 15) / 16),
                "\(stats.publishLatency.count) of \(stats.statesPublished)")
        #expect(stats.uptimeInMicroseconds > 0 && stats.reloads == 0)
        #expect(stats.connections >= 2 && stats.subscribersDropped == 0)

        // Closed, the device's count stays.
        try feeder.close(device: device)
        kill(daemon.process.processIdentifier, SIGHUP)
        try daemon.waitForStatus { $0 == "READY=1" }
        stats = try client.stats()
        #expect(stats.devices.first { $0.node == "plugin:\(device)" }?.frames == 40, "\(stats.devices)")
        #expect(stats.reloads == 1)

        // The Prometheus text: counters, the histogram cumulative to +Inf, labels escaped.
        let prometheus = try runTool("sheetctl", ["stats", "--prometheus", "--socket", daemon.socketPath])
        #expect(prometheus.status == 0, "\(prometheus.stderr)")
        let lines = prometheus.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains(#"sheetd_frames_read_total{node="plugin:\#(device)",name="panel \"one\" \\ two"} 40"#), "\(lines)")
        #expect(lines.contains("sheetd_reloads_total 1"))
        #expect(lines.contains("# TYPE sheetd_publish_latency_seconds histogram"))
        let buckets = lines.filter { $0.hasPrefix("sheetd_publish_latency_seconds_bucket") }
        let counts = buckets.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
        #expect(counts.count == LatencyHistogram.boundsInMicroseconds.count + 1)
        #expect(zip(counts, counts.dropFirst()).allSatisfy { $0 <= $1 }, "cumulative: \(counts)")
        #expect(buckets.last?.hasPrefix(#"sheetd_publish_latency_seconds_bucket{le="+Inf"}"#) == true)
        #expect(lines.contains("sheetd_publish_latency_seconds_count \(counts.last ?? -1)"))
        // Each sample: a metric name, labels maybe, a space, a number.
        for line in lines where !line.hasPrefix("#") {
            let name = line.prefix { $0 != "{" && $0 != " " }
            #expect(name.hasPrefix("sheetd_") && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }, "\(line)")
            #expect(line.split(separator: " ").last.flatMap { Double($0) } != nil, "\(line)")
        }
        let text = try runTool("sheetctl", ["stats", "--socket", daemon.socketPath])
        #expect(text.status == 0 && text.stdout.contains("1 reload(s)") && text.stdout.contains("40 frame(s)"), "\(text.stdout)")
        #expect(daemon.stop() == 0)
    }

    /// With no one watching, one state in 16 is timed (by sequence: the 1st, the 17th, ...):
    /// reading the clock for each would cost a daemon without a subscriber more than its frames.
    /// A seat's daemon says its seat; `--check-config` shows the seat's sockets (a socket of
    /// the test's own here, as `--socket` wins).
    @Test func aSeatsDaemonSaysItsSeatAndHasItsSockets() throws {
        let daemon = try RunningDaemon(["--seat", "seat-rear", "--input", "none"])
        #expect(try daemon.client().stats().seat == "seat-rear")
        let printed = try runTool("sheetctl", ["stats", "--socket", daemon.socketPath])
        #expect(printed.stdout.hasPrefix("seat-rear: up "), "\(printed)")
        #expect(daemon.stop() == 0)
        let checked = try runTool("sheetd", ["--check-config", "--seat", "seat1", "--config", "/dev/null"])
        #expect(checked.stdout.contains("input udev:seat1, socket /run/sheetd/seat1/io.sheetd.Sheet"), "\(checked)")
        // A client finds a seat's daemon by the seat's name.
        let elsewhere = try runTool("sheetctl", ["state", "--seat", "seat-nowhere"])
        #expect(elsewhere.status == 69 && elsewhere.stderr.contains("/run/sheetd/seat-nowhere/io.sheetd.Sheet"), "\(elsewhere)")
        #expect(try runTool("sheetctl", ["state", "--seat", "nowhere"]).status == 64)
        let refused = try runTool("sheetd", ["--check-config", "--seat", "rear", "--config", "/dev/null"])
        #expect(refused.status != 0 && refused.stderr.contains("`seat` wants a seat's name"), "\(refused)")
    }

    @Test func unwatchedStatesAreTimedOneInSixteen() throws {
        let daemon = try RunningDaemon(["--input", "none"])
        let feeder = try InputClient(path: InputInterface.socketPath(besideSocket: daemon.socketPath))
        let device = try feeder.open(PluginDevice(name: "panel", kind: .touchscreen, x: 0...1080, y: 0...1920, slots: 2))
        let start = LibinputInput.monotonicNow().microseconds - 400_000
        for step in 0..<40 {
            let phase: ContactPhase = step == 0 ? .down : .move
            let contact = PluginContact(slot: 0, phase: phase, x: 540, y: 1000 + Double(step) * 5)
            try feeder.send(PluginFrame(sequence: Int64(step + 1), timeInMicroseconds: start + Int64(step) * 8_000, contacts: [contact]),
                            device: device)
        }
        // Each frame's state was published before its reply; the finger is still down, so nothing
        // moves on its own until the stats are read.
        let stats = try daemon.client().stats()
        #expect(stats.statesPublished > 16, "a state for each frame that moved the card: \(stats.statesPublished)")
        #expect(stats.publishLatency.count == Int((stats.statesPublished + 15) / 16), "\(stats.publishLatency.count) of \(stats.statesPublished)")
    }

    /// The reply survives the wire, and one that does not hold together is refused by name.
    @Test func theStatsSurviveTheWire() throws {
        var stats = DaemonStats()
        stats.uptimeInMicroseconds = 12_345_678
        stats.devices = [DeviceFrames(node: "/dev/input/event3", name: "Atmel maXTouch", frames: 1234)]
        stats.statesPublished = 99
        stats.publishLatency.record(40)
        stats.publishLatency.record(70_000)
        stats.publishLatency.record(-5)
        #expect(stats.publishLatency.counts.first == 2 && stats.publishLatency.counts.last == 1)
        var writer = JSONWriter()
        stats.write(to: &writer)
        let json = try JSONReader.parse(String(decoding: writer.bytes, as: UTF8.self))
        #expect(try DaemonStats(json: json) == stats)
        let broken = String(decoding: writer.bytes, as: UTF8.self).replacingOccurrences(of: "\"boundsUSec\":[50,", with: "\"boundsUSec\":[60,")
        #expect(throws: ProtocolError.self) { try DaemonStats(json: JSONReader.parse(broken)) }
    }
}
