import Foundation
import Glibc
import SheetTestSupport
import Testing

/// The shipped units, as systemd itself reads them.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")
                && FileManager.default.isExecutableFile(atPath: builtExecutable("sheetd").path)))
struct SystemdUnitTests {
    static let root = fixtures.deletingLastPathComponent().deletingLastPathComponent()

    /// The units with ExecStart pointing at the built daemon, in a folder of their own.
    func installedUnits() throws -> URL {
        let folder = try temporaryFolder()
        let service = try String(contentsOf: Self.root.appendingPathComponent("systemd/sheetd.service.in"), encoding: .utf8)
            .replacingOccurrences(of: "@BINDIR@", with: builtExecutable("sheetd").deletingLastPathComponent().path)
        try service.write(to: folder.appendingPathComponent("sheetd.service"), atomically: true, encoding: .utf8)
        let renderer = try String(contentsOf: Self.root.appendingPathComponent("systemd/sheet-render@.service.in"), encoding: .utf8)
            .replacingOccurrences(of: "@BINDIR@", with: builtExecutable("sheet-render").deletingLastPathComponent().path)
        try renderer.write(to: folder.appendingPathComponent("sheet-render@.service"), atomically: true, encoding: .utf8)
        for socket in ["sheetd.socket", "sheetd-input.socket"] {
            try FileManager.default.copyItem(at: Self.root.appendingPathComponent("systemd/\(socket)"),
                                             to: folder.appendingPathComponent(socket))
        }
        // A seat's units, made from those as `make install` makes them.
        let made = try runProcess(Self.root.appendingPathComponent("systemd/seat-units"),
                                  [Self.root.appendingPathComponent("systemd").path, folder.path,
                                   builtExecutable("sheetd").deletingLastPathComponent().path])
        #expect(made.status == 0, "\(made.stderr)")
        return folder
    }

    /// A seat's daemon (sheetd@seat1) and renderer, as systemd reads them: the seat's sockets,
    /// state and flag, and the same hardening as seat0's.
    @Test func theSeatTemplatesVerifyAndFollowTheSeat0Units() throws {
        let folder = try installedUnits()
        let units = ["sheetd@seat1.service", "sheetd@seat1.socket", "sheetd-input@seat1.socket", "sheet-render-seat@seat1.service"]
        let result = try runTool("", ["verify"] + units.map { folder.appendingPathComponent($0).path }, prefix: ["/usr/bin/systemd-analyze"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let service = try String(contentsOf: folder.appendingPathComponent("sheetd@.service"), encoding: .utf8)
        for line in ["ExecStart=\(builtExecutable("sheetd").path) --seat %i", "StateDirectory=sheetd/%i",
                     "Sockets=sheetd@%i.socket sheetd-input@%i.socket", "Requires=sheetd@%i.socket"] {
            #expect(service.contains(line + "\n"), "\(line)")
        }
        let seat0 = try String(contentsOf: folder.appendingPathComponent("sheetd.service"), encoding: .utf8)
        let hardening = { (unit: String) in unit.split(separator: "\n").filter { $0.hasPrefix("Protect") || $0.hasPrefix("SystemCall") } }
        #expect(hardening(service) == hardening(seat0) && !hardening(seat0).isEmpty)
        let socket = try String(contentsOf: folder.appendingPathComponent("sheetd@.socket"), encoding: .utf8)
        #expect(socket.contains("ListenStream=/run/sheetd/%i/io.sheetd.Sheet\n"))
        let input = try String(contentsOf: folder.appendingPathComponent("sheetd-input@.socket"), encoding: .utf8)
        #expect(input.contains("ListenStream=/run/sheetd/%i/io.sheetd.Input\n") && input.contains("Service=sheetd@%i.service\n"))
        let renderer = try String(contentsOf: folder.appendingPathComponent("sheet-render-seat@.service"), encoding: .utf8)
        #expect(renderer.contains(" --backend ${BACKEND} --seat %i $OPTIONS\n") && renderer.contains("EnvironmentFile=-/etc/sheetd/render-%i.conf\n"))
        let security = try runTool("", ["security", "--offline=yes", "--no-pager", folder.appendingPathComponent("sheetd@seat1.service").path],
                                   prefix: ["/usr/bin/systemd-analyze"])
        let line = security.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") }
        let score = line.flatMap { $0.split(separator: " ").lazy.compactMap { Double($0) }.first }
        #expect((score ?? 10) <= 1.5, "\(line.map(String.init) ?? security.stderr)")
    }

    @Test func systemdAnalyzeVerifiesTheUnits() throws {
        let folder = try installedUnits()
        let result = try runTool("", ["verify", folder.appendingPathComponent("sheetd.service").path,
                                      folder.appendingPathComponent("sheetd.socket").path,
                                      folder.appendingPathComponent("sheetd-input.socket").path,
                                      folder.appendingPathComponent("sheet-render@drm.service").path],
                                 prefix: ["/usr/bin/systemd-analyze"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    /// docs/kiosks.md's example units for a browser kiosk (the page, and cage with chromium on a
    /// VT), as systemd reads them. A program they start that this machine has not got (cage,
    /// chromium) is the one thing verify may say, and only of that program.
    @Test func theKioskExampleUnitsVerify() throws {
        let folder = try temporaryFolder()
        for unit in ["kiosk-page.service", "kiosk-browser@.service", "kiosk-labwc@.service"] {
            try FileManager.default.copyItem(at: Self.root.appendingPathComponent("examples/systemd/\(unit)"),
                                             to: folder.appendingPathComponent(unit))
        }
        let result = try runTool("", ["verify", folder.appendingPathComponent("kiosk-page.service").path,
                                      folder.appendingPathComponent("kiosk-browser@tty1.service").path,
                                      folder.appendingPathComponent("kiosk-labwc@tty1.service").path],
                                 prefix: ["/usr/bin/systemd-analyze"])
        let missing = ["/usr/bin/cage", "/usr/bin/chromium", "/usr/bin/labwc"].filter { !FileManager.default.isExecutableFile(atPath: $0) }
        let said = result.stderr.split(separator: "\n").filter { line in
            !missing.contains { line.hasSuffix("Command \($0) is not executable: No such file or directory") }
        }
        #expect(said.isEmpty, "\(result.stderr)")
        let browser = try String(contentsOf: folder.appendingPathComponent("kiosk-browser@.service"), encoding: .utf8)
        for line in ["User=kiosk", "After=systemd-user-sessions.service sheet-render-web.service kiosk-page.service", "PAMName=login",
                     "Conflicts=getty@%i.service"] {
            #expect(browser.contains(line + "\n"), "\(line)")
        }
        let labwc = try String(contentsOf: folder.appendingPathComponent("kiosk-labwc@.service"), encoding: .utf8)
        for line in ["User=screen", "PAMName=login", "ExecStart=/usr/bin/labwc", "Conflicts=getty@%i.service"] {
            #expect(labwc.contains(line + "\n"), "\(line)")
        }
    }

    /// The user unit for the Wayland backend, as a user manager reads it.
    @Test func systemdAnalyzeVerifiesTheWaylandUserUnit() throws {
        let folder = try temporaryFolder()
        let unit = try String(contentsOf: Self.root.appendingPathComponent("systemd/user/sheet-render@.service.in"), encoding: .utf8)
            .replacingOccurrences(of: "@BINDIR@", with: builtExecutable("sheet-render").deletingLastPathComponent().path)
        try unit.write(to: folder.appendingPathComponent("sheet-render@.service"), atomically: true, encoding: .utf8)
        // A user manager's runtime folder, which `--user` needs to exist.
        let runtime = try temporaryFolder()
        chmod(runtime.path, 0o700)
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/systemd-analyze"),
                                    ["--user", "verify", folder.appendingPathComponent("sheet-render@wayland.service").path],
                                    environment: ["XDG_RUNTIME_DIR": runtime.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    @Test func theServiceIsExposedAtMostOnePointFive() throws {
        let folder = try installedUnits()
        let result = try runTool("", ["security", "--offline=yes", "--no-pager",
                                      folder.appendingPathComponent("sheetd.service").path],
                                 prefix: ["/usr/bin/systemd-analyze"])
        let line = result.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") }
        // The line's first number: systemd 252 ends it with an emoji, 257 with `:-)`.
        let score = line.flatMap { $0.split(separator: " ").lazy.compactMap { Double($0) }.first }
        #expect(score != nil, "\(result.stdout)\(result.stderr)")
        #expect((score ?? 10) <= 1.5, "\(line ?? "")")
        // What libinput needs stays open.
        let service = try String(contentsOf: folder.appendingPathComponent("sheetd.service"), encoding: .utf8)
        #expect(!service.contains("PrivateDevices=yes"))
        #expect(service.contains("RestrictAddressFamilies=AF_UNIX AF_NETLINK"))
        #expect(service.contains("DeviceAllow=char-input rw"))
    }

    /// The renderer's unit: only the display nodes, no IP (netlink for udev's word of displays
    /// plugged in or out), and as tight as the daemon's.
    @Test func theRendererIsExposedAtMostOnePointFive() throws {
        let folder = try installedUnits()
        let result = try runTool("", ["security", "--offline=yes", "--no-pager",
                                      folder.appendingPathComponent("sheet-render@.service").path],
                                 prefix: ["/usr/bin/systemd-analyze"])
        let line = result.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") }
        let score = line.flatMap { $0.split(separator: " ").lazy.compactMap { Double($0) }.first }
        #expect((score ?? 10) <= 1.5, "\(line.map(String.init) ?? result.stderr)")
        let unit = try String(contentsOf: folder.appendingPathComponent("sheet-render@.service"), encoding: .utf8)
        #expect(unit.contains("DeviceAllow=char-drm rw") && unit.contains("DeviceAllow=char-fb rw"))
        #expect(!unit.contains("char-input"), "a renderer reads no input devices")
        #expect(unit.contains("SupplementaryGroups=video sheetd sheetd-render"))
        #expect(unit.contains("RestrictAddressFamilies=AF_UNIX AF_NETLINK") && unit.contains("IPAddressDeny=any"))
    }
}
