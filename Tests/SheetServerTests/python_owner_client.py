"""Who owns a sheet: the process that opened it, not its pid. Run as root (it sets the pid the
next process gets, /proc/sys/kernel/ns_last_pid); the programs drop to users in the socket's
group.

Usage: python_owner_client.py SOCKET

A (uid 65534) opens a sheet, hands its connection to a child G and exits. B, a new process of
the same user, is given A's pid on purpose: it is not A (its start time differs), so its calls
on the sheet are NotOwner and its Monitor hears nothing of it, not even the tap a person makes
meanwhile. C, another user, is refused too. G, holding A's connection, still acts on the sheet
(a connection is its opener's). When G hangs up, A's last connection is gone, and so is the
sheet. Prints `ok NAME` for each check; exits 1 at the first that fails. No sleeps.
"""
import os
import sys

from sheetd import Client, Item

from programs_support import check, fork as child, heard, reaped, refused, say

path = sys.argv[1]
USERS = 100


def become(uid):
    os.setgroups([USERS])
    os.setgid(uid)
    os.setuid(uid)


# G's pipes, made here so that A's child G inherits them.
g_down_read, g_down_write = os.pipe()
g_up_read, g_up_write = os.pipe()


# A: opens the sheet, gives its connection to G, exits.
def program_a(reader, writer):
    become(65534)
    a = Client(path, timeout=30)
    sheet = a.open_sheet(title="Tickets", items=[Item("buy", "Buy a ticket")])
    g = os.fork()
    if g == 0:
        # G: A's connection, inherited. Acts when told, then hangs up when told.
        g_reader, g_writer = os.fdopen(g_down_read), os.fdopen(g_up_write, "w")
        try:
            heard(g_reader)
            a.set_content(title="Tickets (from G)", sheet=sheet.sheet)
            say(g_writer, "acted")
            heard(g_reader)
        finally:
            a.close()
            os._exit(0)
    say(writer, {"sheet": sheet.sheet, "pid": os.getpid()})


a_pid, a_reader, _ = child(program_a)
os.close(g_down_read)
os.close(g_up_write)
g_reader, g_writer = os.fdopen(g_up_read), os.fdopen(g_down_write, "w")
opened = heard(a_reader)
sheet = opened["sheet"]
check("a-exits", reaped(a_pid) and opened["pid"] == a_pid)

# B: a new process of the same user, given A's pid.
b_pid = None
for attempt in range(20):
    with open("/proc/sys/kernel/ns_last_pid", "w") as last:
        last.write(str(a_pid - 1))

    def program_b(reader, writer):
        if os.getpid() != a_pid:
            os._exit(7)  # another process took the pid first: tried again
        become(65534)
        b = Client(path, timeout=30)
        watch = Client(path, timeout=30)
        updates = watch.monitor()
        first = next(updates)
        check("b-first-state-has-nothing-of-a", not first.events, f"{first.events}")
        check("b-not-owner-set-content", refused(lambda: b.set_content(title="Mine", sheet=sheet), "NotOwner"))
        check("b-not-owner-get-content", refused(lambda: b.get_content(sheet=sheet), "NotOwner"))
        check("b-not-owner-close", refused(lambda: b.call("CloseSheet", sheet=sheet), "NotOwner"))
        check("b-lists-nothing", b.call("ListSheets")["sheets"] == [])
        say(writer, "ready")
        seq = heard(reader)
        events = []
        update = next(updates)
        events += update.events
        while update.seq < seq:
            update = next(updates)
            events += update.events
        check("b-hears-nothing-of-the-tap", not events, f"{events}")
        say(writer, "done")

    pid, b_reader, b_writer = child(program_b)
    if pid == a_pid:
        b_pid = pid
        break
    os.waitpid(pid, 0)
check("b-has-a-pid", b_pid == a_pid, f"A {a_pid}")
check("b-ready", heard(b_reader) == "ready")

# A person taps the sheet's item (root's Focus, as a screen reader's click on the sheet shown).
person = Client(path, timeout=30)
watch = person.monitor()
state = next(watch).state
while not (state.sheet == sheet and state.state == "resting"):
    state = next(watch).state
click = Client(path, timeout=30)
click.focus("buy", "activate")
tap = None
while tap is None:
    update = next(watch)
    tap = next((event for event in update.events if event.event == "item-tapped"), None)
check("the-person-tapped", tap.sheet == sheet and tap.item == "buy", f"{tap}")
say(b_writer, update.seq)
check("b-done", heard(b_reader) == "done" and reaped(b_pid))

# C: another user.
def program_c(reader, writer):
    become(65533)
    c = Client(path, timeout=30)
    check("c-not-owner", refused(lambda: c.set_content(title="Mine", sheet=sheet), "NotOwner"))


c_pid, _, _ = child(program_c)
check("c-done", reaped(c_pid))

# G, another process holding A's connection, acts as A: the connection is its opener's.
say(g_writer, "act")
check("g-acted", heard(g_reader) == "acted")
person_calls = Client(path, timeout=30)
check("g-content-shown", person_calls.get_content(sheet=sheet)[0].title == "Tickets (from G)")
# G hangs up A's last connection: the sheet goes.
say(g_writer, "hang up")
state = next(watch).state
while state.stack:
    state = next(watch).state
check("a-gone-sheet-gone", person_calls.call("ListSheets")["sheets"] == [])
print("done", flush=True)
