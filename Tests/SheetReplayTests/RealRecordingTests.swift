import Foundation
import Testing
import SheetCore
@testable import SheetReplay

/// The real recordings in Tests/Fixtures/traces, with what each must give.
@Suite struct RealRecordingTests {
    /// Reduced motion on every real touchscreen recording: the card is never between
    /// detents but under a finger; the gestures are those of the full motion.
    @Test(arguments: ["ts-atmel-maxtouch.1-finger-drag-up-down.evemu", "ts-atmel-maxtouch.1-finger-fast-taps.evemu",
                      "ts-atmel-maxtouch.4-finger-drag-down.evemu", "ts-ep0430m09.2-finger-scroll-down.evemu"])
    func reducedMotionPlacesTheCardAtOnce(file: String) throws {
        var reduced = options()
        reduced.engine.sheet.reduceMotion = true
        let run = try replay(path: trace(file), reduced)
        let detents = Set(SheetMachine(configuration: reduced.engine.sheet, screen: reduced.engine.screen)
            .detents.detents.map { $0.topInPoints * reduced.engine.screen.scale })
        for line in run.kind("sheet") where line["state"] as? String != "dragging" {
            let top = try #require(line["top"] as? Double)
            #expect(detents.contains(top), "\(file): the card at \(top) at \(line["t"] ?? "?"), between detents")
        }
        let full = try replay(path: trace(file))
        #expect(run.kind("gesture").count == full.kind("gesture").count)
    }

    @Test func nineFastTapsGiveNineTaps() throws {
        let run = try replay(path: trace("ts-atmel-maxtouch.1-finger-fast-taps.evemu"))
        #expect(run.gestures("tap", "recognized").count == 9)
        #expect(run.gestures("pan").isEmpty)
        #expect(run.gestures("long-press").isEmpty)
        #expect(run.kind("touch").filter { $0["phase"] as? String == "down" }.count == 9)
    }

    @Test func dragUpThenDownIsOnePanThatTurns() throws {
        let run = try replay(path: trace("ts-atmel-maxtouch.1-finger-drag-up-down.evemu"))
        #expect(run.gestures("pan", "began").count == 1)
        #expect(run.gestures("pan", "ended").count == 1)
        let ys = run.gestures("pan").compactMap { $0["y"] as? Double }
        let lowest = try #require(ys.min())
        let turn = try #require(ys.firstIndex(of: lowest))
        // Up first (y falls), then down (y rises well past the turn).
        #expect(turn > 0 && turn < ys.count - 1)
        #expect(ys[0] - lowest > 500)
        #expect(ys[ys.count - 1] - lowest > 500)
        #expect(run.gestures("tap").isEmpty)
    }

    @Test func twoFingerScrollOnThePanelTouchesTwoSlots() throws {
        let run = try replay(path: trace("ts-ep0430m09.2-finger-scroll-down.evemu"))
        let downs = run.kind("touch").filter { $0["phase"] as? String == "down" }
        #expect(Set(downs.compactMap { $0["slot"] as? Int }) == [0, 1])
        // One pan: the second finger does not start another.
        #expect(run.gestures("pan", "began").count == 1)
    }

    @Test func fourFingersDragOnePan() throws {
        let run = try replay(path: trace("ts-atmel-maxtouch.4-finger-drag-down.evemu"))
        #expect(run.kind("touch").filter { $0["phase"] as? String == "down" }.count == 4)
        #expect(run.gestures("pan", "began").count == 1)
        #expect(run.gestures("tap").isEmpty)
    }

    @Test func twoFingerTapOnASemiMultitouchPadIsATapAtTheCentre() throws {
        // libinput turns gestures off on semi-multitouch pads, so two fingers scroll at once;
        // this tap's few scroll units (libinput skips the 8.8 mm jump as the second finger
        // lands: the motion history starts over for two frames) stay within the slop, so the
        // pad's contact is a tap, as the daemon gets it live.
        let run = try replay(path: trace("tp-alps-glidepoint.2-finger-tap.evemu"))
        let device = try #require(run.kind("device").first)
        #expect(device["type"] as? String == "touchpad")
        #expect(device["semiMultitouch"] as? Bool == true)
        #expect(run.gestures("tap", "recognized").count == 1)
        #expect(run.gestures("pan").isEmpty)
        #expect(run.lastSheet?["detent"] as? String == "half")
    }

    @Test func twoFingerVerticalScrollDragsTheCardBothWays() throws {
        // Two fingers scrolled down and up twice on a clickpad without a resolution (69 x 50 mm
        // as libinput takes it): the card follows in libinput's units, about 10.5 px a mm.
        let run = try replay(path: trace("tp-synaptics-clickpad.2-finger-scroll-vertical.events"))
        let device = try #require(run.kind("device").first)
        #expect(device["type"] as? String == "touchpad")
        #expect(run.gestures("pan", "began").count == 1)
        let tops = run.kind("sheet").filter { $0["state"] as? String == "dragging" }.compactMap { $0["top"] as? Double }
        let rest = try #require(run.kind("sheet").first?["top"] as? Double)
        #expect((tops.max() ?? 0) - rest > 70, "dragged down with the fingers")
        #expect(rest - (tops.min() ?? rest) > 40, "and up past where it began")
        #expect(run.lastSheet?["state"] as? String == "resting")
    }

    @Test func splitSynapticsRecordingFindsItsDescription() throws {
        let run = try replay(path: trace("tp-synaptics-hp8470p.2-finger-scroll-horizontal.events"))
        let device = try #require(run.kind("device").first)
        #expect(device["name"] as? String == "SynPS/2 Synaptics TouchPad")
        #expect(device["type"] as? String == "touchpad")
        #expect(!run.gestures("pan", "began").isEmpty)
        // A sideways scroll never drags the sheet (the pan is not the sheet's when it begins
        // mostly sideways); the one finger left down at the end is pointer motion, not ours.
        #expect(run.kind("sheet").count == 1)
    }

    @Test(arguments: [
        "ts-atmel-maxtouch.1-finger-drag-up-down.evemu", "ts-atmel-maxtouch.1-finger-fast-taps.evemu",
        "ts-atmel-maxtouch.4-finger-drag-down.evemu", "ts-ep0430m09.2-finger-scroll-down.evemu",
        "tp-alps-glidepoint.2-finger-tap.evemu", "tp-synaptics-hp8470p.2-finger-scroll-horizontal.events",
        "tp-synaptics-clickpad.2-finger-scroll-vertical.events",
    ])
    func everyRecordingReplaysTheSameBytesAndEndsAtRest(name: String) throws {
        for policy in ReleaseRuleSet.allCases {
            let first = try replay(path: trace(name), options(policy: policy))
            let second = try replay(path: trace(name), options(policy: policy))
            #expect(first.text == second.text)
            #expect(first.lastSheet?["state"] as? String == "resting")
            #expect(first.lines.count == first.text.split(separator: "\n").count, "every line is JSON")
        }
    }
}
