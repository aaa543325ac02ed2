import CAllocationCounter
import SheetCore

/// Keys through the engine: the focus walked down a 60-item list and back with the arrows,
/// Tab and Ctrl+Down, each a press and a release, on a warmed-up engine: key events a second,
/// and heap allocations per key (the target is none).
func benchmarkKeys() {
    var configuration = EngineConfiguration()
    configuration.sheet.reduceMotion = true
    var engine = Engine(configuration: configuration)
    var outputs: [EngineOutput] = []
    outputs.reserveCapacity(256)
    let items = (0..<60).map { SheetItem(id: "item\($0)", label: "Item \($0)", accessory: $0 % 3 == 0 ? .toggle(isOn: false) : nil,
                                         section: $0 < 30 ? "First" : "Second") }
    engine.setContent(SheetContent(title: "Keys", items: items), at: .zero, into: &outputs)
    let codes: [UInt16] = Array(repeating: KeyCode.down, count: 40) + [KeyCode.enter] + Array(repeating: KeyCode.up, count: 40)
        + [KeyCode.tab, KeyCode.tab, KeyCode.space]
    var time = Timestamp(seconds: 1)
    func play(_ rounds: Int) -> Int {
        var count = 0
        for _ in 0..<rounds {
            for code in codes {
                for action in [KeyAction.press, .release] {
                    time = time.adding(microseconds: 20_000)
                    engine.key(KeyEvent(time: time, input: .key(code), action: action), into: &outputs)
                    outputs.removeAll(keepingCapacity: true)
                    count += 1
                }
            }
            // The focused item one place down and back, as Ctrl+Down and Ctrl+Up do.
            for (code, action) in [(KeyCode.leftControl, KeyAction.press), (KeyCode.down, .press), (KeyCode.down, .release),
                                   (KeyCode.up, .press), (KeyCode.up, .release), (KeyCode.leftControl, .release)] {
                time = time.adding(microseconds: 20_000)
                engine.key(KeyEvent(time: time, input: .key(code), action: action), into: &outputs)
                outputs.removeAll(keepingCapacity: true)
                count += 1
            }
        }
        return count
    }
    _ = play(20)
    let allocationsBefore = sheetd_allocation_count()
    let start = now()
    let keys = play(500)
    let elapsed = now() - start
    let allocations = sheetd_allocation_count() - allocationsBefore
    report("keys: key events per second", Double(keys) / elapsed, "keys/s", "\(keys) presses and releases through the key map and the focus")
    report("keys: heap allocations per key after warm-up", Double(allocations) / Double(keys), "allocations/key", "\(allocations) in all")
}
