import Foundation
#if SHEETD_FUZZING
import CLibFuzzer
#endif

/// `sheet-fuzz --seeds FOLDER` writes the corpus each target starts from.
/// `sheet-fuzz TARGET [libFuzzer flags] [CORPUS…]` when built for fuzzing (`make fuzz`):
/// libFuzzer drives TARGET. In an ordinary build, `sheet-fuzz TARGET FILE|FOLDER…` runs each
/// file through TARGET once: how a crash libFuzzer found is replayed, and how the tests run
/// the inputs kept in Tests/Fixtures/fuzz.
@main
enum SheetFuzz {
    nonisolated(unsafe) static var target = FuzzTarget.json

    static func main() {
        var arguments = CommandLine.arguments
        if arguments.count == 3, arguments[1] == "--seeds" {
            do { try Seeds.write(into: arguments[2]) } catch {
                FileHandle.standardError.write(Data("sheet-fuzz: \(error)\n".utf8))
                exit(1)
            }
            return
        }
        guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("usage: sheet-fuzz TARGET [FILE|FOLDER…] | --seeds FOLDER\ntargets: \(names)\n".utf8))
            exit(64)
        }
        Self.target = target
        arguments.remove(at: 1)
        #if SHEETD_FUZZING
        // What lives for the whole run is made before the first input, so that libFuzzer's
        // leak check (an input that allocates more than it frees) does not count it.
        target.prepare()
        var argc = CInt(arguments.count)
        var argv = arguments.map { strdup($0) } + [nil]
        let status = argv.withUnsafeMutableBufferPointer { buffer -> CInt in
            var pointer = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &pointer) { data, size in
                SheetFuzz.target.run(UnsafeRawBufferPointer(start: data, count: size))
                return 0
            }
        }
        exit(status)
        #else
        var count = 0
        for path in arguments.dropFirst() {
            for file in files(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("sheet-fuzz: cannot read \(file)\n".utf8))
                    exit(66)
                }
                data.withUnsafeBytes { target.run($0) }
                count += 1
            }
        }
        print("\(target.rawValue): \(count) input(s), none failed")
        #endif
    }

    /// `path`, or the files in it when it is a folder, in name order.
    static func files(at path: String) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { "\(path)/\($0)" }
    }
}
