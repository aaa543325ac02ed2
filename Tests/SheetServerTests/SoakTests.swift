import Foundation
import Glibc
import SheetClient
import SheetCore
import SheetProtocol
import SheetTestSupport
import Testing

/// `make soak` (SHEETD_SOAK_SECONDS=1800): the daemon for half an hour under a replay at real
/// speed, 64 subscribers that keep connecting, reading a while and leaving, 4 feeders dragging
/// over `io.sheetd.Input`, control calls, screen changes and a reload (SIGHUP) every second.
/// After the first minute (the first tenth of a shorter run) its resident memory may grow by
/// less than 1 MiB and its descriptors not at all; its log must be free of errors, and every
/// subscriber must end on the state GetState returns.
/// Not part of `swift test`: it runs only when the variable is set.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["SHEETD_SOAK_SECONDS"] != nil))
struct SoakTests {
    static let seconds = Int(ProcessInfo.processInfo.environment["SHEETD_SOAK_SECONDS"] ?? "") ?? 1800
    static let subscriberCount = 64
    static let feederCount = 4

    /// What the threads share, under a lock.
    final class Shared: @unchecked Sendable {
        let lock = NSCondition()
        var stopping = false
        /// While set, no subscriber leaves and the controller keeps its connection: every
        /// subscriber holds one subscription, so descriptors count what leaks, not the churn.
        var paused = false
        /// Subscribers holding a subscription they have had a reply on.
        var holding = 0
        var sessions = 0
        var updates = 0
        var controlCalls = 0
        var framesFed = 0
        var reloads = 0
        var failures: [String] = []
        /// Descriptors of subscribers' sockets now open, to end their reads at the stop.
        var open: Set<Int32> = []

        func with<T>(_ body: (Shared) -> T) -> T { lock.lock(); defer { lock.unlock() }; return body(self) }
        func fail(_ message: String) { with { $0.failures.append(message); $0.lock.broadcast() } }
        var isStopping: Bool { with { $0.stopping } }
    }

    @Test func halfAnHourUnderLoadStaysFlat() throws {
        let recording = try Generated.longDrags(seconds: Self.seconds)
        let config = try temporaryFile("soak.yaml", "policy: projection\n")
        let daemon = try RunningDaemon(["--input", "replay:\(recording)@1", "--log-level", "info", "--config", config])
        let pid = daemon.process.processIdentifier
        let shared = Shared()
        let socketPath = daemon.socketPath
        let started = Date()

        var threads: [Thread] = []
        for index in 0..<Self.subscriberCount {
            threads.append(Thread { Self.subscribe(index: index, path: socketPath, shared: shared) })
        }
        threads.append(Thread { Self.control(path: socketPath, shared: shared) })
        let inputPath = socketPath.replacingOccurrences(of: "io.sheetd.Sheet", with: "io.sheetd.Input")
        for index in 0..<Self.feederCount {
            threads.append(Thread { Self.feed(index: index, path: inputPath, shared: shared) })
        }
        threads.append(Thread { Self.reload(pid: pid, shared: shared) })
        for thread in threads { thread.stackSize = 1 << 20; thread.start() }

        // Samples every 10 s, with every subscriber holding its subscription: resident memory and
        // open descriptors, each the least of five readings 20 ms apart (a close the daemon
        // has not seen yet is not a leak).
        var samples: [(seconds: Int, rss: Int, fds: Int)] = []
        while Date().timeIntervalSince(started) < Double(Self.seconds) {
            // The notifications are read every second: a reload a second sends more in 10 s
            // than the socket's queue holds (10 datagrams), and a full queue holds the daemon's
            // loop up to a second on each and then loses them ("replay done" among them).
            for _ in 0..<10 {
                Thread.sleep(forTimeInterval: 1)
                daemon.drainNotifications()
            }
            guard daemon.process.isRunning else { break }
            shared.with { box in
                box.paused = true
                while box.holding < Self.subscriberCount, box.failures.isEmpty { box.lock.wait() }
            }
            defer { shared.with { box in box.paused = false; box.lock.broadcast() } }
            var rss = Int.max, fds = Int.max
            for _ in 0..<5 {
                rss = min(rss, try residentKiB(pid))
                fds = min(fds, try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count)
                Thread.sleep(forTimeInterval: 0.02)
            }
            samples.append((Int(Date().timeIntervalSince(started)), rss, fds))
        }

        // The stop: subscribers' reads end, the threads finish.
        shared.with { box in
            box.stopping = true
            box.lock.broadcast()
            for descriptor in box.open { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
        while !threads.allSatisfy(\.isFinished) {
            Thread.sleep(forTimeInterval: 0.05)
            daemon.drainNotifications()
        }
        #expect(daemon.process.isRunning, "the daemon exited; log:\n\(daemon.log.suffix(4000))")

        // The replay ends (it is as long as the soak); then 64 subscribers follow one last move
        // to its rest, the list's included, and each ends where GetState says.
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        let finals = try (0..<Self.subscriberCount).map { _ in try daemon.client() }
        for client in finals {
            try client.connection.send(VarlinkCall(method: "io.sheetd.Sheet.Monitor", more: true))
            _ = try client.connection.readReply()
        }
        try daemon.client().setScreen(width: 1080, height: 1920, scale: 1)
        try daemon.client().present(detent: "expanded")
        var lastStates: [SheetState] = []
        for client in finals {
            var last: SheetState
            repeat {
                last = try SheetState(json: client.connection.readReply().parameters["state"] ?? .null)
            } while !(last.state == .resting && last.detent == "expanded" && last.list?.isSettled != false)
            lastStates.append(last)
        }
        let current = try daemon.client().state()
        for (index, last) in lastStates.enumerated() {
            #expect(last == current, "subscriber \(index) ended on \(last), GetState says \(current)")
        }

        // Flat after the first minute, or the first tenth of a shorter run (allocator arenas and
        // caches fill during it).
        let warmUp = min(60, max(10, Self.seconds / 10))
        let settled = samples.filter { $0.seconds >= warmUp }
        let rss = settled.map(\.rss), fds = settled.map(\.fds)
        let log = daemon.log
        let errors = log.split(separator: "\n").filter { $0.contains("sheetd: error:") || $0.contains("sheetd: critical:") }
        let warnings = log.split(separator: "\n").filter { $0.contains("sheetd: warning:") }
        let counts = shared.with { ($0.sessions, $0.updates, $0.controlCalls, $0.failures, $0.framesFed, $0.reloads) }
        print("""
            soak: \(Self.seconds) s, \(Self.subscriberCount) subscribers, \(counts.0) subscriptions, \(counts.1) updates read, \
            \(counts.2) control calls, \(Self.feederCount) feeders: \(counts.4) frames fed, \(counts.5) reloads
            soak: resident \(rss.min() ?? 0)…\(rss.max() ?? 0) KiB, descriptors \(fds.min() ?? 0)…\(fds.max() ?? 0) \
            (\(settled.count) samples after \(warmUp) s); \(warnings.count) warnings, \(errors.count) errors in the log
            """)
        #expect(counts.3.isEmpty, "\(counts.3.prefix(10))")
        #expect(errors.isEmpty, "\(errors.prefix(10))")
        #expect(counts.4 > 0 && counts.5 > 0, "the feeders fed and the daemon was reloaded")
        if let first = settled.first, let high = rss.max() {
            #expect(high - first.rss < 1024, "resident memory grew from \(first.rss) to \(high) KiB after the first \(warmUp) s: \(samples)")
        }
        if let low = fds.min(), let high = fds.max() {
            #expect(high == low, "descriptors went from \(low) to \(high): \(samples)")
        }
        #expect(daemon.stop() == 0)
    }

    /// One subscriber: subscribe, read 2…200 updates (each decoded, sequence numbers rising),
    /// leave, again, until the stop.
    static func subscribe(index: Int, path: String, shared: Shared) {
        var generator = SystemRandomNumberGenerator()
        while !shared.isStopping {
            let client: SheetClient
            do { client = try SheetClient(path: path, timeoutSeconds: 60) } catch {
                shared.fail("subscriber \(index): \(error)")
                return
            }
            let descriptor = client.connection.fileDescriptor
            shared.with { _ = $0.open.insert(descriptor) }
            var held = false
            defer { shared.with { box in box.open.remove(descriptor); if held { box.holding -= 1 } } }
            do {
                try client.connection.send(VarlinkCall(method: "io.sheetd.Sheet.Monitor", more: true))
                var lastSequence: Int64 = -1
                for count in 0..<Int.random(in: 2...200, using: &generator) {
                    if count == 1 { held = true; shared.with { $0.holding += 1; $0.lock.broadcast() } }
                    let update = try MonitorUpdate(json: client.connection.readReply().parameters)
                    if update.sequence <= lastSequence {
                        shared.fail("subscriber \(index): seq \(update.sequence) after \(lastSequence)")
                    }
                    lastSequence = update.sequence
                    shared.with { $0.updates += 1 }
                }
                shared.with { box in
                    while box.paused, !box.stopping { box.lock.wait() }
                    box.sessions += 1
                }
            } catch {
                if !shared.isStopping { shared.fail("subscriber \(index): \(error)") }
                return
            }
        }
    }

    /// Control calls ten times a second from one client, a fresh connection for every tenth;
    /// a new screen every 10 s.
    static func control(path: String, shared: Shared) {
        let screens = [(1080, 1920, 1.0), (720, 1280, 1.5), (2160, 3840, 2.0), (800, 480, 1.0)]
        var generator = SystemRandomNumberGenerator()
        var tick = 0
        do {
            var client = try SheetClient(path: path, timeoutSeconds: 60)
            while !shared.isStopping {
                Thread.sleep(forTimeInterval: 0.1)
                tick += 1
                if tick % 10 == 0, !shared.with({ $0.paused }) { client = try SheetClient(path: path, timeoutSeconds: 60) }
                if tick % 100 == 0 {
                    let screen = screens[(tick / 100) % screens.count]
                    try client.setScreen(width: screen.0, height: screen.1, scale: screen.2)
                    continue
                }
                switch Int.random(in: 0..<8, using: &generator) {
                case 0: try client.present(detent: ["expanded", "half", nil].randomElement(using: &generator)!)
                case 1: try client.setDetent(["expanded", "half"].randomElement(using: &generator)!)
                case 2: try? client.dismiss()  // Guarded is an answer too
                case 3:
                    let items = (0..<Int.random(in: 0...64, using: &generator)).map { SheetItem(id: "item-\($0)", label: "Item \($0)") }
                    try client.setContent(ContentChange(title: "Soak \(tick)", items: items, guarded: Bool.random(using: &generator)))
                case 4: _ = try client.content()
                case 5: _ = try client.devices()
                case 6: try client.dismiss(force: true)
                default: _ = try client.state()
                }
                shared.with { $0.controlCalls += 1 }
            }
        } catch {
            if !shared.isStopping { shared.fail("control: \(error)") }
        }
    }

    /// One feeder: a touchscreen of its own over `io.sheetd.Input`, dragged up and down in
    /// strokes of 60 frames 8 ms apart; a fresh connection every tenth stroke (not while the
    /// descriptors are counted).
    static func feed(index: Int, path: String, shared: Shared) {
        let declaration = PluginDevice(name: "soak feeder \(index)", kind: .touchscreen, x: 0...1080, y: 0...1920, slots: 1, clock: .own)
        var stroke = 0
        var time: Int64 = 0
        do {
            var client = try InputClient(path: path, waitingUpTo: 10)
            var device = try client.open(declaration)
            while !shared.isStopping {
                stroke += 1
                if stroke % 10 == 0, !shared.with({ $0.paused }) {
                    client = try InputClient(path: path, waitingUpTo: 10)
                    device = try client.open(declaration)
                }
                let x = Double(100 + index * 200)
                for step in 0...60 {
                    let phase: ContactPhase = step == 0 ? .down : step == 60 ? .up : .move
                    let y = stroke % 2 == 0 ? 1500 - Double(step) * 15 : 600 + Double(step) * 15
                    time += 8_000
                    try client.send(PluginFrame(sequence: time, timeInMicroseconds: time, contacts: [PluginContact(slot: 0, phase: phase, x: x, y: y)]),
                                    device: device)
                    Thread.sleep(forTimeInterval: 0.008)
                }
                shared.with { $0.framesFed += 61 }
            }
        } catch {
            if !shared.isStopping { shared.fail("feeder \(index): \(error)") }
        }
    }

    /// A SIGHUP every second: the configuration read again under load.
    static func reload(pid: pid_t, shared: Shared) {
        while !shared.isStopping {
            Thread.sleep(forTimeInterval: 1)
            kill(pid, SIGHUP)
            shared.with { $0.reloads += 1 }
        }
    }
}
