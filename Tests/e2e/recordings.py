#!/usr/bin/python3
"""Writes the end-to-end test's recordings: an evemu description of a 1280x800 multitouch
(protocol B) touchscreen, 128 x 80 mm, and one evemu file per gesture for that device.

Usage: recordings.py FOLDER
"""
import os
import sys

WIDTH, HEIGHT = 1280, 800
UNITS_PER_MM = 10
EV_SYN, EV_KEY, EV_ABS = 0x00, 0x01, 0x03
BTN_TOUCH = 0x14A
ABS_X, ABS_Y = 0x00, 0x01
ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x2F, 0x35, 0x36, 0x39
INPUT_PROP_DIRECT = 0x01


def mask_lines(tag, event_type, codes, size):
    """evemu's bitmask lines: `tag: TYPE` and eight bytes per line, `size` bytes in all."""
    data = bytearray(size)
    for code in codes:
        data[code // 8] |= 1 << (code % 8)
    lines = []
    for start in range(0, size, 8):
        chunk = " ".join(f"{byte:02x}" for byte in data[start:start + 8])
        lines.append(f"{tag}: {event_type:02x} {chunk}" if event_type is not None else f"{tag}: {chunk}")
    return lines


def description(name):
    lines = ["# EVEMU 1.3", f"N: {name}", "I: 0003 5eed 0001 0100"]
    lines += mask_lines("P", None, [INPUT_PROP_DIRECT], 8)
    lines += mask_lines("B", EV_SYN, [EV_SYN, EV_KEY, EV_ABS], 8)
    lines += mask_lines("B", EV_KEY, [BTN_TOUCH], 96)
    lines += mask_lines("B", EV_ABS, [ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y,
                                      ABS_MT_TRACKING_ID], 8)
    lines.append(f"A: {ABS_X:02x} 0 {WIDTH - 1} 0 0 {UNITS_PER_MM}")
    lines.append(f"A: {ABS_Y:02x} 0 {HEIGHT - 1} 0 0 {UNITS_PER_MM}")
    lines.append(f"A: {ABS_MT_SLOT:02x} 0 9 0 0 0")
    lines.append(f"A: {ABS_MT_POSITION_X:02x} 0 {WIDTH - 1} 0 0 {UNITS_PER_MM}")
    lines.append(f"A: {ABS_MT_POSITION_Y:02x} 0 {HEIGHT - 1} 0 0 {UNITS_PER_MM}")
    lines.append(f"A: {ABS_MT_TRACKING_ID:02x} 0 65535 0 0 0")
    return lines


class Gesture:
    """One finger on slot 0, in device units (one per pixel), 100 Hz."""

    def __init__(self):
        self.time = 0.1
        self.tracking_id = 1
        self.events = []

    def emit(self, event_type, code, value):
        self.events.append(f"E: {self.time:.6f} {event_type:04x} {code:04x} {value}")

    def report(self):
        self.emit(EV_SYN, 0, 0)

    def down(self, x, y):
        self.emit(EV_ABS, ABS_MT_SLOT, 0)
        self.emit(EV_ABS, ABS_MT_TRACKING_ID, self.tracking_id)
        self.emit(EV_ABS, ABS_MT_POSITION_X, x)
        self.emit(EV_ABS, ABS_MT_POSITION_Y, y)
        self.emit(EV_KEY, BTN_TOUCH, 1)
        self.emit(EV_ABS, ABS_X, x)
        self.emit(EV_ABS, ABS_Y, y)
        self.report()

    def move_to(self, start, end, seconds, hertz=100):
        steps = max(1, round(seconds * hertz))
        last = start
        for step in range(1, steps + 1):
            self.time += seconds / steps
            x = round(start[0] + (end[0] - start[0]) * step / steps)
            y = round(start[1] + (end[1] - start[1]) * step / steps)
            if x != last[0]:
                self.emit(EV_ABS, ABS_MT_POSITION_X, x)
            if y != last[1]:
                self.emit(EV_ABS, ABS_MT_POSITION_Y, y)
            if x != last[0]:
                self.emit(EV_ABS, ABS_X, x)
            if y != last[1]:
                self.emit(EV_ABS, ABS_Y, y)
            self.report()
            last = (x, y)

    def wait(self, seconds):
        self.time += seconds

    def up(self):
        self.emit(EV_ABS, ABS_MT_TRACKING_ID, -1)
        self.emit(EV_KEY, BTN_TOUCH, 0)
        self.report()
        self.tracking_id += 1


def stroke(start, end, seconds, hold=0.0, lift=True):
    gesture = Gesture()
    gesture.down(*start)
    gesture.move_to(start, end, seconds)
    gesture.wait(hold)
    if lift:
        gesture.up()
    return gesture


def tap(x, y):
    gesture = Gesture()
    gesture.down(x, y)
    gesture.wait(0.06)
    gesture.up()
    return gesture


# On a 1280x800 screen at scale 1 the sheet rests at half with its top at 400.
GESTURES = {
    # A slow drag from the card up past the expanded detent, held still before the lift.
    "drag-up": stroke((640, 600), (640, 120), 1.2, hold=0.15),
    # Fast flicks down: from expanded to half, then from half to hidden.
    "flick-down-from-expanded": stroke((640, 300), (640, 520), 0.08),
    "flick-down-from-half": stroke((640, 560), (640, 780), 0.08),
    # A tap on the dim above the card.
    "tap-dim": tap(640, 150),
    "tap-dim-again": tap(640, 150),
    # A finger that drags the card and never lifts: the device is removed under it.
    "hold": stroke((640, 600), (640, 450), 0.3, hold=0.2, lift=False),
}


def main():
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    header = description("sheetd e2e touchscreen")
    with open(os.path.join(folder, "touchscreen.evemu"), "w") as file:
        file.write("\n".join(header) + "\n")
    for name, gesture in GESTURES.items():
        with open(os.path.join(folder, f"{name}.evemu"), "w") as file:
            file.write("\n".join(header + gesture.events) + "\n")


if __name__ == "__main__":
    main()
