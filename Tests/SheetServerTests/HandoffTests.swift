import Dispatch
import Foundation
import Logging
import SheetClient
import SheetCore
import SheetProtocol
@testable import SheetServer
import SheetTestSupport
import Synchronization
import Testing

/// The server on its own, with a delegate that has nothing to control.
private final class NothingToControl: SheetServiceDelegate {
    func devices() -> [DeviceReport] { [] }
    func content() -> SharedContent { SharedContent(content: .empty, order: [], revision: 0) }
    func control(_ request: ControlRequest, from peer: PeerCredentials,
                 completion: @escaping @Sendable (ControlResult) -> Void) { completion(.done) }
    func input(_ request: InputRequest, connection: UInt64, from peer: PeerCredentials,
               completion: @escaping @Sendable (InputResult) -> Void) { completion(.noSuchDevice(0)) }
    func inputConnectionClosed(_ connection: UInt64) {}
}

/// Waits for `semaphore` without holding a thread of the test's executor.
private func signalled(_ semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            semaphore.wait()
            continuation.resume()
        }
    }
}

private func update(_ sequence: Int64, gesture: GestureReport? = nil) -> MonitorUpdate {
    let state = SheetState(phase: .dragging, detent: nil, target: nil, topInPixels: Double(900 - sequence),
                           progress: 0.5, dim: 0.7, velocityInPixelsPerSecond: 0,
                           screen: ScreenGeometry(width: 1080, height: 1920, scale: 1), mover: .user, detents: [])
    return MonitorUpdate(sequence: sequence, timestampInMicroseconds: sequence * 1000, state: state, gesture: gesture)
}

/// A server on a socket in `folder` with nothing behind it, accepting; and the socket's path.
private func startedServer(in folder: URL) async throws -> (VarlinkServer, String) {
    let path = folder.appendingPathComponent("io.sheetd.Sheet").path
    let server = VarlinkServer(configuration: ServerConfiguration(socketPath: path), delegate: NothingToControl(),
                               logger: Logger(label: "test"))
    try await server.start()
    return (server, path)
}

@Suite struct HandoffTests {
    /// States published faster than the event loop takes them are conflated to the newest, but
    /// an update that carries a gesture is an event and reaches the subscriber.
    @Test func aGestureIsNotConflatedAwayOnTheWayToTheEventLoop() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, path) = try await startedServer(in: folder)
        server.publish(update(1))

        let received = Mutex<[MonitorUpdate]>([])
        let subscribed = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { finished.signal() }
            guard let client = try? SheetClient(path: path) else { subscribed.signal(); return }
            try? client.monitor { update, _ in
                received.withLock { $0.append(update) }
                if update.sequence == 1 { subscribed.signal() }
                return update.sequence < 5
            }
        }
        await signalled(subscribed)

        // Hold the event loop while four updates are published; the second carries a tap.
        let gate = DispatchSemaphore(value: 0)
        server.eventLoop.execute { gate.wait() }
        server.publish(update(2))
        server.publish(update(3, gesture: GestureReport(kind: "tap", phase: "recognized", xInPixels: 540, yInPixels: 400)))
        server.publish(update(4))
        server.publish(update(5))
        gate.signal()
        await signalled(finished)
        await server.shutdown()

        let sequences = received.withLock { $0.map(\.sequence) }
        #expect(sequences == [1, 3, 5], "2 and 4 are conflated; 3 carries the tap")
        #expect(received.withLock { $0.first { $0.sequence == 3 }?.gesture?.kind } == "tap")
    }

    /// A new subscriber's first reply used to be the latest update as it was sent, with the
    /// gesture (and content events) of a frame before it subscribed, which it then took as
    /// new: the e2e run saw a pan end twice. It is the current state alone.
    @Test func aNewSubscriberStartsWithTheStateAloneNotAPastGesture() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, path) = try await startedServer(in: folder)
        var tapped = update(1, gesture: GestureReport(kind: "tap", phase: "recognized", xInPixels: 540, yInPixels: 400))
        tapped.events = [SheetEvent(name: "item-tapped", item: "wifi")]
        server.publish(tapped)
        try await server.eventLoop.submit {}.get()  // the loop has taken it: it is the latest

        let first = Mutex<MonitorUpdate?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { finished.signal() }
            try? SheetClient(path: path).monitor { update, _ in
                first.withLock { $0 = update }
                return false
            }
        }
        await signalled(finished)
        await server.shutdown()
        let got = first.withLock { $0 }
        #expect(got?.sequence == 1 && got?.state == tapped.state, "\(String(describing: got))")
        #expect(got?.gesture == nil && got?.events.isEmpty == true, "\(String(describing: got))")
    }
}
