#!/usr/bin/env python3
"""A settings sheet whose toggles show what the program did, not only what was tapped.

    PYTHONPATH=clients/python examples/python/confirmed-settings.py [SOCKET]

A tap flips a toggle in the daemon at once (item-toggled); the program then does the setting
and answers with the sheet as it is: Bluetooth finds no adapter here, so its toggle goes back
off and says why; Airplane mode turns Wi-Fi and Bluetooth off and greys them out; Wi-Fi
says the network it joined. Prints one line per answer; needs group sheetd (or root).
"""
import sys

from sheetd import Client, ConnectionLost, Item

path = sys.argv[1] if len(sys.argv) > 1 else None
settings = {"wifi": False, "bluetooth": False, "airplane": False}
said = {"bluetooth": ""}


def items():
    airplane = settings["airplane"]
    return [
        Item("wifi", "Wi-Fi", subtitle="Connected to Harbour" if settings["wifi"] else "Off",
             icon="network-wireless-symbolic", accessory="toggle", on=settings["wifi"], disabled=airplane),
        Item("bluetooth", "Bluetooth", subtitle=said["bluetooth"] or ("On" if settings["bluetooth"] else "Off"),
             icon="bluetooth-symbolic", accessory="toggle", on=settings["bluetooth"], disabled=airplane),
        Item("airplane", "Airplane mode", icon="airplane-mode-symbolic", accessory="toggle", on=airplane),
    ]


def apply(item, on):
    """Does the setting; what it came to is in `settings`."""
    said["bluetooth"] = ""
    if item == "bluetooth" and on:
        said["bluetooth"] = "No adapter found"
        return
    settings[item] = on
    if item == "airplane" and on:
        settings["wifi"] = settings["bluetooth"] = False


with Client(path) as client:
    sheet = client.open_sheet(title="Settings", items=items(), detent="half")
    print(f"{sheet.sheet} opened", flush=True)
    try:
        for event in sheet.events():
            if event.event != "item-toggled":
                continue
            apply(event.item, bool(event.on))
            sheet.set_content(items=items())
            print(f"{event.item} tapped {'on' if event.on else 'off'}: "
                  + ", ".join(f"{key} {'on' if value else 'off'}" for key, value in settings.items())
                  + (f" ({said['bluetooth']})" if said["bluetooth"] else ""), flush=True)
    except (KeyboardInterrupt, ConnectionLost):
        pass
