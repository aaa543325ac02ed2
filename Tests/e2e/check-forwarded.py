#!/usr/bin/env python3
"""Checks a `forwarded` run: the feeder allocates nothing per frame (a count, the same in every
run), and reports a forwarded frame's latency to a subscriber's state against its 2 ms p99
target and against the floor of the same wake-ups. The latency is a benchmark's figure, not a
pass or a fail: on a shared machine a run's tail moves by milliseconds now and then (docs/e2e.md
keeps the runs). The target is read in a VM whose idle vCPUs poll (`idle=poll`); in one whose
vCPUs halt (the variant `halt`, as the other scenarios boot), the emulator takes milliseconds to
wake a halted vCPU, the floor alone is above the target, and there is no verdict."""
import re
import sys

from checks import check, conclude, text

if text("result").strip() != "DONE":
    check(False, f"the guest finished ({text('result').strip() or 'no result'})")
    conclude()

report = text("forwarded.txt")
polling = "idle=poll" in text("cmdline")


def figures(prefix):
    match = re.search(prefix + r"[^\n]*p50 (\d+) µs, p99 (\d+) µs", report)
    return (int(match.group(1)), int(match.group(2))) if match else None


daemon = figures("forwarded: io.sheetd.Input frame written")
floor = figures("forwarded floor:")
if check(daemon is not None and floor is not None, "the benchmark printed the daemon's latency and the floor"):
    line = (f"software emulation, idle vCPUs {'poll' if polling else 'halt'}: p50 / p99 {daemon[0]} / {daemon[1]} µs "
            f"against the floor's {floor[0]} / {floor[1]} µs")
    if polling:
        verdict = "within" if daemon[1] < 2000 else "NOT within"
        print(f"      a forwarded frame reaches the state {verdict} 2 ms p99 (the target), " + line)
    else:
        print("      no verdict where a halted vCPU takes milliseconds to wake, " + line)
allocations = re.search(r"the feeder's heap allocations per frame[^:]*: ([0-9.]+) allocations/frame", report)
check(allocations is not None and float(allocations.group(1)) == 0,
      f"the feeder allocates nothing per frame ({allocations.group(1) if allocations else 'not printed'})")
conclude()
