#!/usr/bin/python3
"""Writes a tap on row INDEX of the list as the state in STATE-JSON lays it out (the card's top,
its title bar, one-line rows, the scroll), in the middle of the card, for the e2e touchscreen
(recordings.py), whose range the daemon maps onto its screen: what a finger on that row sends
through the kernel. Prints where, in the screen's pixels.

Usage: tap-row.py STATE-JSON INDEX OUTPUT.evemu
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recordings import HEIGHT, WIDTH, description, tap  # noqa: E402

with open(sys.argv[1]) as file:
    state = json.load(file)
index = int(sys.argv[2])
layout = state.get("list")
if not layout:
    sys.exit(f"tap-row: the state in {sys.argv[1]} has no list")
screen = state["screen"]
card = state.get("card") or {"x": 0, "width": screen["width"]}
x = card["x"] + card["width"] / 2
y = state["top"] + layout["titleBar"] - layout["scroll"] + layout["itemHeight"] * (index + 0.5)
if not (0 <= x < screen["width"] and state["top"] <= y < screen["height"]):
    sys.exit(f"tap-row: row {index} is at ({x:.0f}, {y:.0f}), off the shown card")
units = (round(x * WIDTH / screen["width"]), round(y * HEIGHT / screen["height"]))
with open(sys.argv[3], "w") as file:
    file.write("\n".join(description("sheetd e2e touchscreen") + tap(*units).events) + "\n")
print(f"{x:.0f} {y:.0f}")
