import Foundation
import Glibc
import SheetTestSupport
import Testing

/// `sheet-render --backend web` and its `<sheet-view>` in a real browser: Debian's chromium,
/// driven by Playwright from PyPI with Debian's binary (web_page_check.py). The page is a kiosk's,
/// with a strict Content-Security-Policy, served from an origin the renderer allows; another
/// origin's page is refused.
@Suite(.serialized) struct WebTests {
    static let script = PythonClientTests.root.appendingPathComponent("Tests/SheetServerTests/web_page_check.py").path

    /// A port on the loopback nobody listens on now (the kernel's choice, let go at once).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw DaemonTestError("no free port on 127.0.0.1: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A daemon, the web renderer on a port of its own, ready (its READY=1, sent once it listens),
    /// and web_page_check.py run against them in `mode`.
    static func runPage(_ mode: String, shots: String = "") throws -> (status: Int32, output: String, renderer: String) {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
            throw DaemonTestError("/usr/bin/chromium is missing: `make deps` installs Debian's chromium for the web renderer's tests")
        }
        let daemon = try RunningDaemon(["--input", "none"])
        let folder = try temporaryFolder()
        let (port, allowed, other) = (try freePort(), try freePort(), try freePort())
        let ready = NotifySocket(folder.appendingPathComponent("render.notify").path, patienceSeconds: 60)
        let renderer = try Renderer(["--backend", "web", "--socket", daemon.socketPath, "--listen", "127.0.0.1:\(port)",
                                     "--allow-origin", "http://127.0.0.1:\(allowed)"],
                                    folder: folder, environment: ["NOTIFY_SOCKET": ready.path])
        guard ready.next({ $0.hasPrefix("READY=1") }) != nil else { throw DaemonTestError("sheet-render did not start: \(renderer.log)") }
        let result = try runProcess(URL(fileURLWithPath: testPython),
                                    [script, mode, builtExecutable("sheetctl").path, daemon.socketPath,
                                     "http://127.0.0.1:\(port)/sheetd.js", "\(allowed)", "\(other)", shots])
        renderer.process.terminate()
        #expect(renderer.wait() == 0, "sheet-render: \(renderer.log)")
        #expect(daemon.stop() == 0)
        return (result.status, result.stdout + result.stderr, renderer.log)
    }

    /// The page shows a program's sheet from the daemon's states; a tap on an item reaches its
    /// owner (and the page's `sheet-event`); the accessibility tree has the roles; Tab and
    /// Escape reach the daemon; Korean and Arabic (right to left) drawn; markup stays text; a
    /// touch drag dismisses as the daemon decides; a modal sheet's dim takes a tap and a
    /// non-modal sheet passes it to the page; a page of another origin gets nothing, and so does a
    /// process of another user that forges the allowed origin; one user's connections are
    /// bounded, and one that sends nothing is closed.
    @Test func aKioskPageShowsTheSheetAndItsTouchesReachTheDaemon() throws {
        let shots = try temporaryFolder().path
        let (status, output, renderer) = try Self.runPage("check", shots: shots)
        #expect(status == 0, "\(output)\nsheet-render:\n\(renderer)")
        for wanted in ["the program's sheet is drawn from the daemon", "a tap on an item reached its owner", "the page heard it too",
                       "the accessibility tree: dialog 'Settings'", "Tab reached the daemon", "Escape dismissed the sheet",
                       "the Arabic sheet is right to left", "markup in a label", "a touch drag down the card dismissed it",
                       "modal: a tap on the dim dismissed", "not modal: a tap beside the card reached the page's button",
                       "a page closed mid-drag", "a page of another origin", "a hostile client", "Connection: close",
                       "one user's connections bounded", "an idle connection", "no error in the page's console"]
            + (getuid() == 0 ? ["another local user (uid 65534)"] : []) {
            #expect(output.contains("ok " + wanted), "missing: \(wanted)\n\(output)")
        }
        if getuid() == 0 {
            // Said once, with the uid, however many times that user came.
            #expect(renderer.components(separatedBy: "a connection of uid 65534 refused").count == 2, "\(renderer)")
        }
        #expect(renderer.contains("web: serving /sheetd.js"), "\(renderer)")
        #expect(!renderer.contains("failed"), "nothing the page sent was refused: \(renderer)")
        for name in ["web-light-half", "web-light-expanded", "web-dark-half", "web-dark-expanded", "web-korean", "web-arabic"] {
            #expect(FileManager.default.fileExists(atPath: shots + "/\(name).png"), "\(name).png")
        }
    }
}
