#!/usr/bin/python3
"""Whether the touches between two GetStats replies (sheetctl stats --format json) were each
counted once, with a compositor holding the touchscreen and the renderer forwarding what lands
on the sheet: every frame the daemon read from the seat's touchscreens it held back, the
renderer's forwarded device brought frames, and the gestures grew by GESTURES (a tap: one).

Usage: counted-once.py BEFORE.json AFTER.json GESTURES   (exit 0: they were; says the counts)
"""
import json
import sys

before, after = (json.load(open(path)) for path in sys.argv[1:3])
gestures = int(sys.argv[3])


def frames(stats, seat):
    return sum(device["frames"] for device in stats["devices"] if device["node"].startswith("/dev/") == seat)


read = frames(after, True) - frames(before, True)
held = after["framesHeldBack"] - before["framesHeldBack"]
forwarded = frames(after, False) - frames(before, False)
made = after["gestures"] - before["gestures"]
said = f"seat frames read {read}, held back {held}; forwarded frames {forwarded}; gestures {made}"
print(said)
sys.exit(0 if read == held and forwarded > 0 and made == gestures else 1)
