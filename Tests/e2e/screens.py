#!/usr/bin/python3
"""The host's end of the screenshot channel. QEMU waits (server=on,wait=on) until this connects
to the VM's second serial port; then each `SHOT NAME [DEVICE]` line from the guest becomes a
`screendump RUN/NAME.ppm [DEVICE]` through the QEMU monitor, answered with `OK NAME` once QEMU has
written the file. Ends when the VM closes the port.

Usage: screens.py RUN-FOLDER
"""
import os
import socket
import sys
import time

run = sys.argv[1]


def connect(path):
    # QEMU creates its sockets a moment after it starts: the one wait here with a bound.
    for _ in range(600):
        try:
            sock = socket.socket(socket.AF_UNIX)
            sock.connect(path)
            return sock
        except OSError:
            sock.close()
            time.sleep(0.05)
    sys.exit(f"screens: cannot connect to {path}")


class Monitor:
    """QEMU's human monitor (HMP): one command at a time, answered by the next prompt."""

    def __init__(self, path):
        self.sock = connect(path)
        self.read_prompt()

    def read_prompt(self):
        data = b""
        while not data.endswith(b"(qemu) "):
            chunk = self.sock.recv(65536)
            if not chunk:
                sys.exit("screens: the monitor closed")
            data += chunk
        return data.decode(errors="replace")

    def command(self, line):
        self.sock.sendall(line.encode() + b"\n")
        return self.read_prompt()


control = connect(os.path.join(run, "control.sock"))
monitor = None
pending = b""
while True:
    chunk = control.recv(4096)
    if not chunk:
        break
    pending += chunk
    while b"\n" in pending:
        line, pending = pending.split(b"\n", 1)
        words = line.decode(errors="replace").strip().split()
        # SHOT NAME, or SHOT NAME DEVICE: the display device of that QEMU id (a second display).
        if len(words) not in (2, 3) or words[0] != "SHOT" or not all(word.replace("-", "").isalnum() for word in words[1:]):
            print(f"screens: ignoring {line!r}", file=sys.stderr)
            continue
        monitor = monitor or Monitor(os.path.join(run, "monitor.sock"))
        target = os.path.join(run, words[1] + ".ppm")
        answer = monitor.command(f"screendump {target}" + (f" {words[2]}" if len(words) == 3 else ""))
        reply = f"OK {words[1]}" if os.path.exists(target) else f"FAILED {answer.strip()}"
        control.sendall(reply.encode() + b"\n")
