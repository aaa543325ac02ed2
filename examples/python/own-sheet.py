#!/usr/bin/env python3
"""A program with a sheet of its own: opens it, prints what a person does on it, closes it
when the program ends. Run two at once to see two programs share one screen:

    PYTHONPATH=clients/python examples/python/own-sheet.py Navigation "Route home" "Stops" &
    PYTHONPATH=clients/python examples/python/own-sheet.py Media Play "Next track"

The newer sheet is shown over the older; a tap on Play is heard by the second program alone;
end it (Ctrl-C) and the first sheet comes back where it rested. `--system` opens the sheet on
the system layer, over every program's. Needs group sheetd (or root); the socket is
$SHEETD_SOCKET, else /run/sheetd/io.sheetd.Sheet.
"""
import sys

from sheetd import Client, ConnectionLost, Item

arguments = [argument for argument in sys.argv[1:] if argument != "--system"]
if not arguments:
    sys.exit(__doc__)
title, labels = arguments[0], arguments[1:] or ["OK"]
items = [Item(f"item-{index}", label) for index, label in enumerate(labels)]

with Client() as program:
    sheet = program.open_sheet(title=title, items=items, layer="system" if "--system" in sys.argv else None)
    print(f"{sheet.sheet} opened: {title}", flush=True)
    try:
        for event in sheet.events():
            if event.event == "item-tapped":
                print(f"tapped {labels[int(event.item.split('-')[1])]}", flush=True)
            else:
                print(event.event + (f" ({event.cause})" if event.cause else ""), flush=True)
    except (KeyboardInterrupt, ConnectionLost):
        pass
