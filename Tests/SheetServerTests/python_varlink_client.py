"""The Python `varlink` package (PyPI) against a running sheetd: GetInfo, GetState, Monitor.

Usage: python3 python_varlink_client.py SOCKET
Prints one `... ok` line per call; exits non-zero on the first surprise.
"""
import sys

import varlink

address = "unix:" + sys.argv[1]
with varlink.Client(address=address) as client:
    with client.open("org.varlink.service") as service:
        info = service.GetInfo()
        assert info["product"] == "sheetd", info
        assert "io.sheetd.Sheet" in info["interfaces"], info
        print("GetInfo ok")
    # open() fetches and parses the interface description, so the IDL must be valid varlink.
    with client.open("io.sheetd.Sheet") as sheet, client.open("io.sheetd.Sheet") as control:
        state = sheet.GetState()["state"]
        print("GetState ok: %s %s" % (state["state"], state["detent"]))
        replies = sheet.Monitor(_more=True)
        first = next(replies)
        assert first["state"]["detent"] == "half", first
        control.Present(detent="expanded")
        for reply in replies:
            state = reply["state"]
            if state["state"] == "resting" and state["detent"] == "expanded":
                print("Monitor ok: resting expanded (seq %d)" % reply["seq"])
                break
