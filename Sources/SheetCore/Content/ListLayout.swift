/// Where each row of the list lies, in points from the list's top: rows are one line (56 pt) or,
/// with a second line, two (72 pt, Material's two-line list item), and a section's header
/// (40 pt) stands above the first row of each run of items of one named section. The machine
/// hit-tests and reorders with it and renderers draw with it, from the same items in the same
/// order, so a row is drawn where a finger finds it.
///
/// Example: a one-line row, a section "Sound" of two rows, one of them two lines: tops 0, 96
/// (after the 40 pt header), 168; the list is 224 pt tall.
public struct ListLayout: Sendable, Equatable {
    /// The top of each row by position, then the list's height.
    public private(set) var tops: [Double] = [0]
    /// Each row's height by position.
    public private(set) var heights: [Double] = []
    /// Where each position's section begins (its first position): a reorder stays within it.
    public private(set) var sectionStarts: [Int] = []
    /// Where each position's section ends (one past its last position).
    public private(set) var sectionEnds: [Int] = []
    /// The positions with a header above them.
    public private(set) var headed: [Bool] = []
    public private(set) var headerHeight: Double = 0

    public init() {}

    /// The layout of `items` in `order` (positions → indices into `items`), rows sized by
    /// `configuration`. Reuses its storage: a new order lays it out again without allocating
    /// (a reorder's swap only moves two rows, `swapWithNext`).
    public mutating func layOut(_ items: [SheetItem], order: [Int], configuration: ListConfiguration) {
        let count = order.count
        headerHeight = configuration.sectionHeaderHeightInPoints
        tops.removeAll(keepingCapacity: true)
        heights.removeAll(keepingCapacity: true)
        sectionStarts.removeAll(keepingCapacity: true)
        headed.removeAll(keepingCapacity: true)
        var y = 0.0, start = 0
        // Read in place: a copy of an item would retain and release each of its strings.
        let twoLines = configuration.twoLineItemHeightInPoints, oneLine = configuration.itemHeightInPoints
        items.withUnsafeBufferPointer { items in
            for position in 0..<count {
                let index = order[position]
                guard index >= 0, index < items.count else {
                    tops.append(y)
                    heights.append(oneLine)
                    sectionStarts.append(position)
                    headed.append(false)
                    y += oneLine
                    continue
                }
                let previous = position > 0 ? order[position - 1] : -1
                let startsSection = previous < 0 || previous >= items.count || items[index].section != items[previous].section
                if startsSection { start = position }
                let hasHeader = startsSection && !items[index].section.isEmpty
                if hasHeader { y += headerHeight }
                tops.append(y)
                let height = items[index].subtitle.isEmpty ? oneLine : twoLines
                heights.append(height)
                sectionStarts.append(start)
                headed.append(hasHeader)
                y += height
            }
        }
        tops.append(y)
        // Each section's end, from the last position back.
        sectionEnds.removeAll(keepingCapacity: true)
        sectionEnds.append(contentsOf: repeatElement(count, count: count))
        var end = count
        for position in stride(from: count - 1, through: 0, by: -1) {
            sectionEnds[position] = end
            if sectionStarts[position] == position { end = position }
        }
    }

    /// Swaps the row at `position` with the next, of the same section (a reorder's step): their
    /// heights change places, and the tops below are summed again as `layOut` sums them (so
    /// that they are the same to the last bit); sections and headers stay. Laying the whole
    /// list out again compared every row's section name, at each swap.
    public mutating func swapWithNext(_ position: Int) {
        precondition(position >= 0 && position + 1 < count && sectionStarts[position + 1] == sectionStarts[position],
                     "rows \(position) and \(position + 1) are not of one section")
        heights.swapAt(position, position + 1)
        for below in (position + 1)...count {
            var y = tops[below - 1] + heights[below - 1]
            if below < count, headed[below] { y += headerHeight }
            tops[below] = y
        }
    }

    public var count: Int { heights.count }

    /// The list's height (points).
    public var height: Double { tops[count] }

    /// The top of the row at `position` (points from the list's top).
    @inline(__always)
    public func top(_ position: Int) -> Double { tops[position] }

    @inline(__always)
    public func centre(_ position: Int) -> Double { tops[position] + heights[position] / 2 }

    /// The row `y` points below the list's top falls on, or nil (a header, or past the end).
    public func position(atY y: Double) -> Int? {
        guard count > 0, y >= 0, y < height else { return nil }
        // The last row whose top is at or above y.
        var low = 0, high = count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if tops[middle] <= y { low = middle } else { high = middle - 1 }
        }
        return y >= tops[low] && y < tops[low] + heights[low] ? low : nil
    }

    /// The positions of the section `position` is in.
    public func section(of position: Int) -> Range<Int> {
        sectionStarts[position]..<sectionEnds[position]
    }
}
