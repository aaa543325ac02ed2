"""The connection: varlink over a Unix socket (JSON messages ended by a NUL byte)."""
from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import socket
import threading
import time
from typing import Any, AsyncIterator, Dict, Iterable, Iterator, Optional, Tuple

from .types import Content, Device, Event, Item, ProtocolError, State, Stats, Update, _list, _object, _reader

INTERFACE = "io.sheetd.Sheet"
DEFAULT_SOCKET = "/run/sheetd/io.sheetd.Sheet"
#: The longest message read: a GetContent of 1,024 items is about 330 KB.
MAX_MESSAGE_BYTES = 4 << 20
#: How long a call on a connection the daemon closed waits for a daemon to make it again.
RECONNECT_SECONDS = 30.0
#: How often the socket is tried meanwhile.
RETRY_SECONDS = 0.05

_log = logging.getLogger("sheetd")


class SheetdError(Exception):
    """An error the daemon answered with: `error` is its name
    (io.sheetd.Sheet.Guarded, org.varlink.service.InvalidParameter…), `parameters` its details."""

    def __init__(self, method: str, error: str, parameters: Dict[str, Any]):
        super().__init__(f"{method}: {error} {json.dumps(parameters, sort_keys=True) if parameters else ''}".rstrip())
        self.method = method
        self.error = error
        self.parameters = parameters


class ConnectionLost(ConnectionError):
    """The daemon closed the connection (it stopped or restarted)."""


#: A seat's name, as logind names them: `seat`, then letters, digits, - or _.
_SEAT = re.compile(r"seat[A-Za-z0-9_-]{1,60}")


def seat_socket(seat: str) -> str:
    """The socket of the daemon of `seat` (sheetd --seat): /run/sheetd/SEAT/io.sheetd.Sheet, and
    seat0's /run/sheetd/io.sheetd.Sheet. A name that is not a seat's raises ValueError."""
    if not isinstance(seat, str) or not _SEAT.fullmatch(seat):
        raise ValueError(f"seat wants a seat's name (seat0, seat1, seat-rear); got {seat!r}")
    return DEFAULT_SOCKET if seat == "seat0" else f"/run/sheetd/{seat}/io.sheetd.Sheet"


def socket_path(path: Optional[str] = None, seat: Optional[str] = None) -> str:
    """`path`, else the socket of `seat` (seat_socket), else $SHEETD_SOCKET, else
    /run/sheetd/io.sheetd.Sheet."""
    if path:
        return path
    if seat is not None:
        return seat_socket(seat)
    return os.environ.get("SHEETD_SOCKET") or DEFAULT_SOCKET


def _reply(method: str, message: bytes) -> Dict[str, Any]:
    """A reply's parameters, checked: not JSON or not an object is a ProtocolError, an error
    the daemon answered with a SheetdError."""
    try:
        reply = json.loads(message)
    except (ValueError, UnicodeDecodeError) as error:
        raise ProtocolError(f"{method}: a reply that is not JSON ({error})") from None
    reply = _object(reply, f"{method} reply")
    if "error" in reply:
        if not isinstance(reply["error"], str):
            raise ProtocolError(f"{method}: an error that is not a name: {reply['error']!r}")
        raise SheetdError(method, reply["error"], _object(reply.get("parameters") or {}, f"{method} error parameters"))
    return _object(reply.get("parameters") or {}, f"{method} reply parameters")


class Client:
    """One connection to the daemon. Calls block; `timeout` (seconds) bounds each read. A
    call at a time: threads that share a Client take turns. Monitor takes the connection
    over: use a Client for it alone (or `follow`, or OwnedSheet.events, which opens its own).

    A program that runs for days: the daemon closes a connection that made no call for its
    client-idle-timeout (10 s), and a restart closes them all. A call that finds its connection
    closed opens a new one (waiting up to `reconnect` seconds for a daemon) and is made again
    there, once; the program's own sheets are opened again first, with their last content and
    detent (OwnedSheet.sheet names the new one). `reconnect=None`: a closed connection raises
    ConnectionLost, as a call in progress when the daemon went may have been carried out."""

    def __init__(self, path: Optional[str] = None, timeout: Optional[float] = None, seat: Optional[str] = None,
                 reconnect: Optional[float] = RECONNECT_SECONDS):
        """`seat`: the daemon of that seat (its sockets in /run/sheetd/SEAT/); `path` wins."""
        self.path = socket_path(path, seat)
        self.timeout = timeout
        self.reconnect = reconnect
        self._lock = threading.RLock()
        self._owned: list = []
        self._socket = self._connect()
        self._buffer = bytearray()

    def _connect(self) -> socket.socket:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.settimeout(self.timeout)
        try:
            connection.connect(self.path)
        except OSError:
            connection.close()
            raise
        return connection

    def close(self) -> None:
        self._socket.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def closed_by_daemon(self) -> bool:
        """Whether the daemon closed this connection (idle, stopped or restarted); reads nothing."""
        try:
            return self._socket.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return True

    def resume(self) -> bool:
        """A new connection if the daemon closed this one, the program's sheets opened again on
        it; whether one was made. Calls do this themselves; OwnedSheet.events does it after a
        restart, so that the sheet is back before its events are followed again."""
        with self._lock:
            if not self.closed_by_daemon():
                return False
            self._reopen(None)
            return True

    def _reopen(self, lost: Optional[BaseException]) -> None:
        """Replaces the closed connection, waiting up to `reconnect` seconds for a daemon."""
        if self.reconnect is None:
            raise ConnectionLost(f"{self.path}: the daemon closed the connection") from lost
        self._socket.close()
        self._buffer.clear()
        deadline = time.monotonic() + self.reconnect
        while True:
            try:
                self._socket = self._connect()
                break
            except (FileNotFoundError, ConnectionRefusedError):
                if time.monotonic() > deadline:
                    raise ConnectionLost(f"{self.path}: no daemon within {self.reconnect} s to make the call again") from lost
                time.sleep(RETRY_SECONDS)
        for owned in self._owned:
            owned._open_again()

    def _call(self, method: str, parameters: Dict[str, Any]) -> Dict[str, Any]:
        """One call and its reply; on a connection the daemon had closed, once more on a new one."""
        with self._lock:
            try:
                self._send(method, parameters)
                return self._read(method)
            except (BrokenPipeError, ConnectionResetError, ConnectionLost) as lost:
                if self.reconnect is None:
                    raise
                self._reopen(lost)
                sheet = parameters.get("sheet")
                renamed = next((owned.sheet for owned in self._owned if sheet in owned._names), None)
                if renamed is not None:
                    parameters = dict(parameters, sheet=renamed)
                self._send(method, parameters)
                return self._read(method)

    # The wire.

    def _send(self, method: str, parameters: Dict[str, Any], more: bool = False) -> None:
        call: Dict[str, Any] = {"method": f"{INTERFACE}.{method}"}
        if parameters:
            call["parameters"] = parameters
        if more:
            call["more"] = True
        self._socket.sendall(json.dumps(call, separators=(",", ":")).encode() + b"\0")

    def _read(self, method: str) -> Dict[str, Any]:
        while True:
            end = self._buffer.find(0)
            if end >= 0:
                message = bytes(self._buffer[:end])
                del self._buffer[:end + 1]
                break
            if len(self._buffer) > MAX_MESSAGE_BYTES:
                raise ProtocolError(f"{method}: a reply longer than {MAX_MESSAGE_BYTES} bytes")
            chunk = self._socket.recv(65536)
            if not chunk:
                raise ConnectionLost(f"{method}: {self.path} closed the connection")
            self._buffer += chunk
        return _reply(method, message)

    def call(self, method: str, **parameters: Any) -> Dict[str, Any]:
        """io.sheetd.Sheet.METHOD with `parameters` (those that are None left out); the reply's parameters."""
        return self._call(method, {name: value for name, value in parameters.items() if value is not None})

    # The interface. The calls that take `sheet` act on that sheet of this connection's
    # (open_sheet); without it, on this connection's topmost sheet, else the shared sheet.

    def open_sheet(self, title: Optional[str] = None, items: Optional[Iterable[Item]] = None,
                   guarded: Optional[bool] = None, lang: Optional[str] = None, layer: Optional[str] = None,
                   detent: Optional[str] = None) -> "OwnedSheet":
        """A sheet of this program's own, presented at `detent` over the others of its layer
        (`app`, or `system` over every app sheet). It is the process's: every connection of
        this process may act on it and hear its events (OwnedSheet.events follows them on a
        connection of its own while this one makes the calls); no other program may. It
        closes with OwnedSheet.close, or when the process's last connection closes."""
        opened = OwnedSheet(self, "")
        opened._last = {"title": title, "items": None if items is None else [item.to_json() for item in items],
                        "guarded": guarded, "lang": lang, "layer": layer, "detent": detent}
        with self._lock:
            opened._open_again()
        return opened

    def _open_sheet(self, parameters: Dict[str, Any]) -> str:
        """OpenSheet on this connection as it is (a resumed one opens its sheets with this)."""
        self._send("OpenSheet", {name: value for name, value in parameters.items() if value is not None})
        sheet = self._read("OpenSheet").get("sheet")
        if not isinstance(sheet, str):
            raise ProtocolError(f"OpenSheet: sheet is not a string: {sheet!r}")
        return sheet

    def get_state(self) -> State:
        return State.from_json(_object(self.call("GetState").get("state"), "state"))

    def get_content(self, sheet: Optional[str] = None) -> Tuple[Content, int]:
        """What the sheet holds (items in the list's order) and that order's revision."""
        reply = self.call("GetContent", sheet=sheet)
        content = Content.from_json(_object(reply.get("content"), "content"))
        revision = reply.get("revision")
        if isinstance(revision, bool) or not isinstance(revision, int):
            raise ProtocolError(f"GetContent: revision is not an integer: {revision!r}")
        return content, revision

    def set_content(self, title: Optional[str] = None, items: Optional[Iterable[Item]] = None,
                    guarded: Optional[bool] = None, lang: Optional[str] = None, sheet: Optional[str] = None) -> None:
        """Replaces what is given; what is left out stays. New items reset the order."""
        self.call("SetContent", title=title, items=None if items is None else [item.to_json() for item in items], guarded=guarded,
                  lang=lang, sheet=sheet)

    def present(self, detent: Optional[str] = None, sheet: Optional[str] = None) -> None:
        self.call("Present", detent=detent, sheet=sheet)

    def dismiss(self, force: bool = False, sheet: Optional[str] = None) -> None:
        """Hides the sheet; a guarded one only with force (SheetdError io.sheetd.Sheet.Guarded otherwise)."""
        self.call("Dismiss", force=force or None, sheet=sheet)

    def set_detent(self, detent: str, sheet: Optional[str] = None) -> None:
        self.call("SetDetent", detent=detent, sheet=sheet)

    def focus(self, element: Optional[str] = None, command: Optional[str] = None, sheet: Optional[str] = None) -> None:
        """The focus on an item (by id) or "close", then a key map command ("activate",
        "back", "next", ...) as a person's key: what an assistive technology's focus and
        click do. An element that cannot take the focus raises CannotFocus's error."""
        self.call("Focus", element=element, command=command, sheet=sheet)

    def set_reduce_motion(self, enabled: bool) -> None:
        """Reduced motion on or off: the card placed at once, the dim cross-faded."""
        self.call("SetReduceMotion", enabled=enabled)

    def set_appearance(self, theme: Optional[str] = None, accent: Optional[str] = None, font: Optional[str] = None,
                       text_scale: Optional[object] = None, card: Optional[str] = None, dim: Optional[str] = None,
                       corner_radius: Optional[float] = None) -> None:
        """Changes how the sheet looks; what is left out stays. card or dim "theme": the theme's
        colour again; text_scale "auto": each renderer's (a desktop session's text scaling)."""
        parameters = {"theme": theme, "accent": accent, "font": font, "cornerRadius": corner_radius}
        parameters = {name: value for name, value in parameters.items() if value is not None}
        if text_scale is not None:
            parameters["textScale"] = None if text_scale == "auto" else text_scale
        for name, value in (("card", card), ("dim", dim)):
            if value is not None:
                parameters[name] = None if value == "theme" else value
        self._call("SetAppearance", parameters)

    def set_presentation(self, gestures: Optional[Tuple[str, ...]] = None, edge_band: Optional[float] = None,
                         bar_height: Optional[float] = None, modal: Optional[bool] = None,
                         can_open: Optional[bool] = None, can_close: Optional[bool] = None,
                         touch_exploration: Optional[bool] = None, speech: Optional[str] = None,
                         speech_rate: Optional[int] = None, speech_volume: Optional[int] = None) -> None:
        """Changes how the sheet opens, closes and shares the screen; what is left out stays.
        gestures: a tuple of edge-swipe and bottom-bar, empty for none. touch_exploration:
        explore by touch, for a person who cannot see the screen. speech: "off", "on" or
        "headset" (while headphones are plugged); speech_rate and speech_volume: -100 to 100."""
        parameters = {"gestures": list(gestures) if gestures is not None else None, "edgeBand": edge_band,
                      "barHeight": bar_height, "modal": modal, "canOpen": can_open, "canClose": can_close,
                      "touchExploration": touch_exploration, "speech": speech, "speechRate": speech_rate,
                      "speechVolume": speech_volume}
        self._call("SetPresentation", {name: value for name, value in parameters.items() if value is not None})

    def set_screen(self, width: int, height: int, scale: Optional[float] = None) -> None:
        self.call("SetScreen", width=width, height=height, scale=scale)

    def list_devices(self) -> Tuple[Device, ...]:
        return _list(_reader(Device))(self.call("ListDevices").get("devices"), "devices")

    def get_stats(self) -> Stats:
        """What the daemon counted since it started: frames per device, gestures, states
        published and missed, subscribers, reloads, the frame-to-publish latency."""
        return Stats.from_json(_object(self.call("GetStats").get("stats"), "stats"))

    def monitor(self, max_rate: Optional[int] = None) -> Iterator[Update]:
        """The state at once, then one update per change, until the daemon goes (ConnectionLost).
        `max_rate`: at most that many states a second (1 to 1000), the newest each time; a state
        that carries an event is never held back, and one in which only a gesture under way
        moved (the sheet as before) is not sent on its own."""
        if max_rate is not None and (isinstance(max_rate, bool) or not isinstance(max_rate, int) or not 1 <= max_rate <= 1000):
            raise ValueError(f"max_rate wants a whole number from 1 to 1000; got {max_rate!r}")
        self._send("Monitor", {} if max_rate is None else {"maxRate": max_rate}, more=True)
        while True:
            yield Update.from_json(self._read("Monitor"))


class OwnedSheet:
    """A sheet a program opened (Client.open_sheet): the calls on it name it, and its events
    are its program's alone. Follow them (events, or aevents under asyncio) and answer each
    with the calls here: the events come on a connection of their own, the calls go on the
    Client's. No event is lost between opening and following: the daemon holds a sheet's
    events (64 at most) while none of its program's connections follows. It closes with
    close(), or when the program's last connection closes.

    When the daemon restarts, the sheet goes with it; the Client opens it again on the new
    daemon with what it last held and at its last detent (`sheet` then names the new one), at
    its next call or when events() finds the daemon back."""

    def __init__(self, client: Client, sheet: str):
        self.client = client
        self.sheet = sheet
        self._names = {sheet} if sheet else set()
        self._follower: Optional[Client] = None
        # What OpenSheet would need to make it again: the content and detent last asked for.
        self._last: Dict[str, Any] = {}
        self._dismissed = False

    def _open_again(self) -> None:
        """OpenSheet with the last content and detent, on the client's connection as it is."""
        self.sheet = self.client._open_sheet(self._last)
        self._names.add(self.sheet)
        if self not in self.client._owned:
            self.client._owned.append(self)
        if self._dismissed:
            self.client._send("Dismiss", {"sheet": self.sheet, "force": True})
            self.client._read("Dismiss")

    def set_content(self, title: Optional[str] = None, items: Optional[Iterable[Item]] = None,
                    guarded: Optional[bool] = None, lang: Optional[str] = None) -> None:
        items = None if items is None else list(items)
        self.client.set_content(title=title, items=items, guarded=guarded, lang=lang, sheet=self.sheet)
        given = {"title": title, "items": None if items is None else [item.to_json() for item in items],
                 "guarded": guarded, "lang": lang}
        self._last.update((name, value) for name, value in given.items() if value is not None)

    def get_content(self) -> Tuple[Content, int]:
        return self.client.get_content(sheet=self.sheet)

    def present(self, detent: Optional[str] = None) -> None:
        self.client.present(detent, sheet=self.sheet)
        self._dismissed = False
        if detent is not None:
            self._last["detent"] = detent

    def dismiss(self, force: bool = False) -> None:
        self.client.dismiss(force, sheet=self.sheet)
        self._dismissed = True

    def set_detent(self, detent: str) -> None:
        self.client.set_detent(detent, sheet=self.sheet)
        self._last["detent"] = detent

    def focus(self, element: Optional[str] = None, command: Optional[str] = None) -> None:
        self.client.focus(element, command, sheet=self.sheet)

    def close(self) -> None:
        """Closes the sheet (dismissed, animated, when shown); the one beneath comes back. Its
        events' connection closes too."""
        try:
            if self in self.client._owned:
                self.client._owned.remove(self)
            self.client.call("CloseSheet", sheet=self.sheet)
        finally:
            if self._follower is not None:
                self._follower.close()
                self._follower = None

    def events(self, max_rate: Optional[int] = None) -> Iterator[Event]:
        """This sheet's events as they come, from the first after it opened, on a connection
        of their own (a Monitor): the calls on the sheet work meanwhile, from the loop that
        reads them or another thread. When the daemon restarts, it waits for the next (the
        client's `reconnect` seconds), opens the sheet again there (Client.resume) and goes on;
        what happened in between is gone, and a warning on the `sheetd` logger says so. Ends
        with ConnectionLost when no daemon came back, or at once with `reconnect=None`;
        close() the generator to stop following (events come to the program's other followers,
        or wait for its next)."""
        while True:
            follower = Client(self.client.path, timeout=None)
            self._follower = follower
            try:
                for update in follower.monitor(max_rate):
                    for event in update.events:
                        if event.sheet == self.sheet:
                            yield event
            except (ConnectionLost, ConnectionResetError) as lost:
                self._follow_the_next_daemon(lost)
            finally:
                # Closed (the generator's close(), or its end): the connection goes with it.
                follower.close()
                if self._follower is follower:
                    self._follower = None

    async def aevents(self, max_rate: Optional[int] = None) -> AsyncIterator[Event]:
        """events() for asyncio: `async for event in sheet.aevents()`, across restarts as
        events() goes. The calls block for one round trip on a local socket; from a coroutine
        that must not, use `await asyncio.to_thread(sheet.set_content, ...)`."""
        if max_rate is not None and (isinstance(max_rate, bool) or not isinstance(max_rate, int) or not 1 <= max_rate <= 1000):
            raise ValueError(f"max_rate wants a whole number from 1 to 1000; got {max_rate!r}")
        call: Dict[str, Any] = {"method": f"{INTERFACE}.Monitor", "more": True}
        if max_rate is not None:
            call["parameters"] = {"maxRate": max_rate}
        while True:
            reader, writer = await asyncio.open_unix_connection(self.client.path, limit=MAX_MESSAGE_BYTES)
            try:
                writer.write(json.dumps(call, separators=(",", ":")).encode() + b"\0")
                await writer.drain()
                while True:
                    try:
                        message = await reader.readuntil(b"\0")
                    except asyncio.IncompleteReadError:
                        raise ConnectionLost(f"Monitor: {self.client.path} closed the connection") from None
                    except asyncio.LimitOverrunError:
                        raise ProtocolError(f"Monitor: a reply longer than {MAX_MESSAGE_BYTES} bytes") from None
                    for event in Update.from_json(_reply("Monitor", message[:-1])).events:
                        if event.sheet == self.sheet:
                            yield event
            except (ConnectionLost, ConnectionResetError) as lost:
                await asyncio.to_thread(self._follow_the_next_daemon, lost)
            finally:
                writer.close()

    def _follow_the_next_daemon(self, lost: BaseException) -> None:
        """After the follower's daemon went (`lost`, raised again with `reconnect=None`): said
        once, then its connection to the owner closed too, a new daemon, the sheet opened again
        there (within the client's `reconnect` seconds)."""
        if self.client.reconnect is None:
            raise lost
        _log.warning("%s: the daemon went; following it again, the events until then are lost", self.client.path)
        deadline = time.monotonic() + self.client.reconnect
        while not self.client.closed_by_daemon():
            if time.monotonic() > deadline:
                raise ConnectionLost(f"{self.client.path}: the daemon went, the sheet's connection stayed") from lost
            time.sleep(RETRY_SECONDS)
        self.client.resume()


def follow(path: Optional[str] = None, retry_seconds: float = 0.05, timeout: Optional[float] = None,
           max_rate: Optional[int] = None, seat: Optional[str] = None) -> Iterator[Update]:
    """Monitor that lives through restarts: waits for the socket, follows the daemon, and when it
    goes, waits for the next one (retrying every `retry_seconds`) and goes on with its current
    state. `timeout` (seconds) bounds the wait for a daemon, then raises TimeoutError.
    `max_rate` paces the stream as `Client.monitor` does.
    Protocol errors and errors the daemon answers with are raised, not retried. `seat`: as for
    Client."""
    path = socket_path(path, seat)
    waiting_since = time.monotonic()
    while True:
        try:
            client = Client(path)
        except (FileNotFoundError, ConnectionRefusedError):
            if timeout is not None and time.monotonic() - waiting_since > timeout:
                raise TimeoutError(f"no sheetd on {path} within {timeout} s") from None
            time.sleep(retry_seconds)
            continue
        with client:
            try:
                for update in client.monitor(max_rate):
                    yield update
            except (ConnectionLost, ConnectionResetError):
                _log.warning("%s: the daemon went; following the next one, the events until then are lost", path)
                waiting_since = time.monotonic()
