"""What the host-side checks of every scenario share: reading a run's folder and saying, line
by line, what held and what did not."""
import json
import os
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


def conclude():
    print(f"{len(failures)} check(s) failed" if failures else "all checks passed")
    sys.exit(1 if failures else 0)
