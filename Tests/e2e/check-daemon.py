#!/usr/bin/python3
"""Checks what the `daemon` scenario left in its run folder: the device was taken when plugged
in, each gesture played through uinput, the kernel and libinput left the sheet where
`sheetctl replay` of what the kernel delivered leaves it (recorded in the guest; a gesture a
starved player delivered as another is said, not failed), a removal mid-drag settled the sheet, a
touchpad's two- and three-finger pans moved the card the way the fingers went, the daemon
kept serving and stopped cleanly, and its log holds no error.

Usage: check-daemon.py RUN-FOLDER SHEETCTL
"""
import json
import os
import re
import subprocess
import sys

from checks import check, conclude, judge_delivered, json_lines, log_errors, path, text

sheetctl = sys.argv[2]
SCREEN = "1280x800"


check(text("result").strip() == "DONE", f"the guest ran every step (result: {text('result').strip() or 'none'})")

before = json_lines("devices-before.json")
check(not any(device.get("used") for device in before), "no touch device is used before one is plugged in")
plugged = json_lines("devices-plugged.json")
used = [device for device in plugged if device.get("used")]
node = text("first.node").strip()
check(len(used) == 1 and used[0].get("node") == node and used[0].get("type") == "touchscreen",
      f"the plugged touchscreen {node} is used as a touchscreen: {used}")

# (step, detent the recording leads to, gesture it must report)
steps = [
    ("drag-up", "expanded", "pan"),
    ("flick-down-from-expanded", "half", "pan"),
    ("flick-down-from-half", "hidden", "pan"),
    ("tap-dim", "hidden", "tap"),
    ("tap-dim-again", "hidden", "tap"),
]
for step, expected, gesture in steps:
    stream = json_lines(f"{step}.watch.jsonl")
    if not check(len(stream) >= 2, f"{step}: the sheet moved ({len(stream)} updates)"):
        continue
    sequence = [update["seq"] for update in stream]
    check(sequence == sorted(set(sequence)), f"{step}: sequence numbers only grow")
    # What the kernel delivered decides where the daemon must rest (the replay of it), and
    # the recording's own intent only when the two agree.
    expected = judge_delivered(sheetctl, step, expected)
    kinds = {update["gesture"]["kind"] for update in stream if update.get("gesture")}
    check(gesture in kinds, f"{step}: a {gesture} gesture was reported (got {sorted(kinds)})")
    check(any(update["state"]["cause"] == "user" for update in stream) or gesture == "tap",
          f"{step}: the finger moved the card")
    state = json.loads(text(f"{step}.state.json") or "{}")
    check(state.get("detent") == expected, f"{step}: GetState afterwards says {state.get('detent')}")

removed = json_lines("removed.watch.jsonl")
states = [update["state"] for update in removed]
dragging = [index for index, state in enumerate(states) if state["state"] == "dragging"]
check(bool(dragging), "removal: the held finger dragged the card")
if dragging:
    after = states[dragging[-1] + 1:]
    check(bool(after) and after[-1]["state"] == "resting" and after[-1]["detent"] == "half",
          f"removal: the sheet settled back to half ({after[-1] if after else 'nothing after the drag'})")
cancelled = [update["gesture"] for update in removed if update.get("gesture", {}).get("phase") == "cancelled"]
check(bool(cancelled), "removal: the pan was cancelled (libinput cancels the touches of a removed device)")
removed_state = json.loads(text("removed.state.json") or "{}")
check(removed_state.get("detent") == "half", "removal: the daemon still answers GetState afterwards")

pad = [device for device in json_lines("devices-pad.json") if device.get("type") == "touchpad"]
check(len(pad) == 1 and pad[0].get("used"), f"the touchpad is used: {pad}")
# (step, which way the card must move while the fingers drag it)
for step, direction in [("pad-scroll-up", -1), ("pad-swipe-down", 1)]:
    stream = json_lines(f"{step}.watch.jsonl")
    tops = [update["state"]["top"] for update in stream
            if update["state"]["state"] == "dragging" and update["state"]["cause"] == "user"]
    if check(len(tops) >= 2, f"{step}: the fingers dragged the card ({len(tops)} dragging states)"):
        check((tops[-1] - tops[0]) * direction > 50,
              f"{step}: the card moved {'up' if direction < 0 else 'down'} with the fingers ({tops[0]} → {tops[-1]} px)")
    if stream:
        check(stream[-1]["state"]["state"] == "resting", f"{step}: the sheet came to rest at {stream[-1]['state']['detent']}")
    kinds = {update["gesture"]["kind"] for update in stream if update.get("gesture")}
    check("pan" in kinds, f"{step}: a pan was reported (got {sorted(kinds)})")

# The mouse through examples/python/mouse-finger.py: a plugin device on io.sheetd.Input, and
# its left-button drag up takes the card from half to expanded.
plugins = [device for device in json_lines("devices-mouse.json") if device.get("name", "").startswith("mouse finger")]
check(len(plugins) == 1 and plugins[0].get("used"), f"mouse-finger.py opened a plugin device: {plugins}")
stream = json_lines("mouse-drag-up.watch.jsonl")
tops = [update["state"]["top"] for update in stream
        if update["state"]["state"] == "dragging" and update["state"]["cause"] == "user"]
if check(len(tops) >= 2, f"mouse-drag-up: the mouse dragged the card ({len(tops)} dragging states)"):
    check(tops[0] - tops[-1] > 300, f"mouse-drag-up: the card followed the pointer up ({tops[0]} → {tops[-1]} px)")
if stream:
    last = stream[-1]["state"]
    check(last["state"] == "resting" and last["detent"] == "expanded", f"mouse-drag-up: rests at expanded (got {last['state']} at {last['detent']})")
check("refused" not in text("mouse-finger.log"), f"mouse-finger.py had no frame refused: {text('mouse-finger.log').strip()}")

# Every fixture, touchscreen and touchpad, played through uinput and libinput from rest at half,
# against `sheetctl replay` of the same file: the same rest, the same gestures begun, ended and
# recognised, and the card dragged along the same path. For a touchpad this is libinput's own
# scrolling and swiping against the replay's rendering of libinput's rules. The kernel stamps each event when
# evemu-play writes it, which drifts from the recorded times, so the drag is compared by where
# the card went (in order, within 2 % of the screen's height), not by when.
HEIGHT = int(SCREEN.split("x")[1])
TOLERANCE = 0.02 * HEIGHT


def replay_lines(recording):
    output = subprocess.run([sheetctl, "replay", path(recording), "--screen", SCREEN, "--initial", "half"],
                            capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in output.splitlines()]


def follows(path_taken, reference):
    """The first top in `path_taken` that no top of `reference` matches in order, or None."""
    at = 0
    for top in path_taken:
        while at < len(reference) and abs(reference[at] - top) > TOLERANCE:
            at += 1
        if at == len(reference):
            return top
    return None


# The replay follows libinput 1.22's touchpad rules. libinput 1.26 (commit 15609213, "touchpad:
# disable the immediate scroll state if tapping is enabled") starts a semi-multitouch pad's
# two-finger scroll only once the fingers moved 4 mm from where the second landed (or after
# 150 ms), and 1.27 (68a2ff0d) posts no scroll on the frame that decides it: under a newer
# libinput (Debian 13's 1.28) a semi-multitouch recording may scroll where the replay taps. Its
# gestures and path are then reported, not checked; its rest still is.
libinput = text("libinput.version").strip()
newer_semi_mt = tuple(int(part) for part in re.findall(r"\d+", libinput)[:2]) >= (1, 26)


def semi_mt(name):
    """Whether the fixture's device is semi-multitouch (INPUT_PROP_SEMI_MT, bit 3 of the evemu
    header's first property byte)."""
    header = text(f"{name}.evemu") or text(f"{name.split('.')[0]}.desc")
    properties = re.search(r"^P: ([0-9a-f]{2})", header, re.M)
    return properties is not None and int(properties.group(1), 16) & 0x08 != 0


fixtures = sorted(name[:-len(".watch.jsonl")] for name in os.listdir(path(".")) if name.startswith("fixture-")
                  and name.endswith(".watch.jsonl"))
check(len([name for name in fixtures if name.startswith("fixture-ts-")]) == 4,
      f"every touchscreen fixture was played ({fixtures})")
check(len([name for name in fixtures if name.startswith("fixture-tp-")]) == 3, f"every touchpad fixture was played ({fixtures})")
for name in fixtures:
    stream = json_lines(f"{name}.watch.jsonl")
    # A split recording is replayed from its events, which find their .desc beside them.
    replayed = replay_lines(f"{name}.events" if os.path.exists(path(f"{name}.events")) else f"{name}.evemu")
    if not check(bool(stream), f"{name}: the Monitor stream was kept"):
        continue
    sheets = [line for line in replayed if line.get("kind") == "sheet"]
    last, expected = stream[-1]["state"], max(sheets, key=lambda line: line["t"])
    check(last["state"] == "resting" and last["detent"] == expected["detent"],
          f"{name}: rests at {last['detent']}, as the replay ({expected['detent']})")
    gestures = sorted((update["gesture"]["kind"], update["gesture"]["phase"]) for update in stream
                      if update.get("gesture") and update["gesture"]["phase"] != "changed")
    wanted = sorted((line["gesture"], line["phase"]) for line in replayed
                    if line.get("kind") == "gesture" and line["phase"] != "changed")
    dragged = [update["state"]["top"] for update in stream if update["state"]["state"] == "dragging"]
    reference = [line["top"] for line in sheets if line["state"] == "dragging"]
    if newer_semi_mt and semi_mt(name) and gestures != wanted:
        print(f"known {name}: libinput {libinput} on a semi-multitouch pad: the daemon's gestures {gestures}, "
              f"dragged {min(dragged, default=None)} to {max(dragged, default=None)} px; the replay's (libinput 1.22's rules) {wanted}")
        continue
    check(gestures == wanted, f"{name}: the gestures the replay reports ({wanted}; the daemon: {gestures})")
    if reference or dragged:
        # A touchpad's scroll starts once libinput has decided it: after the fingers moved a
        # threshold, or after a timeout (150 ms since 1.26), whichever comes first, so how much
        # of the motion goes before it depends on when the events arrive, which a starved
        # player changes. The card's path is then the replay's shifted by that much: compared
        # from where each began (the shift said); a touchscreen's is compared as it lies.
        shift = 0.0
        if name.startswith("fixture-tp-") and dragged and reference:
            shift = reference[0] - dragged[0]
            print(f"      {name}: the scroll began {shift:+.1f} px from where the replay's began; compared from there")
        dragged = [top + shift for top in dragged]
        check(bool(dragged) and bool(reference)
              and abs(min(dragged) - min(reference)) <= TOLERANCE and abs(max(dragged) - max(reference)) <= TOLERANCE,
              f"{name}: the card was dragged as far as in the replay (daemon {min(dragged, default=None)} to "
              f"{max(dragged, default=None)} px, replay {min(reference, default=None)} to {max(reference, default=None)} px)")
        astray = follows(dragged, reference)
        check(astray is None, f"{name}: every dragged top lies on the replay's path, in order, within "
                              f"{TOLERANCE:.0f} px ({len(dragged)} against {len(reference)}; first astray: {astray})")

keys_state = text("keys.state.json")
check('"focusVisible":true,"focus":"bluetooth"' in keys_state,
      f"keys: Tab, Tab, Down on the keyboard udev opted in put the focus, shown, on bluetooth ({keys_state[:200] or 'no state'})")
key_devices = [json.loads(line) for line in text("devices-keys.json").splitlines() if line.strip()]
opted = [d for d in key_devices if d.get("name") == "sheetd e2e keyboard"]
typing = [d for d in key_devices if d.get("name") == "sheetd e2e typing keyboard"]
check(len(opted) == 1 and opted[0]["used"] and "SHEETD_KEYS=1" in opted[0]["reason"],
      f"ListDevices: the opted-in keyboard is read, and says why ({opted})")
check(len(typing) == 1 and not typing[0]["used"] and "not read" in typing[0]["reason"],
      f"ListDevices: the keyboard nobody named is not read, and says why ({typing})")
reloaded = [json.loads(line) for line in text("devices-reloaded.json").splitlines() if line.strip()]
typing = [d for d in reloaded if d.get("name") == "sheetd e2e typing keyboard"]
check(len(typing) == 1 and typing[0]["used"] and "keys: in the configuration" in typing[0]["reason"],
      f"reload: keys: naming the typing keyboard opens it, and ListDevices says why ({typing})")

jack = [d for d in (json.loads(line) for line in text("devices-jack.json").splitlines() if line.strip())
        if d.get("name") == "sheetd e2e headphone jack"]
check(len(jack) == 1 and jack[0]["used"] and "headphone switch" in jack[0]["reason"],
      f"ListDevices: the headphone jack is read, and says why ({jack})")
plugged = json.loads(text("jack-plugged.state.json") or "{}").get("presentation", {})
pulled = json.loads(text("jack-pulled.state.json") or "{}").get("presentation", {})
check(plugged.get("speaking") is True and plugged.get("touchExploration") is True,
      f"headset: headphones plugged, the sheet is spoken and explored by touch ({plugged})")
check(pulled.get("speaking") is False and pulled.get("touchExploration") is False,
      f"headset: headphones pulled, neither ({pulled})")

knob_state = text("knob.state.json")
check('"focusVisible":true,"focus":"dark"' in knob_state,
      f"knob: two steps on from bluetooth (past the disabled vpn) put the focus on dark ({knob_state[:200] or 'no state'})")
knob_events = [event for update in json_lines("knob.watch.jsonl") for event in update.get("events", [])]
check(any(event.get("event") == "item-tapped" and event.get("item") == "dark" for event in knob_events),
      f"knob: its push tapped dark ({knob_events})")
knob_devices = [d for d in json_lines("devices-knob.json") if d.get("name") == "sheetd e2e knob"]
check(len(knob_devices) == 1 and knob_devices[0]["used"] and "libevdev" in knob_devices[0]["reason"],
      f"ListDevices: the knob is read with libevdev, and says why ({knob_devices})")

log = text("sheetd.log")
check(re.search(r"using touchscreen /dev/input/event\d+", log) is not None, "the log says which device was taken and why")
check(re.search(r'/dev/input/event\d+ "sheetd e2e touchscreen" removed', log) is not None, "the log reports the removal")
errors = log_errors(log)
check(not errors, f"no error in the daemon's log {errors[:3]}")
wakes, threads = text("rest-wakes").strip(), text("rest-threads").split()
check(wakes == "0" and len(threads) == 2 and threads[0] == threads[1],
      f"at rest for 3 s the daemon did not wake ({wakes or 'no count'} context switches; threads {' -> '.join(threads) or 'not counted'}), "
      f"counted once {text('rest-waited').strip() or 'the rest was not reached'}")
check(text("sheetd.exit").strip() == "0", f"sheetd stopped on SIGTERM with status 0 (got {text('sheetd.exit').strip() or 'none'})")

conclude()
