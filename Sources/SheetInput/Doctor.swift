#if canImport(Glibc)
import Glibc
#endif
import SheetCore
import SheetProtocol
import SheetRecordings

/// What `sheetctl doctor` found about one input device: what it is, whether sheetd would use
/// it, and what stands in the way.
public struct DeviceFinding: Sendable, Equatable {
    public var node: String
    public var name: String
    public var kind: InputDeviceKind
    /// Problems that keep sheetd from using it (empty: it would be used).
    public var problems: [String] = []
    /// What it sends against what it declares: it is used, but its touches are clamped.
    public var warnings: [String] = []
    /// Things worth knowing (seat, calibration).
    public var notes: [String] = []
    /// A key device the daemon reads for the focus (the first note says why, or why not).
    public var readsKeys = false

    public var usable: Bool { kind.isTouch && problems.isEmpty }

    public init(node: String, name: String, kind: InputDeviceKind) {
        self.node = node
        self.name = name
        self.kind = kind
    }
}

/// Looks at every input device the way the service would meet it: the kind from sysfs, the
/// node's owner and mode (the service reads nodes through the `input` group), and udev's record
/// (`ID_INPUT_*`, which libinput requires, and the `sheetd` tag from 70-sheetd.rules).
public struct Doctor: Sendable {
    public var classifier = DeviceClassifier()
    public var deviceRoot = "/dev"
    public var udevDataRoot = "/run/udev/data"
    /// The group the service runs with for device access.
    public var inputGroup = "input"
    /// Which key devices the daemon reads (its key map and `keys:`).
    public var keyReading = KeyReading()
    /// The machine's display connectors, against which a touchscreen's `WL_OUTPUT` is held.
    public var panels = PanelMapping(connectors: [])

    public init() {}

    public func survey() -> [DeviceFinding] {
        classifier.eventNodes().map(examine)
    }

    public func examine(node: String) -> DeviceFinding {
        let sysname = node.split(separator: "/").last.map(String.init) ?? node
        let path = "\(deviceRoot)/input/\(sysname)"
        let (name, kind) = classifier.classify(node: node) ?? ("?", .other)
        var finding = DeviceFinding(node: node, name: name, kind: kind)
        if kind == .keyboard || kind == .keys || kind == .other {
            let record = Self.udevRecordPath(of: "\(deviceRoot)/input/\(sysname)", root: udevDataRoot)
            let optIn = record.flatMap(DeviceClassifier.readText)?.split(separator: "\n")
                .contains { $0 == "E:\(KeyReading.udevProperty)=1" } ?? false
            let decision = keyReading.decide(name: name, node: node, kind: kind, keyBits: classifier.keyBits(ofNode: node),
                                             isKnob: classifier.isKnob(node: node), udevOptIn: optIn)
            if kind != .other || decision.read {
                if decision.read { finding.kind = .keys }
                finding.readsKeys = decision.read
                finding.notes.append(decision.reason)
                return finding
            }
        }
        guard kind.isTouch else {
            finding.notes.append("a \(kind.rawValue): sheetd never opens it")
            return finding
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            finding.problems.append("no device node \(path) (\(String(cString: strerror(errno))))")
            return finding
        }
        let groupName = getgrgid(info.st_gid).map { String(cString: $0.pointee.gr_name) } ?? "\(info.st_gid)"
        let mode = info.st_mode & 0o777
        if groupName != inputGroup || mode & 0o040 == 0 {
            finding.problems.append("\(path) is group \(groupName), mode \(String(mode, radix: 8)): the service reads it as a member of `\(inputGroup)`, which needs group \(inputGroup) with read permission")
        }
        if access(path, R_OK) != 0 {
            finding.notes.append("this user cannot read \(path) (\(String(cString: strerror(errno)))); the service can if the line above is clean")
        } else {
            let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            if descriptor >= 0 {
                if let axes = EvdevAxes.description(of: descriptor, name: name), let problem = axes.positionProblem {
                    finding.problems.append("\(problem): sheetd skips it")
                }
                close(descriptor)
            }
        }
        let major = (info.st_rdev >> 8) & 0xfff
        let minor = (info.st_rdev & 0xff) | ((info.st_rdev >> 12) & 0xfff00)
        let record = "\(udevDataRoot)/c\(major):\(minor)"
        guard let text = DeviceClassifier.readText(record) else {
            finding.problems.append("udev has no record of it (\(record)): is systemd-udevd running? libinput needs its ID_INPUT properties")
            return finding
        }
        Self.read(udevRecord: text, kind: kind, panels: panels, into: &finding)
        return finding
    }

    /// What udev's record of a touch device (the `E:` properties and `G:`/`Q:` tags of
    /// /run/udev/data/cMAJOR:MINOR) means for sheetd. libinput needs `ID_INPUT` and the kind's
    /// property; the `sheetd` tag only lets udev start the service when the device appears, so
    /// a device without it is still used by a running daemon.
    /// udev's record of the device node at `path` (/run/udev/data/cMAJOR:MINOR), or nil.
    static func udevRecordPath(of path: String, root: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let major = (info.st_rdev >> 8) & 0xfff
        let minor = (info.st_rdev & 0xff) | ((info.st_rdev >> 12) & 0xfff00)
        return "\(root)/c\(major):\(minor)"
    }

    public static func read(udevRecord text: String, kind: InputDeviceKind, panels: PanelMapping = PanelMapping(connectors: []),
                            into finding: inout DeviceFinding) {
        let lines = text.split(separator: "\n").map(String.init)
        let property = kind == .touchscreen ? "E:ID_INPUT_TOUCHSCREEN=1" : "E:ID_INPUT_TOUCHPAD=1"
        if !lines.contains("E:ID_INPUT=1") || !lines.contains(property) {
            finding.problems.append("udev did not mark it \(property.dropFirst(2)) and ID_INPUT=1, so libinput will not treat it as a \(kind.rawValue)")
        }
        if kind == .touchscreen, !lines.contains("G:sheetd"), !lines.contains("Q:sheetd") {
            finding.notes.append("not tagged `sheetd`: a running sheetd uses it, but udev will not start sheetd.service when it appears (install 70-sheetd.rules and run `udevadm trigger --subsystem-match=input`)")
        }
        if let matrix = lines.first(where: { $0.hasPrefix("E:LIBINPUT_CALIBRATION_MATRIX=") }) {
            finding.notes.append("calibration \(matrix.dropFirst(2))")
        }
        // Its panel: the seat whose daemon reads it, and for a touchscreen the display it sits on.
        func value(_ name: String) -> String? {
            lines.first { $0.hasPrefix("E:\(name)=") }.map { String($0.dropFirst(name.count + 3)) }
        }
        let (seatTag, outputTag) = (value("ID_SEAT"), kind == .touchscreen ? value("WL_OUTPUT") : nil)
        let placement = panels.place(seat: seatTag, output: outputTag)
        finding.warnings += placement.problems
        // Said where there is a choice: a seat or output named, or more than one display.
        if let seat = placement.seat, seatTag != nil || outputTag != nil || panels.connectors.count(where: \.connected) > 1 {
            let daemon = seat == .main ? "sheetd.service" : "sheetd@\(seat.name).service, sheetd --seat \(seat.name)"
            var panel = "seat \(seat.name) (\(daemon))"
            if kind == .touchscreen, let output = placement.output ?? panels.defaultOutput {
                panel += ", on display \(output)\(placement.output == nil ? " (the first connected one: no WL_OUTPUT names another)" : " (WL_OUTPUT)")"
            }
            finding.notes.append(panel)
        }
    }
}

extension Doctor {
    /// What sheetd would make of the touch device of a recording: whether it is one (its
    /// position axes), how it is read (protocol A through libmtdev), and, decoding every event,
    /// what it sends against what it declares (positions outside its ranges, position axes that
    /// never move). The same rules as the replay and the daemon's recording input.
    public static func examine(recording path: String, descriptionPath: String? = nil) -> DeviceFinding {
        let source: KernelEventSource
        do { source = try Recording.open(path, descriptionPath: descriptionPath) } catch {
            var finding = DeviceFinding(node: path, name: "?", kind: .other)
            finding.problems.append("\(error)")
            return finding
        }
        let device = source.device
        var finding = DeviceFinding(node: path, name: device.name, kind: RecordedInput.kind(device.kind))
        if let problem = device.positionProblem {
            finding.problems.append("\(problem): not a touchscreen or touchpad; the replay refuses it and the daemon skips it")
            return finding
        }
        guard device.kind != .other else {
            finding.notes.append("neither INPUT_PROP_DIRECT, INPUT_PROP_POINTER, BTN_TOUCH nor multitouch axes make it a touch device")
            return finding
        }
        if device.speaksProtocolA {
            finding.notes.append("multitouch protocol A (no ABS_MT_SLOT): read through libmtdev, as libinput reads it, \(device.slotCount) slots")
        }
        var decoder = MultitouchDecoder(device: device, screen: .portraitFullHD)
        var frame = TouchFrame(time: .zero)
        var touches = 0
        do {
            while let event = try source.next() {
                if decoder.feed(event, into: &frame) {
                    touches += frame.contacts.count { $0.phase == .down }
                    frame.removeAll()
                }
            }
        } catch {
            finding.problems.append("\(error)")
        }
        finding.warnings += decoder.axisWarnings.map(\.description)
        finding.notes.append("\(decoder.framesSeen) frames, \(touches) touches")
        return finding
    }
}
