/// `sheet-render`, run by `SheetPrograms` when the program is called by that name.
public func runRenderer() { SheetRender.main() }
