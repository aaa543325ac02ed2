#!/usr/bin/env python3
"""A kiosk's settings sheet: sets the content, reacts to taps, confirms a guarded dismissal.

    PYTHONPATH=clients/python examples/python/kiosk.py [SOCKET]   (default $SHEETD_SOCKET)

Tapping a setting toggles it (a check mark in its label) and makes the sheet guarded: there are
unsaved changes, so a swipe, a drag, a tap on the dim or the close button does not dismiss it.
The first such attempt asks for confirmation in the title; a second one within five seconds
discards the changes and dismisses it (Dismiss with force). Tapping "Save" keeps the changes
and lifts the guard. Prints one line per thing it does; needs group sheetd (or root).
"""
import sys
import time

from sheetd import Client, Item, follow

SETTINGS = [("wifi", "Wi-Fi"), ("bluetooth", "Bluetooth"), ("location", "Location"), ("updates", "Automatic updates")]
TITLE, CONFIRM = "Settings", "Discard changes? Dismiss again"
path = sys.argv[1] if len(sys.argv) > 1 else None

saved = {key: False for key, _ in SETTINGS}
current = dict(saved)
asked_at = None


def items():
    return [Item(key, ("✓ " if current[key] else "  ") + label) for key, label in SETTINGS] + [Item("save", "Save")]


def show(control, guarded, title=TITLE):
    control.set_content(title=title, items=items(), guarded=guarded)


with Client(path) as control:
    show(control, guarded=False)
    control.present("half")
    print("content set, sheet presented", flush=True)
    for update in follow(path):
        for event in update.events:
            if event.event == "item-tapped" and event.item == "save":
                saved = dict(current)
                asked_at = None
                show(control, guarded=False)
                print("saved:", ", ".join(key for key, on in saved.items() if on) or "nothing on", flush=True)
            elif event.event == "item-tapped" and event.item in current:
                current[event.item] = not current[event.item]
                show(control, guarded=current != saved)
                print(f"{event.item} {'on' if current[event.item] else 'off'}", flush=True)
            elif event.event == "dismiss-attempted":
                if asked_at is not None and time.monotonic() - asked_at < 5:
                    current, asked_at = dict(saved), None
                    control.dismiss(force=True)
                    show(control, guarded=False)
                    print(f"changes discarded, dismissed ({event.cause})", flush=True)
                else:
                    asked_at = time.monotonic()
                    show(control, guarded=True, title=CONFIRM)
                    print(f"dismissal refused, asking ({event.cause})", flush=True)
