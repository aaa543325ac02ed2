"""Three programs on one panel, through the Python client, as an unprivileged user: each owns
its sheets, the stack decides which is shown, and what a person does reaches only the owner.

Usage: python_programs_client.py SOCKET

A (navigation) opens a sheet and puts the focus on an item; B (media) opens one over it; A's
calls on B's sheet are refused. Then it prints `person` and waits, on B's Monitor, for the tap
a person makes on B's item (the test, as root, calls Focus(activate) as a screen reader's click
does); A's Monitor must not hear it, and no byte A reads may carry B's title or items. B hangs
up: A's sheet is back at its detent with its focus. S opens a system sheet; an app sheet
opened after it waits beneath. Prints `ok NAME` for each check passed; exits 1 at the first
that fails. No sleeps: every wait is a read with a timeout.
"""
import sys

from sheetd import Client, Item, SheetdError

path = sys.argv[1]


class Recording:
    """A's socket, every byte it reads kept."""

    def __init__(self, inner):
        self.inner = inner
        self.read = bytearray()

    def recv(self, size):
        chunk = self.inner.recv(size)
        self.read += chunk
        return chunk

    def __getattr__(self, name):
        return getattr(self.inner, name)


def check(name, condition, detail=""):
    if not condition:
        print(f"FAILED {name}: {detail}", flush=True)
        sys.exit(1)
    print(f"ok {name}", flush=True)


def refused(call, error):
    try:
        call()
    except SheetdError as e:
        return e.error == f"io.sheetd.Sheet.{error}"
    return False


a = Client(path, timeout=30)
a._socket = Recording(a._socket)
navigation = a.open_sheet(title="Navigation", items=[Item("route", "Route home"), Item("stops", "Stops on the way")])
navigation.focus("stops")

b = Client(path, timeout=30)
media = b.open_sheet(title="Media", items=[Item("play", "Play"), Item("next", "Next track")], detent="expanded")
check("ids", navigation.sheet != media.sheet and navigation.sheet.startswith("sheet-"), f"{navigation.sheet} {media.sheet}")

check("not-owner-set-content", refused(lambda: a.set_content(title="Mine now", sheet=media.sheet), "NotOwner"))
check("not-owner-dismiss", refused(lambda: a.dismiss(force=True, sheet=media.sheet), "NotOwner"))
check("not-owner-get-content", refused(lambda: a.get_content(sheet=media.sheet), "NotOwner"))
check("no-such-sheet", refused(lambda: a.present(sheet="sheet-999"), "NoSuchSheet"))
check("own-content", a.get_content()[0].title == "Navigation" and b.get_content()[0].title == "Media")
listed = a.call("ListSheets")["sheets"]
check("a-lists-its-own", [entry["sheet"] for entry in listed] == [navigation.sheet] and listed[0]["command"] == "python3"
      and listed[0]["shown"] is False and listed[0]["presented"] is True, f"{listed}")

# B's sheet shown over A's, resting where B asked.
a_updates = a.monitor()
b_updates = b.monitor()
state = next(a_updates).state
while not (state.sheet == media.sheet and state.state == "resting"):
    state = next(a_updates).state
check("b-over-a", state.stack == (navigation.sheet, media.sheet) and state.detent == "expanded", f"{state}")
check("a-sees-no-focus-of-b", state.focus is None, f"{state.focus}")
# B's Monitor is subscribed (its first state read) before the person taps: a generator sends
# its call only when first asked, and a subscriber hears no event from before it came.
next(b_updates)

print("person", flush=True)
tap = None
while tap is None:
    update = next(b_updates)
    tap = next((event for event in update.events if event.event == "item-tapped"), None)
tap_seq = update.seq
check("tap-reaches-b", tap.item == "play" and tap.sheet == media.sheet, f"{tap}")
# A reads on to the state that carried the tap (or a newer one): none carries an event.
seen = []
update = next(a_updates)
seen += update.events
while update.seq < tap_seq:
    update = next(a_updates)
    seen += update.events
check("a-hears-nothing-of-b", not seen, f"{seen}")

# B hangs up: its sheet goes, and A's is back where it rested, with its focus.
b.close()
state = next(a_updates).state
while not (state.sheet == navigation.sheet and state.state == "resting"):
    state = next(a_updates).state
check("a-back", state.detent == "half" and state.stack == (navigation.sheet,) and state.focus == "stops", f"{state}")
for word in (b"Media", b"Next track", b"\"play\"", b"\"next\""):
    check(f"a-never-read-{word.decode().strip(chr(34))}", word not in a._socket.read)

# A system sheet stays over an app sheet opened after it.
s = Client(path, timeout=30)
staff = s.open_sheet(title="Staff", layer="system")
c = Client(path, timeout=30)
later = c.open_sheet(title="Later")
state = next(a_updates).state
while not (state.sheet == staff.sheet and state.stack == (navigation.sheet, later.sheet, staff.sheet) and state.state == "resting"):
    state = next(a_updates).state
check("system-over-app", True)
s.close()
state = next(a_updates).state
while not (state.sheet == later.sheet and state.state == "resting"):
    state = next(a_updates).state
check("app-after-system", state.stack == (navigation.sheet, later.sheet), f"{state}")
print("done", flush=True)
