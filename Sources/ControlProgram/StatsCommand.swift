import ArgumentParser
import SheetClient
import SheetProtocol

/// `sheetctl stats`: what a running daemon has counted, for a person, for a script, or in the
/// text format that node_exporter's textfile collector reads.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Print what the daemon has counted since it started (GetStats).",
        discussion: """
            Frames read by each input device, gestures, states published and those a slow subscriber \
            missed, subscribers and connections, reloads, and the time from a touch frame to its state \
            being published. --prometheus prints the text exposition format, for node_exporter's \
            textfile collector (write it to a .prom file in its folder, e.g. from a timer).
            """)

    @OptionGroup var connection: SocketOption

    @Option(help: "text or json.")
    var format: String = "text"

    @Flag(help: "Print the Prometheus text format instead.")
    var prometheus = false

    func validate() throws {
        guard format == "json" || format == "text" else { throw ValidationError("--format wants json or text; got `\(format)`") }
    }

    func run() throws {
        let client = try connection.connect()
        let stats = try talking { try client.stats() }
        if prometheus {
            try writeLine(Array(Self.prometheus(stats).utf8))
        } else if format == "json" {
            var writer = JSONWriter(capacity: 512)
            stats.write(to: &writer)
            try writeLine(writer.bytes)
        } else {
            try writeLine(Array(Self.text(stats).utf8))
        }
    }

    static func text(_ stats: DaemonStats) -> String {
        var lines = ["\(stats.seat): up \(seconds(stats.uptimeInMicroseconds / 1000 * 1000)) s, \(stats.reloads) reload(s)"]
        for device in stats.devices { lines.append("device \(device.node) \"\(device.name)\": \(device.frames) frame(s)") }
        lines.append("gestures \(stats.gestures), states published \(stats.statesPublished) (\(stats.statesConflated) conflated)")
        lines.append("subscribers \(stats.subscribers) (\(stats.subscribersDropped) dropped), connections \(stats.connections)")
        lines.append(stats.fingersDown == 0 ? "no finger down"
                     : "\(stats.fingersDown) finger(s) down, the first for \(seconds(stats.fingersHeldInMicroseconds)) s")
        let latency = stats.publishLatency
        if latency.count > 0 {
            lines.append("frame to published state: \(latency.count) state(s) timed, p50 \(bound(latency, 0.5)), p99 \(bound(latency, 0.99)), "
                         + "mean \(latency.sumInMicroseconds / Int64(latency.count)) µs")
        }
        return lines.joined(separator: "\n")
    }

    /// The bucket's bound under which `fraction` of the durations lie.
    static func bound(_ latency: LatencyHistogram, _ fraction: Double) -> String {
        let wanted = Int((Double(latency.count) * fraction).rounded(.up))
        var seen = 0
        for (index, count) in latency.counts.enumerated() {
            seen += count
            guard seen >= wanted else { continue }
            let bounds = LatencyHistogram.boundsInMicroseconds
            return index < bounds.count ? "≤ \(bounds[index]) µs" : "> \(bounds[bounds.count - 1]) µs"
        }
        return "-"
    }

    /// Microseconds as decimal seconds, exactly, without trailing zeros (`0.00005`, `12.3`).
    static func seconds(_ microseconds: Int64) -> String {
        let value = max(0, microseconds)
        var text = "\(value / 1_000_000).\(String(value % 1_000_000).leftPadded(to: 6))"
        while text.hasSuffix("0") && !text.hasSuffix(".0") { text.removeLast() }
        return text
    }

    /// The text exposition format (version 0.0.4): HELP and TYPE before each metric, counters
    /// ending in `_total`, times in seconds, label values escaped.
    static func prometheus(_ stats: DaemonStats) -> String {
        var out: [String] = []
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            out.append("# HELP sheetd_\(name) \(help)")
            out.append("# TYPE sheetd_\(name) \(type)")
            for sample in samples { out.append("sheetd_\(name)\(sample.labels) \(sample.value)") }
        }
        metric("uptime_seconds", "gauge", "Time since the daemon started.", [("", seconds(stats.uptimeInMicroseconds))])
        metric("reloads_total", "counter", "Configurations read again (SIGHUP).", [("", "\(stats.reloads)")])
        metric("frames_read_total", "counter", "Touch frames read, by input device.", stats.devices.map {
            ("{node=\"\(escaped($0.node))\",name=\"\(escaped($0.name))\"}", "\($0.frames)")
        })
        metric("gestures_total", "counter", "Gestures recognized or begun.", [("", "\(stats.gestures)")])
        metric("states_published_total", "counter", "Sheet states published to subscribers.", [("", "\(stats.statesPublished)")])
        metric("states_conflated_total", "counter", "States a slow subscriber never got: a newer one replaced them.",
               [("", "\(stats.statesConflated)")])
        metric("subscribers", "gauge", "Monitor subscribers now.", [("", "\(stats.subscribers)")])
        metric("subscribers_dropped_total", "counter", "Subscribers dropped for taking nothing for client-stall-timeout.",
               [("", "\(stats.subscribersDropped)")])
        metric("connections", "gauge", "Connections to the socket now.", [("", "\(stats.connections)")])
        metric("fingers_down", "gauge", "Fingers the daemon holds down now.", [("", "\(stats.fingersDown)")])
        metric("fingers_held_seconds", "gauge", "How long the first finger down now has been down (0: none).",
               [("", seconds(stats.fingersHeldInMicroseconds))])
        var buckets: [(labels: String, value: String)] = []
        var cumulative = 0
        let latency = stats.publishLatency
        for (index, count) in latency.counts.enumerated() {
            cumulative += count
            let bounds = LatencyHistogram.boundsInMicroseconds
            let le = index < bounds.count ? seconds(bounds[index]) : "+Inf"
            buckets.append(("_bucket{le=\"\(le)\"}", "\(cumulative)"))
        }
        buckets.append(("_sum", seconds(latency.sumInMicroseconds)))
        buckets.append(("_count", "\(cumulative)"))
        metric("publish_latency_seconds", "histogram", "From a touch frame's time to its state being published.", buckets)
        return out.joined(separator: "\n")
    }

    /// A label value as the format wants it: backslash, double quote and line feed escaped.
    static func escaped(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
