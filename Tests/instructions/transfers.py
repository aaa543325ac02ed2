#!/usr/bin/env python3
"""What a replayed frame runs of sheetd's own code, counted the way the emulator of the peers
benchmark pays for it: the instructions run in at least half the frames (the frame's code, once
each however often it loops), and among them the control transfers that the emulator looks up
afresh after every context switch: calls, returns, jumps through a register and jumps to
another page. A context switch empties the emulator's table of jump targets, so in
the VM each such transfer costs a lookup on every wake (about 250 ns under the benchmark's
load), where an instruction costs about half a nanosecond: docs/performance.md ("What the VM's
ticks follow").

usage: transfers.py CALLGRIND-FILE (from --dump-instr=yes) BINARY FRAMES
"""
import bisect
import collections
import re
import subprocess
import sys

profile, binary, frames = sys.argv[1], sys.argv[2], int(sys.argv[3])
# The replay's own reading (a live device has libinput instead) and its clock waits.
REPLAY_ONLY = re.compile(r"SheetRecordings|RecordedB0|RecordingPlayer|monotonicNow|AccessSet|swift_beginAccess|"
                         r"swift_endAccess|SwiftTLSContext|endReplayIfDone|finishIfEnded")

instructions, functions = {}, []
listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], capture_output=True, text=True, check=True)
for line in listing.stdout.splitlines():
    match = re.match(r"^([0-9a-f]+) <(.*)>:", line)
    if match:
        functions.append((int(match.group(1), 16), match.group(2)))
        continue
    match = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
    if match:
        instructions[int(match.group(1), 16)] = (match.group(2), match.group(3))
functions.sort()
starts = [address for address, _ in functions]


def function_at(address):
    return functions[bisect.bisect_right(starts, address) - 1][1]


# Callgrind's per-instruction counts of the binary's own object (positions "instr line"; a cost
# line after `calls=` is the call's inclusive cost and is skipped).
name = binary.split("/")[-1]
runs = collections.Counter()
objects, current, position, after_call = {}, None, 0, False
for line in open(profile):
    if line.startswith(("ob=", "cob=")):
        match = re.match(r"c?ob=\((\d+)\)(?: (.*))?", line.strip())
        if match.group(2):
            objects[match.group(1)] = match.group(2)
        if line.startswith("ob="):
            current = objects[match.group(1)]
        continue
    if line.startswith("calls="):
        after_call = True
        continue
    if not line[:1] or line[0] not in "0123456789+-*":
        continue
    parts = line.split()
    if parts[0].startswith("0x"):
        position = int(parts[0], 16)
    elif parts[0][0] in "+-":
        position += int(parts[0])
    if after_call:
        after_call = False
        continue
    if len(parts) >= 3 and current and current.split("/")[-1] == name:
        runs[position] += int(parts[-1])


def transfer(address, mnemonic, operands):
    target = re.match(r"([0-9a-f]+) ", operands + " ")
    other_page = bool(target) and int(target.group(1), 16) >> 12 != address >> 12
    if mnemonic.startswith("ret"):
        return "returns"
    if mnemonic.startswith("call"):
        return "calls"
    if mnemonic.startswith("jmp"):
        return "jumps" if "*" in operands or "@plt" in operands or other_page else None
    # A conditional branch to another page is looked up only when taken, which these counts
    # do not say; most are overflow and bounds checks that never are.
    return None


distinct, kinds, by_function = 0, collections.Counter(), collections.Counter()
for address, count in runs.items():
    if count < frames / 2:
        continue
    function = function_at(address)
    if REPLAY_ONLY.search(function):
        continue
    distinct += 1
    kind = transfer(address, *instructions.get(address, ("?", "")))
    if kind:
        kinds[kind] += 1
        by_function[function] += 1
print(f"  a frame's own code: {distinct:,} instructions run in at least half the frames; "
      f"{sum(kinds.values())} transfers looked up afresh after a context switch "
      f"({kinds['calls']} calls, {kinds['returns']} returns, {kinds['jumps']} jumps)")
for function, count in by_function.most_common(6):
    print(f"    {count:4d}  {function[:100]}")
