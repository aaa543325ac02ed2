import ArgumentParser
import SheetClient
import SheetConfig
import SheetCore
import SheetInput
import SheetProtocol
import SheetRecordings
#if canImport(Glibc)
import Glibc
import SheetSystem
#endif

/// `sheetctl feed FILE|-`: a plugin on `io.sheetd.Input` that plays a recording into a running
/// daemon at its pace, or reads touch frames as JSON lines, so any program can pipe touches in.
struct FeedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feed",
        abstract: "Feed touches to a running daemon: a recording at its pace, or JSON lines from stdin.",
        discussion: """
            FILE is an evemu or `libinput record` recording: its touch device is opened on the \
            daemon's io.sheetd.Input socket with the recording's coordinate range, slots and size, \
            and its fingers are sent at the recording's pace (--speed), so the daemon sees what \
            `sheetctl replay FILE` decodes. A recording of a keyboard or a knob is opened as a \
            device of keys (OpenKeys) and its presses, releases and steps move the sheet's focus.

            With -, each line of stdin is a JSON object. An optional first line declares the \
            device, with OpenDevice's parameters: {"device": {"name": "pen", "kind": "touchscreen", \
            "x": {"min": 0, "max": 1}, "y": {"min": 0, "max": 1}, "slots": 2}}. Without it the \
            device is a touchscreen in the daemon's screen pixels (--size overrides). Every other \
            line is a frame: {"contacts": [{"slot": 0, "phase": "down", "x": 540, "y": 1500}]}, \
            with "time" in microseconds on the device's own clock when the timing matters (else \
            the moment the line is read). A line of keys, {"keys": [{"code": 15, "value": 1}]} \
            (an evdev key code, 1 to press, 0 to let go) or {"keys": [{"dial": 1}]} (a knob's \
            steps), goes to a device of keys of its own, which moves the sheet's focus. A frame \
            the daemon refuses is reported with its line and the rest go on. A line may be at most 64 KiB; a longer one ends the feed.

            Exit status: 0, 65 when a frame was refused or a line was not a frame, 69 when the \
            daemon is not there, 77 when this user may not feed touches (group sheetd-input).
            """)

    @Argument(help: ArgumentHelp("A recording, or - for JSON lines on stdin.", valueName: "file"))
    var file: String

    @Option(name: .customLong("input-socket"),
            help: ArgumentHelp("The daemon's input socket (default: $SHEETD_INPUT_SOCKET, else io.sheetd.Input beside the daemon's socket, \(InputClient.defaultSocketPath)).",
                               valueName: "path"))
    var inputSocket: String?

    @OptionGroup var socket: SocketOption

    @Option(help: "Play a recording this many times faster (default 1).")
    var speed: Double = 1

    @Option(help: ArgumentHelp("JSON lines: the device's coordinates run from 0 to WIDTH and 0 to HEIGHT (default: the daemon's screen in pixels).",
                               valueName: "WIDTHxHEIGHT"))
    var size: String?

    func validate() throws {
        guard speed.isFinite, speed > 0, speed <= 1000 else { throw ValidationError("--speed wants a number above 0 and at most 1000") }
        if let size, Self.parseSize(size) == nil { throw ValidationError("--size wants WIDTHxHEIGHT, each above 0, like 1080x1920") }
    }

    static func parseSize(_ text: String) -> (Double, Double)? {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Double(parts[0]), let height = Double(parts[1]),
              width.isFinite, height.isFinite, width > 0, height > 0, width <= 1e9, height <= 1e9 else { return nil }
        return (width, height)
    }

    func run() throws {
        let path = InputClient.socketPath(inputSocket, otherwise: InputInterface.socketPath(besideSocket: socket.path))
        let client: InputClient
        do {
            client = try InputClient(path: path, waitingUpTo: socket.wait.map { $0.seconds } ?? 0)
        } catch {
            printError("sheetctl: \(error)")
            throw ExitCode(ExitStatus.unavailable)
        }
        var feeder = Feeder(client: client)
        if file == "-" {
            try feeder.feedLines(defaultRange: try defaultRange())
        } else {
            try feeder.feedRecording(file, speed: speed)
        }
        if feeder.refused > 0 {
            printError("sheetctl: \(feeder.refused) frame(s) refused, \(feeder.sent) sent")
            throw ExitCode(ExitStatus.dataError)
        }
    }

    /// The coordinates of a device declared by no line: --size, or the daemon's screen.
    func defaultRange() throws -> (Double, Double) {
        if let size, let parsed = Self.parseSize(size) { return parsed }
        let state = try talking { try socket.connect().state() }
        return (Double(state.screen.widthInPixels), Double(state.screen.heightInPixels))
    }
}

/// Sends frames, reporting refusals by where they came from.
struct Feeder {
    let client: InputClient
    var sent = 0
    var refused = 0

    init(client: InputClient) { self.client = client }

    private func open(_ device: PluginDevice) throws -> Int {
        try opening("OpenDevice") { () throws(ClientError) in try client.open(device) }
    }

    /// Opens a device with `call`, saying what stands in the way when the daemon refuses.
    private func opening(_ method: String, _ call: () throws(ClientError) -> Int) throws -> Int {
        do {
            return try call()
        } catch ClientError.remote(let name, let parameters) where name == InputInterface.notAllowed {
            let group = parameters["group"]?.stringValue ?? "of the input socket"
            printError("sheetctl: not allowed: feeding touches needs root, the daemon's user or group \(group); "
                       + "join it (usermod -aG \(group) USER) and log in again")
            throw ExitCode(ExitStatus.noPermission)
        } catch {
            printError("sheetctl: \(method): \(error)")
            throw ExitCode(ExitStatus.dataError)
        }
    }

    /// Sends a frame; a refusal is reported with `place` and counted, a lost daemon ends it.
    private mutating func send(_ frame: PluginFrame, device: Int, place: String) throws {
        try sending("frame \(frame.sequence)", at: place) { [client] () throws(ClientError) in try client.send(frame, device: device) }
    }

    /// Sends a report of keys, as a frame is sent.
    private mutating func send(_ report: PluginKeyReport, device: Int, place: String) throws {
        try sending("keys \(report.sequence)", at: place) { [client] () throws(ClientError) in try client.send(report, device: device) }
    }

    private mutating func sending(_ what: String, at place: String, _ call: () throws(ClientError) -> Void) throws {
        do {
            try call()
            sent += 1
        } catch .remote(let name, let parameters) where name == InputInterface.invalidFrame {
            refused += 1
            printError("sheetctl: \(place): \(what) refused: \(parameters["reason"]?.stringValue ?? "?")")
        } catch {
            printError("sheetctl: \(place): \(error)")
            throw ExitCode(ExitStatus.unavailable)
        }
    }

    // MARK: Recordings

    /// Plays a recording's touch device at its pace. Its fingers are read as a touchscreen
    /// would report them, in the device's units from its axes' minimum, so the daemon decodes
    /// them (a touchpad's two-finger pan included) by the same rules as `sheetctl replay`.
    mutating func feedRecording(_ path: String, speed: Double) throws {
        let source: KernelEventSource
        do { source = try Recording.open(path) } catch {
            printError("sheetctl: \(error)")
            throw ExitCode(ExitStatus.dataError)
        }
        var description = source.device
        let kind = description.kind
        if kind == .keys { return try feedKeys(source, path: path, speed: speed) }
        do { try Recording.requireTouch(source) } catch {
            printError("sheetctl: \(error)")
            throw ExitCode(ExitStatus.dataError)
        }
        guard let axes = description.positionAxes else { throw ExitCode(ExitStatus.dataError) }
        // libinput maps v onto the screen as (v − min) / (max − min + 1): the range the
        // daemon is told is that span, and the fingers are read in units from the minimum.
        let width = Double(Int64(axes.x.maximum) - Int64(axes.x.minimum) + 1)
        let height = Double(Int64(axes.y.maximum) - Int64(axes.y.minimum) + 1)
        var size: (Double, Double)?
        if axes.x.resolution > 0, axes.y.resolution > 0 {
            size = (width / Double(axes.x.resolution), height / Double(axes.y.resolution))
            if let known = size, !PluginDevice.Limits.millimetres.contains(known.0) || !PluginDevice.Limits.millimetres.contains(known.1) { size = nil }
        }
        description.udevKind = .touchscreen
        var fingers = MultitouchDecoder(device: description, screen: ScreenSize(widthInPixels: Int(width), heightInPixels: Int(height)))
        let slots = min(description.slotCount, PluginDevice.Limits.slots.upperBound)
        let device = try open(PluginDevice(name: description.name, kind: kind == .touchpad ? .touchpad : .touchscreen,
                                           x: 0...width, y: 0...height, sizeInMillimetres: size, slots: slots))
        // Recording slots onto the device's: the lowest free, as fingers come.
        var slotOf: [Int: Int] = [:]
        var frame = TouchFrame(time: .zero)
        var pace = RecordingPace(speed: speed)
        var sequence: Int64 = 0
        while let event = try pace.next(of: source) {
            guard fingers.feed(event, into: &frame) else { continue }
            defer { frame.removeAll() }
            for warning in fingers.takeNewAxisWarnings() { printError("sheetctl: \(path):\(source.lineNumber): warning: \(warning)") }
            guard !frame.isEmpty else { continue }
            var contacts = PluginContacts()
            for contact in frame.contacts {
                var slot = slotOf[contact.slot]
                if slot == nil, contact.phase == .down {
                    slot = (0..<slots).first { !slotOf.values.contains($0) }
                    slotOf[contact.slot] = slot
                }
                guard let slot else { continue }  // more fingers than 16 slots: left out
                if contact.phase == .up || contact.phase == .cancel { slotOf[contact.slot] = nil }
                // Hardware reports past its own axis range now and then (a finger at the very
                // edge); the daemon takes only the declared range, so those are held at its edge.
                // Each of the device's slots at most once: never more than a frame holds.
                _ = contacts.append(PluginContact(slot: slot, phase: contact.phase,
                                                  x: min(width, max(0, contact.positionInPixels.x)),
                                                  y: min(height, max(0, contact.positionInPixels.y))))
            }
            guard !contacts.isEmpty else { continue }
            let due = pace.wait(for: event)
            sequence += 1
            try send(PluginFrame(sequence: sequence, timeInMicroseconds: due, contacts: contacts), device: device,
                     place: "\(path):\(source.lineNumber)")
        }
        try? client.close(device: device)
    }

    /// Plays a recording of keys or a knob at its pace as a device of keys (`OpenKeys`): each
    /// report's presses, releases and steps, as `KeyDecoder` reads them for the replay.
    mutating func feedKeys(_ source: KernelEventSource, path: String, speed: Double) throws {
        let device = try opening("OpenKeys") { () throws(ClientError) in try client.openKeys(name: source.device.name) }
        var decoder = KeyDecoder()
        var pace = RecordingPace(speed: speed)
        var sequence: Int64 = 0
        while let event = try pace.next(of: source) {
            guard decoder.feed(event) else { continue }
            defer { decoder.clear() }
            let keys: [PluginKey] = decoder.events.map { key in
                switch key.input {
                case .key(let code): .key(code: code, value: key.action == .press ? 1 : 0)
                case .dialUp: .dial(steps: 1)
                case .dialDown: .dial(steps: -1)
                }
            }
            guard !keys.isEmpty else { continue }
            let due = pace.wait(for: event)
            // A report holds at most 16 keys: a longer one goes in several, at the same time.
            for chunk in stride(from: 0, to: keys.count, by: PluginKeyReport.maximumKeys) {
                sequence += 1
                let report = PluginKeyReport(sequence: sequence, timeInMicroseconds: due,
                                             keys: Array(keys[chunk..<min(chunk + PluginKeyReport.maximumKeys, keys.count)]))
                try send(report, device: device, place: "\(path):\(source.lineNumber)")
            }
        }
        try? client.close(device: device)
    }

    // MARK: JSON lines

    /// The longest line of stdin taken: a frame of 16 contacts is under 2 KiB.
    static let maximumLineLength = 64 * 1024

    /// Reads frames from stdin, one JSON object per line, in constant memory.
    mutating func feedLines(defaultRange: @autoclosure () throws -> (Double, Double)) throws {
        var device: Int?
        var keyDevice: Int?
        var declared: PluginDevice?
        var last: Int64 = 0
        let reader = LineReader(descriptor: STDIN_FILENO, name: "stdin", maximumLineLength: Self.maximumLineLength)
        while true {
            let read: String?
            do { read = try reader.nextLine { String(decoding: $0, as: UTF8.self) } } catch {
                printError("sheetctl: \(error)")
                throw ExitCode(ExitStatus.dataError)
            }
            guard let line = read else { break }
            let lineNumber = reader.lineNumber
            let place = "stdin:\(lineNumber)"
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            let value: JSONValue
            do { value = try JSONReader.parse(line) } catch {
                refused += 1
                printError("sheetctl: \(place): not JSON (\(error))")
                continue
            }
            if let declaration = value["device"] {
                guard device == nil else {
                    refused += 1
                    printError("sheetctl: \(place): the device is declared already")
                    continue
                }
                do { declared = try PluginDevice(json: declaration) } catch {
                    printError("sheetctl: \(place): device: \(error)")
                    throw ExitCode(ExitStatus.dataError)
                }
                device = try open(declared!)
                continue
            }
            var parameters = value
            if case .object(var members) = value {
                members["sequence"] = .number(Double(lineNumber))
                if members["time"] == nil { members["time"] = .number(Double(max(last, LibinputInput.monotonicNow().microseconds))) }
                parameters = .object(members)
            }
            if value["keys"] != nil {
                // Keys: a device of keys of its own, opened with the first such line.
                let report: PluginKeyReport
                do { report = try PluginKeyReport(json: parameters) } catch {
                    refused += 1
                    printError("sheetctl: \(place): \(error)")
                    continue
                }
                if keyDevice == nil {
                    let clock: PluginClock = value["time"] == nil ? .monotonic : .own
                    keyDevice = try opening("OpenKeys") { () throws(ClientError) in try client.openKeys(name: "sheetctl feed keys", clock: clock) }
                }
                last = report.timeInMicroseconds
                try send(report, device: keyDevice!, place: place)
                continue
            }
            let frame: PluginFrame
            do { frame = try PluginFrame(json: parameters) } catch {
                refused += 1
                printError("sheetctl: \(place): \(error)")
                continue
            }
            if device == nil {
                // The first frame says the clock: its own when the lines carry times.
                let (width, height) = try defaultRange()
                declared = PluginDevice(name: "sheetctl feed", kind: .touchscreen, x: 0...width, y: 0...height,
                                        slots: PluginDevice.Limits.slots.upperBound, clock: value["time"] == nil ? .monotonic : .own)
                device = try open(declared!)
            }
            last = frame.timeInMicroseconds
            try send(frame, device: device!, place: place)
        }
        if let device { try? client.close(device: device) }
        if let keyDevice { try? client.close(device: keyDevice) }
    }
}

/// A recording played at its pace: each event due at its time from the recording's first,
/// divided by the speed, never before the one before; sent stamped with that instant.
struct RecordingPace {
    let speed: Double
    private let start = LibinputInput.monotonicNow().microseconds
    private var origin: Timestamp?
    private var last: Int64 = 0

    init(speed: Double) { self.speed = speed }

    /// The next event of `source`, or nil at its end; a bad line exits 65 saying where.
    mutating func next(of source: KernelEventSource) throws -> KernelEvent? {
        let event: KernelEvent?
        do { event = try source.next() } catch {
            printError("sheetctl: \(error)")
            throw ExitCode(ExitStatus.dataError)
        }
        if let event, origin == nil { origin = event.time }
        return event
    }

    /// Sleeps until `event` is due; that instant. Held below a century from the start, so
    /// that no recording's time at any speed overflows the clock.
    mutating func wait(for event: KernelEvent) -> Int64 {
        let offset = min(Double(event.time.microseconds - (origin ?? event.time).microseconds) / speed, 3.2e15)
        let due = max(last, start + Int64(offset))
        sleep(until: due)
        last = due
        return due
    }
}

/// Sleeps until CLOCK_MONOTONIC reads `microseconds`.
func sleep(until microseconds: Int64) {
    var due = timespec.of(microseconds: microseconds)
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, nil) == EINTR {}
}
