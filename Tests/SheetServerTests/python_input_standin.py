"""A stand-in for sheetd's io.sheetd.Input socket, for a test of what a feeder sends: it listens
on the path given, says "listening", answers every call (OpenDevice and OpenKeys with device ids
from 1), and prints each call it gets as one line of JSON, before its answer."""
import json
import socket
import sys

server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(sys.argv[1])
server.listen(1)
print("listening", flush=True)
devices = 0
while True:
    connection, _ = server.accept()
    pending = b""
    while data := connection.recv(65536):
        pending += data
        while b"\0" in pending:
            message, pending = pending.split(b"\0", 1)
            call = json.loads(message)
            print(json.dumps(call, sort_keys=True), flush=True)
            reply = {}
            if call["method"] in ("io.sheetd.Input.OpenDevice", "io.sheetd.Input.OpenKeys"):
                devices += 1
                reply = {"device": devices}
            connection.sendall(json.dumps({"parameters": reply}).encode() + b"\0")
    connection.close()
