"""What the host-side checks of every scenario share: reading a run's folder and saying, line
by line, what held and what did not."""
import json
import os
import re
import subprocess
import sys

run = sys.argv[1]
failures = []


def check(condition, message):
    print(("ok    " if condition else "FAIL  ") + message)
    if not condition:
        failures.append(message)
    return condition


def path(name):
    return os.path.join(run, name)


def text(name):
    try:
        with open(path(name)) as file:
            return file.read()
    except OSError:
        return ""


def json_lines(name):
    """One JSON object a line, as `sheetctl watch`, `--frame-log` and `--format json` write."""
    result = []
    for number, line in enumerate(text(name).splitlines(), 1):
        try:
            result.append(json.loads(line))
        except ValueError:
            check(False, f"{name}:{number}: not JSON: {line[:80]}")
    return result


# libinput reports a dispatch that came more than 10-30 ms after the kernel's event as a client
# bug, at error priority, with the delay ("event processing lagging behind by 31ms, your system
# is too slow"). Under software emulation the VM's clock runs while its vCPU waits for the host,
# so this says how busy the host was, not what the daemon did; it is printed, not failed.
LAG = re.compile(r"libinput: .*event processing lagging behind by \d+ms")


# libinput's report of a real touchpad's jumping touch, which some fixture recordings hold (it
# discards the jump, as the replay does).
JUMP = re.compile(r"kernel bug: Touch jump detected and discarded")


def log_errors(log):
    """The error and critical lines of a daemon's log, but libinput's lag reports and its reports
    of the fixtures' own touch jumps (printed)."""
    errors = [line for line in log.splitlines() if re.search(r": (error|critical):", line)]
    for pattern, what in [(LAG, "dispatch lag(s) under emulation"), (JUMP, "touch jump(s) in the recordings")]:
        seen = [line for line in errors if pattern.search(line)]
        if seen:
            print(f"note  libinput reported {len(seen)} {what}, e.g. {seen[0]}")
    return [line for line in errors if not LAG.search(line) and not JUMP.search(line)]


# The screenshots of the renderer scenarios: the background is mid-gray.
GRAY = 0x80


def read_ppm(name):
    """(width, height, bytes) of a binary PPM (P6, 8 bits a channel), as QEMU's screendump writes."""
    with open(path(name), "rb") as file:
        data = file.read()
    fields, offset = [], 0
    while len(fields) < 4:
        while data[offset:offset + 1].isspace():
            offset += 1
        end = offset
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[offset:end])
        offset = end
    if fields[0] != b"P6" or fields[3] != b"255":
        raise ValueError(f"{name}: not an 8-bit P6 picture")
    width, height = int(fields[1]), int(fields[2])
    return width, height, data[offset + 1:offset + 1 + width * height * 3]


def background(spelled):
    """A background's colour as check_shot takes it: a grey level (`24`) or an RGB colour
    (`1c3f6e`), in hex."""
    if len(spelled) == 6:
        return tuple(int(spelled[at:at + 2], 16) for at in (0, 2, 4))
    return (int(spelled, 16),) * 3


def check_shot(name, expected_detent, over=GRAY):
    state = json.loads(text(f"{name}.state.json") or "{}")
    try:
        width, height, pixels = read_ppm(f"{name}.ppm")
    except (OSError, ValueError) as error:
        check(False, f"{name}: a screenshot ({error})")
        return

    def pixel(x, y):
        at = (y * width + x) * 3
        return tuple(pixels[at:at + 3])

    screen = state.get("screen", {})
    check((width, height) == (screen.get("width"), screen.get("height")),
          f"{name}: the display is {width}x{height}, the daemon's screen {screen.get('width')}x{screen.get('height')}")
    if expected_detent is not None:
        check(state.get("state") == "resting" and state.get("detent") == expected_detent,
              f"{name}: resting at {expected_detent} (published: {state.get('state')} {state.get('detent')})")
    top, dim = state.get("top", 0), state.get("dim", 0)
    # `over`: the colour beneath the sheet (a grey level, or red, green and blue), the
    # renderer's own background (#808080) or, over a compositor's fullscreen app, the app's
    # (foot's is #242424, the kiosk page's #1c3f6e).
    over = over if isinstance(over, tuple) else (over,) * 3
    spelled = "#" + "".join(f"{channel:02x}" for channel in over)
    if top > 20:
        want = tuple(round(channel * (1 - dim)) for channel in over)
        got = pixel(5, 5)
        check(all(abs(a - b) <= 2 for a, b in zip(got, want)),
              f"{name}: the dim at {dim} over {spelled} is {want} (screenshot: {got})")
    # A quarter of the way into the card, clear of its rounded corner (a card narrower than the
    # display sits where the state says, with the dim beside it).
    card = state.get("card") or {"x": 0, "width": width}
    column = int(card["x"] + card["width"] // 4)
    white = next((y for y in range(height) if min(pixel(column, y)) >= 250), None)
    if top >= height:
        check(white is None and pixel(column, height - 1) == over,
              f"{name}: hidden, nothing but the background (first white row: {white})")
    else:
        check(white is not None and abs(white - max(top, 0)) <= 2,
              f"{name}: the card's top row is {white}, the published top {top}")



def replayed_detent(sheetctl, recording, initial, screen="1280x800"):
    """Where `sheetctl replay` leaves the sheet for `recording` (in the run's folder) from rest
    at `initial`."""
    output = subprocess.run([sheetctl, "replay", path(recording), "--screen", screen, "--initial", initial],
                            capture_output=True, text=True, check=True).stdout
    sheets = [json.loads(line) for line in output.splitlines() if '"sheet"' in line]
    return sheets[-1]["detent"]


def completed_delivery(step):
    """STEP.delivered.evemu as a recording `sheetctl replay` can start from: the kernel passes on
    only the values that changed, so a touch that begins where the last one was (the same x)
    comes without that axis, which the device held from before the recording. The values the
    player wrote in its first report and the kernel dropped as unchanged are put back from the
    gesture itself (STEP.evemu): they are the device's values then. Written to
    STEP.delivered-whole.evemu; its name returned."""
    def split(lines):
        header = [line for line in lines if not line.startswith("E: ")]
        events = [line.split() for line in lines if line.startswith("E: ")]
        first = next((index for index, event in enumerate(events) if event[2:4] == ["0000", "0000"]), len(events) - 1)
        return header, events, first
    _, played, played_end = split(text(f"{step}.evemu").splitlines())
    header, delivered, delivered_end = split(text(f"{step}.delivered.evemu").splitlines())
    if not delivered:
        return f"{step}.delivered.evemu"
    seen = {(event[2], event[3]) for event in delivered[:delivered_end]}
    stamp = delivered[0][1]
    missing = [["E:", stamp] + event[2:] for event in played[:played_end] if (event[2], event[3]) not in seen]
    events = missing + delivered
    with open(path(f"{step}.delivered-whole.evemu"), "w") as file:
        file.write("\n".join(header + [" ".join(event) for event in events]) + "\n")
    return f"{step}.delivered-whole.evemu"


def judge_delivered(sheetctl, step, intended):
    """A played gesture judged by what the kernel delivered (STEP.delivered.evemu, recorded in
    the guest beside the daemon): the daemon must rest where `sheetctl replay` of that recording
    rests, from where the step started. When a starved player made the delivered gesture
    another than the recording's (a flick written slowly is a drag), that is said, and the
    detent the delivered gesture leads to is the one returned; else `intended`."""
    stream = json_lines(f"{step}.watch.jsonl")
    if not check(len(stream) >= 2 and os.path.exists(path(f"{step}.delivered.evemu")),
                 f"{step}: the sheet moved and what the kernel delivered was kept"):
        return intended
    initial, last = stream[0]["state"]["detent"] or "half", stream[-1]["state"]
    # The recording as written must lead where the step says: the core's own rules, whatever
    # the VM's load did to its delivery.
    recorded = replayed_detent(sheetctl, f"{step}.evemu", initial)
    check(recorded == intended, f"{step}: `sheetctl replay` of the recording as written rests at {intended} ({recorded})")
    delivered = replayed_detent(sheetctl, completed_delivery(step), initial)
    check(last["state"] == "resting" and last["detent"] == delivered,
          f"{step}: the daemon rests where the replay of what the kernel delivered rests ({delivered}; daemon: {last['detent']})")
    if delivered != intended:
        print(f"note  {step}: the kernel delivered another gesture than the recording's (a starved player): it leads to "
              f"{delivered}, not {intended}; the guest put the sheet at {intended} for the next steps")
        check(f"{step} " in text("corrected.log"), f"{step}: the guest put the sheet at {intended} before going on")
    return delivered


def conclude():
    # The failures again, last: a log read from its end (CI prints a job's tail) names them.
    for message in failures:
        print("FAIL  " + message)
    print(f"{len(failures)} check(s) failed" if failures else "all checks passed")
    sys.exit(1 if failures else 0)
