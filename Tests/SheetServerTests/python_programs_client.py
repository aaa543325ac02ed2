"""Four programs on one panel, through the Python client, as an unprivileged user: each a
process of its own (a sheet is its process's), each owns its sheets, the stack decides which
is shown, and what a person does reaches only the owner.

Usage: python_programs_client.py SOCKET

A (navigation, this process) opens a sheet and puts the focus on an item; B (media, a child)
opens one over it; A's calls on B's sheet are refused. Then it prints `person` and waits: B
hears, on its Monitor, the tap a person makes on its item (the test, as root, calls
Focus(activate) as a screen reader's click does); A's Monitor must not hear it, and no byte A
reads may carry B's title or items. B hangs up: A's sheet is back at its detent with its
focus. S opens a system sheet; an app sheet C opens after it waits beneath. Prints `ok NAME`
for each check passed; exits 1 at the first that fails. No sleeps: every wait is a read with
a timeout.
"""
import sys

from sheetd import Client, Item

from programs_support import check, fork, heard, reaped, refused, say

path = sys.argv[1]


class Recording:
    """A socket, every byte it reads kept."""

    def __init__(self, inner):
        self.inner = inner
        self.read = bytearray()

    def recv(self, size):
        chunk = self.inner.recv(size)
        self.read += chunk
        return chunk

    def __getattr__(self, name):
        return getattr(self.inner, name)


class Program:
    """Another program: `body(client, inbox, outbox)` run in a forked child with a Client of its
    own; the parent's connections, inherited, closed there so that they close when the parent
    hangs them up."""

    def __init__(self, body, inherited):
        def close_inherited():
            for client in inherited:
                client._socket.close()

        self.pid, self.inbox, self.outbox = fork(lambda reader, writer: body(Client(path, timeout=30), reader, writer),
                                                 before=close_inherited)

    def said(self):
        return heard(self.inbox)

    def tell(self, value=None):
        say(self.outbox, value)

    def wait(self):
        check("child-exit", reaped(self.pid))


def media_program(b, inbox, outbox):
    """B: opens Media expanded, hears the person's tap on its item, hangs up when told."""
    media = b.open_sheet(title="Media", items=[Item("play", "Play"), Item("next", "Next track")], detent="expanded")
    check("b-own-content", b.get_content()[0].title == "Media")
    say(outbox, media.sheet)
    tap = None
    for update in b.monitor():
        tap = next((event for event in update.events if event.event == "item-tapped"), None)
        if tap is not None:
            break
    check("tap-reaches-b", tap.item == "play" and tap.sheet == media.sheet, f"{tap}")
    say(outbox, update.seq)
    inbox.readline()


def holding_program(title, layer):
    """A program that opens a sheet and holds it until told."""
    def body(client, inbox, outbox):
        sheet = client.open_sheet(title=title, layer=layer)
        say(outbox, sheet.sheet)
        inbox.readline()
    return body


a = Client(path, timeout=30)
a._socket = Recording(a._socket)
navigation = a.open_sheet(title="Navigation", items=[Item("route", "Route home"), Item("stops", "Stops on the way")])
navigation.focus("stops")
# A follows on a second connection of its own; the first still answers its calls.
a_watch = Client(path, timeout=30)
a_watch._socket = Recording(a_watch._socket)
a_updates = a_watch.monitor()
next(a_updates)

b = Program(media_program, [a, a_watch])
media = b.said()
check("ids", navigation.sheet != media and navigation.sheet.startswith("sheet-"), f"{navigation.sheet} {media}")

check("not-owner-set-content", refused(lambda: a.set_content(title="Mine now", sheet=media), "NotOwner"))
check("not-owner-dismiss", refused(lambda: a.dismiss(force=True, sheet=media), "NotOwner"))
check("not-owner-get-content", refused(lambda: a.get_content(sheet=media), "NotOwner"))
check("no-such-sheet", refused(lambda: a.present(sheet="sheet-999"), "NoSuchSheet"))
check("own-content", a.get_content()[0].title == "Navigation")
listed = a.call("ListSheets")["sheets"]
check("a-lists-its-own", [entry["sheet"] for entry in listed] == [navigation.sheet] and listed[0]["command"] == "python3"
      and listed[0]["shown"] is False and listed[0]["presented"] is True, f"{listed}")

# B's sheet shown over A's, resting where B asked.
state = next(a_updates).state
while not (state.sheet == media and state.state == "resting"):
    state = next(a_updates).state
check("b-over-a", state.stack == (navigation.sheet, media) and state.detent == "expanded", f"{state}")
check("a-sees-no-focus-of-b", state.focus is None, f"{state.focus}")

print("person", flush=True)
tap_seq = b.said()
# A reads on to the state that carried the tap (or a newer one): none carries an event.
seen = []
update = next(a_updates)
seen += update.events
while update.seq < tap_seq:
    update = next(a_updates)
    seen += update.events
check("a-hears-nothing-of-b", not seen, f"{seen}")

# B hangs up: its sheet goes, and A's is back where it rested, with its focus.
b.tell()
b.wait()
state = next(a_updates).state
while not (state.sheet == navigation.sheet and state.state == "resting"):
    state = next(a_updates).state
check("a-back", state.detent == "half" and state.stack == (navigation.sheet,) and state.focus == "stops", f"{state}")
for word in (b"Media", b"Next track", b"\"play\"", b"\"next\""):
    check(f"a-never-read-{word.decode().strip(chr(34))}", word not in a._socket.read and word not in a_watch._socket.read)

# A system sheet stays over an app sheet opened after it.
s = Program(holding_program("Staff", "system"), [a, a_watch])
staff = s.said()
c = Program(holding_program("Later", "app"), [a, a_watch])
later = c.said()
state = next(a_updates).state
while not (state.sheet == staff and state.stack == (navigation.sheet, later, staff) and state.state == "resting"):
    state = next(a_updates).state
check("system-over-app", True)
s.tell()
s.wait()
state = next(a_updates).state
while not (state.sheet == later and state.state == "resting"):
    state = next(a_updates).state
check("app-after-system", state.stack == (navigation.sheet, later), f"{state}")
c.tell()
c.wait()
print("done", flush=True)
