import SheetPrograms

// sheetd, sheetctl and sheet-render are one program, chosen by the name it is called by.
SheetPrograms.main()
