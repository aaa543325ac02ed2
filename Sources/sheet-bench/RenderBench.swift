// The renderer kit: composing a full 1920x1080 XRGB8888 frame against the memory-bandwidth
// floor (one memcpy of a frame of the same size), side by side in one run; and what a frame
// costs when only the card moved; the same with a 1,024-item list of Korean labels set by Pango.
import SheetCore
import SheetRenderKit
#if canImport(Glibc)
import Glibc
#endif

/// Best time (s) of `rounds` runs of `body`, each doing `perRound` frames.
func bestTime(rounds: Int, perRound: Int, _ body: () -> Void) -> Double {
    var best = Double.infinity
    for _ in 0..<rounds {
        let start = now()
        for _ in 0..<perRound { body() }
        best = min(best, (now() - start) / Double(perRound))
    }
    return best
}

func benchmarkRenderKit() {
    let width = 1920, height = 1080
    let painter = Painter.standard().painter
    let canvas = Canvas(width: width, height: height, format: .xrgb8888)
    let bytes = canvas.stride * height
    let source = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
    defer { source.deallocate() }
    memset(source, 0x5A, bytes)

    // Alternate between two states so that no frame is the same as the one before.
    let scenes = [540.0, 520.25].map { SheetScene(width: width, height: height, scale: 1, top: $0, dim: 0.7, progress: 0.5) }
    var flip = 0
    let copy = bestTime(rounds: 5, perRound: 40) { memcpy(canvas.base, source, bytes) }
    let compose = bestTime(rounds: 5, perRound: 40) {
        painter.draw(scenes[flip], into: canvas)
        flip ^= 1
    }
    report("render: compose a full 1920x1080 XRGB8888 frame", compose * 1e6, "µs",
           "memcpy of the same frame \(Int((copy * 1e6).rounded())) µs; ratio \(((compose / copy) * 100).rounded() / 100) (target ≤ 2)")

    // Only the card moved, by 19.75 px: the damaged rows alone are redrawn.
    painter.draw(scenes[0], into: canvas)
    let rows = scenes[1].damage(since: scenes[0]) ?? 0..<0
    flip = 1
    let partial = bestTime(rounds: 5, perRound: 200) {
        painter.draw(scenes[flip], into: canvas, rows: scenes[flip].damage(since: scenes[flip ^ 1]))
        flip ^= 1
    }
    report("render: a frame where only the card moved 19.75 px", partial * 1e6, "µs",
           "\(rows.count) of \(height) rows redrawn (\(rows.lowerBound)..<\(rows.upperBound))")

    // A 1,024-item list of Korean labels (the glyphs from Noto CJK), the card at its half
    // detent: the visible rows' text is set once, then every frame only blends it.
    let items = (0..<1024).map { SheetItem(id: "item\($0)", label: "설정 항목 \($0) — 디스플레이와 밝기") }
    let list = ListScene(items: items, titleBarHeight: 56, itemHeight: 56, scroll: 0, othersScale: 1, lifted: nil, moving: [],
                         height: height)
    let listed = [540.0, 520.25].map {
        SheetScene(width: width, height: height, scale: 1, top: $0, dim: 0.7, progress: 0.5, title: "설정 — Réglages", list: list)
    }
    painter.draw(listed[0], into: canvas)
    painter.draw(listed[1], into: canvas)
    let composeList = bestTime(rounds: 5, perRound: 40) {
        painter.draw(listed[flip], into: canvas)
        flip ^= 1
    }
    var cachedBytes = 0
    if case .typeset(let typesetter) = painter.text { cachedBytes = typesetter.cached.bytes }
    report("render: the same frame with a 1,024-item Korean list", composeList * 1e6, "µs",
           "ratio to memcpy \(((composeList / copy) * 100).rounded() / 100) (target ≤ 2); text cache \(cachedBytes >> 10) KiB")

    // Rows that are more than a label, on a 640 pt card in the middle of the panel: 1,024 items
    // of icons, second lines, switches and chevrons in 64 sections, Korean text. The list
    // scene is built from the items every frame, as a renderer builds it from each state.
    let icons = ["network-wireless-symbolic", "bluetooth-active-symbolic", "display-brightness-symbolic", "help-about-symbolic"]
    let rich = (0..<1024).map {
        SheetItem(id: "item\($0)", label: "설정 항목 \($0)", subtitle: "두 번째 줄 — 디스플레이 \($0)", icon: icons[$0 % 4],
                  accessory: $0 % 3 == 0 ? .toggle(isOn: $0 % 2 == 0) : .chevron, disabled: $0 % 7 == 6, section: "구역 \($0 / 16)")
    }
    let card = SheetLayout().cardSpan(screenWidth: Double(width))
    func richScene(_ top: Double) -> SheetScene {
        let list = ListScene(items: rich, titleBarHeight: 56, itemHeight: 56, scroll: 0, othersScale: 1, lifted: nil, moving: [],
                             height: height)
        return SheetScene(width: width, height: height, scale: 1, top: top, dim: 0.7, progress: 0.5, look: Look(Appearance(theme: .dark)),
                          title: "설정 — Réglages", list: list, card: card)
    }
    painter.draw(richScene(540), into: canvas)
    painter.draw(richScene(520.25), into: canvas)
    let tops = [540.0, 520.25]
    let composeRich = bestTime(rounds: 5, perRound: 40) {
        painter.draw(richScene(tops[flip]), into: canvas)
        flip ^= 1
    }
    // What building that list scene alone costs, done for every drawn state: its layout of
    // 1,024 rows and 64 headers is made once for the same items and sizes (13.5 µs a state, 4.8 %
    // of the frame, when it was made every time).
    let build = bestTime(rounds: 5, perRound: 200) {
        _ = ListScene(items: rich, titleBarHeight: 56, itemHeight: 56, scroll: 0, othersScale: 1, lifted: nil, moving: [], height: height)
    }
    report("render: building the 1,024 rich items' list scene, per drawn state", build * 1e6, "µs",
           "\(((build / composeRich) * 1000).rounded() / 10) % of that frame")
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    report("render: the same frame with 1,024 rich items (icons, two lines, switches, sections)", composeRich * 1e6, "µs",
           "ratio to memcpy \(((composeRich / copy) * 100).rounded() / 100) (target ≤ 2); peak resident \(usage.ru_maxrss >> 10) MiB so far")

    let png = bestTime(rounds: 3, perRound: 5) { _ = PNG.encode(canvas) }
    report("render: PNG of a 1920x1080 frame", png * 1e3, "ms")
}
