"""What the host-side checks of every scenario share: reading a run's folder and saying, line
by line, what held and what did not."""
import json
import os
import re
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


def conclude():
    print(f"{len(failures)} check(s) failed" if failures else "all checks passed")
    sys.exit(1 if failures else 0)
