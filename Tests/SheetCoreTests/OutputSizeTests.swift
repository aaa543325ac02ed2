import SheetCore
import Testing

/// Every frame copies its outputs: an output kind that is rare (a release's explanation) must
/// not make every output larger than the sheet's state already makes it.
struct OutputSizeTests {
    @Test func aReleaseDecisionIsNoLargerThanASheetState() {
        #expect(MemoryLayout<ReleaseDecision>.size <= MemoryLayout<SheetSnapshot>.size,
                "ReleaseDecision \(MemoryLayout<ReleaseDecision>.size) bytes, SheetSnapshot \(MemoryLayout<SheetSnapshot>.size)")
        #expect(MemoryLayout<SheetTransition>.size <= MemoryLayout<SheetSnapshot>.size)
    }

    /// The focus took bytes the sheet's state had spare: an output is still 128 bytes.
    @Test func theFocusMadeNoOutputLarger() {
        #expect(MemoryLayout<EngineOutput>.size <= 128, "EngineOutput \(MemoryLayout<EngineOutput>.size) bytes")
    }
}
