/// Where a detent puts the card's top edge.
public enum DetentPosition: Hashable, Sendable {
    /// This many points below the top of the screen.
    case pointsFromTop(Double)
    /// This fraction of the screen height below the top (0.5 is half way).
    case fractionOfHeight(Double)

    func topInPoints(screenHeightInPoints height: Double) -> Double {
        switch self {
        case .pointsFromTop(let points): return points
        case .fractionOfHeight(let fraction): return fraction * height
        }
    }
}

/// A named resting place of the card, by its top edge.
public struct DetentSpec: Hashable, Sendable {
    public var name: DetentName
    public var position: DetentPosition

    public init(name: DetentName, position: DetentPosition) {
        self.name = name
        self.position = position
    }

    /// The tutorial's expanded detent: 30 pt below the top of the screen.
    public static let expanded = DetentSpec(name: .expanded, position: .pointsFromTop(30))
    /// The tutorial's "normal" detent: the top at half the screen height.
    public static let half = DetentSpec(name: .half, position: .fractionOfHeight(0.5))
    /// Off screen: the top at the screen's bottom edge.
    public static let hidden = DetentSpec(name: .hidden, position: .fractionOfHeight(1))

    public static let standard: [DetentSpec] = [.expanded, .half, .hidden]

    /// Parses `NAME=VALUE` where VALUE is `N%` of the screen height or `Npt` from the top.
    /// Example: `peek=85%`, `tall=120pt`.
    public init?(parsing text: String) {
        guard let equals = text.firstIndex(of: "=") else { return nil }
        guard let name = DetentName(text[..<equals]) else { return nil }
        var value = Substring(text[text.index(after: equals)...])
        if value.hasSuffix("%") {
            value = value.dropLast()
            guard let percent = Double(value), percent >= 0, percent <= 100 else { return nil }
            self.init(name: name, position: .fractionOfHeight(percent / 100))
        } else {
            if value.hasSuffix("pt") { value = value.dropLast(2) }
            guard let points = Double(value), points >= 0 else { return nil }
            self.init(name: name, position: .pointsFromTop(points))
        }
    }
}

/// A detent resolved for one screen.
public struct Detent: Hashable, Sendable {
    public var name: DetentName
    public var topInPoints: Double
}

/// The detents of a sheet on one screen, sorted from the highest card (smallest top) to the
/// floor, where the sheet rests closed and every dismissal goes: `hidden` at the screen height,
/// or, with a bottom bar, `collapsed` the bar's height above it. The floor is always last.
public struct DetentSet: Hashable, Sendable {
    public private(set) var detents: [Detent]

    /// `barHeightInPoints`: the floor is the `collapsed` bar that high; nil: `hidden`.
    public init(_ specs: [DetentSpec], screenHeightInPoints height: Double, barHeightInPoints: Double? = nil) {
        let floor = barHeightInPoints.map { Detent(name: .collapsed, topInPoints: max(0, height - $0)) }
            ?? Detent(name: .hidden, topInPoints: height)
        var resolved: [Detent] = []
        for spec in specs where spec.name != .hidden && spec.name != .collapsed {
            let top = min(max(0, spec.position.topInPoints(screenHeightInPoints: height)), floor.topInPoints)
            if let index = resolved.firstIndex(where: { $0.name == spec.name }) {
                resolved[index].topInPoints = top
            } else {
                resolved.append(Detent(name: spec.name, topInPoints: top))
            }
        }
        resolved.sort { $0.topInPoints < $1.topInPoints }
        resolved.append(floor)
        detents = resolved
    }

    public var count: Int { detents.count }
    public subscript(index: Int) -> Detent { detents[index] }

    /// The floor: `hidden`, or `collapsed` with a bottom bar. Where every dismissal goes.
    public var hiddenIndex: Int { detents.count - 1 }
    public var floor: Detent { detents[detents.count - 1] }
    /// The highest detent: the top the drag may not pass (clamp or rubber band).
    public var topmost: Detent { detents[0] }

    public func index(named name: DetentName) -> Int? {
        detents.firstIndex { $0.name == name }
    }

    /// The detent nearest to `top`, optionally leaving the floor out.
    public func nearest(to top: Double, includingHidden: Bool = true) -> Int {
        var best = 0
        var bestDistance = Double.infinity
        for index in detents.indices where includingHidden || index != hiddenIndex {
            let distance = abs(detents[index].topInPoints - top)
            if distance < bestDistance {
                best = index
                bestDistance = distance
            }
        }
        return best
    }

    /// The detent whose top is within `tolerance` of `top`, if any.
    public func detent(at top: Double, tolerance: Double) -> Int? {
        let index = nearest(to: top)
        return abs(detents[index].topInPoints - top) <= tolerance ? index : nil
    }

    /// The next detent strictly below `top` (larger top), if any.
    public func next(below top: Double, tolerance: Double) -> Int? {
        detents.indices.first { detents[$0].topInPoints > top + tolerance }
    }

    /// The next detent strictly above `top` (smaller top), if any.
    public func next(above top: Double, tolerance: Double) -> Int? {
        detents.indices.last { detents[$0].topInPoints < top - tolerance }
    }
}
