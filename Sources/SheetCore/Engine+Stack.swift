/// Making room for another sheet (`SheetStack`): the card goes down to its floor as a
/// program's dismissal moves it, and later comes back up to where it rested. Neither is a
/// person's or a program's doing on this sheet: nothing is dismissed (a guarded sheet steps
/// aside too), and coming back is not a `presented` report (nobody opened it; it was there:
/// the machine's `comeBack`).
/// Reduced motion cross-fades both, as it does every settle.
extension Engine {
    /// Lets go of every finger and key and starts the card down to its floor. The detent to
    /// come back to: where the card rested or was going; nil when it was at or going to its
    /// floor (then there is nothing to wait for).
    public mutating func stepAside(at time: Timestamp, into out: inout [EngineOutput]) -> DetentName? {
        cancelAllTouches(at: time, into: &out)
        releaseKeys(at: time, into: &out)
        advance(to: time, into: &out)
        guard sheet.isShown, let index = sheet.targetDetentIndex ?? sheet.detentIndex else { return nil }
        feedSheet(.dismiss(time), into: &out)
        return sheet.detents[index].name
    }

    /// Whether the card is on its way to its floor on its own (a finger that caught it, or a
    /// call that sent it elsewhere, ends this).
    public var isSteppingAside: Bool {
        sheet.kind == .settling && sheet.targetDetentIndex == sheet.detents.hiddenIndex
    }

    /// Whether the card rests at its floor.
    public var restsAtFloor: Bool {
        sheet.kind == .resting && sheet.detentIndex == sheet.detents.hiddenIndex
    }

    /// Brings the card from where it is (its floor, after `stepAside`) up to `detent`, as the
    /// sheet was before another took its place; a detent the configuration no longer has
    /// (a reload meanwhile) leaves it where it is.
    public mutating func comeBack(to detent: DetentName, at time: Timestamp, into out: inout [EngineOutput]) {
        guard let index = sheet.detents.index(named: detent) else { return }
        feedSheet(.comeBack(detent: index, time), into: &out)
    }
}
