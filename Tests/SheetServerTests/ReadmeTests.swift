import Foundation
import SheetTestSupport
import Testing

/// A shell block of the README or of a page in docs/: its commands, and the output shown
/// right after it.
struct ReadmeBlock: CustomStringConvertible {
    /// The page it is on, from the repository's root: `README.md`, `docs/renderers.md`.
    var page: String
    /// The page's line where the block starts.
    var line: Int
    /// One entry per command, continuation lines joined.
    var commands: [String]
    /// The index of its closing fence among the page's lines.
    var end: Int
    /// The unlabelled block that follows it with nothing but blank lines between: what the
    /// commands print.
    var output: [String]?

    var description: String { "\(page):\(line)" }

    static func all(in text: String, page: String = "README.md") -> [ReadmeBlock] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blocks: [ReadmeBlock] = []
        var index = 0
        while index < lines.count {
            let trimmed = lines[index].drop { $0 == " " }
            guard trimmed.hasPrefix("```") else { index += 1; continue }
            let language = trimmed.dropFirst(3)
            let indent = lines[index].count - trimmed.count
            let start = index + 1
            var end = start
            while end < lines.count, !lines[end].drop(while: { $0 == " " }).hasPrefix("```") { end += 1 }
            let body = lines[start..<min(end, lines.count)].map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }
            if language == "sh" {
                var commands: [String] = []
                var pending = ""
                for line in body {
                    if line.hasSuffix("\\") {
                        pending += line.dropLast() + " "
                    } else {
                        commands.append(pending + line)
                        pending = ""
                    }
                }
                blocks.append(ReadmeBlock(page: page, line: start, commands: commands.filter { !$0.allSatisfy(\.isWhitespace) }, end: end))
            } else if language.isEmpty, let last = blocks.last, last.output == nil,
                      lines[(last.end + 1)..<index].allSatisfy({ $0.allSatisfy(\.isWhitespace) }) {
                blocks[blocks.count - 1].output = body
            }
            index = end + 1
        }
        return blocks
    }
}

/// Every command in the README and in docs/ runs here, as a newcomer would type it, so the
/// pages cannot drift from what the tools do. Commands that change the machine, build what the
/// tests build otherwise, or run for long are listed with the reason they are not run; a new
/// command that is neither run nor listed fails the test.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: builtExecutable("sheetd").path)))
struct ReadmeTests {
    static let root = fixtures.deletingLastPathComponent().deletingLastPathComponent()

    /// The pages whose shell blocks run here: README.md first, then every page under docs/ by
    /// its path, from the repository's root.
    static let pages: [String] = {
        let docs = (try? FileManager.default.subpathsOfDirectory(atPath: ReadmeTests.root.appendingPathComponent("docs").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
    }()

    /// Every shell block of those pages, in their order.
    static let blocks: [ReadmeBlock] = ReadmeTests.pages.flatMap { page in
        ReadmeBlock.all(in: (try? String(contentsOf: ReadmeTests.root.appendingPathComponent(page), encoding: .utf8)) ?? "", page: page)
    }

    /// Commands not run here, by how they begin, and why.
    static let notRun: [(prefix: String, reason: String)] = [
        ("make deps", "installs Debian packages; make test and CI run it before the tests"),
        ("make test", "is the run this test is part of"),
        ("make demo", "builds a release, then runs examples/demo, which demoRuns runs on this build"),
        ("make e2e", "boots a VM; CI runs it after the tests"),
        ("make fuzz", "CI runs it after the tests"),
        ("make soak", "takes half an hour"),
        ("swift build", "the tests run the debug build of the same sources"),
        ("sudo ", "changes the machine: users, packages, services"),
        ("journalctl ", "reads an installed service's log"),
        ("systemctl --user ", "starts a service of an installed package in a user's session; WaylandTests run the backend under sway"),
        ("sheet-render --backend web", "serves pages until it is stopped; WebTests run it under a browser"),
        ("cage ", "starts a compositor and a browser on a display; WebTests drive the browser headless"),
    ]

    /// Run, with `.build/release/` meaning this test run's build and `/tmp/` and
    /// `docs/images/` a folder of the test's own.
    static func runnable(_ command: String) -> Bool {
        let trimmed = command.drop { $0 == " " }
        if notRun.contains(where: { trimmed.hasPrefix($0.prefix) }) { return false }
        // Draws in the terminal until Ctrl-C; RendererTests run the term backend in tmux.
        if command.contains("# Ctrl-C") { return false }
        // Talks to the installed daemon's socket, which a test run has not got.
        if command.contains("/run/sheetd/") { return false }
        return true
    }

    @Test(arguments: ReadmeTests.blocks)
    func commandsRunAsWritten(_ block: ReadmeBlock) throws {
        let commands = block.commands.filter(Self.runnable)
        guard !commands.isEmpty else { return }
        let folder = try temporaryFolder()
        let images = folder.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        let bin = builtExecutable("sheetd").deletingLastPathComponent().path
        // `/tmp/` first: the build itself may live under /tmp (a clone there).
        let script = commands.map {
            $0.replacingOccurrences(of: "/tmp/", with: folder.path + "/")
                .replacingOccurrences(of: "docs/images/", with: images.path + "/")
                .replacingOccurrences(of: ".build/release/", with: bin + "/")
        }
        // A daemon a block leaves in the background is stopped when the block ends.
        let result = try runShell(["set -eo pipefail", "trap 'kill $(jobs -p) 2>/dev/null || true; wait' EXIT"] + script)
        #expect(result.status == 0, "\(block): \(commands.joined(separator: "\n"))\n\(result.stderr)")

        // A picture a page shows and a command makes must be what the command makes now; a
        // command on any page writes `docs/images/` from the repository's root.
        // Pictures with text are the bytes of one release's text stack (`goldenRelease`).
        for made in try FileManager.default.contentsOfDirectory(atPath: images.path) {
            guard systemRelease == goldenRelease else {
                print("skipped: docs/images/\(made) was drawn on \(goldenRelease), whose Pango and fonts lay out its text; this is \(systemRelease)")
                continue
            }
            let shown = Self.root.appendingPathComponent("docs/images/\(made)")
            #expect(try Data(contentsOf: images.appendingPathComponent(made)) == Data(contentsOf: shown),
                    "\(block) makes docs/images/\(made) differently now; run the command to refresh it")
        }

        guard let output = block.output else { return }
        let printed = result.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let shown = output.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && $0 != "..." }
        if commands.contains(where: { $0.hasSuffix("&") }) {
            // Beside a running daemon the states' numbers depend on when the watcher came: the
            // last line shown must be the last printed, but for its number.
            func unnumbered(_ line: String) -> String { String(line.drop { $0 != " " }).trimmingCharacters(in: .whitespaces) }
            #expect(printed.last.map(unnumbered) == shown.last.map(unnumbered), "\(block) printed:\n\(result.stdout)")
        } else {
            for line in shown {
                #expect(printed.contains(line), "\(block) shows `\(line)`, which it does not print now:\n\(result.stdout)")
            }
        }
    }

    /// Every relative link and picture in README.md and docs/ names a file that is there (an
    /// anchor after `#` is left to the reader), so that a page moved or a picture renamed
    /// leaves no dead link behind.
    @Test func everyLinkInTheReadmeAndTheDocsResolves() throws {
        var pages = [Self.root.appendingPathComponent("README.md")]
        let docs = Self.root.appendingPathComponent("docs")
        let enumerator = FileManager.default.enumerator(at: docs, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if url.pathExtension == "md" { pages.append(url) }
        }
        #expect(pages.count > 5)
        let link = try NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        for page in pages {
            let text = try String(contentsOf: page, encoding: .utf8)
            for match in link.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                let target = String(text[range])
                if target.contains("://") || target.hasPrefix("#") || target.hasPrefix("mailto:") { continue }
                let path = String(target.split(separator: "#", maxSplits: 1)[0])
                let file = page.deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL
                #expect(FileManager.default.fileExists(atPath: file.path), "\(page.lastPathComponent): \(target) does not resolve")
            }
        }
    }

    /// Every command of the README and docs/ is run or listed above with its reason.
    @Test func everyCommandIsRunOrExplained() throws {
        #expect(Self.pages.first == "README.md" && Self.pages.count > 5, "\(Self.pages)")
        let blocks = Self.blocks
        #expect(blocks.count >= 8)
        let run = blocks.flatMap(\.commands).filter(Self.runnable)
        #expect(run.count >= 10, "\(run)")
        #expect(run.contains { $0.contains("sheetctl watch") && $0.contains("--wait") }, "the demo's watcher waits for the socket")
        // The quick start's replay, the demo's watcher and the content replay show their output.
        #expect(blocks.filter { $0.output != nil && $0.commands.contains(where: Self.runnable) }.count >= 3)
    }

    /// docs/kiosks.md's recipes (`sh recipe=NAME` blocks, which change a machine: users,
    /// units) are not run here but by the as-installed VM's scenario, each one by its name;
    /// none is left out.
    @Test func everyKioskRecipeRunsInTheInstalledVM() throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/kiosks.md"), encoding: .utf8)
        let recipes = page.split(separator: "\n").compactMap { line -> String? in
            line.hasPrefix("```sh recipe=") ? String(line.dropFirst("```sh recipe=".count)) : nil
        }
        #expect(recipes.contains("appliance") && recipes.contains("browser"), "\(recipes)")
        let guest = try String(contentsOf: Self.root.appendingPathComponent("Tests/e2e/guest-installed"), encoding: .utf8)
        for name in recipes {
            #expect(guest.contains("\nrecipe \(name) ") || guest.contains("\nrecipe \(name)\n"), "recipe \(name) is not run by Tests/e2e/guest-installed")
        }
    }

    /// `make demo`'s script, on this build: the watcher waits for the daemon's socket, sees
    /// the drag and stops where the replay rests.
    @Test func demoRuns() throws {
        let bin = builtExecutable("sheetd").deletingLastPathComponent().path
        let result = try runShell(["SHEETD_BIN=\(bin) examples/demo"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.contains { $0.contains("dragging") }, "\(result.stdout)")
        #expect(lines.last?.contains("resting at half  top 960px") == true, "\(result.stdout)")
    }

    /// Runs `lines` with bash in the repository's root, for two minutes at most.
    func runShell(_ lines: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProcess(URL(fileURLWithPath: "/usr/bin/timeout"), ["120", "/bin/bash", "-c", lines.joined(separator: "\n")],
                       environment: ["SHEETD_SOCKET": nil], directory: Self.root)
    }
}
