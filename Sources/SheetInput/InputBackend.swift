import SheetCore
