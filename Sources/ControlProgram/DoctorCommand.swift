import ArgumentParser
import SheetClient
import SheetConfig
import SheetInput

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check this machine for sheetd: input devices, permissions, udev tags, the daemon's socket.",
        discussion: """
            With --recording, checks the touch device of recordings instead: whether it is one (its \
            position axes), whether it speaks multitouch protocol A, and what it sends against what \
            it declares (positions outside its axes' ranges, position axes that never move).

            Exit status 0 when at least one touch device is usable and the daemon answers (with \
            --recording: when every recording's device is usable without a problem), 1 otherwise.
            """)

    @OptionGroup var connection: SocketOption

    @Option(help: ArgumentHelp("A recording (evemu or `libinput record`) whose device to check instead of this machine's (repeatable).",
                               valueName: "file"))
    var recording: [String] = []

    @Option(help: ArgumentHelp("Where sysfs is (for tests).", visibility: .hidden))
    var sysfs: String = "/sys"

    @Option(help: ArgumentHelp("Where device nodes are (for tests).", visibility: .hidden))
    var dev: String = "/dev"

    @Option(help: ArgumentHelp("Where udev keeps its records (for tests).", visibility: .hidden))
    var udevData: String = "/run/udev/data"

    func run() throws {
        if !recording.isEmpty { return try checkRecordings() }
        var doctor = Doctor()
        doctor.classifier = DeviceClassifier(sysfsRoot: sysfs)
        doctor.deviceRoot = dev
        doctor.udevDataRoot = udevData
        doctor.panels = PanelMapping(sysfsRoot: sysfs)
        // The key map and `keys:` of the configuration decide which key devices are read.
        if let settings = try? Settings.resolve(configPath: nil, flags: []) {
            doctor.keyReading = KeyReading(keyMap: settings.engine.focus.keyMap, optedIn: settings.keyDevices)
        }
        let findings = doctor.survey()
        var healthy = true
        // The displays a renderer can draw on (`sheet-render --connector`) and a touchscreen's
        // WL_OUTPUT can name.
        for connector in doctor.panels.connectors {
            try writeLine(Array("display \(connector.name) (\(connector.card)): \(connector.connected ? "connected" : "not connected")".utf8))
        }
        if findings.isEmpty {
            try writeLine(Array("no input devices under \(sysfs)/class/input".utf8))
        }
        for finding in findings { try write(finding) }
        if !findings.contains(where: \.usable) {
            healthy = false
            try writeLine(Array("no usable touchscreen or touchpad".utf8))
        }
        do {
            let client = try SheetClient(path: connection.path)
            let state = try client.state()
            try writeLine(Array("daemon: answers on \(connection.path); sheet \(describe(state))".utf8))
        } catch {
            healthy = false
            try writeLine(Array("daemon: \(error)".utf8))
        }
        if !healthy { throw ExitCode(1) }
    }

    private func write(_ finding: DeviceFinding) throws {
        let verdict = finding.usable ? (finding.warnings.isEmpty ? "would use" : "would use, with warnings")
            : finding.readsKeys ? "reads its keys" : (finding.kind.isTouch ? "CANNOT use" : "ignores")
        try writeLine(Array("\(finding.node)  \(finding.kind.rawValue)  \"\(finding.name)\": sheetd \(verdict)".utf8))
        for problem in finding.problems { try writeLine(Array("    problem: \(problem)".utf8)) }
        for warning in finding.warnings { try writeLine(Array("    warning: \(warning)".utf8)) }
        for note in finding.notes { try writeLine(Array("    note: \(note)".utf8)) }
    }

    private func checkRecordings() throws {
        var healthy = true
        for path in recording {
            let finding = Doctor.examine(recording: path)
            try write(finding)
            if !finding.usable || !finding.warnings.isEmpty { healthy = false }
        }
        if !healthy { throw ExitCode(1) }
    }
}
