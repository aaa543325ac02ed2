#!/usr/bin/python3
"""Checks what the `wayland` scenario left in its run folder: sheetd reading the seat through
libinput under sway on the VM's display took its touches from the compositor only, through the
renderer's surface: while the renderer forwarded, every frame of the touchscreen the daemon
read was held back (one touch, read once), and it read the touchscreen again once the renderer
left. A swipe up from the bottom edge opened the sheet and a drag closed it, on the output
and on it turned 90° (the daemon told the turned size); a non-modal sheet let a tap above the
card reach the window beneath; grim's pictures show the sheet. Prints the time from the
compositor's touch (its time, mapped onto the daemon's clock) to the frame it caused being
shown, p50 and p99.

Usage: check-wayland.py RUN-FOLDER SHEETCTL
"""
import json
import struct

from checks import check, conclude, json_lines, log_errors, path, text

check(text("result").strip() == "DONE", f"the guest ran every step (result: {text('result').strip() or 'none'})")


def state(name):
    try:
        return json.loads(text(f"{name}.state.json") or "{}")
    except ValueError:
        return {}


def png_size(name):
    """(width, height) of a PNG, from its header."""
    try:
        with open(path(f"{name}.png"), "rb") as file:
            head = file.read(24)
        return struct.unpack(">II", head[16:24]) if head[:8] == b"\x89PNG\r\n\x1a\n" else None
    except OSError:
        return None


for name, screen, detent in [("hidden", (1280, 800), "hidden"), ("opened", (1280, 800), None),
                             ("closed", (1280, 800), "hidden"), ("turned-hidden", (800, 1280), "hidden"),
                             ("turned-opened", (800, 1280), None), ("turned-closed", (800, 1280), "hidden"),
                             ("non-modal", (1280, 800), None)]:
    got = state(name)
    size = got.get("screen", {})
    check((size.get("width"), size.get("height")) == screen, f"{name}: the daemon's screen is the output's {screen} ({size})")
    if detent:
        check(got.get("detent") == detent, f"{name}: rests at {detent} ({got.get('detent')})")
    else:
        check(got.get("state") == "resting" and got.get("detent") not in (None, "hidden"),
              f"{name}: open ({got.get('state')} {got.get('detent')})")
    check(png_size(name) is not None, f"{name}: grim's picture")

hidden = state("hidden")
check(hidden.get("region", {}).get("height") == 24 and hidden.get("region", {}).get("y") == 776,
      f"closed: the renderer's input region is the edge band ({hidden.get('region')})")
for step in ("edge-swipe-up",):
    updates = json_lines(f"{step}.watch.jsonl")
    check(any(u.get("state", {}).get("state") == "dragging" and u.get("state", {}).get("cause") == "user" for u in updates),
          f"{step}: the finger dragged the card in")
    check(any(e.get("event") == "presented" and e.get("cause") == "edge-swipe" for u in updates for e in u.get("events", [])),
          f"{step}: presented, edge-swipe")
non_modal = state("non-modal")
check(non_modal.get("dim") == 0 and non_modal.get("presentation", {}).get("modal") is False, "non-modal: no dim")
touches = text("window-touches.log").split("\n")
check(any(line.startswith("down ") for line in touches), f"non-modal: the window beneath got the tap ({touches[:2]})")

keys_focus = state("keys-focus")
check(keys_focus.get("focus") == "close" and keys_focus.get("focusVisible") is True,
      f"keys under sway: Tab reached the modal sheet, the focus on its close button ({keys_focus.get('focus')})")
escaped = state("keys-escape")
check(escaped.get("detent") == "hidden", f"keys under sway: Escape closed the sheet ({escaped.get('detent')})")
window_keys = [line for line in text("window-keys.log").split("\n") if line.startswith("key ")]
check(window_keys == ["key x"], f"keys under sway: the window beneath got only the key typed after the sheet closed ({window_keys})")

# One touch, read once: the touchscreen's frames, which sway read too, were all held back.
node = text("first.node").strip()
stats = (json_lines("stats.json") or [{}])[0]
seat_frames = sum(d.get("frames", 0) for d in stats.get("devices", []) if d.get("node") == node)
forwarded_frames = sum(d.get("frames", 0) for d in stats.get("devices", []) if d.get("node", "").startswith("plugin:"))
check(seat_frames > 0 and stats.get("framesHeldBack") == seat_frames,
      f"every frame of {node} the daemon read was held back ({stats.get('framesHeldBack')} of {seat_frames}); "
      f"{forwarded_frames} forwarded frames taken")
forwarded = {d.get("node"): d for d in json_lines("devices-forwarded.json")}
after = {d.get("node"): d for d in json_lines("devices-after.json")}
reason = forwarded.get(node, {}).get("reason", "")
check(forwarded.get(node, {}).get("used") is False and reason.startswith("left to the compositor: plugin:"),
      f"while forwarded, ListDevices says the touchscreen is left to the compositor ({reason})")
check(after.get(node, {}).get("used") is True, f"the renderer gone, the touchscreen is read again ({after.get(node, {}).get('reason')})")
log = text("sheetd.log")
check('"wayland touch (sheet-render)"' in log, "sheetd took the renderer's forwarded touches")
check("forwards the compositor's touches: the seat's touchscreens are left to the compositor" in log,
      "sheetd said it left the touchscreens to the compositor")
check(not log_errors(log), f"no error in the daemon's log {log_errors(log)[:3]}")
renderer_log = text("sheet-render.log")
check("error" not in renderer_log.lower() and "cannot forward" not in renderer_log, f"no error in the renderer's log: {renderer_log[-300:]}")
check(text("sheet-render.exit").strip() == "0", f"sheet-render stopped with status 0 ({text('sheet-render.exit').strip() or 'none'})")
check(text("sheetd.exit").strip() == "0", f"sheetd stopped with status 0 ({text('sheetd.exit').strip() or 'none'})")

# The forwarded touch (at the compositor's time, on the daemon's clock) to its frame shown.
frames = json_lines("frames.jsonl")
moved = sorted(f["shownUSec"] - f["timestampUSec"] for f in frames if f["state"].get("cause") == "user")
if check(len(moved) >= 5, f"frames moved by a forwarded finger: {len(moved)}"):
    p50, p99 = moved[len(moved) // 2], moved[min(len(moved) - 1, round(len(moved) * 0.99))]
    report = (f"the compositor's touch to its frame shown, software emulation: p50 {p50 / 1000:.1f} ms, "
              f"p99 {p99 / 1000:.1f} ms over {len(moved)} frames")
    print("      " + report)
    with open(path("latency.txt"), "w") as file:
        file.write(report + "\n")
conclude()
