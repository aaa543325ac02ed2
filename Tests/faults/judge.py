"""What every fault row must hold, for the rows Tests/faults/run drives on this machine and the
ones the e2e VM drives on a real kernel (Tests/e2e/guest-faults, check-faults.py)."""

# The VM's rows: the guest's name for each, the table's, and where the sheet must end.
VM_ROWS = [
    ("evdev-overflow", "daemon stopped until the evdev buffer overflowed (SYN_DROPPED; VM)", "resting, half"),
    ("unplugged", "uinput touchscreen unplugged mid-drag (VM)", "resting, half"),
    ("restarted", "daemon restarted mid-drag, as systemctl restart does (VM)", "resting, half"),
    ("killed", "daemon killed mid-drag and started again, as Restart=on-failure does (VM)", "resting, half"),
    ("display", "display unplugged under the DRM renderer mid-drag, plugged again (VM)", "resting, expanded"),
]


def judge(result, ends):
    """The ways `result` (a row's outcome) breaks what a row must hold; empty when it holds."""
    problems = []
    if result["ends"] != ends:
        problems.append(f"ends {result['ends']}, not {ends}")
    if result["refused"]:
        problems.append(f"{result['refused']} frame(s) refused")
    if result["held"]:
        problems.append(f"{result['held']} finger(s) still down")
    if result.get("dropped", 1) != 1:
        problems.append(f"{result['dropped']} subscriber(s) dropped, not 1")
    if len(result["log"]) > 3:
        problems.append(f"{len(result['log'])} warnings in the log, not a few")
    # What the VM's check found wrong beside these (the next drag, a screenshot, ...).
    problems += result.get("problems", [])
    return problems


def notices(log):
    """The lines of a daemon's log a row reports: its warnings and errors."""
    return [line for line in log.splitlines() if ": warning: " in line or ": error: " in line]
