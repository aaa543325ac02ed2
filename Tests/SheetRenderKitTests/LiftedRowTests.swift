import SheetCore
@testable import SheetRenderKit
import Testing

/// The picked-up row keeps its label, drawn larger with the row, on a card as wide as the
/// screen and on a narrower one.
@Suite struct LiftedRowTests {
    @Test(arguments: [nil, CardSpan(left: 320, width: 640)] as [CardSpan?])
    func theLiftedRowShowsItsLabel(card: CardSpan?) throws {
        let typesetter = try Typesetter(font: "Noto Sans")
        let items = ["Wi-Fi", "Display", "Sound", "Bluetooth", "Network"].map { SheetItem(id: $0, label: $0) }
        let list = ListScene(items: items, titleBarHeight: 56, itemHeight: 56, scroll: 0, othersScale: 0.9,
                             lifted: .init(position: 3, offset: 14, scale: 1.2, opacity: 0.85), moving: [], height: 800)
        let scene = SheetScene(width: 1280, height: 800, scale: 1, top: 400, dim: 0.7, progress: 0.5, title: "Settings",
                               list: list, card: card)
        let canvas = Canvas(width: 1280, height: 800, format: .xrgb8888)
        Painter(typesetter: typesetter).draw(scene, into: canvas)
        // The lifted row's box: centred 400 + 56 + 3.5 * 56 + 14 = 666, 67 px tall at 1.2.
        let left = Int(card?.left ?? 0)
        var ink = 0
        for y in 640..<692 {
            for x in left..<(left + 300) where canvas.pixel(x: x, y: y).g < 128 { ink += 1 }
        }
        #expect(ink > 100, "the lifted row's label has \(ink) dark pixels")
    }
}
