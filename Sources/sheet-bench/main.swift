import SheetReplay
print("bench placeholder")
