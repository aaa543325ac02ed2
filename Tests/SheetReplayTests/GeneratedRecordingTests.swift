import Testing
import SheetCore
import SheetRecordings
@testable import SheetReplay

/// Recordings the tests make themselves, on a 1080x1920 screen where one device unit is one
/// pixel: the sheet starts at half (top 960), expanded is 30, hidden 1920, the dismiss line
/// 1850 (H − 70).
@Suite struct GeneratedRecordingTests {
    func finalDetent(_ run: ReplayRun) -> String? { run.lastSheet?["detent"] as? String }

    @Test func tapOnTheDimDismisses() throws {
        var r = SyntheticRecording()
        r.tap(x: 540, y: 400)
        let run = try replay(r)
        #expect(run.gestures("tap", "recognized").count == 1)
        #expect(finalDetent(run) == "hidden")
    }

    @Test func tapOnTheCardChangesNothing() throws {
        var r = SyntheticRecording()
        r.tap(x: 300, y: 1400)
        let run = try replay(r)
        #expect(run.gestures("tap", "recognized").count == 1)
        #expect(run.kind("sheet").count == 1)
        #expect(finalDetent(run) == "half")
    }

    @Test func tapOnTheCloseButtonDismisses() throws {
        var r = SyntheticRecording()
        // The close button's centre: 16 + 15 pt in from the card's top-right corner.
        r.tap(x: 1080 - 31, y: 960 + 31)
        #expect(finalDetent(try replay(r)) == "hidden")
    }

    @Test(arguments: [(ReleaseRuleSet.projection, "expanded"), (.tutorial, "expanded"), (.halfDrag, "half")])
    func slowDragUpThenRest(policy: ReleaseRuleSet, expected: String) throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1000), to: (540, 300), seconds: 1.5, holdSeconds: 0.1)
        let run = try replay(r, options(policy: policy))
        #expect(finalDetent(run) == expected)
        let end = try #require(run.gestures("pan", "ended").first)
        #expect(end["vy"] as? Double == 0, "a finger that rested has no fling velocity")
    }

    @Test func aDraggedCardCarriesTheFingersVelocity() throws {
        // 500 px up in 1 s: the card follows at -500 px/s; past the expanded top (30) the
        // rubber band slows it; clamped (tutorial) it does not move at all.
        var r = SyntheticRecording()
        r.stroke(from: (540, 1000), to: (540, 500), seconds: 1, holdSeconds: 0.1)
        let dragging = try replay(r).kind("sheet").filter { $0["state"] as? String == "dragging" }
        let middle = try #require(dragging.dropFirst(dragging.count / 2).first?["velocity"] as? Double)
        #expect(abs(middle + 500) < 25, "about -500 px/s mid-drag, got \(middle)")

        var past = SyntheticRecording()
        past.stroke(from: (540, 1000), to: (540, 0), seconds: 1, holdSeconds: 0.1)
        for policy in [ReleaseRuleSet.projection, .tutorial] {
            let sheets = try replay(past, options(policy: policy)).kind("sheet").filter { $0["state"] as? String == "dragging" }
            let last = try #require(sheets.last)
            let speed = try #require(last["velocity"] as? Double)
            if policy == .tutorial {
                #expect(speed == 0, "clamped at the top, the card stands still, got \(speed)")
            } else {
                #expect(speed > -600 && speed < -400, "the rubber band's slope (0.55 at the top) slows the card, got \(speed)")
            }
        }
    }

    @Test(arguments: [(ReleaseRuleSet.projection, "hidden"), (.tutorial, "hidden"), (.halfDrag, "half")])
    func fastFlickDownFromHalf(policy: ReleaseRuleSet, expected: String) throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1000), to: (540, 1300), seconds: 0.1)
        let run = try replay(r, options(policy: policy))
        let end = try #require(run.gestures("pan", "ended").first)
        let vy = try #require(end["vy"] as? Double)
        #expect(vy > 2500 && vy < 3500, "about 3000 px/s")
        #expect(finalDetent(run) == expected)
    }

    @Test(arguments: [(ReleaseRuleSet.projection, "half"), (.tutorial, "half"), (.halfDrag, "hidden")])
    func slowDragDownPastHalfTheCard(policy: ReleaseRuleSet, expected: String) throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1000), to: (540, 1600), seconds: 3, holdSeconds: 0.1)
        #expect(finalDetent(try replay(r, options(policy: policy))) == expected)
    }

    @Test(arguments: ReleaseRuleSet.allCases)
    func slowDragPastTheDismissLineHides(policy: ReleaseRuleSet) throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1000), to: (540, 1910), seconds: 3, holdSeconds: 0.1)
        #expect(finalDetent(try replay(r, options(policy: policy))) == "hidden")
    }

    @Test func flickUpFromHalfExpandsOneDetent() throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1500), to: (540, 1300), seconds: 0.1)
        let run = try replay(r)
        #expect(finalDetent(run) == "expanded")
    }

    @Test func tutorialClampsAtTheExpandedTopAndProjectionRubberBands() throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1000), to: (540, 20), seconds: 1, lift: false)
        let tutorial = try replay(r, options(policy: .tutorial))
        let tops = tutorial.kind("sheet").filter { $0["state"] as? String == "dragging" }.compactMap { $0["top"] as? Double }
        #expect(tops.min() == 30)
        let projection = try replay(r)
        let bands = projection.kind("sheet").filter { $0["state"] as? String == "dragging" }.compactMap { $0["top"] as? Double }
        let highest = try #require(bands.min())
        #expect(highest < 30 && highest > 30 - 200)
    }

    @Test func longPressIsRecognisedAtHalfASecondAndIsNoTap() throws {
        var r = SyntheticRecording()
        r.tap(x: 540, y: 1400, seconds: 0.7)
        let run = try replay(r)
        let press = try #require(run.gestures("long-press", "recognized").first)
        #expect(press["t"] as? Double == 0.5)
        #expect(run.gestures("long-press", "ended").count == 1)
        #expect(run.gestures("tap").isEmpty)
    }

    @Test func longPressTimeIsConfigurable() throws {
        var r = SyntheticRecording()
        r.tap(x: 540, y: 1400, seconds: 0.7)
        var options = options()
        options.engine.gestures.longPressSeconds = 1.0
        let run = try replay(r, options)
        #expect(run.gestures("long-press").isEmpty)
        #expect(run.gestures("tap", "recognized").count == 1)
    }

    @Test func aPalmCancelsTheDragAndTheSheetGoesBack() throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1000), to: (540, 1300), seconds: 0.3, lift: false)
        r.wait(0.01)
        r.palm(slot: 0)
        r.report()
        r.wait(0.05)
        r.up(slot: 0)
        r.report()
        let run = try replay(r)
        #expect(run.gestures("pan", "cancelled").count == 1)
        #expect(run.gestures("pan", "ended").isEmpty)
        #expect(run.kind("touch").contains { $0["phase"] as? String == "cancel" })
        #expect(finalDetent(run) == "half")
    }

    /// A fling down whose last frame turns the finger into a palm as it lifts: libinput makes
    /// that a cancel, so the sheet goes back where the drag began instead of flinging shut (a
    /// cancel has no velocity: Android's ACTION_CANCEL, libinput's touch cancel).
    @Test func aPalmInTheLiftingFrameIsACancelNotAFling() throws {
        func fling(palmAtLift: Bool) throws -> ReplayRun {
            var r = SyntheticRecording()
            r.stroke(from: (540, 1000), to: (540, 1300), seconds: 0.1, lift: false)
            r.wait(0.01)
            if palmAtLift { r.palm(slot: 0) }
            r.up(slot: 0)
            r.report()
            return try replay(r)
        }
        let flung = try fling(palmAtLift: false)
        #expect(finalDetent(flung) == "hidden", "without the palm the same stroke flings the sheet shut")
        let palm = try fling(palmAtLift: true)
        #expect(palm.kind("touch").last?["phase"] as? String == "cancel")
        #expect(palm.gestures("pan", "cancelled").count == 1 && palm.gestures("pan", "ended").isEmpty)
        #expect(finalDetent(palm) == "half")
    }

    /// The kernel sends a slot's tool type only when it changes: a new contact in a slot whose
    /// last type was a palm is a palm from the start (libinput's PALM_WAS_PALM), even if a
    /// finger type follows in its first frame; the next contact after a finger type is a finger.
    @Test func aContactInASlotStillMarkedPalmIsIgnored() throws {
        var r = SyntheticRecording()
        r.down(slot: 0, x: 540, y: 300)
        r.palm(slot: 0)
        r.report()
        r.wait(0.03)
        r.up(slot: 0)
        r.report()
        r.wait(0.2)
        r.tap(x: 540, y: 300)  // the same slot, its tool type still a palm: ignored
        r.wait(0.2)
        r.down(slot: 0, x: 540, y: 300)
        r.finger(slot: 0)
        r.report()
        r.wait(0.05)
        r.up(slot: 0)
        r.report()
        r.wait(0.2)
        r.tap(x: 540, y: 300)  // a finger again: a tap on the dim
        let run = try replay(r)
        #expect(run.kind("touch").filter { $0["phase"] as? String == "down" }.count == 1)
        #expect(run.gestures("tap", "recognized").count == 1)
        #expect(finalDetent(run) == "hidden")
    }

    @Test func aCancelledTouchIsNeverATap() throws {
        var r = SyntheticRecording()
        r.down(slot: 0, x: 540, y: 400)
        r.report()
        r.wait(0.03)
        r.palm(slot: 0)
        r.report()
        r.wait(0.03)
        r.up(slot: 0)
        r.report()
        let run = try replay(r)
        #expect(run.gestures("tap").isEmpty)
        #expect(finalDetent(run) == "half", "a palm on the dim does not dismiss")
    }

    @Test func aSecondFingerNeverHijacksTheDrag() throws {
        var r = SyntheticRecording()
        r.down(slot: 0, x: 540, y: 1000)
        r.report()
        for step in 1...30 {
            r.wait(0.01)
            r.move(slot: 0, x: 540, y: Int32(1000 - step * 10))
            if step == 10 { r.down(slot: 1, x: 200, y: 1700) }
            if step > 10 && step < 20 { r.move(slot: 1, x: 200, y: Int32(1700 + (step - 10) * 20)) }
            if step == 20 { r.up(slot: 1) }
            r.report()
        }
        r.wait(0.2)
        r.report()
        r.up(slot: 0)
        r.report()
        let run = try replay(r)
        #expect(run.gestures("pan", "began").count == 1)
        #expect(run.gestures("tap").isEmpty)
        // The sheet followed finger 0 only: up by 300 px from half.
        let dragging = run.kind("sheet").filter { $0["state"] as? String == "dragging" }
        #expect(dragging.last?["top"] as? Double == 660)
        #expect(finalDetent(run) == "half")
    }

    @Test func aTouchDuringSettlingCatchesTheSheetWithoutAJump() throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1000), to: (540, 1300), seconds: 0.1)
        r.wait(0.1)
        // Where is the card now? Touch well inside it.
        r.down(slot: 0, x: 540, y: 1880)
        r.report()
        r.wait(0.3)
        r.up(slot: 0)
        r.report()
        let run = try replay(r)
        let sheets = run.kind("sheet")
        let caught = try #require(sheets.firstIndex { $0["state"] as? String == "dragging" && ($0["t"] as? Double ?? 0) > 0.15 })
        let before = try #require(sheets[caught - 1]["top"] as? Double)
        let speed = try #require(sheets[caught - 1]["velocity"] as? Double)
        let elapsed = try #require(sheets[caught]["t"] as? Double) - (try #require(sheets[caught - 1]["t"] as? Double))
        let after = try #require(sheets[caught]["top"] as? Double)
        #expect(sheets[caught - 1]["state"] as? String == "settling")
        // Caught where the spring was at the touch: the last frame plus its motion since, no jump.
        #expect(abs((after - before) - speed * elapsed) < 0.25 * speed * elapsed + 1)
        // And it stays put while the finger holds still.
        #expect(sheets.dropFirst(caught).prefix { $0["state"] as? String == "dragging" }.allSatisfy { $0["top"] as? Double == after })
    }

    @Test func swipeDownFromTheDimDismisses() throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 200), to: (540, 600), seconds: 0.08)
        let run = try replay(r)
        let swipe = try #require(run.gestures("swipe", "recognized").first)
        #expect(swipe["direction"] as? String == "down")
        #expect(finalDetent(run) == "hidden")
    }

    @Test func swipeUpFromTheDimDoesNotDismiss() throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 700), to: (540, 300), seconds: 0.08)
        let run = try replay(r)
        #expect(run.gestures("swipe", "recognized").first?["direction"] as? String == "up")
        #expect(finalDetent(run) == "half")
    }

    @Test func droppedEventsCancelTheTouch() throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1000), to: (540, 1200), seconds: 0.2, lift: false)
        r.wait(0.01)
        r.dropped()
        r.move(slot: 0, x: 540, y: 1500)
        r.report()
        r.wait(0.01)
        r.unknown()
        r.report()
        r.wait(0.5)
        r.up(slot: 0)
        r.report()
        let run = try replay(r)
        #expect(run.gestures("pan", "cancelled").count == 1)
        #expect(finalDetent(run) == "half")
    }

    @Test func startingHiddenTouchesPassThrough() throws {
        var r = SyntheticRecording()
        r.tap(x: 540, y: 400)
        r.wait(0.2)
        r.stroke(from: (540, 1800), to: (540, 1000), seconds: 0.3)
        let run = try replay(r, options(initial: "hidden"))
        #expect(run.kind("sheet").count == 1)
        #expect(finalDetent(run) == "hidden")
    }

    @Test func yamlAndEvemuOfTheSameGesturesReplayAlike() throws {
        var r = SyntheticRecording()
        r.tap(x: 540, y: 1400)
        r.wait(0.3)
        r.stroke(from: (540, 1000), to: (540, 1300), seconds: 0.1)
        let evemu = try replay(r)
        let yaml = try replay(r, yaml: true)
        #expect(evemu.text == yaml.text)
    }

    @Test func textFormatLogsTransitions() throws {
        var r = SyntheticRecording()
        r.stroke(from: (540, 1000), to: (540, 1300), seconds: 0.1)
        let run = try replay(r, options(format: .text))
        #expect(run.text.contains("sheet: resting(half) → pan-began → dragging"))
        #expect(run.text.contains("sheet: dragging → release(v="))
        #expect(run.text.contains("→ settling(hidden)"))
        #expect(run.text.contains("end: resting(hidden), top 1920 px, dim 0"))
    }
}

/// Whatever the bytes, a replay ends with its output or a RecordingError: no crash, no hang.
@Suite struct MutatedReplayTests {
    @Test func mutatedRecordingsReplayOrFailCleanly() throws {
        var recording = SyntheticRecording()
        recording.stroke(from: (540, 1000), to: (540, 1600), seconds: 0.2)
        recording.tap(x: 100, y: 100)
        recording.stroke(from: (540, 1000), to: (540, 200), seconds: 0.5, holdSeconds: 0.1)
        var state: UInt64 = 7
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 17
        }
        for (name, text) in [("m.evemu", recording.evemu()), ("m.yml", recording.libinputRecord())] {
            let original = Array(text.utf8)
            for round in 0..<120 {
                var bytes = original
                for _ in 0..<(1 + round % 6) {
                    let index = Int(next() % UInt64(bytes.count))
                    switch next() % 3 {
                    case 0: bytes[index] = UInt8(truncatingIfNeeded: next() % 128)
                    case 1: bytes.insert(UInt8(ascii: "9"), at: index)
                    default: bytes.remove(at: index)
                    }
                    if bytes.isEmpty { bytes = [0x0a] }
                }
                let path = try temporaryFile(name, bytes)
                do {
                    let run = try replay(path: path)
                    #expect(run.lastSheet?["state"] as? String == "resting")
                } catch is RecordingError {
                    continue
                }
            }
        }
    }
}
