import SheetProtocol
import SheetSystem

/// Which panel a touchscreen belongs to, as Linux says it: its seat (udev `ID_SEAT`, which
/// `loginctl attach` sets; seat0 without it) and the display it sits on (udev `WL_OUTPUT`,
/// the connector's name, which wlroots and mutter read too), held against the connectors the
/// machine has. A daemon serves one seat and lives on one output of it (`output:`): it reads
/// the touchscreens placed there and leaves the others' touches to their own panels.
public struct PanelMapping: Sendable, Equatable {
    /// A display connector as the kernel names it (`HDMI-A-1`, `DSI-1`) and /sys/class/drm
    /// lists it (`card0-HDMI-A-1`), and whether a display is connected.
    public struct Connector: Sendable, Equatable {
        public var name: String
        public var card: String
        public var connected: Bool

        public init(name: String, card: String, connected: Bool) {
            self.name = name
            self.card = card
            self.connected = connected
        }
    }

    /// Where a touchscreen is: its seat (nil: `ID_SEAT` is no seat's name, so no daemon reads
    /// it), the output it sits on (nil: the seat's default, the first connected display), and
    /// what was wrong with its properties.
    public struct Placement: Sendable, Equatable {
        public var seat: Seat?
        public var output: String?
        public var problems: [String] = []

        public init(seat: Seat?, output: String?, problems: [String] = []) {
            self.seat = seat
            self.output = output
            self.problems = problems
        }
    }

    public var connectors: [Connector]

    public init(connectors: [Connector]) {
        self.connectors = connectors
    }

    /// The machine's connectors from sysfs (`/sys/class/drm/cardN-NAME/status`), in the
    /// kernel's order of cards and connectors.
    public init(sysfsRoot: String = "/sys") {
        let folder = "\(sysfsRoot)/class/drm"
        let found = (directoryNames(folder) ?? []).compactMap { name -> Connector? in
            guard name.hasPrefix("card"), let dash = name.firstIndex(of: "-") else { return nil }
            let status = DeviceClassifier.readText("\(folder)/\(name)/status")?.split(separator: "\n").first
            return Connector(name: String(name[name.index(after: dash)...]), card: String(name[..<dash]), connected: status == "connected")
        }
        connectors = found.sorted { ($0.card.count, $0.card, $0.name) < ($1.card.count, $1.card, $1.name) }
    }

    /// The output a daemon without `output:` lives on, and where a touchscreen without a
    /// (known) `WL_OUTPUT` goes: the first connected connector, as sheet-render draws on it.
    public var defaultOutput: String? { connectors.first(where: \.connected)?.name }

    /// Where the touchscreen with udev properties `ID_SEAT` = `seat` and `WL_OUTPUT` = `output` is.
    public func place(seat: String?, output: String?) -> Placement {
        let (found, problem) = Seat.of(udevSeat: seat)
        var placement = Placement(seat: found, output: nil)
        if let problem { placement.problems.append(problem) }
        if let output, !output.isEmpty {
            if connectors.contains(where: { $0.name == output }) {
                placement.output = output
            } else {
                let known = connectors.map(\.name)
                placement.problems.append("WL_OUTPUT=\(output) names no connector of this machine (\(known.isEmpty ? "none" : known.joined(separator: ", "))): on the default output")
            }
        }
        return placement
    }

    /// Whether a daemon of `seat` reads a touchscreen placed at `placement`, and why not. A
    /// daemon that lives on `output` reads the touchscreens on it (those without a known
    /// `WL_OUTPUT` are on the default output); one without reads every touchscreen of its seat.
    /// `seat` nil: the seat is not asked (libinput's udev backend reads only its seat's devices).
    public func reads(_ placement: Placement, seat: Seat?, output: String?) -> (read: Bool, reason: String?) {
        if let seat, placement.seat != seat {
            return (false, "on \(placement.seat.map(\.name) ?? "no seat sheetd can serve"), not \(seat.name)")
        }
        guard let output else { return (true, nil) }
        let its = placement.output ?? defaultOutput
        guard its == output else { return (false, "on output \(its ?? "none"), not \(output) where this sheet lives") }
        return (true, nil)
    }
}
