#!/usr/bin/python3
"""Writes the end-to-end test's recordings: evemu descriptions of a 1280x800 multitouch
(protocol B) touchscreen, 128 x 80 mm, of a 100 x 60 mm multitouch touchpad and of a
three-button mouse, and one evemu file per gesture for each.

Usage: recordings.py FOLDER
"""
import os
import sys

WIDTH, HEIGHT = 1280, 800
UNITS_PER_MM = 10
EV_SYN, EV_KEY, EV_REL, EV_ABS = 0x00, 0x01, 0x02, 0x03
REL_X, REL_Y = 0x00, 0x01
KEY_TAB, KEY_DOWN, KEY_MENU, KEY_BACK, BTN_0, REL_DIAL = 15, 108, 139, 158, 0x100, 0x07
KEY_ESC, KEY_X = 1, 45
BTN_RIGHT, BTN_MIDDLE = 0x111, 0x112
BTN_TOUCH = 0x14A
BTN_LEFT, BTN_TOOL_FINGER, BTN_TOOL_QUINTTAP = 0x110, 0x145, 0x148
BTN_TOOL_DOUBLETAP, BTN_TOOL_TRIPLETAP, BTN_TOOL_QUADTAP = 0x14D, 0x14E, 0x14F
# How many fingers each BTN_TOOL_* reports.
TOOL_FOR_FINGERS = {1: BTN_TOOL_FINGER, 2: BTN_TOOL_DOUBLETAP, 3: BTN_TOOL_TRIPLETAP}
PAD_WIDTH, PAD_HEIGHT, PAD_UNITS_PER_MM = 3000, 1800, 30
ABS_X, ABS_Y = 0x00, 0x01
ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x2F, 0x35, 0x36, 0x39
INPUT_PROP_POINTER, INPUT_PROP_DIRECT, INPUT_PROP_BUTTONPAD = 0x00, 0x01, 0x02


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


def touchpad_description(name):
    """An indirect (pointer) multitouch clickpad (one button under the pad) that reports up to
    three fingers, as libinput's touchpad code and udev's ID_INPUT_TOUCHPAD expect."""
    lines = ["# EVEMU 1.3", f"N: {name}", "I: 0018 5eed 0002 0100"]
    lines += mask_lines("P", None, [INPUT_PROP_POINTER, INPUT_PROP_BUTTONPAD], 8)
    lines += mask_lines("B", EV_SYN, [EV_SYN, EV_KEY, EV_ABS], 8)
    lines += mask_lines("B", EV_KEY, [BTN_LEFT, BTN_TOOL_FINGER, BTN_TOOL_QUINTTAP, BTN_TOUCH, BTN_TOOL_DOUBLETAP,
                                      BTN_TOOL_TRIPLETAP, BTN_TOOL_QUADTAP], 96)
    lines += mask_lines("B", EV_ABS, [ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y,
                                      ABS_MT_TRACKING_ID], 8)
    lines.append(f"A: {ABS_X:02x} 0 {PAD_WIDTH} 0 0 {PAD_UNITS_PER_MM}")
    lines.append(f"A: {ABS_Y:02x} 0 {PAD_HEIGHT} 0 0 {PAD_UNITS_PER_MM}")
    lines.append(f"A: {ABS_MT_SLOT:02x} 0 4 0 0 0")
    lines.append(f"A: {ABS_MT_POSITION_X:02x} 0 {PAD_WIDTH} 0 0 {PAD_UNITS_PER_MM}")
    lines.append(f"A: {ABS_MT_POSITION_Y:02x} 0 {PAD_HEIGHT} 0 0 {PAD_UNITS_PER_MM}")
    lines.append(f"A: {ABS_MT_TRACKING_ID:02x} 0 65535 0 0 0")
    return lines


class PadGesture:
    """Fingers on a touchpad moving together, 100 Hz."""

    def __init__(self, fingers, start, spacing_mm=18):
        self.gesture = Gesture()
        spacing = spacing_mm * PAD_UNITS_PER_MM
        self.positions = [(start[0] + index * spacing, start[1]) for index in range(fingers)]
        gesture = self.gesture
        for slot, (x, y) in enumerate(self.positions):
            gesture.emit(EV_ABS, ABS_MT_SLOT, slot)
            gesture.emit(EV_ABS, ABS_MT_TRACKING_ID, 100 + slot)
            gesture.emit(EV_ABS, ABS_MT_POSITION_X, x)
            gesture.emit(EV_ABS, ABS_MT_POSITION_Y, y)
        gesture.emit(EV_KEY, BTN_TOUCH, 1)
        gesture.emit(EV_KEY, TOOL_FOR_FINGERS[fingers], 1)
        gesture.emit(EV_ABS, ABS_X, self.positions[0][0])
        gesture.emit(EV_ABS, ABS_Y, self.positions[0][1])
        gesture.report()

    def move_by(self, dy_mm, seconds, hertz=100):
        gesture = self.gesture
        steps = max(1, round(seconds * hertz))
        origin = list(self.positions)
        for step in range(1, steps + 1):
            gesture.time += seconds / steps
            for slot, (x, y) in enumerate(origin):
                new_y = round(y + dy_mm * PAD_UNITS_PER_MM * step / steps)
                gesture.emit(EV_ABS, ABS_MT_SLOT, slot)
                gesture.emit(EV_ABS, ABS_MT_POSITION_Y, new_y)
                self.positions[slot] = (x, new_y)
            gesture.emit(EV_ABS, ABS_Y, self.positions[0][1])
            gesture.report()

    def lift(self):
        gesture = self.gesture
        for slot in range(len(self.positions)):
            gesture.emit(EV_ABS, ABS_MT_SLOT, slot)
            gesture.emit(EV_ABS, ABS_MT_TRACKING_ID, -1)
        gesture.emit(EV_KEY, BTN_TOUCH, 0)
        gesture.emit(EV_KEY, TOOL_FOR_FINGERS[len(self.positions)], 0)
        gesture.report()
        return self.gesture


def pad_stroke(fingers, dy_mm, seconds, hold=0.0):
    pad = PadGesture(fingers, (900, 900 - round(dy_mm * PAD_UNITS_PER_MM / 2)))
    pad.gesture.wait(0.05)
    pad.move_by(dy_mm, seconds)
    pad.gesture.wait(hold)
    return pad.lift()


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


def held_reorder(start, dy, hold, seconds):
    """A finger rests on a row for `hold` seconds (past the item long press), drags it `dy`
    down and stays down, still."""
    gesture = Gesture()
    gesture.down(*start)
    gesture.wait(hold)
    gesture.move_to(start, (start[0], start[1] + dy), seconds)
    return gesture


def lift():
    gesture = Gesture()
    gesture.up()
    return gesture


def going_on(start, end, seconds, hold=0.0):
    """A finger already down (on slot 0) goes on from `start` to `end`, is held, and lifts."""
    gesture = Gesture()
    gesture.move_to(start, end, seconds)
    gesture.wait(hold)
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
    # With examples/menu.yaml at half the list starts at 456 in rows of 56: Bluetooth (row 1,
    # centre 540) held 0.4 s, dragged 122 px down past Display and Sound (two swaps), held
    # still clear of the auto-scroll band; then the lift.
    "reorder-hold": held_reorder((420, 540), 2 * 56 + 10, 0.4, 0.6),
    "reorder-lift": lift(),
    # Under a compositor (guest-wayland): a swipe up that starts in the bottom 24 px edge band
    # and is held before the lift (the nearest detent: half), and a drag from the card at half
    # down past the dismiss line. The compositor maps the panel onto the output whatever its
    # turn, so on an output turned 90° they are the same gestures in the turned frame.
    "edge-swipe-up": stroke((640, 797), (640, 300), 0.6, hold=0.2),
    "drag-down": stroke((640, 420), (640, 790), 0.6, hold=0.2),
    # A finger that drags the card and never lifts: the device is removed under it.
    "hold": stroke((640, 600), (640, 450), 0.3, hold=0.2, lift=False),
    # The fault rows (guest-faults): a drag begun from the card at half and left down, then
    # taken on up past expanded and lifted, in 0.5 s or, while the daemon is stopped, in 3 s of
    # frames: 300 reports of three events, more than the 512 events the kernel's evdev buffer
    # holds for this device (8 packets of 60 estimated events, rounded up to a power of two).
    "drag-begin": stroke((640, 600), (640, 550), 0.1, lift=False),
    "drag-rest": going_on((640, 550), (640, 120), 0.5, hold=0.15),
    "drag-backlog": going_on((640, 550), (640, 120), 3.0, hold=0.15),
}


# Touchpad gestures pan the sheet from the screen's centre, the way the fingers move.
PAD_GESTURES = {
    # Two fingers scroll slowly up 30 mm and rest: the card goes up.
    "pad-scroll-up": pad_stroke(2, -30, 0.8, hold=0.15),
    # Three fingers swipe down fast: the card goes down.
    "pad-swipe-down": pad_stroke(3, 30, 0.12),
}


def mouse_description(name):
    """A three-button relative mouse, as a PS/2 mouse describes itself."""
    lines = ["# EVEMU 1.3", f"N: {name}", "I: 0011 0002 0001 0000"]
    lines += mask_lines("P", None, [], 8)
    lines += mask_lines("B", EV_SYN, [EV_SYN, EV_KEY, EV_REL], 8)
    lines += mask_lines("B", EV_KEY, [BTN_LEFT, BTN_RIGHT, BTN_MIDDLE], 96)
    lines += mask_lines("B", EV_REL, [REL_X, REL_Y], 8)
    return lines


def mouse_drag(dy, seconds, hold, start_dy):
    """The pointer moved `start_dy` px with no button, then a left-button drag of `dy` px over
    `seconds` at 100 Hz in steps of at most 10 px, held still `hold` s before the release."""
    events = []
    time = 0.0

    def frame(*pairs):
        for event_type, code, value in pairs:
            events.append(f"E: {time:.6f} {event_type:04x} {code:04x} {value}")
        events.append(f"E: {time:.6f} 0000 0000 0")

    for _ in range(abs(start_dy) // 10):
        time += 0.01
        frame((EV_REL, REL_Y, 10 if start_dy > 0 else -10))
    time += 0.05
    frame((EV_KEY, BTN_LEFT, 1))
    steps = max(1, int(seconds * 100))
    moved = 0
    for index in range(1, steps + 1):
        time += 0.01
        target = round(dy * index / steps)
        frame((EV_REL, REL_Y, target - moved))
        moved = target
    time += hold
    frame((EV_KEY, BTN_LEFT, 0))
    return events


def keyboard_description(name):
    """A PC keyboard: every key from Esc to the keypad, Menu and Back (letters included, so it
    can type: sheetd reads it only when it is opted in)."""
    lines = ["# EVEMU 1.3", f"N: {name}", "I: 0011 0001 0001 ab41"]
    lines += mask_lines("P", None, [], 8)
    lines += mask_lines("B", EV_SYN, [EV_SYN, EV_KEY], 8)
    lines += mask_lines("B", EV_KEY, list(range(1, 112)) + [KEY_MENU, KEY_BACK], 96)
    return lines


def keys(*codes):
    """Each key pressed and let go 50 ms later, 300 ms apart."""
    events, time = [], 0.0
    for code in codes:
        time += 0.3
        events += [f"E: {time:.6f} {EV_KEY:04x} {code:04x} 1", f"E: {time:.6f} 0000 0000 0"]
        events += [f"E: {time + 0.05:.6f} {EV_KEY:04x} {code:04x} 0", f"E: {time + 0.05:.6f} 0000 0000 0"]
    return events


def knob_description(name):
    """A rotary knob with a push, as the Griffin PowerMate describes itself: REL_DIAL, BTN_0."""
    lines = ["# EVEMU 1.3", f"N: {name}", "I: 0003 077d 0410 0400"]
    lines += mask_lines("P", None, [], 8)
    lines += mask_lines("B", EV_SYN, [EV_SYN, EV_KEY, EV_REL], 8)
    lines += mask_lines("B", EV_KEY, [BTN_0], 96)
    lines += mask_lines("B", EV_REL, [REL_DIAL], 8)
    return lines


def knob_turns_and_push(steps):
    """A step of the knob each 300 ms (one way or the other), then a push."""
    events, time = [], 0.0
    for step in steps:
        time += 0.3
        events += [f"E: {time:.6f} {EV_REL:04x} {REL_DIAL:04x} {step}", f"E: {time:.6f} 0000 0000 0"]
    time += 0.3
    events += [f"E: {time:.6f} {EV_KEY:04x} {BTN_0:04x} 1", f"E: {time:.6f} 0000 0000 0"]
    events += [f"E: {time + 0.05:.6f} {EV_KEY:04x} {BTN_0:04x} 0", f"E: {time + 0.05:.6f} 0000 0000 0"]
    return events


EV_SW, SW_HEADPHONE_INSERT = 0x05, 0x02


def headphone_jack_description(name):
    """A sound card's headphone jack: a switch that says when headphones are plugged."""
    lines = ["# EVEMU 1.3", f"N: {name}", "I: 0000 0000 0000 0000"]
    lines += mask_lines("P", None, [], 8)
    lines += mask_lines("B", EV_SYN, [EV_SYN, EV_SW], 8)
    lines += mask_lines("B", EV_SW, [SW_HEADPHONE_INSERT], 8)
    return lines


def switch(value):
    """The jack's switch turned to `value` (1 plugged, 0 pulled) 300 ms in."""
    return [f"E: 0.300000 {EV_SW:04x} {SW_HEADPHONE_INSERT:04x} {value}", "E: 0.300000 0000 0000 0"]


# Tab twice: the close button, then the first item; Down once more: the second item.
KEY_GESTURES = {"keys-tab-tab-down": keys(KEY_TAB, KEY_TAB, KEY_DOWN), "keys-tab-tab": keys(KEY_TAB, KEY_TAB),
                # Under sway: Tab and Escape for an open sheet, then x for the window beneath.
                "keys-tab": keys(KEY_TAB), "keys-escape": keys(KEY_ESC), "keys-x": keys(KEY_X)}


# examples/python/mouse-finger.py starts the pointer at the screen's centre (640, 400): 200 px
# down onto the card at half, then a drag 480 px up, as drag-up does with a finger.
MOUSE_GESTURES = {"mouse-drag-up": mouse_drag(-480, 1.2, 0.15, start_dy=200)}


def main():
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    header = description("sheetd e2e touchscreen")
    with open(os.path.join(folder, "touchscreen.evemu"), "w") as file:
        file.write("\n".join(header) + "\n")
    for name, gesture in GESTURES.items():
        with open(os.path.join(folder, f"{name}.evemu"), "w") as file:
            file.write("\n".join(header + gesture.events) + "\n")
    # A second touchscreen, the rear panel's (the panels scenario gives it seat1), and its drag.
    rear_header = description("sheetd e2e rear touchscreen")
    with open(os.path.join(folder, "rear-touchscreen.evemu"), "w") as file:
        file.write("\n".join(rear_header) + "\n")
    with open(os.path.join(folder, "rear-drag-up.evemu"), "w") as file:
        file.write("\n".join(rear_header + GESTURES["drag-up"].events) + "\n")
    pad_header = touchpad_description("sheetd e2e touchpad")
    with open(os.path.join(folder, "touchpad.evemu"), "w") as file:
        file.write("\n".join(pad_header) + "\n")
    for name, gesture in PAD_GESTURES.items():
        with open(os.path.join(folder, f"{name}.evemu"), "w") as file:
            file.write("\n".join(pad_header + gesture.events) + "\n")
    mouse_header = mouse_description("sheetd e2e mouse")
    with open(os.path.join(folder, "mouse.evemu"), "w") as file:
        file.write("\n".join(mouse_header) + "\n")
    for name, events in MOUSE_GESTURES.items():
        with open(os.path.join(folder, f"{name}.evemu"), "w") as file:
            file.write("\n".join(mouse_header + events) + "\n")
    # Two keyboards: one a udev rule opts in (SHEETD_KEYS=1), one nobody named.
    for device, name in [("keyboard", "sheetd e2e keyboard"), ("typing", "sheetd e2e typing keyboard")]:
        with open(os.path.join(folder, f"{device}.evemu"), "w") as file:
            file.write("\n".join(keyboard_description(name)) + "\n")
    for name, events in KEY_GESTURES.items():
        with open(os.path.join(folder, f"{name}.evemu"), "w") as file:
            file.write("\n".join(keyboard_description("sheetd e2e keyboard") + events) + "\n")
    jack_header = headphone_jack_description("sheetd e2e headphone jack")
    with open(os.path.join(folder, "jack.evemu"), "w") as file:
        file.write("\n".join(jack_header) + "\n")
    for name, value in [("jack-plug", 1), ("jack-pull", 0)]:
        with open(os.path.join(folder, f"{name}.evemu"), "w") as file:
            file.write("\n".join(jack_header + switch(value)) + "\n")
    knob_header = knob_description("sheetd e2e knob")
    with open(os.path.join(folder, "knob.evemu"), "w") as file:
        file.write("\n".join(knob_header) + "\n")
    # Two steps on from Bluetooth (past the disabled VPN): Brightness, then Dark style; a push.
    with open(os.path.join(folder, "knob-two-steps-push.evemu"), "w") as file:
        file.write("\n".join(knob_header + knob_turns_and_push([1, 1])) + "\n")


if __name__ == "__main__":
    main()
