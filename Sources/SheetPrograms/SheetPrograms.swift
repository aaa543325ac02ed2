#if canImport(Glibc)
import Glibc
#endif
import CConcurrencyHook
import ControlProgram
import DaemonProgram
import RenderProgram

/// One program under three names, chosen by the name it is called by (`argv[0]`, as busybox
/// and systemd's multi-call tools do): `sheetd`, `sheetctl` and `sheet-render` share the Swift
/// runtime, Foundation's essentials, swift-nio and the argument parser, which would otherwise
/// be linked into each of them (a static Swift program carries about 13 MB of them). Installed
/// as `sheetd` with `sheetctl` and `sheet-render` as links to it.
public enum SheetPrograms {
    /// The names the program answers to.
    public static let names = ["sheetd", "sheetctl", "sheet-render"]

    /// Runs the program the name says, and exits. The renderer runs on the main thread as a
    /// synchronous command, before any other thread exists: it blocks the signals it reads
    /// through a signalfd, and a thread started earlier would take SIGTERM by default. The
    /// daemon and sheetctl run as Swift's asynchronous main does: a task on the main actor,
    /// begun at once on this thread (a task begun on the global executor would start
    /// libdispatch's worker pool, whose monitor wakes an idle daemon every second), its later
    /// turns drained from the main queue by this thread (`sheetd_run_main_queue`).
    @MainActor public static func main() -> Never {
        let called = CommandLine.arguments.first ?? ""
        let name = called.split(separator: "/").last.map(String.init) ?? ""
        switch name {
        case "sheet-render":
            runRenderer()
            exit(0)
        case "sheetd", "sheetctl":
            if name == "sheetd" { prepareDaemon() }
            Task.immediate { @MainActor in
                if name == "sheetd" { await runDaemon() } else { await runControl() }
                exit(0)
            }
            sheetd_run_main_queue()
        default:
            // Not a name it has (a copy under another name): say which it has, rather than
            // start a daemon nobody asked for.
            let line = "\(name.isEmpty ? "this program" : name): called by a name it does not have; it is \(names.joined(separator: ", ")) by the name it is called as (a link named so)\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
            exit(64)  // EX_USAGE
        }
    }
}
