"""Tests of the sheetd Python client.

Against fake servers on a socket of the test's own: every malformed reply is a ProtocolError
naming the field, daemon errors are SheetdError, follow() lives through a restart. Against the
real daemon when SHEETD_TEST_SOCKET names one (the Swift test PythonClientTests starts it):
typed state, content round trip, the daemon's errors.

    python3 clients/python/tests/test_client.py
"""
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import sheetd  # noqa: E402
from sheetd import (  # noqa: E402
    Client, ConnectionLost, Content, Item, ProtocolError, SheetdError, State, follow,
)

# Another program: SetContent on a sheet it did not open, its error's name printed.
OTHER_PROGRAM = """
import sys
from sheetd import Client, SheetdError
try:
    Client(sys.argv[1], timeout=30).set_content(title="Theirs", sheet=sys.argv[2])
    print("done")
except SheetdError as error:
    print(error.error)
"""

STATE = {
    "state": "resting", "detent": "half", "target": None, "top": 960, "progress": 0.5, "dim": 0.7, "velocity": 0,
    "screen": {"width": 1080, "height": 1920, "scale": 1}, "cause": "initial", "inputActive": False, "reduceMotion": False,
    "detents": [{"name": "expanded", "top": 60}, {"name": "half", "top": 960}, {"name": "hidden", "top": 1920}],
}


class FakeDaemon:
    """A varlink server that answers each call with the next of `replies` (bytes, sent as they
    are, each followed by NUL unless raw), then closes the connection."""

    def __init__(self, path, replies, raw=False):
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(1)
        self.replies, self.raw, self.calls = replies, raw, []
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        connection, _ = self.server.accept()
        with connection:
            try:
                self.answer(connection)
            except OSError:
                pass  # the client went away first, as some tests make it

    def answer(self, connection):
        buffer = b""
        for reply in self.replies:
            while b"\0" not in buffer:
                chunk = connection.recv(65536)
                if not chunk:
                    return
                buffer += chunk
            call, _, buffer = buffer.partition(b"\0")
            self.calls.append(json.loads(call))
            payloads = reply if isinstance(reply, list) else [reply]
            for payload in payloads:
                connection.sendall(payload if self.raw else payload + b"\0")

    def close(self):
        self.thread.join(timeout=10)
        self.server.close()


def reply(parameters):
    return json.dumps({"parameters": parameters}).encode()


class FakeServerTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.folder.name, "io.sheetd.Sheet")

    def tearDown(self):
        self.folder.cleanup()

    def answered(self, *replies, raw=False):
        fake = FakeDaemon(self.path, list(replies), raw=raw)
        self.addCleanup(fake.close)
        return fake

    def test_state_is_typed(self):
        fake = self.answered(reply({"state": STATE}))
        with Client(self.path) as client:
            state = client.get_state()
        self.assertIsInstance(state, State)
        self.assertEqual((state.detent, state.top, state.screen.width, state.input_active), ("half", 960.0, 1080, False))
        self.assertTrue(state.is_idle)
        self.assertEqual(fake.calls, [{"method": "io.sheetd.Sheet.GetState"}])

    def test_a_seat_names_its_daemons_socket(self):
        self.assertEqual(sheetd.seat_socket("seat0"), "/run/sheetd/io.sheetd.Sheet")
        self.assertEqual(sheetd.seat_socket("seat-rear"), "/run/sheetd/seat-rear/io.sheetd.Sheet")
        self.assertEqual(sheetd.socket_path("/tmp/x", seat="seat1"), "/tmp/x", "a path wins")
        for bad in ("seat", "rear", "seat/../x", "seat 1", "", None, 1):
            with self.assertRaises(ValueError):
                sheetd.seat_socket(bad)

    def test_malformed_replies_name_the_field(self):
        cases = [
            (b"not json", "not JSON"),
            (reply({"state": dict(STATE, top="high")}), "state.top is not a finite number"),
            (reply({"state": dict(STATE, state="flying")}), "state.state is 'flying'"),
            (reply({"state": dict(STATE, dim=1.5)}), "state.dim is 1.5"),
            (reply({"state": dict(STATE, screen={"width": 14, "height": 1920, "scale": 1})}), "state.screen is 14x1920"),
            (reply({"state": dict(STATE, detents=[{"name": 3, "top": 0}])}), "state.detents[0].name is not a string"),
            (reply({"state": {k: v for k, v in STATE.items() if k != "inputActive"}}), "state.inputActive is missing"),
            (b'{"error": 7}', "an error that is not a name"),
        ]
        for payload, message in cases:
            with self.subTest(message=message):
                self.answered(payload)
                with Client(self.path) as client, self.assertRaises(ProtocolError) as raised:
                    client.get_state()
                self.assertIn(message, str(raised.exception))
                os.unlink(self.path)

    def test_a_reply_without_end_is_bounded(self):
        self.answered(b"[" * (5 << 20), raw=True)
        with Client(self.path) as client, self.assertRaises(ProtocolError) as raised:
            client.get_state()
        self.assertIn("longer than", str(raised.exception))

    def test_daemon_errors_keep_name_and_parameters(self):
        self.answered(json.dumps({"error": "io.sheetd.Sheet.UnknownDetent",
                                  "parameters": {"detent": "x", "known": ["half"]}}).encode())
        with Client(self.path) as client, self.assertRaises(SheetdError) as raised:
            client.set_detent("x")
        self.assertEqual(raised.exception.error, "io.sheetd.Sheet.UnknownDetent")
        self.assertEqual(raised.exception.parameters["known"], ["half"])

    def test_monitor_reads_events_and_ends_with_the_connection(self):
        update = {"seq": 4, "timestampUSec": 12, "state": STATE,
                  "events": [{"event": "reorder-ended", "item": "b", "order": ["a", "b"]},
                             {"event": "reorder-moved", "item": "b", "from": 1, "to": 0}]}
        self.answered([reply(update), reply(dict(update, seq=5, events=None))])
        with Client(self.path) as client:
            updates = client.monitor()
            first = next(updates)
            self.assertEqual(first.events[0].order, ("a", "b"))
            self.assertEqual((first.events[1].from_, first.events[1].to), (1, 0))
            self.assertEqual(next(updates).events, ())
            with self.assertRaises(ConnectionLost):
                next(updates)

    def test_follow_goes_on_after_a_restart(self):
        self.answered([reply({"seq": 1, "timestampUSec": 1, "state": STATE})])
        updates = follow(self.path, timeout=10)
        self.assertEqual(next(updates).seq, 1)
        # The first daemon is gone; the next one binds the same path.
        os.unlink(self.path)
        self.answered([reply({"seq": 1, "timestampUSec": 2, "state": dict(STATE, detent="expanded")})])
        self.assertEqual(next(updates).state.detent, "expanded")

    def restarted(self, *replies):
        """The daemon gone (its socket's name too) and the next one on the same path."""
        os.unlink(self.path)
        return self.answered(*replies)

    def test_a_call_on_a_closed_connection_is_made_again_on_a_new_one(self):
        self.answered(reply({"state": STATE}))
        client = Client(self.path, timeout=10)
        self.addCleanup(client.close)
        self.assertEqual(client.get_state().detent, "half")
        # That daemon closed the connection (idle, or it stopped); the next call finds another.
        again = self.restarted(reply({}))
        client.set_content(title="Again")
        self.assertEqual(again.calls, [{"method": "io.sheetd.Sheet.SetContent", "parameters": {"title": "Again"}}])

    def test_without_reconnect_a_closed_connection_is_lost(self):
        self.answered(reply({"state": STATE}))
        client = Client(self.path, timeout=10, reconnect=None)
        self.addCleanup(client.close)
        client.get_state()
        with self.assertRaises((ConnectionLost, BrokenPipeError, ConnectionResetError)):
            client.set_content(title="Lost")

    def test_no_daemon_within_reconnect_is_lost(self):
        self.answered(reply({"state": STATE}))
        client = Client(self.path, timeout=10, reconnect=0.2)
        self.addCleanup(client.close)
        client.get_state()
        os.unlink(self.path)
        with self.assertRaises(ConnectionLost):
            client.set_content(title="Nobody")

    def test_an_owned_sheet_is_opened_again_with_its_last_content_and_detent(self):
        self.answered(reply({"sheet": "sheet-1"}), reply({}), reply({}))
        client = Client(self.path, timeout=10)
        self.addCleanup(client.close)
        sheet = client.open_sheet(title="Player", layer="app")
        sheet.set_content(items=[Item("play", "Play")])
        sheet.set_detent("expanded")
        again = self.restarted(reply({"sheet": "sheet-7"}), reply({}))
        sheet.set_content(title="Paused")
        self.assertEqual(sheet.sheet, "sheet-7")
        self.assertEqual(again.calls, [
            {"method": "io.sheetd.Sheet.OpenSheet", "parameters": {
                "title": "Player", "items": [{"id": "play", "label": "Play"}], "layer": "app", "detent": "expanded"}},
            {"method": "io.sheetd.Sheet.SetContent", "parameters": {"title": "Paused", "sheet": "sheet-7"}},
        ])

    def test_events_go_on_after_a_restart_with_the_sheet_opened_again(self):
        owner = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        owner.bind(self.path)
        owner.listen(4)
        self.addCleanup(owner.close)
        tapped = {"seq": 2, "timestampUSec": 2, "state": STATE,
                  "events": [{"event": "item-tapped", "item": "play", "sheet": "sheet-1"}]}
        later = {"seq": 2, "timestampUSec": 3, "state": STATE,
                 "events": [{"event": "item-tapped", "item": "stop", "sheet": "sheet-1"},
                            {"event": "item-tapped", "item": "next", "sheet": "sheet-2"}]}

        def serve(server, answers):
            # The owner's connection first, then the follower's; each answered in turn, then
            # all closed at once, as a daemon that stops closes them.
            connections = []
            for replies in answers:
                connection = server.accept()[0]
                connections.append(connection)
                buffer = b""
                for payload in replies:
                    while b"\0" not in buffer:
                        buffer += connection.recv(65536)
                    _, _, buffer = buffer.partition(b"\0")
                    for part in payload if isinstance(payload, list) else [payload]:
                        connection.sendall(part + b"\0")
            for connection in connections:
                connection.close()

        first = threading.Thread(target=serve, args=(owner, [[reply({"sheet": "sheet-1"})], [[reply(tapped)]]]))
        first.start()
        client = Client(self.path, timeout=10, reconnect=10)
        self.addCleanup(client.close)
        sheet = client.open_sheet(title="Player")
        events = sheet.events()
        self.assertEqual(next(events).item, "play")
        first.join(timeout=10)
        os.unlink(self.path)
        second = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        second.bind(self.path)
        second.listen(4)
        self.addCleanup(second.close)
        # The owner's new connection opens the sheet again (it is sheet-2 now), then the follower's.
        again = threading.Thread(target=serve, args=(second, [[reply({"sheet": "sheet-2"})], [[reply(later)]]]))
        again.start()
        with self.assertLogs("sheetd", "WARNING") as said:
            self.assertEqual(next(events).item, "next")
        self.assertEqual(len(said.output), 1)
        self.assertEqual(sheet.sheet, "sheet-2")
        events.close()
        again.join(timeout=10)

    def test_follow_gives_up_after_its_timeout(self):
        with self.assertRaises(TimeoutError):
            next(follow(self.path, timeout=0.2))


@unittest.skipUnless(os.environ.get("SHEETD_TEST_SOCKET"), "SHEETD_TEST_SOCKET names no running sheetd")
class RealDaemonTests(unittest.TestCase):
    path = os.environ.get("SHEETD_TEST_SOCKET")

    def test_state_content_and_errors(self):
        with Client(self.path, timeout=30) as client:
            state = client.get_state()
            self.assertIn("half", [detent.name for detent in state.detents])
            items = [Item("wifi", "Wi-Fi"), Item("bt", "Bluetooth")]
            client.set_content(title="Settings", items=items, guarded=True)
            content, revision = client.get_content()
            self.assertEqual(content, Content("Settings", tuple(items), True))
            self.assertGreater(revision, 0)
            with self.assertRaises(SheetdError) as raised:
                client.dismiss()
            self.assertEqual(raised.exception.error, "io.sheetd.Sheet.Guarded")
            with self.assertRaises(SheetdError) as raised:
                client.set_content(items=[Item("a", "A"), Item("a", "again")])
            self.assertEqual(raised.exception.parameters.get("parameter"), "items[1].id")
            with self.assertRaises(SheetdError) as raised:
                client.set_detent("nowhere")
            self.assertEqual(raised.exception.error, "io.sheetd.Sheet.UnknownDetent")
            client.dismiss(force=True)
            self.assertEqual(client.get_state().target or client.get_state().detent, "hidden")
            self.assertEqual(client.list_devices(), client.list_devices())

    def test_an_owned_sheet_is_shown_named_and_closed(self):
        with Client(self.path, timeout=30) as program, Client(self.path, timeout=30) as watcher:
            sheet = program.open_sheet(title="Mine", items=[Item("go", "Go")], detent="expanded")
            self.assertTrue(sheet.sheet.startswith("sheet-"))
            self.assertEqual(sheet.get_content()[0].title, "Mine")
            self.assertEqual(program.get_content()[0].title, "Mine", "the caller's topmost sheet")
            # The sheet shown goes down first (the change is a dismissal, then a presentation);
            # then root reads as a renderer does: the sheet shown (a program in the socket's
            # group would read the shared sheet's; ProgramsTests runs programs as such).
            with Client(self.path, timeout=30) as eyes:
                for update in eyes.monitor():
                    if update.state.sheet == sheet.sheet:
                        state = update.state
                        break
            self.assertEqual(watcher.get_content()[0].title, "Mine")
            self.assertEqual((state.sheet, state.stack), (sheet.sheet, (sheet.sheet,)))
            # Another connection of this process is this program: it acts on the sheet.
            watcher.set_content(title="Ours", sheet=sheet.sheet)
            self.assertEqual(sheet.get_content()[0].title, "Ours")
            # Another process is another program, root too (it may only dismiss and close).
            other = subprocess.run([sys.executable, "-c", OTHER_PROGRAM, self.path, sheet.sheet],
                                   env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, capture_output=True, text=True)
            self.assertEqual(other.stdout.strip(), "io.sheetd.Sheet.NotOwner", other.stderr)
            with self.assertRaises(SheetdError) as raised:
                program.open_sheet(layer="middle")
            self.assertEqual(raised.exception.parameters.get("parameter"), "layer")
            sheet.close()
            with self.assertRaises(SheetdError) as raised:
                sheet.present()
            self.assertEqual(raised.exception.error, "io.sheetd.Sheet.NoSuchSheet")
            # Gone down: the shared sheet is shown again, at rest, as the other tests expect it.
            for update in watcher.monitor():
                if update.state.sheet is None and update.state.state == "resting":
                    break

    def test_an_owned_sheet_answers_its_events_while_it_follows_them(self):
        with Client(self.path, timeout=30) as program:
            sheet = program.open_sheet(title="Track 1", items=[Item("next", "Next track")], detent="half")
            # Shown, asked by calls alone; then tapped before anything follows its events.
            while not (program.get_state().sheet == sheet.sheet and program.get_state().is_idle):
                pass
            sheet.focus("next", "activate")
            _, revision = sheet.get_content()
            events = sheet.events()
            tap = next(event for event in events if event.event == "item-tapped")
            self.assertEqual((tap.item, tap.sheet, tap.revision), ("next", sheet.sheet, revision))
            # The answer, while the events' connection streams.
            sheet.set_content(title="Track 2")
            content, answered = sheet.get_content()
            self.assertEqual(content.title, "Track 2")
            self.assertGreater(answered, revision)
            sheet.focus("next", "activate")
            tap = next(event for event in events if event.event == "item-tapped")
            self.assertEqual(tap.revision, answered)
            events.close()

            async def follow_async():
                taps = sheet.aevents()
                # A tap from another thread while the coroutine waits for it.
                await asyncio.to_thread(sheet.focus, "next", "activate")
                async for event in taps:
                    if event.event == "item-tapped":
                        await asyncio.to_thread(sheet.set_content, title="Track 3")
                        return event

            tap = asyncio.run(follow_async())
            self.assertEqual((tap.item, tap.sheet), ("next", sheet.sheet))
            self.assertEqual(sheet.get_content()[0].title, "Track 3")
            sheet.close()
            for update in program.monitor():
                if update.state.sheet is None and update.state.state == "resting":
                    break

    def test_reduce_motion_places_the_card_at_once(self):
        with Client(self.path, timeout=30) as client, Client(self.path, timeout=30) as watcher:
            client.set_content(guarded=False)
            client.set_reduce_motion(True)
            try:
                client.dismiss(force=True)
                updates = watcher.monitor()
                state = next(updates).state
                while not state.is_idle:
                    state = next(updates).state
                self.assertTrue(state.reduce_motion)
                self.assertEqual(state.detent, "hidden")
                expanded = next(d.top for d in state.detents if d.name == "expanded")
                client.present("expanded")
                seen = []
                while not (seen and seen[-1].is_idle):
                    seen.append(next(updates).state)
                # The card is where it goes from the first state on; only the dim moves.
                self.assertEqual({s.top for s in seen}, {expanded})
                dims = [s.dim for s in seen]
                self.assertEqual(dims, sorted(dims))
                self.assertEqual(seen[-1].detent, "expanded")
                self.assertAlmostEqual(seen[-1].dim, 0.7)
            finally:
                client.set_reduce_motion(False)
            self.assertFalse(client.get_state().reduce_motion)

    def test_rich_items_round_trip(self):
        with Client(self.path, timeout=30) as client:
            before, _ = client.get_content()
            items = [Item("wifi", "Wi-Fi", subtitle="Home", icon="network-wireless-symbolic", accessory="toggle", on=True,
                          section="Net"),
                     Item("vpn", "VPN", accessory="value", value="Off", disabled=True),
                     Item("about", "About", accessory="chevron", section="System")]
            try:
                client.set_content(items=items)
                content, _ = client.get_content()
                # The section is written out on every item: VPN is in Net.
                self.assertEqual(content.items, (items[0], Item("vpn", "VPN", accessory="value", value="Off", disabled=True,
                                                                section="Net"), items[2]))
                with self.assertRaises(SheetdError) as raised:
                    client.set_content(items=[Item("x", "X", icon="../../etc/shadow")])
                self.assertEqual(raised.exception.parameters.get("parameter"), "items[0].icon")
            finally:
                client.set_content(title=before.title, items=before.items, guarded=before.guarded)

    def test_appearance_changes_for_every_state_after(self):
        with Client(self.path, timeout=30) as client:
            before = client.get_state().appearance
            client.set_appearance(theme="dark", accent="#e66100", card="#1a1a2e")
            try:
                after = client.get_state().appearance
                self.assertEqual((after.theme, after.accent, after.card, after.text_scale), ("dark", "#e66100", "#1a1a2e", 1.0))
                client.set_appearance(card="theme")
                self.assertIsNone(client.get_state().appearance.card)
                with self.assertRaises(SheetdError) as raised:
                    client.set_appearance(text_scale=9)
                self.assertEqual(raised.exception.parameters.get("parameter"), "textScale")
                state = client.get_state()
                # The 640 pt card on the screen, the dim beside it on a wider one.
                self.assertEqual(state.card.width, min(640 * state.screen.scale, state.screen.width))
                self.assertTrue(0 <= state.card.x and state.card.x + state.card.width <= state.screen.width)
            finally:
                client.set_appearance(theme=before.theme, accent=before.accent, card="theme")
            self.assertEqual(client.get_state().appearance, before)

    def test_presentation_changes_what_the_sheet_takes(self):
        with Client(self.path, timeout=30) as client:
            before = client.get_state().presentation
            client.set_presentation(modal=False, can_close=False)
            try:
                state = client.get_state()
                self.assertEqual((state.presentation.modal, state.presentation.can_close), (False, False))
                self.assertEqual(state.dim, 0)
                self.assertTrue(state.region.y >= 0 and state.region.y + state.region.height <= state.screen.height)
                with self.assertRaises(SheetdError) as raised:
                    client.set_presentation(gestures=("corner",))
                self.assertEqual(raised.exception.parameters.get("parameter"), "gestures")
            finally:
                client.set_presentation(gestures=before.gestures, modal=before.modal, can_close=before.can_close)
            self.assertEqual(client.get_state().presentation, before)

    def test_monitor_starts_with_the_state(self):
        with Client(self.path, timeout=30) as client:
            first = next(client.monitor())
        self.assertGreaterEqual(first.seq, 0)
        self.assertIsInstance(first.state, State)

    def test_stats_count_what_happened(self):
        with Client(self.path, timeout=30) as client:
            stats = client.get_stats()
        self.assertGreater(stats.uptime_usec, 0)
        self.assertEqual(stats.seat, "seat0")
        self.assertGreaterEqual(stats.connections, 1)
        self.assertEqual(len(stats.publish_latency.counts), 11)
        self.assertGreaterEqual(stats.states_published, 1)

    def test_a_paced_monitor_starts_with_the_state_and_refuses_rates_it_cannot_keep(self):
        with Client(self.path, timeout=30) as client:
            first = next(client.monitor(max_rate=60))
        self.assertIsInstance(first.state, State)
        for rate in (0, 1001, 1.5, True):
            with Client(self.path, timeout=30) as client, self.assertRaises(ValueError):
                next(client.monitor(max_rate=rate))


if __name__ == "__main__":
    unittest.main()
