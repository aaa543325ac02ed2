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
        return folder
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

    /// The renderer's unit: only the display nodes, no network, and as tight as the daemon's.
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
    }
}
