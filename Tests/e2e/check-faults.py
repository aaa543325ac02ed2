#!/usr/bin/python3
"""Checks the `faults` scenario (guest-faults): for each row, the sheet came to rest where the
row says, no finger is left down (GetStats), the next drag up took the card to expanded, and
the daemon's log holds no error (the evdev overflow row: libinput said SYN_DROPPED; the display
row: no frame drawn while it was unplugged, the sheet on it once plugged again). Writes
faults.jsonl, the rows as `Tests/faults/run --vm` puts them in docs/reliability.md's table.

Usage: check-faults.py RUN-FOLDER SHEETCTL
"""
import json
import os
import sys

import checks
from checks import check, check_shot, conclude, json_lines, log_errors, path, text

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "faults"))
from judge import VM_ROWS, judge, notices  # noqa: E402

check(text("result").strip() == "DONE", f"the guest ran every step (result: {text('result').strip() or 'none'})")
measured = {entry["row"]: entry for entry in json_lines("rows.jsonl")}
results = []
for key, name, ends in VM_ROWS:
    if not check(key in measured, f"{name}: the guest ran the row"):
        continue
    failed_before = len(checks.failures)
    state = json.loads(text(f"faults-{key}.state.json") or "{}")
    stats = json.loads(text(f"faults-{key}.stats.json") or "{}")
    log = text(f"faults-{key}.log")
    said = notices(log)
    # What libinput says of an overflowed buffer is information, and the row's proof.
    said += [line for line in log.splitlines() if "SYN_DROPPED" in line]
    result = {"row": name, "ends": f"{state.get('state')}, {state.get('detent')}", "refused": 0,
              "held": stats.get("fingersDown", -1), "memory": measured[key]["rssAfter"] - measured[key]["rssBefore"],
              "log": said}
    problems = judge(result, ends)
    check(not problems, f"{name}: ends {result['ends']}, {result['held']} finger(s) held" + (f": {'; '.join(problems)}" if problems else ""))
    following = json.loads(text(f"faults-{key}-next.state.json") or "{}")
    check(following.get("state") == "resting" and following.get("detent") == "expanded",
          f"{name}: a next drag up took the card to {following.get('state')}, {following.get('detent')}")
    check(not log_errors(log), f"{name}: the daemon's log has no error: {log_errors(log)[:2]}")
    if key == "evdev-overflow":
        check(any("SYN_DROPPED" in line for line in said), f"{name}: the kernel's buffer overflowed (libinput said SYN_DROPPED)")
    if key == "display":
        unplugged, plugged = text("faults-display.frames-unplugged").strip(), text("faults-display.frames-plugged").strip()
        check(unplugged != "" and unplugged == plugged,
              f"{name}: no frame drawn while the display was unplugged ({unplugged} frames before the drag, {plugged} after)")
        rendered = text("faults-display.render.log")
        check("the display was unplugged" in rendered and "a display is plugged in again at " in rendered,
              f"{name}: the renderer said the display went and came back, with its size")
        check(text("faults-display.render.exit").strip() == "0", f"{name}: the renderer stopped cleanly (exit {text('faults-display.render.exit').strip()})")
        # Plugged again, the display shows the sheet where the drag left it.
        check_shot("faults-display-plugged", "expanded")
    # What else of the row failed, for the table's judgement.
    result["problems"] = checks.failures[failed_before:]
    results.append(result)
with open(path("faults.jsonl"), "w") as file:
    file.write("".join(json.dumps(result) + "\n" for result in results))
conclude()
