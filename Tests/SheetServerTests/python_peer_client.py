"""Clients of other users for the daemon's permission tests (run as root; standard library only).

Usage:
  python3 python_peer_client.py handed SOCKET GID
      A process of `nobody` in group GID connects and exits; another process of `nobody`
      without the group inherits the connection and calls Present. Prints the reply's
      error name, or "ok": the groups that count are those the connection was made with.
  python3 python_peer_client.py nobody SOCKET
      `nobody` connects and calls GetInfo. Prints "ok" or the error name.
"""
import json
import os
import pwd
import socket
import sys


def call(sock, method, parameters=None):
    message = {"method": method, "parameters": parameters or {}}
    sock.sendall(json.dumps(message).encode() + b"\0")
    reply = b""
    while not reply.endswith(b"\0"):
        chunk = sock.recv(65536)
        if not chunk:
            return "closed"
        reply += chunk
    return json.loads(reply[:-1]).get("error") or "ok"


def become_nobody(groups):
    nobody = pwd.getpwnam("nobody")
    os.setgroups(groups)
    os.setgid(nobody.pw_gid)
    os.setuid(nobody.pw_uid)


def handed(path, gid):
    parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    connector = os.fork()
    if connector == 0:
        become_nobody([gid])
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        socket.send_fds(child, [b"x"], [sock.fileno()])
        os._exit(0)
    os.waitpid(connector, 0)
    _, fds, _, _ = socket.recv_fds(parent, 1, 1)
    holder = os.fork()
    if holder == 0:
        become_nobody([])
        sock = socket.socket(fileno=fds[0])
        print(call(sock, "io.sheetd.Sheet.Present", {"detent": "expanded"}), flush=True)
        os._exit(0)
    _, status = os.waitpid(holder, 0)
    return os.waitstatus_to_exitcode(status)


def nobody(path):
    become_nobody([])
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    print(call(sock, "org.varlink.service.GetInfo"), flush=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "handed":
        sys.exit(handed(sys.argv[2], int(sys.argv[3])))
    sys.exit(nobody(sys.argv[2]))
