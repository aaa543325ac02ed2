#!/usr/bin/python3
"""Prints what the `peers` scenario measured: each consumer's CPU ticks (1/100 s) and sleeps
while the same touchscreen recordings were played into one uinput device, and checks that every
consumer saw the touches. After a profile run, also where sheetd's time went and whose code
made each heap allocation in its process.

Usage: check-peers.py RUN-FOLDER SHEETCTL
"""
from checks import check, conclude, json_lines, text

check(text("result").strip() == "DONE", f"the guest ran every step (result: {text('result').strip() or 'none'})")
figures = dict(line.split(maxsplit=1) for line in text("peers.txt").splitlines() if line.strip())
seconds = figures.pop("seconds", "0 0").split()
frames = int(figures.pop("frames", "0"))
allocation_frames = int(figures.pop("allocation-frames", "0"))
check(len(figures) == 7, f"ticks for every consumer ({sorted(figures)})")
check("TOUCH_DOWN" in text("peer-libinput.log"), "libinput debug-events saw the touches")
check(all(any(u.get("state", {}).get("state") == "dragging" for u in json_lines(f"peer-watch-16-{index}.jsonl")) for index in range(1, 17)),
      "each of the 16 paced subscribers saw the card dragged")
updates = json_lines("peer-watch.jsonl")
check(any(update.get("state", {}).get("state") == "dragging" for update in updates), "sheetd's subscriber saw the card dragged")
print(f"replay: {float(seconds[1]) - float(seconds[0]):.1f} s of uptime in the VM (software emulation)")
print(f"{frames} frames played (SYN_REPORTs of the recordings)")
print("consumer               CPU ticks  (its own / the kernel's)  sleeps (voluntary context switches) during the replay")
for name, values in figures.items():
    ticks, sleeps, user, kernel = (values.split() + ["?"] * 3)[:4]
    print(f"{name:22} {ticks:>9}  {user:>9} / {kernel:<9}     {sleeps:>6}")
# sheetd's CPU against lisgd's on the same touches: alone at most 1.5 times, with a subscriber
# paced at 60 Hz at most 2 times, with 16 such at most 3 times.
lisgd = int(figures.get("lisgd", "0").split()[0])
for name, target in (("sheetd-no-subscriber", 1.5), ("sheetd", 2.0), ("sheetd-16-subscribers", 3.0)):
    ticks = int(figures.get(name, "0").split()[0])
    ratio = ticks / lisgd if lisgd else float("inf")
    label = {"sheetd-no-subscriber": "sheetd alone", "sheetd": "sheetd with a 60 Hz subscriber",
             "sheetd-16-subscribers": "sheetd with 16 60 Hz subscribers"}[name]
    check(ratio <= target, f"{label}: {ticks} ticks, {ratio:.2f} times lisgd's {lisgd} (target at most {target})")
# The same lisgd again, opened after the sheetd: no target; how far apart two identical
# consumers' figures come out in one run (the order they are woken in included).
again = int(figures.get("lisgd-again", "0").split()[0])
if lisgd and again:
    print(f"a second lisgd, opened last: {again} ticks, {again / lisgd:.2f} times the first's "
          f"(the same program on the same touches: how far one run's ratios can stray)")
profile = text("sheetd-perf.txt")
if profile or text("perf-record.log"):
    # The profile's head: self time by library and function (the whole report stays in the run).
    lines = [line for line in profile.splitlines() if line.strip() and not line.startswith("#")]
    check(bool(lines), "perf sampled sheetd during the replay")
    print("where sheetd's time went (perf, self time):")
    for line in lines[:48]:
        print("  " + line.strip())
    # The same, shorter, for lisgd and for the sheetd without a subscriber.
    for peer, name in (("lisgd-perf.txt", "lisgd"), ("sheetd-alone-perf.txt", "sheetd without a subscriber")):
        peer_lines = [line for line in text(peer).splitlines() if line.strip() and not line.startswith("#")]
        check(bool(peer_lines), f"perf sampled {name} during the replay")
        print(f"where {name}'s time went (perf, self time):")
        for line in peer_lines[:24]:
            print("  " + line.strip())
allocations = text("sheetd-allocations.txt")
if allocation_frames:
    # Each sample is a heap allocation: its event line, then its stack, innermost first. It is
    # charged to the first library on the stack that is neither the C library nor Swift's
    # runtime (within sheetd, to its first function that is not the runtime's), and to the
    # input thread (the engine's loop) or another (the event loop's calls, the store).
    samples = [block for block in allocations.split("\n\n") if block.strip()]
    owners = {}
    for block in samples:
        owner = "?"
        for frame in block.splitlines()[1:]:
            parts = frame.split()
            if len(parts) < 3:
                continue
            library = parts[-1].strip("()").rsplit("/", 1)[-1]
            symbol = " ".join(parts[1:-1])
            if library.startswith(("libc.so", "libswiftCore", "[unknown]", "[vdso]", "inlined")):
                continue
            if library == "sheetd" and symbol.startswith(("swift_", "$ss", "$sS")):
                continue
            owner = library if library != "sheetd" else f"sheetd {symbol[:90]}"
            break
        thread = "input thread" if "EngineLoopC3run" in block else "other threads"
        owners[(thread, owner)] = owners.get((thread, owner), 0) + 1
    own = sum(count for (thread, owner), count in owners.items() if thread == "input thread" and owner.startswith("sheetd"))
    check(bool(samples), "perf counted the allocations in sheetd's process")
    print(f"heap allocations in sheetd's process from the second round on ({allocation_frames} frames): {len(samples)}, "
          f"{len(samples) / allocation_frames:.2f} a frame; sheetd's own code on the input thread: {own}, "
          f"{own / allocation_frames:.2f} a frame. By thread and by whose code asked:")
    for (thread, owner), count in sorted(owners.items(), key=lambda item: -item[1])[:24]:
        print(f"  {count:6}  {thread:13}  {owner}")
conclude()
