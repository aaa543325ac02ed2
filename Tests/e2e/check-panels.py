#!/usr/bin/python3
"""Checks what the `panels` scenario left in its run folder: two seats' daemons, each with its
own touchscreen, renderer and display. A drag on the front touchscreen moved only the front
sheet (to where `sheetctl replay` of what the kernel delivered leads), and a drag on the rear one only the rear sheet: each screenshot (QEMU's screendump of
that display) shows its own daemon's state, the card's top row where that state puts it, and
its own title. The
seat1 daemon says its seat and read only the rear touchscreen, seat0's only the front one; all
stopped cleanly, no log holds an error.

Usage: check-panels.py RUN-FOLDER SHEETCTL
"""
import sys

from checks import check, check_shot, conclude, judge_delivered, json_lines, log_errors, read_ppm, text

check(text("result").strip() == "DONE", f"the guest ran every step (result: {text('result').strip() or 'none'})")
check(text("seat1.stats").startswith("seat1: up "), f"sheetctl stats --seat seat1 says the seat: {text('seat1.stats')[:40]!r}")
for panel, node_file, devices_file in [("front", "first.node", "front.devices.json"), ("rear", "second.node", "rear.devices.json")]:
    node = text(node_file).strip()
    devices = json_lines(devices_file)
    used = [device["node"] for device in devices if device.get("used")]
    check(used == [node], f"the {panel} daemon reads its touchscreen {node} alone (uses {used})")
# The front drag judged by what the kernel delivered (the guest put the sheet at expanded
# after it if what was delivered led elsewhere).
judge_delivered(sys.argv[2], "drag-up", "expanded")
# Each panel's sheet where its own gestures put it, and the other's untouched.
for name, detent in [("front-start", "half"), ("rear-start", "half"), ("front-dragged", "expanded"), ("rear-untouched", "half"),
                     ("rear-dragged", "expanded"), ("front-untouched", "expanded")]:
    check_shot(name, detent)
# Which daemon's sheet each display shows: at half both, alike but for the title ("Front" on the
# first display, "Rear" on the second).
try:
    width, height, front = read_ppm("front-start.ppm")
    _, _, rear = read_ppm("rear-start.ppm")
    top = json_lines("front-start.state.json")[0]["top"]
    title = range(top + 10, top + 50)
    differing = {y for y in range(height) for x in range(0, width, 4)
                 if front[(y * width + x) * 3:(y * width + x) * 3 + 3] != rear[(y * width + x) * 3:(y * width + x) * 3 + 3]}
    check(differing and differing <= set(title), f"the two displays differ in the title bar alone (rows {min(differing, default=0)} to {max(differing, default=0)})")
except (OSError, ValueError, IndexError, KeyError) as error:
    check(False, f"the start screenshots: {error}")
for log in ["sheetd.log", "sheetd-seat1.log", "sheet-render.log", "sheet-render-seat1.log"]:
    errors = log_errors(text(log))
    check(not errors, f"{log} holds no error ({errors[:1]})")
for log, place in [("sheet-render.log", "/dev/dri/card0, Virtual-1, for /run/sheetd/io.sheetd.Sheet"),
                   ("sheet-render-seat1.log", "/dev/dri/card1, Virtual-2, for /run/sheetd/seat1/io.sheetd.Sheet")]:
    check(f"drm on {place}" in text(log), f"{log}: drm on {place}")
for name in ["sheetd.exit", "sheetd-seat1.exit"]:
    check(text(name).strip() == "0", f"{name}: {text(name).strip() or 'none'}")
conclude()
