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
}
