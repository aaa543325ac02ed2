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


def log_errors(log):
    """The error and critical lines of a daemon's log, but libinput's lag reports (printed)."""
    errors = [line for line in log.splitlines() if re.search(r": (error|critical):", line)]
    lags = [line for line in errors if LAG.search(line)]
    if lags:
        print(f"note  libinput reported {len(lags)} dispatch lag(s) under emulation, e.g. {lags[0]}")
    return [line for line in errors if not LAG.search(line)]


def conclude():
    print(f"{len(failures)} check(s) failed" if failures else "all checks passed")
    sys.exit(1 if failures else 0)
