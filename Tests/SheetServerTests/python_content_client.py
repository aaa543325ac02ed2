"""The Python `varlink` package (PyPI) sets and reads the sheet's content on a running sheetd.

Usage: python3 python_content_client.py SOCKET
Prints one `... ok` line per check; exits non-zero on the first surprise.
"""
import sys

import varlink

address = "unix:" + sys.argv[1]
items = [{"id": "wifi", "label": "Wi-Fi"}, {"id": "bt", "label": "Bluetooth"}, {"id": "vpn", "label": "VPN"}]
with varlink.Client(address=address) as client, client.open("io.sheetd.Sheet") as sheet:
    sheet.SetContent(title="Settings", items=items, guarded=False)
    content = sheet.GetContent()["content"]
    assert content == {"title": "Settings", "items": items, "guarded": False, "lang": ""}, content
    print("SetContent/GetContent ok")

    # Bad content is refused, naming the field and the index, and changes nothing.
    for bad, parameter in [
        ([{"id": "a", "label": "A"}, {"id": "a", "label": "again"}], "items[1].id"),
        ([{"id": "", "label": "empty"}], "items[0].id"),
        ([{"id": "x" * 65, "label": "long id"}], "items[0].id"),
        ([{"id": "ok", "label": "y" * 257}], "items[0].label"),
        ([{"id": str(n), "label": ""} for n in range(1025)], "items"),
    ]:
        try:
            sheet.SetContent(items=bad)
            raise AssertionError("accepted %s" % parameter)
        except varlink.VarlinkError as error:
            assert error.error() == "org.varlink.service.InvalidParameter", error.error()
            assert error.parameters()["parameter"] == parameter, error.parameters()
    try:
        sheet.SetContent(title="t" * 257)
        raise AssertionError("accepted a long title")
    except varlink.VarlinkError as error:
        assert error.parameters()["parameter"] == "title", error.parameters()
    assert sheet.GetContent()["content"] == content
    print("bad content refused ok")

    # Only the guard: the items and title stay.
    sheet.SetContent(guarded=True)
    assert sheet.GetContent()["content"]["items"] == items
    try:
        sheet.Dismiss()
        raise AssertionError("a guarded sheet was dismissed")
    except varlink.VarlinkError as error:
        assert error.error() == "io.sheetd.Sheet.Guarded", error.error()
    assert sheet.GetState()["state"]["detent"] == "half"
    print("guarded Dismiss refused ok")

    replies = sheet.Monitor(_more=True)
    first = next(replies)
    assert first["state"]["list"]["scroll"] == 0, first
    with client.open("io.sheetd.Sheet") as control:
        control.Dismiss(force=True)
    for reply in replies:
        if reply["state"]["state"] == "resting" and reply["state"]["detent"] == "hidden":
            print("forced Dismiss ok")
            break
