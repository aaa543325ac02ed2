import Foundation
import Glibc
import SheetTestSupport
import Testing

/// sheetd, sheetctl and sheet-render are one program, chosen by the name it is called by, as
/// the package installs it: `sheetd` with the other two names as links to it.
struct MultiCallTests {
    /// A folder with `sheetd` and a link to it under `name`.
    private func link(_ name: String) throws -> URL {
        let folder = try temporaryFolder()
        let link = folder.appendingPathComponent(name)
        guard symlink(builtExecutable("sheetd").path, link.path) == 0 else { throw DaemonTestError("symlink \(link.path)") }
        return link
    }

    @Test(arguments: ["sheetctl", "sheet-render"])
    func aLinkToSheetdIsTheProgramItIsNamedFor(name: String) throws {
        let linked = try runProcess(try link(name), ["--help"])
        let built = try runProcess(builtExecutable(name), ["--help"])
        #expect(linked.status == 0 && linked.stdout == built.stdout, "\(name) --help through the link: \(linked.stdout)\(linked.stderr)")
        #expect(linked.stdout.contains("USAGE: \(name)"), "\(linked.stdout)")
    }

    @Test func aNameItDoesNotHaveIsSaidAndNothingStarts() throws {
        let result = try runProcess(try link("sheet-copy"), ["--input", "none"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("sheet-copy: called by a name it does not have; it is sheetd, sheetctl, sheet-render"), "\(result.stderr)")
    }

    /// One program, but not one set of loaded libraries for all: librsvg (with libxml2 and ICU)
    /// is opened only when a renderer draws an SVG icon, and the renderer's other libraries
    /// (Cairo, Pango, GIO, libdrm, libxkbcommon, libspeechd and all under them), libinput's
    /// stack and zlib at the first call of one of their functions (CLazyLibraries), so a
    /// daemon given no input device, whose content names icons, maps none of them.
    @Test func theDaemonNeverLoadsTheLibrariesItDoesNotCall() throws {
        let content = try temporaryFile("content.yaml", "title: Icons\nitems:\n  - {id: b, label: B, icon: network-wireless-symbolic}\n")
        let config = try temporaryFile("sheetd.yaml", "content: \(content)\n")
        let daemon = try RunningDaemon(["--config", config, "--input", "none", "--input-socket", "none"])
        #expect(try daemon.client().content().items.first?.icon == "network-wireless-symbolic")
        // /proc's files have no size: read to the end, not as far as stat says.
        let file = try #require(FileHandle(forReadingAtPath: "/proc/\(daemon.process.processIdentifier)/maps"))
        let maps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        #expect(maps.contains("libc.so"), "the daemon's maps are read: \(maps.prefix(400))")
        for library in [
            "librsvg-2.so", "libxml2.so", "libicuuc.so", "libcairo.so", "libpango-1.0.so", "libpangocairo-1.0.so",
            "libpangoft2-1.0.so", "libharfbuzz.so", "libfontconfig.so", "libfreetype.so", "libpixman-1.so",
            "libfribidi.so", "libgio-2.0.so", "libdrm.so", "libxkbcommon.so", "libspeechd.so", "libX11.so",
            "libinput.so", "libudev.so", "libevdev.so", "libmtdev.so", "libglib-2.0.so", "libgobject-2.0.so",
            "libz.so",
        ] {
            #expect(!maps.contains(library), "sheetd maps \(library)")
        }
        #expect(daemon.stop() == 0)
    }
}
