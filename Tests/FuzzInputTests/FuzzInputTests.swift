import Foundation
import SheetTestSupport
import Testing

/// The fuzz targets, built without libFuzzer, run over their seeds and over the inputs kept in
/// Tests/Fixtures/fuzz/TARGET (each a finding of `make fuzz`, fixed): none may fail again.
struct FuzzInputTests {
    static let targets = ["evemu", "libinput-record", "decoder", "json", "varlink", "sendframe", "configuration", "png"]

    @Test(arguments: targets)
    func seedsAndKeptInputsPass(target: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fuzz = builtExecutable("sheet-fuzz").path
        #expect(try runProgram(fuzz, ["--seeds", folder.path]).status == 0)
        var inputs = [folder.appendingPathComponent(target).path]
        let kept = fixtures.appendingPathComponent("fuzz/\(target)").path
        if FileManager.default.fileExists(atPath: kept) { inputs.append(kept) }
        let result = try runProgram(fuzz, [target] + inputs)
        #expect(result.status == 0, "\(result.output)")
        let seeds = try FileManager.default.contentsOfDirectory(atPath: inputs[0]).count
        #expect(seeds > 0)
        #expect(result.output.hasPrefix("\(target): "), "\(result.output)")
    }
}
