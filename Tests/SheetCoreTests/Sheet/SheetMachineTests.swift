import Testing
@testable import SheetCore

@Suite struct SheetMachineTests {
    let screen = ScreenSize(widthInPixels: 1080, heightInPixels: 1920)
    let t = Timestamp(seconds: 1)

    func machine(_ rules: ReleaseRuleSet, draggedTo top: Double, from start: Double = 960) -> SheetMachine {
        var configuration = SheetConfiguration()
        configuration.ruleSet = rules
        var machine = SheetMachine(configuration: configuration, screen: screen, state: .resting(detent: 1))
        let origin = machine.detents.nearest(to: start)
        return SheetMachine(configuration: configuration, screen: screen,
                            state: .dragging(.init(originDetent: origin, startTop: start, top: top)))
            .also { machine = $0 }
    }

    func target(_ rules: ReleaseRuleSet, top: Double, velocity: Double, from start: Double = 960) -> String {
        var m = machine(rules, draggedTo: top, from: start)
        _ = m.handle(.release(velocityY: velocity, t))
        return m.targetDetentIndex.map { m.detents[$0].name.description } ?? m.detentIndex.map { m.detents[$0].name.description } ?? "?"
    }

    @Test func tutorialRulesExactly() {
        // downward velocity > 1500 → hidden, whatever the position
        #expect(target(.tutorial, top: 100, velocity: 1501) == "hidden")
        #expect(target(.tutorial, top: 100, velocity: 1500) == "expanded")
        // top < 0.25·H (480) → expanded
        #expect(target(.tutorial, top: 479.9, velocity: 0) == "expanded")
        #expect(target(.tutorial, top: 480, velocity: 0) == "half")
        // top < H − 70 (1850) → half, else hidden
        #expect(target(.tutorial, top: 1849.9, velocity: 0) == "half")
        #expect(target(.tutorial, top: 1850, velocity: 0) == "hidden")
        // an upward fling does not hide
        #expect(target(.tutorial, top: 1000, velocity: -3000) == "half")
    }

    @Test func halfDragRulesExactly() {
        // from half (960) the card is 960 tall: more than 480 down hides
        #expect(target(.halfDrag, top: 1440.1, velocity: 0) == "hidden")
        #expect(target(.halfDrag, top: 1440, velocity: 0) == "half")
        #expect(target(.halfDrag, top: 1000, velocity: 5000) == "half")
        // from expanded (30) the card is 1890 tall
        #expect(target(.halfDrag, top: 975.1, velocity: 0, from: 30) == "hidden")
        #expect(target(.halfDrag, top: 975, velocity: 0, from: 30) == "expanded")
    }

    @Test func projectionFlingsOneDetentAtMost() {
        #expect(target(.projection, top: 970, velocity: 300) == "hidden")
        #expect(target(.projection, top: 100, velocity: 8000) == "half")
        #expect(target(.projection, top: 950, velocity: -300) == "expanded")
        #expect(target(.projection, top: 1800, velocity: -8000) == "half")
        // just under the fling speed: the projected point decides (299 pt/s ≈ 149 pt)
        #expect(target(.projection, top: 970, velocity: 299) == "half")
    }

    @Test func projectionDismissesOnlyPastTheLine() {
        // projected 1700: nearer hidden than half, but not past 1850 → half
        #expect(target(.projection, top: 1700, velocity: 0) == "half")
        #expect(target(.projection, top: 1851, velocity: 0) == "hidden")
        // a slow downward drift projects past the line
        #expect(target(.projection, top: 1760, velocity: 200) == "hidden")
        // an upward release near the bottom never hides
        #expect(target(.projection, top: 1900, velocity: -200) == "half")
    }

    @Test func dimFollowsTheTop() {
        for (top, dim) in [(960.0, 0.7), (30, 0.7), (1920, 0), (1440, 0.35)] {
            let m = machine(.projection, draggedTo: top)
            #expect(abs(m.dim - dim) < 1e-9)
        }
    }

    @Test func springCarriesTheVelocityAndRestsExactlyAtTheTarget() {
        var m = machine(.projection, draggedTo: 900)
        _ = m.handle(.release(velocityY: -1000, t))
        var time = t
        var lastTop = m.top
        var frames = 0
        while case .settling = m.state, frames < 200 {
            time = m.deadline!
            _ = m.handle(.frame(time))
            if frames == 0 { #expect(m.top < lastTop, "moves the way the finger went at once") }
            lastTop = m.top
            frames += 1
        }
        #expect(frames < 60, "rests within a second")
        #expect(m.state == .resting(detent: m.detents.index(named: .expanded)!))
        #expect(m.top == 30)
    }

    /// The grid steps the closed form's terms from frame to frame: for every kind of damping it
    /// gives what `state(after:)` gives, to a few units in the last place, on the grid, off it,
    /// after a jump, and exactly at each `exactEvery`-th frame.
    @Test(arguments: [0.3, 0.8, 1.0, 1.6])
    func aSpringOnItsFrameGridIsItsClosedForm(dampingRatio: Double) {
        let spring = Spring(from: 1500, target: 30, initialVelocity: -4000, stiffness: 400, dampingRatio: dampingRatio)
        let step: Int64 = 16_667
        var grid = Spring.Grid(spring, stepMicroseconds: step)
        // 300 frames in a row (five seconds), then a touch between frames, a frame skipped, one
        // asked twice, and the grid again.
        let elapsed: [Int64] = (0...300).map { $0 * step } + [301 * step + 5_000, 303 * step, 303 * step, 304 * step, 40 * step]
        for microseconds in elapsed {
            let exact = spring.state(after: Double(microseconds) / 1_000_000)
            let stepped = grid.state(afterMicroseconds: microseconds)
            let scale = 1 + abs(spring.from - spring.target)
            #expect(abs(stepped.value - exact.value) <= 1e-12 * scale, "value at \(microseconds) µs, ζ \(dampingRatio)")
            #expect(abs(stepped.velocity - exact.velocity) <= 1e-10 * scale, "velocity at \(microseconds) µs, ζ \(dampingRatio)")
            if microseconds % (step * Spring.Grid.exactEvery) == 0 {
                #expect(stepped == exact, "frame \(microseconds / step) is evaluated in closed form")
            }
        }
    }

    @Test func closingSpringNeverGoesPastHidden() {
        var m = machine(.projection, draggedTo: 1500)
        _ = m.handle(.release(velocityY: 6000, t))
        while case .settling = m.state {
            _ = m.handle(.frame(m.deadline!))
            #expect(m.top <= 1920)
        }
        #expect(m.top == 1920)
    }

    @Test func tutorialAnimationIsAnEaseInOfAThirdOfASecond() {
        var m = machine(.tutorial, draggedTo: 1000)
        _ = m.handle(.release(velocityY: 0, t))
        var tops: [Double] = []
        while case .settling = m.state { _ = m.handle(.frame(m.deadline!)); tops.append(m.top) }
        // 0.3 s at 60 Hz: 18 frames; ease-in starts slow and speeds up.
        #expect(tops.count == 18)
        #expect(abs(tops[1] - tops[0]) < abs(tops[16] - tops[15]))
    }

    // MARK: Reduced motion

    func reduced(_ state: SheetMachine.State) -> SheetMachine {
        var configuration = SheetConfiguration()
        configuration.reduceMotion = true
        return SheetMachine(configuration: configuration, screen: screen, state: state)
    }

    /// Runs the frames out; the tops and dims each frame shows.
    func frames(_ m: inout SheetMachine) -> [(top: Double, dim: Double)] {
        var shown: [(Double, Double)] = []
        while case .settling = m.state { _ = m.handle(.frame(m.deadline!)); shown.append((m.top, m.dim)) }
        return shown
    }

    @Test func reducedMotionPresentsWithTheCardInPlaceAndALinearFadeIn() {
        var m = reduced(.resting(detent: 2))
        #expect(m.handle(.present(detent: 1, t)) == .changed)
        #expect(m.state.kind == .settling && m.targetDetentIndex == 1)
        #expect(m.top == 960 && m.dim == 0 && m.velocity == 0)
        let shown = frames(&m)
        // 150 ms at 60 Hz: 9 frames, the card at half in each, the dim rising in equal steps.
        #expect(shown.count == 9)
        #expect(shown.allSatisfy { $0.top == 960 })
        #expect(abs(shown[3].dim - 0.7 * 66_668 / 150_000) < 1e-9)
        #expect(m.state == .resting(detent: 1) && m.dim == 0.7)
    }

    @Test func reducedMotionDismissesWithTheCardGoneAndAFadeOutOfHalfTheTime() {
        var m = reduced(.resting(detent: 1))
        _ = m.handle(.tap(Point(x: 540, y: 200), .touchscreen, t))
        #expect(m.top == 1920 && m.dim == 0.7 && !m.isShown)
        let shown = frames(&m)
        // 75 ms: 5 frames, the last at rest.
        #expect(shown.count == 5)
        #expect(shown.allSatisfy { $0.top == 1920 })
        #expect(zip(shown, shown.dropFirst()).allSatisfy { $0.dim > $1.dim })
        #expect(m.state == .resting(detent: 2) && m.dim == 0)
    }

    @Test func reducedMotionLetsTheFingerDragAndPlacesTheCardAtTheRelease() {
        var m = reduced(.dragging(.init(originDetent: 1, startTop: 960, top: 1300)))
        let dimAtRelease = m.dim
        _ = m.handle(.release(velocityY: 0, t))
        // The release keeps the rules (back to half) but not the motion.
        #expect(m.targetDetentIndex == 1 && m.top == 960 && m.velocity == 0)
        #expect(abs(m.dim - dimAtRelease) < 1e-12)
        #expect(frames(&m).allSatisfy { $0.top == 960 })
    }

    @Test func reducedMotionBetweenDetentsOfTheSameDimRestsAtOnce() {
        var m = reduced(.resting(detent: 1))
        #expect(m.handle(.present(detent: 0, t)) == .changed)
        #expect(m.state == .resting(detent: 0) && m.deadline == nil)
    }

    @Test func reducedMotionTurnedOnMidSpringPlacesTheCardAndOffMidFadeRests() {
        var m = machine(.projection, draggedTo: 1300)
        _ = m.handle(.release(velocityY: 0, t))
        _ = m.handle(.frame(m.deadline!))
        let top = m.top, dim = m.dim
        #expect(top > 960 && top < 1300)
        let later = m.deadline!
        #expect(m.handle(.reduceMotion(true, later)) == .changed)
        #expect(m.configuration.reduceMotion && m.top == 960 && m.targetDetentIndex == 1)
        #expect(m.dim >= dim && m.dim < 0.7)
        #expect(m.handle(.reduceMotion(false, later.adding(microseconds: 10_000))) == .changed)
        #expect(m.state == .resting(detent: 1) && m.dim == 0.7)
    }

    @Test func aCardCaughtDuringAFadeIsCaughtWhereItIs() {
        var m = reduced(.resting(detent: 2))
        _ = m.handle(.present(detent: 1, t))
        #expect(m.handle(.touchDown(Point(x: 540, y: 1000), .touchscreen, t.adding(microseconds: 20_000))) == .changed)
        guard case .dragging(let drag) = m.state else { Issue.record("not caught: \(m.state)"); return }
        #expect(drag.startTop == 960 && m.dim == 0.7)
    }

    @Test func customDetentsResolveAndSort() {
        var configuration = SheetConfiguration()
        configuration.detents.append(DetentSpec(parsing: "peek=85%")!)
        configuration.detents.append(DetentSpec(parsing: "tall=120pt")!)
        let m = SheetMachine(configuration: configuration, screen: screen, initialDetent: "peek")
        #expect(m.detents.detents.map(\.name) == ["expanded", "tall", "half", "peek", "hidden"])
        #expect(m.top == 1632)
        #expect(DetentSpec(parsing: "bad") == nil)
        #expect(DetentSpec(parsing: "x=200%") == nil)
    }
}

extension SheetMachine {
    func also(_ body: (SheetMachine) -> Void) -> SheetMachine { body(self); return self }
}
