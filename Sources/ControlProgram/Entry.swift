/// `sheetctl`, run by `SheetPrograms` when the program is called by that name.
public func runControl() async { await SheetCtl.main() }
