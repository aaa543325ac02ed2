import Foundation
import SheetTestSupport
import Testing

/// The fault suite's short rows (Tests/faults/run --short; `make faults` runs them all and
/// writes docs/reliability.md#faults): a forwarder stalled 0.2 and 0.5 s, the daemon stopped
/// 1 s, the forwarder killed and its device closed mid-drag, a Monitor client that stops
/// reading, a state folder read-only, and full (where a small tmpfs may be mounted to fill;
/// else said not run). Each row must end where it must with no frame refused and no finger
/// left down; the runner says which broke.
@Suite(.serialized) struct FaultTests {
    @Test func theShortRowsHold() throws {
        let run = try runProcess(PythonClientTests.root.appendingPathComponent("Tests/faults/run"),
                                 [builtExecutable("sheetd").path, "--short"])
        #expect(run.status == 0, "\(run.stderr)\n\(run.stdout)")
        let rows = run.stdout.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| fault ") }
        // A row the machine cannot stage (the full folder: a tmpfs only root may mount) is said.
        let notRun = run.stderr.split(separator: "\n").filter { $0.contains(": not run: ") }
        #expect(rows.count + notRun.count == 8 && rows.allSatisfy { $0.hasSuffix("| yes |") }, "\(run.stdout)")
    }
}
