import Foundation
import SheetCore
import SheetRecordings
import Testing
@testable import SheetReplay

/// `sheetctl replay --explain`: each release says which rule of its rule set chose the detent,
/// with its numbers, on a 1080x1920 screen at scale 1 (half at 960, expanded at 30, the floor
/// at 1920). The card begins at half; a finger on it at y 1000 drags it.
@Suite struct ExplainReplayTests {
    func releases(_ policy: ReleaseRuleSet, from start: Int32, to end: Int32, seconds: Double,
                  hold: Double = 0.3) throws -> (releases: [Line], run: ReplayRun) {
        var r = SyntheticRecording()
        r.stroke(from: (540, start), to: (540, end), seconds: seconds, holdSeconds: hold)
        r.wait(1)
        var replayOptions = options(policy: policy)
        replayOptions.explain = true
        let run = try replay(r, replayOptions)
        return (run.kind("release"), run)
    }

    @Test(arguments: [
        // A slow drag up, held still: momentum carries it nowhere; half is nearest.
        (ReleaseRuleSet.projection, Int32(1000), Int32(800), 1.5, "nearest-to-projection", "half"),
        // A flick up: the next detent that way.
        (.projection, 1000, 700, 0.1, "fling", "expanded"),
        // Held still low on the screen: the floor is nearest, but above the dismiss line.
        (.projection, 1000, 1700, 1.5, "above-dismiss-line", "half"),
        (.tutorial, 1000, 1600, 0.1, "dismiss-velocity", "hidden"),
        (.tutorial, 1000, 300, 1.5, "above-expand-line", "expanded"),
        (.tutorial, 1000, 900, 1.5, "above-hide-line", "half"),
        (.tutorial, 1000, 1900, 1.5, "below-hide-line", "hidden"),
        (.halfDrag, 1000, 1500, 1.5, "past-half-way", "hidden"),
        (.halfDrag, 1000, 1200, 1.5, "short-of-half-way", "half"),
    ])
    func eachRuleSaysWhyItChose(_ policy: ReleaseRuleSet, _ start: Int32, _ end: Int32, _ seconds: Double,
                                _ rule: String, _ detent: String) throws {
        // A flick lifts while moving; a slow drag is held still before it lifts.
        let (releases, run) = try releases(policy, from: start, to: end, seconds: seconds, hold: seconds < 0.5 ? 0 : 0.3)
        let release = try #require(releases.first, "\(run.text)")
        #expect(releases.count == 1)
        #expect(release["rule"] as? String == rule, "\(release)")
        #expect(release["detent"] as? String == detent, "\(release)")
        // Where the card was let go: where it began plus the finger's travel.
        let top = try #require(release["topPt"] as? Double)
        #expect(abs(top - Double(960 + end - start)) < 2, "\(release)")
        #expect(release["velocityPtS"] is Double)
        if policy == .projection && rule != "fling" {
            #expect(release["projectedTopPt"] is Double, "projection's rules say where momentum carries the card")
        }
        if rule != "nearest-to-projection" { #expect(release["threshold"] is Double, "\(release)") }
        // The sheet goes where the rule said.
        #expect(run.lastSheet?["detent"] as? String == detent)
    }

    /// The text log puts the rule under the transition it explains; without `--explain` the
    /// output is what it always was.
    @Test func theTextLogExplainsUnderTheTransition() throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1000), to: (540, 700), seconds: 0.1)
        r.wait(1)
        var replayOptions = options(format: .text)
        replayOptions.touches = false
        replayOptions.explain = true
        let explained = try replay(r, replayOptions).text.split(separator: "\n")
        let index = try #require(explained.firstIndex { $0.hasPrefix("  release: ") }, "\(explained)")
        #expect(explained[index].hasPrefix("  release: fling → expanded (let go at "), "\(explained[index])")
        #expect(explained[index].hasSuffix(" pt/s, against 300 pt/s)"), "\(explained[index])")
        #expect(explained[index - 1].contains("dragging → release"), "\(explained[index - 1])")
        replayOptions.explain = false
        let plain = try replay(r, replayOptions).text.split(separator: "\n")
        #expect(plain == explained.filter { !$0.hasPrefix("  release: ") })
    }
}
