import Foundation
import Glibc
import SheetClient
import SheetCore
import SheetInput
import SheetProtocol
import SheetTestSupport
import Testing

/// What a hostile or careless local client or a second daemon used to break, each with the
/// defect it guards against.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: builtExecutable("sheetd").path)))
struct ReliabilityTests {
    /// Under socket activation the first call used to find no state yet (`"state": null`).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate")))
    func aSocketActivatedDaemonAnswersItsFirstCallWithAState() throws {
        let folder = try temporaryFolder()
        let socket = folder.appendingPathComponent("io.sheetd.Sheet").path
        let activator = try socketActivated(socket)
        defer { activator.terminate(); activator.waitUntilExit() }
        let reply = try SheetClient(path: socket, timeoutSeconds: 60).connection.call(VarlinkCall(method: "io.sheetd.Sheet.GetState"))
        #expect(reply["state"] != nil && reply["state"] != .null, "\(reply)")
        #expect(try SheetState(json: reply["state"]!).detent == "half")
    }

    /// A client that connected before the daemon served its socket (a renderer following a
    /// restart, a call that starts a socket-activated daemon) used to be judged before the
    /// daemon knew the socket's group: a member's call (a renderer's SetScreen) was refused,
    /// "not … in group " with no group named.
    @Test(.enabled(if: getuid() == 0 && getgrnam("users") != nil
                   && FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate")))
    func aCallWaitingWhenTheDaemonStartsIsJudgedByTheSocketsGroup() throws {
        let folder = try temporaryFolder()
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        let socket = folder.appendingPathComponent("io.sheetd.Sheet").path
        let activator = try socketActivated(socket)
        defer { activator.terminate(); activator.waitUntilExit() }
        // The socket as a unit would make it: group users, 0660. The member's call is queued
        // on it before the daemon runs, so the daemon's first act is to judge it.
        let users = getgrnam("users")!.pointee.gr_gid
        #expect(chown(socket, 0, users) == 0 && chmod(socket, 0o660) == 0)
        // Waited for with waitpid: Foundation's Process does not notice this client's end
        // while the activator it started has become the daemon.
        let output = folder.appendingPathComponent("sheetctl.out").path
        // A copy any user may run: the clone's may not be (a clone in /root, mode 700).
        let sheetctl = folder.appendingPathComponent("sheetctl")
        try installExecutable(builtExecutable("sheetctl"), at: sheetctl)
        let status = try spawnAndWait(["/usr/bin/setpriv", "--reuid=nobody", "--regid=users", "--clear-groups",
                                       sheetctl.path, "dismiss", "--socket", socket], output: output)
        #expect(status == 0, "\((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
    }

    /// A second daemon used to take over a live socket silently, and the first removed the
    /// second's socket when it stopped.
    @Test func aSecondDaemonIsRefusedAndOnlyTheOwnSocketIsRemoved() throws {
        let first = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max"])
        let refused = try runTool("sheetd", ["--config", "/dev/null", "--socket", first.socketPath,
                                             "--input", "replay:\(try Generated.idle())@max"])
        #expect(refused.status == 69)
        #expect(refused.stderr.contains("\(first.socketPath) is in use: process \(first.process.processIdentifier) answers on it"),
                "\(refused.stderr)")
        #expect(try first.client().state().detent == "half", "the first daemon still serves")

        // A daemon that replaced a removed socket keeps it when the first one stops.
        unlink(first.socketPath)
        let second = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max"], socketPath: first.socketPath)
        #expect(first.stop() == 0)
        #expect(try second.client().state().detent == "half", "the second daemon's socket is still there")
        #expect(second.stop() == 0)
        #expect(access(first.socketPath, F_OK) != 0, "the second daemon removed its own socket")

        // A socket nobody answers on (a killed daemon's) is replaced; a file that is not a
        // socket is left alone.
        let stale = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max"])
        kill(stale.process.processIdentifier, SIGKILL)
        stale.process.waitUntilExit()
        let after = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max"], socketPath: stale.socketPath)
        #expect(after.stop() == 0)
        let plain = try temporaryFile("not-a-socket", "keep me\n")
        let notSocket = try runTool("sheetd", ["--config", "/dev/null", "--socket", plain, "--input", "replay:\(try Generated.idle())@max"])
        #expect(notSocket.status == 69)
        #expect(notSocket.stderr.contains("exists and is not a socket"))
        #expect(try String(contentsOfFile: plain, encoding: .utf8) == "keep me\n")
    }

    /// 250 connections that each wrote 64 KB of GetInterfaceDescription calls and never read
    /// used to delay a fresh GetState by seconds and grow the daemon by 150 MB.
    @Test func clientsThatFloodAndNeverReadCostLittleAndDelayNobody() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max", "--max-connections-per-user", "256"])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        let before = try residentKiB(daemon.process.processIdentifier)
        let call = VarlinkCall(method: "org.varlink.service.GetInterfaceDescription",
                               parameters: .object(["interface": .string("io.sheetd.Sheet")])).encoded()
        let flood = Array([[UInt8]](repeating: call, count: 64 * 1024 / call.count).joined())
        var flooders: [SheetClient] = []
        for _ in 0..<250 {
            let client = try daemon.client()
            try client.connection.sendRaw(flood)
            flooders.append(client)
        }
        // A fresh client is answered while they wait.
        #expect(try daemon.client().state().detent == "half")
        // Every flooder has been read as far as it will be: one more call each is answered
        // only after the daemon got to it, so ask each for nothing more and measure.
        let after = try residentKiB(daemon.process.processIdentifier)
        #expect(after - before < 48 * 1024, "the daemon grew by \(after - before) KiB")
        #expect(daemon.process.isRunning)
        flooders.removeAll()
        #expect(daemon.stop() == 0)
    }

    /// One client that floods calls and reads every reply used to push everyone else's p50 to
    /// 207 ms: its backlog was answered before anyone else's call. Now it gets its share of a
    /// loop turn (16 calls) and the others theirs: a GetState sent in the middle of the flood is
    /// answered after at most a few turns of the flooder's replies, not after its backlog.
    @Test func aClientThatFloodsAndReadsTakesOnlyItsShare() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max"])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        // One thread writes the flood while another reads the replies: the writer touches only
        // the socket, the reader only the reply buffer.
        nonisolated(unsafe) let flooder = try daemon.client()
        let calls = 40_000
        let call = VarlinkCall(method: "org.varlink.service.GetInfo").encoded()
        let answered = Counter()
        let reader = Thread {
            for _ in 0..<calls {
                guard (try? flooder.connection.readReply()) != nil else { return }
                answered.add(1)
            }
            answered.add(0)
        }
        reader.start()
        let writer = Thread { _ = try? flooder.connection.sendRaw(Array([[UInt8]](repeating: call, count: calls).joined())) }
        writer.start()
        // Once the flood is being answered, a fresh client asks for the state.
        answered.wait(for: 1_000) { reader.isFinished }
        let other = try daemon.client()
        let sent = answered.value
        #expect(try other.state().detent == "half")
        let meanwhile = answered.value - sent
        print("flood: the flooder got \(meanwhile) replies while one GetState waited")
        // What it gets meanwhile is mostly replies already in the socket's buffers: about 170
        // here; 8,230 when a client's whole read-ahead was answered before the loop polled again.
        #expect(meanwhile < 1_000, "the flooder got \(meanwhile) replies while one GetState waited")
        #expect(answered.value < calls, "the GetState waited for the whole flood")
        answered.wait(for: calls) { reader.isFinished }
        #expect(daemon.stop() == 0)
    }

    /// 256 connections that never called anything used to hold every slot for ever.
    @Test func idleConnectionsAreClosedAndOneUserCannotTakeEverySlot() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max", "--client-idle-timeout", "0.3",
                                        "--max-connections", "8", "--max-connections-per-user", "4", "--socket-mode", "0666"])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: daemon.folder.path)
        let subscriber = try daemon.client().connection
        try subscriber.send(VarlinkCall(method: "io.sheetd.Sheet.Monitor", more: true))
        _ = try subscriber.readReply()
        var idle: [SheetClient] = []
        for _ in 0..<3 { idle.append(try daemon.client()) }
        // The fifth connection of this uid is refused, naming its share.
        let fifth = try daemon.client().connection.readReply()
        #expect(fifth.error == VarlinkErrorName.tooManyConnections)
        #expect(fifth.parameters["limit"] == .number(4))
        // Another user still gets in.
        if getuid() == 0 {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("python_peer_client.py")
            let other = try runTool("", [script.path, "nobody", daemon.socketPath], prefix: [testPython])
            #expect(other.stdout == "ok\n", "\(other.stdout)\(other.stderr)")
        }
        // The idle ones are closed; the subscriber is not idle and still follows the sheet.
        for client in idle {
            #expect(throws: ClientError.closed(path: daemon.socketPath)) { _ = try client.connection.readReply() }
        }
        #expect(daemon.log.contains("made no call for 0.3 s; closed"), "\(daemon.log)")
        try daemon.client().present(detent: "expanded")
        while try SheetState(json: subscriber.readReply().parameters["state"]!).target != "expanded" {}
        #expect(daemon.stop() == 0)
    }

    /// The groups that count are those a connection was made with (SO_PEERGROUPS), never
    /// looked up later by a pid another process may have by then.
    @Test(.enabled(if: getuid() == 0 && getgrnam("users") != nil))
    func theGroupsThatCountAreThoseOfTheConnect() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max", "--socket-group", "users", "--socket-mode", "0666"])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: daemon.folder.path)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("python_peer_client.py")
        let users = getgrnam("users")!.pointee.gr_gid
        // A member of `users` connects and exits; a process without the group holds the
        // connection: it may control, as the connection was made by a member.
        let handed = try runTool("", [script.path, "handed", daemon.socketPath, "\(users)"], prefix: [testPython])
        #expect(handed.stdout == "ok\n", "\(handed.stdout)\(handed.stderr)")
        #expect(try daemon.client().state().target ?? daemon.client().state().detent == "expanded")
        // `nobody` without the group is refused, and told which group to join.
        let sheetctl = try PythonClientTests.readableCopy([]).appendingPathComponent("sheetctl")
        try installExecutable(builtExecutable("sheetctl"), at: sheetctl)
        let refused = try runTool("", ["dismiss", "--socket", daemon.socketPath],
                                  prefix: ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", sheetctl.path])
        #expect(refused.status == 77)
        #expect(refused.stderr.contains("control calls need root, the daemon's user or group users; join it"), "\(refused.stderr)")
        #expect(daemon.stop() == 0)
    }

    /// SIGHUP used to kill the daemon (exit 129, socket left behind). It reloads: a new policy
    /// and detent apply under a subscriber that stays; a bad file keeps the old settings and
    /// says FILE:LINE.
    @Test func sighupReloadsTheConfigurationUnderASubscriber() throws {
        let file = try temporaryFile("sheetd.yaml", "policy: tutorial\nlog-level: info\n")
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max", "--config", file])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        let subscriber = try daemon.client().connection
        try subscriber.send(VarlinkCall(method: "io.sheetd.Sheet.Monitor", more: true))
        let first = try SheetState(json: subscriber.readReply().parameters["state"]!)
        #expect(!first.detents.contains { $0.name == "peek" })

        try "policy: half-drag\ndetents: [peek=85%]\nlog-level: debug\n".write(toFile: file, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        try daemon.waitForStatus { $0 == "RELOADING=1" }
        try daemon.waitForStatus { $0.hasPrefix("MONOTONIC_USEC=") }
        try daemon.waitForStatus { $0 == "READY=1" }
        #expect(daemon.log.contains("reloaded: policy half-drag, detents expanded,half,hidden,peek, reduced motion off, log level debug"), "\(daemon.log)")
        // The subscriber is still there and sees the new detent; SetDetent knows it.
        while !(try SheetState(json: subscriber.readReply().parameters["state"]!)).detents.contains(where: { $0.name == "peek" }) {}
        try daemon.client().setDetent("peek")
        while try SheetState(json: subscriber.readReply().parameters["state"]!).detent != "peek" {}
        #expect(daemon.log.contains("sheetd: debug: "), "the new log level applies")

        // A bad file: logged with its line, the settings stay, the daemon serves on.
        try "policy: half-drag\npolicy: sideways\n".write(toFile: file, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        try daemon.waitForStatus { $0 == "RELOADING=1" }
        let status = try daemon.waitForStatus { $0.hasPrefix("STATUS=reload refused") }
        #expect(status.contains("\(file):2: `policy` is set twice"), "\(status)")
        #expect(daemon.log.contains("reload refused, the settings stay as they were: \(file):2:"))
        try daemon.client().setDetent("half")
        try daemon.client().setDetent("peek")
        #expect(daemon.process.isRunning)
        #expect(daemon.stop() == 0)
    }

    /// At rest the daemon wakes for nothing but the watchdog: none of its threads is
    /// libdispatch's (a dispatch queue or signal source starts its worker pool, whose monitor
    /// then wakes the process every second), after a save, a reload and a call, and SIGINT
    /// stops it as cleanly as SIGTERM.
    @Test func noDispatchThreadWakesTheIdleDaemonAndSigintStopsIt() throws {
        let folder = try temporaryFolder()
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max",
                                        "--state-directory", folder.appendingPathComponent("state").path])
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        try daemon.client().setDetent("expanded")
        kill(daemon.process.processIdentifier, SIGHUP)
        try daemon.waitForStatus { $0 == "RELOADING=1" }
        try daemon.waitForStatus { $0 == "READY=1" }
        #expect(try daemon.client().state().detents.count == 3)
        let tasks = "/proc/\(daemon.process.processIdentifier)/task"
        let names = try FileManager.default.contentsOfDirectory(atPath: tasks).map {
            try String(contentsOfFile: "\(tasks)/\($0)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(!names.isEmpty && !names.contains { $0.contains("qos") || $0.contains("dispatch") }, "\(names)")
        kill(daemon.process.processIdentifier, SIGINT)
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus == 0)
        #expect(daemon.log.contains("SIGINT: stopping"), "\(daemon.log)")
    }

    /// The watchdog is fed while frames come without a pause, and at rest. The loop reads the
    /// clock for it only in the turns its timer wakes: a turn woken by a frame must not be
    /// the only kind there is.
    @Test func theWatchdogIsFedWhileAFingerDragsWithoutAPause() throws {
        let daemon = try RunningDaemon(["--input", "none"], watchdogMicroseconds: 100_000)
        let feeder = try InputClient(path: InputInterface.socketPath(besideSocket: daemon.socketPath))
        let device = try feeder.open(PluginDevice(name: "panel", kind: .touchscreen, x: 0...1080, y: 0...1920, slots: 2))
        // Frame after frame up and down the screen, as fast as the input socket takes them (a
        // thousand a second: the pause paces the panel, it waits for nothing), until the
        // watchdog has been fed three times.
        func fed() -> Int { daemon.statuses.count { $0 == "WATCHDOG=1" } }
        let before = fed(), start = LibinputInput.monotonicNow().microseconds
        var step: Int64 = 0
        while fed() < before + 3 {
            let elapsed = LibinputInput.monotonicNow().microseconds - start
            try #require(elapsed < Int64(RunningDaemon.patienceSeconds) * 1_000_000, "the watchdog was fed \(fed() - before) time(s)")
            let y = 600 + Double(step % 200 < 100 ? step % 100 : 200 - step % 200) * 8
            step += 1
            let contact = PluginContact(slot: 0, phase: step == 1 ? .down : .move, x: 540, y: y)
            try feeder.send(PluginFrame(sequence: step, timeInMicroseconds: LibinputInput.monotonicNow().microseconds, contacts: [contact]),
                            device: device)
            daemon.drainNotifications()
            usleep(1_100)
        }
        #expect(try daemon.client().state().inputActive, "the finger is down")
        try feeder.send(PluginFrame(sequence: step + 1, timeInMicroseconds: LibinputInput.monotonicNow().microseconds,
                                    contacts: [PluginContact(slot: 0, phase: .up, x: 540, y: 600)]), device: device)
        // And at rest, with nothing but the timer to wake the loop.
        let atRest = fed()
        while fed() < atRest + 2 { try daemon.waitForStatus { _ in true } }
        #expect(daemon.stop() == 0)
    }

    /// A recording played as fast as possible sets no timer; the watchdog is fed all the same
    /// while it plays.
    @Test func theWatchdogIsFedWhileAReplayPlaysAsFastAsPossible() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.longDrags(seconds: 600))@max"], watchdogMicroseconds: 2_000)
        let fedBefore = daemon.statuses.count { $0 == "WATCHDOG=1" }
        try daemon.waitForStatus { $0.hasPrefix("STATUS=replay done") }
        // Fed each millisecond: tens of thousands of frames take far longer than three.
        let fed = daemon.statuses.count { $0 == "WATCHDOG=1" } - fedBefore
        #expect(fed >= 3, "fed \(fed) time(s) while the replay played")
        #expect(daemon.stop() == 0)
    }

    /// A mistyped command gets the one it was near.
    @Test func aMistypedCommandGetsASuggestion() throws {
        let typo = try runTool("sheetctl", ["dismis"])
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("no command `dismis`; did you mean `dismiss`?"), "\(typo.stderr)")
        #expect(try runTool("sheetctl", ["bogus"]).status == 64)
    }

    /// Smaller defects: a oneway Monitor used to stream; NotAllowed did not name the group.
    @Test func aOnewayMonitorGetsNothing() throws {
        let daemon = try RunningDaemon(["--input", "replay:\(try Generated.idle())@max"])
        let connection = try daemon.client().connection
        try connection.send(VarlinkCall(method: "io.sheetd.Sheet.Monitor", more: true, oneway: true))
        #expect(try connection.call(VarlinkCall(method: "org.varlink.service.GetInfo"))["product"] == .string("sheetd"))
        #expect(daemon.stop() == 0)
    }
}

/// sheetd under `systemd-socket-activate` on `socket` with an idle replay (and no input socket,
/// which would default to /run/sheetd), once the activator listens; the daemon itself starts
/// with the first connection.
func socketActivated(_ socket: String) throws -> Process {
    let (activator, _, errors) = try startProcess(
        URL(fileURLWithPath: "/usr/bin/systemd-socket-activate"),
        ["-l", socket, builtExecutable("sheetd").path, "--config", "/dev/null",
         "--input", "replay:\(try Generated.idle())@max", "--input-socket", "none"],
        environment: ["NOTIFY_SOCKET": nil])
    var said = ""
    while !said.contains("Listening on") {
        let chunk = errors.fileHandleForReading.availableData
        guard !chunk.isEmpty else {
            activator.terminate()
            activator.waitUntilExit()
            throw DaemonTestError("systemd-socket-activate said: \(said)")
        }
        said += String(decoding: chunk, as: UTF8.self)
    }
    return activator
}

/// VmRSS of a process, in KiB.
func residentKiB(_ pid: pid_t) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) else {
        throw DaemonTestError("no VmRSS for \(pid)")
    }
    return kib
}

/// A counter two threads share, and a wait for it to reach a value.
final class Counter: @unchecked Sendable {
    private let condition = NSCondition()
    private var count = 0
    var value: Int { condition.lock(); defer { condition.unlock() }; return count }
    func add(_ amount: Int) { condition.lock(); count += amount; condition.broadcast(); condition.unlock() }
    /// Waits until the count reaches `target`, or `done` says it never will.
    func wait(for target: Int, unless done: @escaping () -> Bool) {
        condition.lock()
        while count < target, !done() { _ = condition.wait(until: Date().addingTimeInterval(0.1)) }
        condition.unlock()
    }
}
