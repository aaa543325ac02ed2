import Logging
import NIOCore
import NIOEmbedded
import SheetCore
import SheetInput
import SheetProtocol
import SheetRules
import SheetServer

/// The server's connection handler on an embedded channel: the bytes a client sends, cut into
/// reads as the first byte's low seven bits say, framed, parsed and dispatched as on the socket
/// (the sheet's, or with the high bit set the input socket); the control calls and input frames
/// that pass reach a real engine, as in the daemon.
final class VarlinkHarness: SheetServiceDelegate, @unchecked Sendable {
    static let shared = VarlinkHarness()

    private var server: VarlinkServer!
    // Touched on the fuzzing thread only: the embedded channel runs every callback there.
    private var engine = Engine(configuration: EngineConfiguration())
    private var outputs: [EngineOutput] = []
    private var now = Timestamp.zero
    private lazy var plugins = PluginInput(screen: engine.configuration.screen)
    private var frames = TouchFrameBatch()
    private var connection: UInt64 = 0
    private var sheets = SheetRegistry()

    private init() {
        var configuration = ServerConfiguration(socketPath: "/run/sheetd/io.sheetd.Sheet")
        configuration.maximumConnections = 4
        server = VarlinkServer(configuration: configuration, delegate: self,
                               logger: Logger(label: "fuzz") { _ in SwiftLogNoOpLogHandler() })
        engine.start(at: now, into: &outputs)
    }

    func serve(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first else { return }
        let readSize = 1 + Int(first & 0x7F) * 4
        let channel = EmbeddedChannel()
        connection += 1
        // Devices numbered from 1 for each input, as for a daemon's first feeder: an input's
        // calls mean the same whatever came before it (a finding replays alone), and the seeds'
        // `SendFrame`s reach the device their `OpenDevice` opened.
        plugins = PluginInput(screen: engine.configuration.screen)
        do {
            try server.serve(channel, as: PeerCredentials(pid: 1, uid: 0, gid: 0), endpoint: first & 0x80 == 0 ? .sheet : .input)
            // Made for each input: a SocketAddress kept for the run holds its storage behind a
            // tagged pointer that the leak checker cannot follow.
            try channel.connect(to: SocketAddress(unixDomainSocketPath: "/run/sheetd/io.sheetd.Sheet")).wait()
            var offset = 1
            while offset < bytes.count, channel.isActive {
                let end = min(bytes.count, offset + readSize)
                var buffer = channel.allocator.buffer(capacity: end - offset)
                buffer.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                try channel.writeInbound(buffer)
                channel.embeddedEventLoop.run()
                while let _: ByteBuffer = try channel.readOutbound() {}
                offset = end
            }
        } catch {
            // The connection closed itself: a refusal.
        }
        _ = try? channel.finish()
        // Whatever the connection left open closes, as in the daemon.
        inputConnectionClosed(connection)
    }

    // MARK: SheetServiceDelegate

    func devices() -> [InputDevice] { [] }

    func stats(completion: @escaping @Sendable (DaemonStats) -> Void) {
        var stats = DaemonStats()
        stats.devices = plugins.framesRead
        completion(stats)
    }

    func refreshState(completion: @escaping @Sendable () -> Void) { completion() }

    func content(shown: Bool) -> SharedContent {
        SharedContent(content: engine.content, order: engine.list.order, revision: engine.list.revision)
    }

    func control(_ call: SheetCall, completion: @escaping @Sendable (ControlResult) -> Void) {
        now = now.adding(microseconds: 16_000)
        let before = engine.configuration.screen
        // As the daemon's loop routes it (the registry's `route`); then the stack's sheet is shown.
        let now = self.now
        let result = sheets.route(call, shown: &engine, at: now, into: &outputs) { request, engine, outputs in
            engine.perform(request, at: now, into: &outputs)
        }
        _ = sheets.update(&engine, at: now, into: &outputs)
        if engine.configuration.screen != before { plugins.resync(screen: engine.configuration.screen) }
        // A second on: what stepped aside is down, what was dismissed is at rest.
        for step in 1...2 {
            let later = now.adding(microseconds: 500_000 * Int64(step))
            engine.advance(to: later, into: &outputs)
            _ = sheets.update(&engine, at: later, into: &outputs)
        }
        FuzzTarget.check(outputs)
        outputs.removeAll(keepingCapacity: true)
        completion(result)
    }

    func input(_ request: InputRequest, connection: UInt64, from peer: PeerCredentials, caller: any InputCaller) {
        now = now.adding(microseconds: 1_000)
        let result = plugins.perform(request, owner: connection, pid: peer.pid, uid: peer.uid, now: now, into: &frames)
        applyFrames()
        caller.inputDone(result)
    }

    func programGone(_ program: UInt64) {
        sheets.ownerGone(program, shown: &engine, at: now, into: &outputs)
        _ = sheets.update(&engine, at: now, into: &outputs)
        FuzzTarget.check(outputs)
        outputs.removeAll(keepingCapacity: true)
    }

    func inputConnectionClosed(_ connection: UInt64) {
        plugins.closeAll(owner: connection, now: now, into: &frames)
        applyFrames()
    }

    private func applyFrames() {
        for var frame in frames {
            frame.time = now
            engine.process(frame, into: &outputs)
        }
        frames.removeAll()
        FuzzTarget.check(outputs)
        outputs.removeAll(keepingCapacity: true)
    }
}
