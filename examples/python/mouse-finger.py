#!/usr/bin/env python3
"""A mouse as a finger: a left-button drag becomes a touch on sheetd's screen.

For developing on a desktop with no touchscreen. Reads a mouse through python-evdev and feeds
io.sheetd.Input through the varlink package (both from PyPI: `pip install evdev varlink` in a
virtual environment). The pointer starts at the screen's centre; motion moves it, clamped to
the screen; the left button is the finger.

Usage: mouse-finger.py /dev/input/eventN [INPUT_SOCKET] [SHEET_SOCKET]
       (sockets default to /run/sheetd/io.sheetd.Input and /run/sheetd/io.sheetd.Sheet; the user
       needs read access to the mouse's node and membership of group sheetd-input)
"""
import sys
import time

import evdev
import varlink
from evdev import ecodes

node = sys.argv[1]
input_socket = sys.argv[2] if len(sys.argv) > 2 else "/run/sheetd/io.sheetd.Input"
sheet_socket = sys.argv[3] if len(sys.argv) > 3 else "/run/sheetd/io.sheetd.Sheet"

with varlink.Client(address="unix:" + sheet_socket) as client, client.open("io.sheetd.Sheet") as sheet:
    screen = sheet.GetState()["state"]["screen"]
width, height = screen["width"], screen["height"]

mouse = evdev.InputDevice(node)
x, y = width / 2, height / 2
down = False
moved = False
sequence = 0

with varlink.Client(address="unix:" + input_socket) as client, client.open("io.sheetd.Input") as plugin:
    device = plugin.OpenDevice(name="mouse finger (%s)" % mouse.name[:200], kind="touchscreen",
                               x={"min": 0, "max": width}, y={"min": 0, "max": height}, slots=1)["device"]
    print("feeding %s as device %d on a %dx%d screen" % (mouse.name, device, width, height), flush=True)
    for event in mouse.read_loop():
        phase = None
        if event.type == ecodes.EV_REL and event.code in (ecodes.REL_X, ecodes.REL_Y):
            if event.code == ecodes.REL_X:
                x = min(width, max(0, x + event.value))
            else:
                y = min(height, max(0, y + event.value))
            moved = True
        elif event.type == ecodes.EV_KEY and event.code == ecodes.BTN_LEFT and event.value in (0, 1):
            phase = "down" if event.value == 1 else "up"
        elif event.type == ecodes.EV_SYN and event.code == ecodes.SYN_REPORT and down and moved:
            phase = "move"
        if phase is None or (phase == "up" and not down) or (phase == "down" and down):
            continue
        sequence += 1
        # evdev stamps events with CLOCK_REALTIME unless told otherwise: the frame is stamped on
        # CLOCK_MONOTONIC, the daemon's default clock, when it is read.
        time_us = int(time.clock_gettime(time.CLOCK_MONOTONIC) * 1e6)
        try:
            plugin.SendFrame(device=device, sequence=sequence, time=time_us,
                             contacts=[{"slot": 0, "phase": phase, "x": x, "y": y}])
        except varlink.VarlinkError as error:
            print("frame %d refused: %s" % (sequence, error.parameters().get("reason")), file=sys.stderr)
            continue
        down = phase == "down" or (phase == "move" and down)
        moved = False
