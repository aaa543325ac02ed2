#!/usr/bin/python3
"""Prints what the `peers` scenario measured: each consumer's CPU ticks (1/100 s) while the same
touchscreen recordings were played into one uinput device, and checks that every consumer saw
the touches.

Usage: check-peers.py RUN-FOLDER SHEETCTL
"""
from checks import check, conclude, json_lines, text

check(text("result").strip() == "DONE", f"the guest ran every step (result: {text('result').strip() or 'none'})")
figures = dict(line.split(maxsplit=1) for line in text("peers.txt").splitlines() if line.strip())
seconds = figures.pop("seconds", "0 0").split()
frames = int(figures.pop("frames", "0"))
check(len(figures) == 4, f"ticks for every consumer ({sorted(figures)})")
check("TOUCH_DOWN" in text("peer-libinput.log"), "libinput debug-events saw the touches")
updates = json_lines("peer-watch.jsonl")
check(any(update.get("state", {}).get("state") == "dragging" for update in updates), "sheetd's subscriber saw the card dragged")
print(f"replay: {float(seconds[1]) - float(seconds[0]):.1f} s of uptime in the VM (software emulation)")
print(f"{frames} frames played (SYN_REPORTs of the recordings)")
print("consumer               CPU ticks  sleeps (voluntary context switches) during the replay")
for name, values in figures.items():
    ticks, sleeps = (values.split() + ["?"])[:2]
    print(f"{name:22} {ticks:>9}  {sleeps:>6}")
profile = text("sheetd-perf.txt")
if profile or text("perf-record.log"):
    # The profile's head: self time by library and function (the whole report stays in the run).
    lines = [line for line in profile.splitlines() if line.strip() and not line.startswith("#")]
    check(bool(lines), "perf sampled sheetd during the replay")
    print("where sheetd's time went (perf, self time):")
    for line in lines[:48]:
        print("  " + line.strip())
conclude()
