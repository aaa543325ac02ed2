import Logging
import NIOCore
import NIOEmbedded
import SheetCore
import SheetProtocol
import SheetServer

/// The server's connection handler on an embedded channel: the bytes a client sends, cut into
/// reads as the first byte says, framed, parsed and dispatched as on the socket; the control
/// calls that pass reach a real engine, as in the daemon.
final class VarlinkHarness: SheetServiceDelegate, @unchecked Sendable {
    static let shared = VarlinkHarness()

    private var server: VarlinkServer!
    // Touched on the fuzzing thread only: the embedded channel runs every callback there.
    private var engine = Engine(configuration: EngineConfiguration())
    private var outputs: [EngineOutput] = []
    private var now = Timestamp.zero

    private init() {
        var configuration = ServerConfiguration(socketPath: "/run/sheetd/io.sheetd.Sheet")
        configuration.maximumConnections = 4
        server = VarlinkServer(configuration: configuration, delegate: self,
                               logger: Logger(label: "fuzz") { _ in SwiftLogNoOpLogHandler() })
        engine.start(at: now, into: &outputs)
    }

    func serve(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first else { return }
        let readSize = 1 + Int(first) * 4
        let channel = EmbeddedChannel()
        do {
            try server.serve(channel, as: PeerCredentials(pid: 1, uid: 0, gid: 0))
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
    }

    // MARK: SheetServiceDelegate

    func devices() -> [DeviceReport] { [] }

    func content() -> SharedContent {
        SharedContent(content: engine.content, order: engine.list.order, revision: engine.list.revision)
    }

    func control(_ request: ControlRequest, from peer: PeerCredentials,
                 completion: @escaping @Sendable (ControlResult) -> Void) {
        now = now.adding(microseconds: 16_000)
        switch request {
        case .present(let detent): _ = engine.perform(.present(detent), at: now, into: &outputs)
        case .dismiss(let force): _ = engine.perform(.dismiss(force: force), at: now, into: &outputs)
        case .setDetent(let detent): _ = engine.perform(.setDetent(detent), at: now, into: &outputs)
        case .setReduceMotion(let enabled): _ = engine.perform(.setReduceMotion(enabled), at: now, into: &outputs)
        case .setScreen(let width, let height, let scale):
            var configuration = engine.configuration
            configuration.screen = ScreenSize(widthInPixels: width, heightInPixels: height, scale: scale ?? configuration.screen.scale)
            engine = Engine(configuration: configuration)
            engine.start(at: now, into: &outputs)
        case .setContent(let change):
            engine.setContent(change.applied(to: engine.content), at: now, into: &outputs)
        }
        engine.advance(to: now.adding(microseconds: 1_000_000), into: &outputs)
        FuzzTarget.check(outputs)
        outputs.removeAll(keepingCapacity: true)
        completion(.done)
    }
}
