import Testing
@testable import SheetCore

/// Rows of one and two lines and section headers, laid out as the machine hit-tests them and
/// renderers draw them.
@Suite struct ListLayoutTests {
    static let items = [
        SheetItem(id: "a", label: "A"),
        SheetItem(id: "b", label: "B", subtitle: "two lines", section: "Sound"),
        SheetItem(id: "c", label: "C", section: "Sound"),
        SheetItem(id: "d", label: "D", section: "Display"),
    ]

    @Test func rowsAndHeadersStackInOrder() {
        var layout = ListLayout()
        layout.layOut(Self.items, order: [0, 1, 2, 3], configuration: ListConfiguration())
        // A (56), the Sound header (48), B (72), C (56), the Display header (48), D (56).
        #expect(layout.tops == [0, 104, 176, 280, 336])
        #expect(layout.heights == [56, 72, 56, 56])
        #expect(layout.headed == [false, true, false, true])
        #expect(layout.height == 336)
        #expect(layout.section(of: 0) == 0..<1 && layout.section(of: 2) == 1..<3 && layout.section(of: 3) == 3..<4)
    }

    @Test func aPointOnAHeaderHitsNoRow() {
        var layout = ListLayout()
        layout.layOut(Self.items, order: [0, 1, 2, 3], configuration: ListConfiguration())
        #expect(layout.position(atY: 10) == 0)
        var headed = ListLayout()
        headed.layOut(Array(Self.items.dropFirst()), order: [0, 1, 2], configuration: ListConfiguration())
        #expect(headed.position(atY: 20) == nil, "a header above the first row")
        #expect(layout.position(atY: 60) == nil, "the Sound header")
        #expect(layout.position(atY: 104) == 1 && layout.position(atY: 175.9) == 1 && layout.position(atY: 176) == 2)
        #expect(layout.position(atY: 300) == 3 && layout.position(atY: 336) == nil && layout.position(atY: -1) == nil)
    }

    /// A reorder's swap of two neighbours of one section moves only them: the layout is the
    /// one of the swapped order laid out again, for every neighbour pair of lists of one- and
    /// two-line rows in sections and out.
    @Test func aSwapOfNeighboursIsTheSwappedOrderLaidOut() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let sections = ["", "Net", "Sound"]
            // Heights that sum with rounding, so that a top summed in another order would differ.
            var configuration = ListConfiguration()
            configuration.itemHeightInPoints = 48.1
            configuration.twoLineItemHeightInPoints = 64.3
            configuration.sectionHeaderHeightInPoints = 40.7
            var items: [SheetItem] = []
            for index in 0..<Int.random(in: 2...40, using: &generator) {
                items.append(SheetItem(id: "\(index)", label: "\(index)", subtitle: Bool.random(using: &generator) ? "second" : "",
                                       section: sections.randomElement(using: &generator)!))
            }
            var order = Array(items.indices).shuffled(using: &generator)
            var layout = ListLayout()
            layout.layOut(items, order: order, configuration: configuration)
            for position in 0..<(order.count - 1) where layout.section(of: position).contains(position + 1) {
                order.swapAt(position, position + 1)
                layout.swapWithNext(position)
                var fresh = ListLayout()
                fresh.layOut(items, order: order, configuration: configuration)
                #expect(layout == fresh, "order \(order), swapped at \(position)")
            }
            for position in order.indices {
                let section = layout.section(of: position)
                #expect(section.contains(position) && layout.sectionStarts[section.lowerBound] == section.lowerBound)
                #expect(section.upperBound == order.count || layout.sectionStarts[section.upperBound] == section.upperBound)
            }
        }
    }

    @Test func aSectionKeepsItsNameOnEveryItem() {
        let given = SheetContent(items: [SheetItem(id: "a", label: "A", section: "Net"), SheetItem(id: "b", label: "B"),
                                         SheetItem(id: "c", label: "C", section: "Sys"), SheetItem(id: "d", label: "D")])
        #expect(given.withSectionsWrittenOut.items.map(\.section) == ["Net", "Net", "Sys", "Sys"])
    }
}
