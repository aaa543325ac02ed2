#!/usr/bin/python3
"""Checks what a `render-*` scenario left in its run folder. Each gesture whose end depends on
its speed ends where `sheetctl replay` of what the kernel delivered ends. Each screenshot
(QEMU's screendump of the bochs display, taken when the renderer had shown the daemon's state)
must show that state: the display's size is the screen the daemon maps touches to
(SetScreen), the dim over the mid-gray background has the published alpha, and the card's top
row is within two pixels of the published top. With the menu as content the rows show labels,
a held row is drawn larger than the others, the reorder's order is what GetContent says,
before and after a restart. Two programs' sheets (sheetctl open) take turns on the display,
each at its own detent. The renderer followed the daemon across a restart, both stopped
cleanly, and neither log holds an error. Prints the time from the kernel's event to the frame
reaching the display (the page flip, for drm), p50 and p99, over the frames a finger moved.

Usage: check-render.py RUN-FOLDER SHEETCTL
"""
import json
import re
import sys

from checks import GRAY, check, check_shot, conclude, judge_delivered, json_lines, log_errors, path, read_ppm, text

check(text("result").strip() == "DONE", f"the guest ran every step (result: {text('result').strip() or 'none'})")
drm = "drm" in text("sheet-render.log").split("\n", 1)[0]
shots = [("start", "half"), ("expanded", "expanded"), ("flicked", "half"), ("dismissed", "hidden"), ("presented", "half"),
         ("dim-tapped", "hidden"), ("content", "half"), ("reorder-held", "half"), ("reordered", "half")]
if drm:
    removed = json.loads(text("removed.state.json") or "{}").get("detent")
    shots += [("removed", None), ("restored", removed), ("restarted", "half")]
shots += [("korean", None), ("focus", None)]
# Two programs' sheets: the navigation's at expanded, the media player's over it at half, then
# the navigation's back at expanded; each screenshot's card top shows which is on the display.
programs = [("program-navigation", "expanded", "sheet-1", ["sheet-1"]), ("program-media", "half", "sheet-2", ["sheet-1", "sheet-2"]),
            ("program-back", "expanded", "sheet-1", ["sheet-1"])]
shots += [(name, detent) for name, detent, _, _ in programs]
# The gestures whose end depends on their speed, judged by what the kernel delivered (the
# screenshots after them are taken once the sheet is where the recording leads).
for step, intended in [("drag-up", "expanded"), ("flick-down-from-expanded", "half"), ("flick-down-from-half", "hidden")]:
    judge_delivered(sys.argv[2], step, intended)
for name, detent in shots:
    check_shot(name, detent)
for name, _, sheet, stack in programs:
    state = json.loads(text(f"{name}.state.json") or "{}")
    check(state.get("sheet") == sheet and state.get("stack") == stack,
          f"{name}: {sheet} shown, stack {stack} (published: {state.get('sheet')}, {state.get('stack')})")



def card_half(name, width):
    """The left half of the card in the screenshot `name` (x from, x to), as its state says."""
    card = json.loads(text(f"{name}.state.json") or "{}").get("card") or {"x": 0, "width": width}
    return int(card["x"]), int(card["x"] + card["width"] // 2)


def ink_pixels(name, top, bottom):
    """How many dark pixels (a label's ink) lie between `top` and `bottom` in the left half of
    the card: a row drawn larger has more, whatever the font."""
    width, height, pixels = read_ppm(f"{name}.ppm")
    left, right = card_half(name, width)
    count = 0
    for y in range(max(0, int(top)), min(height, int(bottom))):
        line = pixels[(y * width + left) * 3:(y * width + right) * 3]
        count += sum(1 for green in line[1::3] if green < 128)
    return count


def ink_rows(name, top, bottom):
    """How many pixel rows between `top` and `bottom` hold a label's ink (a dark pixel in the
    left half of the card)."""
    width, height, pixels = read_ppm(f"{name}.ppm")
    left, right = card_half(name, width)
    rows = 0
    for y in range(max(0, int(top)), min(height, int(bottom))):
        line = pixels[(y * width + left) * 3:(y * width + right) * 3]
        if min(line[1::3]) < 128:
            rows += 1
    return rows


MENU = ["wifi", "bluetooth", "display", "sound", "network", "language", "time", "updates", "about"]
REORDERED = ["wifi", "display", "sound", "bluetooth", "network", "language", "time", "updates", "about"]
# The content drawn: each row of the menu holds a label (ink in its slot).
content = json.loads(text("content.state.json") or "{}")
listed = content.get("list") or {}
list_top = content.get("top", 0) + listed.get("titleBar", 56)
row = listed.get("itemHeight", 56)
try:
    labelled = [ink_rows("content", list_top + i * row, list_top + (i + 1) * row) for i in range(3)]
    check(all(rows >= 10 for rows in labelled), f"content: the first rows show their labels (ink rows {labelled})")
    # Mid-drag: the held row is drawn larger than the others (1.2 against 0.9).
    held = json.loads(text("reorder-held.state.json") or "{}")
    lifted = (held.get("list") or {}).get("lifted") or {}
    check(lifted.get("item") == "bluetooth" and abs(lifted.get("scale", 0) - 1.2) < 0.01,
          f"reorder-held: Bluetooth is held at 1.2 ({lifted})")
    centre = list_top + (lifted.get("index", 0) + 0.5) * row + lifted.get("offset", 0)
    # Bluetooth at 1.2 against Wi-Fi at 0.9: (1.2 / 0.9)² is 1.78 times the area, and the
    # longer label has more ink still.
    held_ink = ink_pixels("reorder-held", centre - 0.6 * row, centre + 0.6 * row)
    other_ink = ink_pixels("reorder-held", list_top, list_top + row)
    check(held_ink >= 1.5 * other_ink, f"reorder-held: the held row is larger than the others (ink pixels {held_ink} against {other_ink})")
except (OSError, ValueError) as error:
    check(False, f"the content's screenshots ({error})")
order = [item["id"] for item in json.loads(text("reordered.content.json") or "{}").get("items", [])]
check(order == REORDERED, f"after the reorder: {order}")
if drm:
    order = [item["id"] for item in json.loads(text("restored.content.json") or "{}").get("items", [])]
    check(order == REORDERED, f"the restarted daemon restored the order: {order}")

frames = json_lines("frames.jsonl")
check(len(frames) >= 10, f"the renderer logged its frames ({len(frames)})")
if drm:
    sequences = [frame["seq"] for frame in frames]
    restarts = sum(1 for a, b in zip(sequences, sequences[1:]) if b < a)
    check(restarts == 2, f"the renderer followed a new daemon twice (sequence restarts: {restarts})")

renderer_log = text("sheet-render.log")
check(re.search(r"^sheet-render: (drm|fbdev) \d+x\d+", renderer_log, re.M) is not None, "the renderer names its display")
check(renderer_log.count("following sheetd") == (3 if drm else 1), "it says when it follows the daemon")
check("SetScreen" not in renderer_log and "error" not in renderer_log.lower(), f"SetScreen taken, no error in its log: {renderer_log[-300:]}")
check(text("sheet-render.exit").strip() == "0", f"sheet-render stopped on SIGTERM with status 0 (got {text('sheet-render.exit').strip() or 'none'})")
log = text("sheetd.log")
errors = log_errors(log)
check(not errors, f"no error in the daemon's log {errors[:3]}")
check(text("sheetd.exit").strip() == "0", f"sheetd stopped on SIGTERM with status 0 (got {text('sheetd.exit').strip() or 'none'})")

# Kernel event (the daemon's timestampUSec for a finger's frame) to the frame on the display.
moved = sorted(frame["shownUSec"] - frame["timestampUSec"] for frame in frames if frame["state"].get("cause") == "user")
if check(len(moved) >= 5, f"frames moved by a finger: {len(moved)}"):
    p50, p99 = moved[len(moved) // 2], moved[min(len(moved) - 1, round(len(moved) * 0.99))]
    report = f"event to display ({'page flip' if drm else 'written'}), software emulation: p50 {p50 / 1000:.1f} ms, p99 {p99 / 1000:.1f} ms over {len(moved)} frames"
    print("      " + report)
    with open(path("latency.txt"), "w") as file:
        file.write(report + "\n")

# The Korean sheet: its title (설정 — Réglages, from Noto CJK and Noto Sans) has ink on the
# title row, and the first row under the 연결 header too.
try:
    # The focus ring on the display: the accent (#3584e4) down the left of Wi-Fi's row (8 pt in
    # from the card's side, 2 pt wide, within the row's box under its section's header), and
    # nowhere in that column before a key was used.
    focus = json.loads(text("focus.state.json") or "{}")
    check(focus.get("focus") == "wifi" and focus.get("focusVisible") is True,
          f"focus: the state has the ring on wifi ({focus.get('focus')})")

    def accent_rows(name, column, top):
        try:
            width, height, pixels = read_ppm(f"{name}.ppm")
        except (OSError, ValueError):
            return None
        rows = []
        for y in range(max(int(top) + 56, 0), height):
            at = (y * width + column) * 3
            r, g, b = pixels[at:at + 3]
            if abs(r - 0x35) <= 40 and abs(g - 0x84) <= 40 and abs(b - 0xE4) <= 40:
                rows.append(y)
        return rows

    card = focus.get("card") or {"x": 0}
    column, focus_top = int(card["x"]) + 9, focus.get("top", 0)
    ring = accent_rows("focus", column, focus_top)
    before = accent_rows("korean", column, focus_top)
    check(ring is not None and len(ring) >= 40 and all(focus_top + 104 <= y < focus_top + 176 for y in ring),
          f"focus: the ring's left side on the display lies on Wi-Fi's row, {focus_top + 104} to {focus_top + 176} "
          f"({len(ring or [])} rows, {min(ring or [0])} to {max(ring or [0])})")
    check(before == [], f"focus: before a key, no ring in that column ({len(before or [])} accent rows)")

    korean = json.loads(text("korean.state.json") or "{}")
    top = korean.get("top", 0)
    title_ink = ink_pixels("korean", top + 16, top + 46)
    row_ink = ink_pixels("korean", top + 104, top + 176)
    check(title_ink > 300 and row_ink > 150, f"korean: the title and the first row have ink ({title_ink}, {row_ink})")
except (OSError, ValueError) as error:
    check(False, f"the Korean screenshot ({error})")


def program_title_ink(name):
    """The dark pixels of the title bar's left half: which title is drawn."""
    state = json.loads(text(f"{name}.state.json") or "{}")
    top = state.get("top", 0)
    return ink_pixels(name, top, top + (state.get("list") or {}).get("titleBar", 56))


try:
    navigation, media, back = (program_title_ink(f"program-{name}") for name in ("navigation", "media", "back"))
    check(navigation > 100 and media > 100 and navigation != media and back == navigation,
          f"programs: each program's title drawn, the navigation's again when it is back (ink {navigation}, {media}, {back})")
except (OSError, ValueError) as error:
    check(False, f"programs: the screenshots ({error})")

conclude()

