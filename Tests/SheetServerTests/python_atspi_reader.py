"""What a screen reader reads of sheet-render, through pyatspi (at-spi2-core's own client
library, as Orca uses it) on the accessibility bus AT_SPI_BUS_ADDRESS names.

Usage: python_atspi_reader.py TIMEOUT_SECONDS

Waits (up to the timeout) until an application named sheet-render holds a sheet with items,
prints the tree as one JSON line ({"tree": ..., "windows": the application's windows, each
sheet of the stack, named and showing or not}), then acts as a person using a screen reader
would: focuses Bluetooth (Component.GrabFocus), toggles Wi-Fi (Action.DoAction), focuses the
disabled VPN (refused); once Wi-Fi's checked state and Bluetooth's focus have come back,
dismisses the sheet by its own action, and prints the events it heard ({"events": [...]})
once the sheet said it closed, or the timeout has passed.
"""
import json
import sys

import pyatspi
from gi.repository import GLib

timeout = float(sys.argv[1])
# `tree`: print the tree and stop, acting on nothing (content in any language).
tree_only = len(sys.argv) > 2 and sys.argv[2] == "tree"
loop_events = []
found = {}


def describe(node):
    states = node.getState()
    names = sorted(pyatspi.stateToString(s) for s in states.getStates())
    entry = {"name": node.name, "role": node.getRoleName(), "description": node.description,
             "states": names, "children": [describe(child) for child in node]}
    try:
        action = node.queryAction()
        entry["actions"] = [action.getName(i) for i in range(action.nActions)]
        entry["localizedActions"] = [action.getLocalizedName(i) for i in range(action.nActions)]
        entry["actionDescriptions"] = [action.getDescription(i) for i in range(action.nActions)]
    except NotImplementedError:
        pass
    attributes = dict(pair.split(":", 1) for pair in node.getAttributes())
    if "posinset" in attributes:
        entry["place"] = "%s of %s" % (attributes["posinset"], attributes["setsize"])
    return entry


def find_sheet():
    desktop = pyatspi.Registry.getDesktop(0)
    for app in desktop:
        if app is not None and app.name == "sheet-render" and app.childCount > 0:
            sheet = app[0]
            if any(node.getRoleName() == "list" and node.childCount > 0 for node in sheet):
                return app, sheet
    return None, None


def item(sheet, name):
    """The item named `name`, in whichever section's list it is."""
    return next(child for listed in sheet if listed.getRoleName() == "list" for child in listed if child.name == name)


def heard(event):
    source = event.source.name if event.source is not None else None
    data = event.any_data if isinstance(event.any_data, str) else None
    loop_events.append({"type": event.type, "source": source, "detail1": event.detail1, "data": data})
    acted = any(e["type"] == "object:state-changed:checked" and e["source"] == "Wi-Fi" for e in loop_events) and \
        any(e["type"] == "object:state-changed:focused" and e["source"] == "Bluetooth" and e["detail1"] == 1
            for e in loop_events)
    if acted and "dismissed" not in found:
        # Then the sheet's own action: it closes, and says so.
        found["dismissed"] = True
        sheet = found["sheet"]
        action = sheet.queryAction()
        names = [action.getName(i) for i in range(action.nActions)]
        print(json.dumps({"sheet-actions": names, "dismiss": action.doAction(names.index("dismiss"))}), flush=True)
    if any(e["type"] == "object:announcement" and "closed" in (e["data"] or "") for e in loop_events):
        pyatspi.Registry.stop()


def act():
    app, sheet = found["app"], found["sheet"]
    results = {}
    results["grab-bluetooth"] = item(sheet, "Bluetooth").queryComponent().grabFocus()
    results["toggle-wifi"] = item(sheet, "Wi-Fi").queryAction().doAction(0)
    try:
        results["vpn-actions"] = item(sheet, "VPN").queryAction().nActions
    except NotImplementedError:
        results["vpn-actions"] = 0
    results["grab-vpn"] = item(sheet, "VPN").queryComponent().grabFocus()
    print(json.dumps({"results": results}), flush=True)
    return False


def look():
    app, sheet = find_sheet()
    if sheet is None:
        return True
    found["app"], found["sheet"] = app, sheet
    windows = [{"name": window.name, "showing": window.getState().contains(pyatspi.STATE_SHOWING)} for window in app]
    print(json.dumps({"tree": describe(sheet), "windows": windows}), flush=True)
    if tree_only:
        pyatspi.Registry.stop()
    else:
        GLib.idle_add(act)
    return False


def give_up():
    pyatspi.Registry.stop()
    return False


pyatspi.Registry.registerEventListener(heard, "object:state-changed:focused", "object:state-changed:checked",
                                       "object:announcement", "window:activate")
GLib.timeout_add(50, look)
GLib.timeout_add(int(timeout * 1000), give_up)
pyatspi.Registry.start()
if "sheet" not in found:
    print(json.dumps({"error": "no sheet-render with a sheet on the accessibility bus"}), flush=True)
elif not tree_only:
    # Dismissed, the sheet no longer shows.
    states = found["sheet"].getState()
    print(json.dumps({"dismissed-states": sorted(pyatspi.stateToString(s) for s in states.getStates())}), flush=True)
print(json.dumps({"events": loop_events}), flush=True)
