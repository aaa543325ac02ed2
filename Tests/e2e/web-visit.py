#!/usr/bin/python3
"""A visit to the web renderer of the as-installed VM, as its browser would make it: the page's
module (GET /sheetd.js) and the sheet's WebSocket with the allowed Origin (examples' web.conf:
http://127.0.0.1:8080), its first message read. Prints one JSON object: the module's status,
the upgrade's status, and the first state's detent (or null). Run as a user (runuser -u USER):
the renderer answers by whose connection it is.

Usage: web-visit.py [HOST:PORT]   (default 127.0.0.1:7300, web.conf's)
"""
import base64
import json
import os
import socket
import struct
import sys

host, port = (sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:7300").rsplit(":", 1)
ORIGIN = "http://127.0.0.1:8080"


def request(path, extra=""):
    sock = socket.create_connection((host, int(port)), timeout=60)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nOrigin: {ORIGIN}\r\n{extra}\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else None
    return sock, status, rest


def frames(sock, pending):
    """The next unmasked server frame's payload and what was read past it."""
    def need(count):
        nonlocal pending
        while len(pending) < count:
            chunk = sock.recv(65536)
            if not chunk:
                raise EOFError("closed")
            pending += chunk
    need(2)
    length = pending[1] & 0x7F
    offset = 2
    if length == 126:
        need(4)
        length, offset = struct.unpack(">H", pending[2:4])[0], 4
    elif length == 127:
        need(10)
        length, offset = struct.unpack(">Q", pending[2:10])[0], 10
    need(offset + length)
    payload, pending = pending[offset:offset + length], pending[offset + length:]
    return payload, pending


module_socket, module, _ = request("/sheetd.js", "Connection: close\r\n")
module_socket.close()
key = base64.b64encode(os.urandom(16)).decode()
upgrade_socket, upgrade, rest = request(
    "/socket", f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n")
detent = None
if upgrade == 101:
    # The content comes first, then the state.
    for _ in range(8):
        payload, rest = frames(upgrade_socket, rest)
        message = json.loads(payload)
        if "state" in message:
            detent = message["state"].get("detent")
            break
upgrade_socket.close()
print(json.dumps({"module": module, "upgrade": upgrade, "detent": detent}))
