"""The Python `varlink` package (PyPI) as an input plugin of a running sheetd.

Usage: python3 python_input_client.py SHEET_SOCKET INPUT_SOCKET FRAMES_JSONL EXPECTED_DETENT
FRAMES_JSONL holds a drag as JSON lines ({"time": µs from its start, "contacts": [...]}, in
screen pixels). Prints one `... ok` line per check; exits non-zero on the first surprise.
"""
import json
import socket
import subprocess
import sys
import time

import varlink

sheet_address = "unix:" + sys.argv[1]
input_address = "unix:" + sys.argv[2]
frames = [json.loads(line) for line in open(sys.argv[3])]
expected = sys.argv[4]


def now_us():
    return int(time.clock_gettime(time.CLOCK_MONOTONIC) * 1e6)


def wait_for(monitor, predicate, what):
    for reply in monitor:
        if predicate(reply):
            return reply
    raise AssertionError("the stream ended before " + what)


def read_replies(connection, count):
    data = b""
    while data.count(b"\0") < count:
        chunk = connection.recv(65536)
        assert chunk, "the daemon closed the connection"
        data += chunk
    return [json.loads(message) for message in data.split(b"\0")[:count]]


def refused(call, **parameters):
    try:
        call(**parameters)
    except varlink.VarlinkError as error:
        return error.error(), error.parameters()
    raise AssertionError("accepted: %r" % (parameters,))


SCREEN = {"x": {"min": 0, "max": 1080}, "y": {"min": 0, "max": 1920}}

with varlink.Client(address=sheet_address) as sheet_client, varlink.Client(address=input_address) as input_client:
    with input_client.open("org.varlink.service") as service:
        info = service.GetInfo()
        assert info["interfaces"] == ["org.varlink.service", "io.sheetd.Input"], info
        print("GetInfo ok")
    with sheet_client.open("io.sheetd.Sheet") as sheet, sheet_client.open("io.sheetd.Sheet") as watcher, \
            input_client.open("io.sheetd.Input") as plugin:
        monitor = watcher.Monitor(_more=True)
        first = next(monitor)
        assert first["state"]["detent"] == "half", first

        # A drag: the recording's frames, stamped on CLOCK_MONOTONIC as they happened, ending now.
        device = plugin.OpenDevice(name="python drag", kind="touchscreen", slots=2, **SCREEN)["device"]
        start = now_us() - frames[-1]["time"] - 20000
        for number, frame in enumerate(frames, 1):
            plugin.SendFrame(device=device, sequence=number, time=start + frame["time"], contacts=frame["contacts"])
        rest = wait_for(monitor, lambda r: r["state"]["state"] == "resting" and not r["state"]["inputActive"],
                        "the sheet rested")
        assert rest["state"]["detent"] == expected, (rest["state"], expected)
        print("drag ok: resting at %s, as the replay" % expected)
        devices = sheet.ListDevices()["devices"]
        mine = [d for d in devices if d["node"] == "plugin:%d" % device]
        assert len(mine) == 1 and mine[0]["pid"] > 0 and "uid" in mine[0] and mine[0]["type"] == "touchscreen", devices
        print("ListDevices ok: %s pid %d uid %d" % (mine[0]["node"], mine[0]["pid"], mine[0]["uid"]))

        # Bad frames: each refused by its number, and the sheet does not move.
        before = sheet.GetState()["state"]
        t = now_us()
        plugin.SendFrame(device=device, sequence=100, time=t, contacts=[])
        bad = [
            (101, t, [{"slot": 2, "phase": "down", "x": 10, "y": 10}], "out of range"),
            (102, t, [{"slot": 0, "phase": "move", "x": 10, "y": 10}], "not down"),
            (103, t - 1000, [{"slot": 0, "phase": "down", "x": 10, "y": 10}], "backwards"),
            (104, t, [{"slot": 0, "phase": "down", "x": float("nan"), "y": 10}], "finite"),
            (105, t, [{"slot": 0, "phase": "down", "x": 2000, "y": 10}], "outside"),
            (106, t, [{"slot": 0, "phase": "down", "x": 10, "y": 10}, {"slot": 0, "phase": "move", "x": 10, "y": 10}], "twice"),
            (107, t + 10 ** 7, [{"slot": 0, "phase": "down", "x": 10, "y": 10}], "future"),
        ]
        for sequence, stamp, contacts, reason in bad:
            name, parameters = refused(plugin.SendFrame, device=device, sequence=sequence, time=stamp, contacts=contacts)
            assert name == "io.sheetd.Input.InvalidFrame", (name, parameters)
            assert parameters["sequence"] == sequence and parameters["device"] == device, parameters
            assert reason in parameters["reason"], (reason, parameters)
        # Too many frames a second: 2000 empty frames (which change nothing when taken) written
        # at once on a connection of their own, their replies read after. (300 were once
        # enough; a daemon that a loaded machine lets read only a few hundred a second took
        # them all as the bucket refilled.)
        burst = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        burst.connect(sys.argv[2])
        calls = [{"method": "io.sheetd.Input.OpenDevice", "parameters": dict(name="burst", kind="touchscreen", slots=1, **SCREEN)}]
        calls += [{"method": "io.sheetd.Input.SendFrame", "parameters": {"device": 0, "sequence": n, "time": t, "contacts": []}}
                  for n in range(1, 2001)]
        burst.sendall(json.dumps(calls[0]).encode() + b"\0")
        replies = read_replies(burst, 1)
        for call in calls[1:]:
            call["parameters"]["device"] = replies[0]["parameters"]["device"]
        burst.sendall(b"".join(json.dumps(call).encode() + b"\0" for call in calls[1:]))
        replies = read_replies(burst, 2000)
        rate = [r for r in replies if r.get("error") == "io.sheetd.Input.InvalidFrame"]
        assert rate and all("more than 1000 frames a second" in r["parameters"]["reason"] for r in rate), replies[-1]
        assert 100 <= 2000 - len(rate) < 2000, len(rate)
        burst.close()
        after = sheet.GetState()["state"]
        assert after == before, (before, after)
        print("bad frames ok: %d refused by number, the sheet unmoved" % (len(bad) + 1))
        name, parameters = refused(plugin.SendFrame, device=device + 1000, sequence=1, time=t, contacts=[])
        assert name == "io.sheetd.Input.NoSuchDevice", name
        name, parameters = refused(plugin.OpenDevice, name="", kind="touchscreen", slots=1, **SCREEN)
        assert name == "org.varlink.service.InvalidParameter" and parameters["parameter"] == "name", parameters
        name, parameters = refused(plugin.OpenDevice, name="x", kind="pen", slots=1, **SCREEN)
        assert parameters["parameter"] == "kind", parameters

        # Sixteen devices at most, over every connection.
        with varlink.Client(address=input_address) as other_client, other_client.open("io.sheetd.Input") as other:
            for index in range(15):
                other.OpenDevice(name="extra %d" % index, kind="touchpad", slots=3, **SCREEN)
            name, parameters = refused(other.OpenDevice, name="seventeenth", kind="touchscreen", slots=1, **SCREEN)
            assert name == "io.sheetd.Input.TooManyDevices" and parameters["limit"] == 16, (name, parameters)
            print("17th device ok: refused, limit 16")
        plugin.CloseDevice(device=device)

        # A plugin killed in the middle of a drag: its touch is cancelled, no fling.
        child = subprocess.Popen([sys.executable, "-c", """
import sys, time, varlink
with varlink.Client(address=sys.argv[1]) as client, client.open("io.sheetd.Input") as plugin:
    d = plugin.OpenDevice(name="doomed", kind="touchscreen", slots=1, x={"min": 0, "max": 1080}, y={"min": 0, "max": 1920})["device"]
    t = int(time.clock_gettime(time.CLOCK_MONOTONIC) * 1e6) - 100000
    plugin.SendFrame(device=d, sequence=1, time=t, contacts=[{"slot": 0, "phase": "down", "x": 540, "y": 1100}])
    for i in range(1, 9):
        plugin.SendFrame(device=d, sequence=1 + i, time=t + i * 10000, contacts=[{"slot": 0, "phase": "move", "x": 540, "y": 1100 + 40 * i}])
    print("dragging", flush=True)
    sys.stdin.read()
""", input_address], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline().strip() == "dragging"
        wait_for(monitor, lambda r: r["state"]["state"] == "dragging", "the plugin's drag")
        child.kill()
        child.wait()
        cancelled = wait_for(monitor, lambda r: (r.get("gesture") or {}).get("phase") == "cancelled", "the cancel")
        assert cancelled["gesture"]["kind"] == "pan", cancelled
        rest = wait_for(monitor, lambda r: r["state"]["state"] == "resting" and not r["state"]["inputActive"], "rest")
        assert rest["state"]["detent"] == expected, rest["state"]
        print("killed mid-drag ok: the pan cancelled, the sheet back at %s" % expected)
