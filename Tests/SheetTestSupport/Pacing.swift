import SheetProtocol

/// What a subscriber at `maxRate` is sent of `stream`, and when: each state offered at its
/// timestamp with what it brings after the one before (`MonitorPacer.Novelty.of`), a held one
/// flushed when it is due (before a later state is offered), as the daemon's loop does with
/// its timer.
public func pacedStream(_ stream: [MonitorUpdate], maxRate: Int) -> [(time: Int64, update: MonitorUpdate)] {
    var pacer = MonitorPacer(maxRate: maxRate)
    var sent: [(time: Int64, update: MonitorUpdate)] = []
    var newest: MonitorUpdate?
    for update in stream {
        if let due = pacer.due, due < update.timestampInMicroseconds, let held = newest, pacer.flush(at: due) {
            sent.append((due, held))
        }
        let novelty = MonitorPacer.Novelty.of(update, after: newest)
        newest = update
        if pacer.offer(novelty, at: update.timestampInMicroseconds) { sent.append((update.timestampInMicroseconds, update)) }
    }
    if let due = pacer.due, let held = newest, pacer.flush(at: due) { sent.append((due, held)) }
    return sent
}
