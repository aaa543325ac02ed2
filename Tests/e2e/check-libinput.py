#!/usr/bin/python3
"""Checks the `libinput` scenario: for each recording played in the VM, the touches libinput
reported (`libinput debug-events`: slot, and position in per cent of the screen) are the
contacts `sheetctl replay --contacts` decodes from the same file on a 100 x 100 screen, one for
one, within the printed hundredth (both print two decimals, rounded each its own way).

Usage: check-libinput.py RUN-FOLDER SHEETCTL
"""
import json
import os
import re
import subprocess
import sys

from checks import check, conclude, path, text

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = os.path.join(HERE, "..", "Fixtures", "traces")
TOUCH = re.compile(r"\sTOUCH_(DOWN|MOTION|UP|CANCEL)\s+\+?[0-9.]+s\s+(\d+) \((\d+)\)(?:\s+([-0-9.]+)/\s*([-0-9.]+))?")
PHASES = {"DOWN": "down", "MOTION": "move", "UP": "up", "CANCEL": "cancel"}


def libinput_touches(log):
    """(phase, slot, x, y) for each touch event of a debug-events log; no position on an up."""
    touches = []
    for line in log.splitlines():
        match = TOUCH.search(line)
        if match:
            phase, slot, _, x, y = match.groups()
            touches.append((PHASES[phase], int(slot), x and float(x), y and float(y)))
    return touches


def replay_touches(sheetctl, recording):
    """The same, from `sheetctl replay --contacts` on a 100 x 100 screen."""
    lines = subprocess.run([sheetctl, "replay", "--contacts", "--screen", "100x100", recording],
                           check=True, capture_output=True, text=True).stdout.splitlines()
    touches = []
    for line in lines:
        entry = json.loads(line)
        if entry["kind"] == "contact":
            up = entry["phase"] in ("up", "cancel")
            touches.append((entry["phase"], entry["slot"], None if up else entry["x"], None if up else entry["y"]))
    return touches


def same(theirs, ours):
    """One touch event alike: phase, slot, and position within 0.01 (a hundredth printed)."""
    if theirs[:2] != ours[:2] or (theirs[2] is None) != (ours[2] is None):
        return False
    return theirs[2] is None or (abs(theirs[2] - ours[2]) <= 0.0100001 and abs(theirs[3] - ours[3]) <= 0.0100001)


sheetctl = sys.argv[2]
check(text("result").strip() == "DONE", f"the guest ran every step (result: {text('result').strip() or 'none'})")
for log in sorted(name for name in os.listdir(sys.argv[1]) if name.startswith("libinput-") and name.endswith(".log")):
    name = log[len("libinput-"):-len(".log")]
    recording = os.path.join(TRACES, name + (".events" if os.path.exists(os.path.join(TRACES, name + ".events")) else ".evemu"))
    theirs = libinput_touches(text(log))
    ours = replay_touches(sheetctl, recording)
    check(len(theirs) > 0, f"{name}: libinput reported touches ({len(theirs)} events)")
    differences = [(index, a, b) for index, (a, b) in enumerate(zip(theirs, ours)) if not same(a, b)]
    check(len(theirs) == len(ours) and not differences,
          f"{name}: sheetd decodes the touches libinput reports ({len(ours)} against {len(theirs)}"
          + (f"; first difference at {differences[0][0]}: libinput {differences[0][1]}, sheetd {differences[0][2]})" if differences else ")"))
conclude()
