#!/usr/bin/env python3
"""Prints what the `instructions` scenario counted: the instructions of sheetd's loop thread per
touch frame read live through libinput, split into libinput's own (the C library's dispatch and
events, which lisgd pays too) and sheetd's (reading the events, the engine, publishing, the
timer, the runtime's exclusivity checks)."""
import re
import subprocess

from checks import check, conclude, path, text

if not check(text("result").strip() == "DONE", f"the guest finished ({text('result').strip() or 'no result'})"):
    conclude()
annotated = subprocess.run(["callgrind_annotate", "--tree=calling", "--inclusive=yes", "--threshold=100", path("live.callgrind")],
                           capture_output=True, text=True).stdout
blocks = annotated.split("\n\n")


def callees(pattern):
    block = next((b for b in blocks for line in b.splitlines() if "*  " in line and pattern in line), "")
    found = {}
    for line in block.splitlines():
        match = re.match(r"\s*([\d,]+) \(.*?\)\s+>\s+\S*?:(\S+)(?: \(([\d,]+)x\))?", line)
        if match:
            found[match.group(2)] = int(match.group(1).replace(",", ""))
    return found


def share(found, pattern):
    return sum(count for name, count in found.items() if re.search(pattern, name))


# The loop's publishing, whatever the parameters after `clock` are.
PUBLISH = r"PublisherV7publish_2of5clock\w*ySay9SheetCore12EngineOutput"
loop = callees("LoopStateV3runyyF")
dispatch = callees("LibinputB0C8dispatch")
frames = int(text("frames").strip() or "0")
if check(bool(loop) and frames > 0, f"callgrind counted the loop over {frames} frames"):
    # libinput's events are read into values by the context (`LibinputContext.next`), then
    # handled: libinput's getters count as libinput's, the rest as reading.
    context = callees("LibinputContextC4next")
    getters = share(context, "libinput_")
    libinput = share(dispatch, "libinput_") + getters
    reading = share(dispatch, "LibinputB0C6handle") + share(dispatch, "LibinputContextC4next") - getters
    rows = [
        ("libinput (dispatch, events)", libinput),
        ("sheetd: reading libinput's events", reading),
        ("sheetd: the engine", share(loop, "EngineV7process") + share(loop, "catchUp")),
        ("sheetd: publishing", share(loop, PUBLISH)),
        ("sheetd: the timer", share(loop, "armTimer")),
        ("sheetd: waiting (epoll_wait)", share(loop, "WaiterC4wait")),
        ("sheetd: exclusivity checks in the loop", share(loop, "swift_beginAccess") + share(loop, "swift_endAccess")),
    ]
    total = sum(loop.values()) - share(loop, "monotonicNow")
    own = total - libinput
    print(f"      live path, no subscriber: {total / frames:,.0f} instructions a frame ({frames} frames), "
          f"libinput {libinput / frames:,.0f}, sheetd {own / frames:,.0f}")
    for label, count in rows:
        print(f"      {label:42s} {count / frames:8,.0f}")
conclude()
