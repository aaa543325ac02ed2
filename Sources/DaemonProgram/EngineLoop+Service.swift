import SheetInput
import SheetProtocol

/// What the loop tells systemd (the watchdog, a status line) and an operator (`GetStats`).
extension LoopState {
    /// What the loop counted, for `GetStats` (the server adds its own).
    func stats() -> DaemonStats {
        var stats = DaemonStats()
        stats.seat = commands.settings.seat.name
        stats.uptimeInMicroseconds = LibinputInput.monotonicNow().microseconds - startedAt.microseconds
        stats.reloads = reloads
        stats.devices = input.framesRead
        stats.gestures = publisher.gestures
        stats.statesPublished = publisher.statesPublished
        stats.publishLatency = publisher.latency
        stats.fingersDown = engine.activeTouchCount
        stats.framesHeldBack = input.seatGate.framesHeldBack
        if engine.activeTouchCount > 0, let since = fingersDownSince {
            stats.fingersHeldInMicroseconds = max(0, clock.now().microseconds - since.microseconds)
        }
        return stats
    }

    mutating func watchdog() {
        guard let due = nextWatchdog, let interval = systemd.watchdogIntervalMicroseconds,
              let now = reached(), now >= due else { return }
        systemd.notify("WATCHDOG=1")
        nextWatchdog = now.adding(microseconds: interval)
        updateStatus()
    }

    func updateStatus() {
        guard systemd.notifySocket != nil else { return }
        let used = devices.filter(\.used).count
        let subscribers = server?.statistics.subscribers ?? 0
        let detent = engine.sheet.detentIndex.map { engine.sheet.detents[$0].name.description } ?? "moving"
        systemd.notify("STATUS=\(used) touch device(s), \(subscribers) subscriber(s), sheet \(detent)")
    }
}
