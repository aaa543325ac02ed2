#!/usr/bin/env python3
"""<sheet-view> in a real browser: Debian's chromium driven by Playwright (its own browser never
downloaded), against a running sheetd and `sheet-render --backend web`. Each check prints
`ok ...` or ends the script with `FAIL ...`; every wait is for a state of the page or of the
daemon (Playwright's waits, bounded), never for a time.

Usage: web_page_check.py check|bench SHEETCTL SOCKET MODULE_URL ALLOWED_PORT OTHER_PORT SHOTS_FOLDER
  MODULE_URL   the renderer's module, http://127.0.0.1:PORT/sheetd.js
  ALLOWED_PORT the port of a page server on 127.0.0.1 whose origin the renderer allows
  OTHER_PORT   the port of a page server whose origin it does not allow
  SHOTS_FOLDER where the screenshots go (check), or nothing is written (bench)
"""
import functools
import http.client
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
from urllib.parse import urlparse

from playwright.sync_api import sync_playwright

mode, sheetctl, socket, module_url, allowed_port, other_port, shots = sys.argv[1:8]
module = urlparse(module_url)
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fail(message):
    print(f"FAIL {message}", flush=True)
    sys.exit(1)


def ok(message):
    print(f"ok {message}", flush=True)


def ctl(*arguments):
    result = subprocess.run([sheetctl, *arguments, "--socket", socket], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        fail(f"sheetctl {' '.join(arguments)}: {result.stderr.strip()}")
    return result.stdout


# The kiosk's page, as a kiosk would write it: the module from the renderer, a strict
# Content-Security-Policy (no inline script or style; scripts, the socket and the icons from the
# renderer only), a button the sheet may cover, and the sheet's DOM events kept for the checks.
renderer = f"{module.scheme}://{module.netloc}"
page_folder = tempfile.mkdtemp()
with open(os.path.join(page_folder, "index.html"), "w") as file:
    file.write(f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' {renderer}; connect-src ws://{module.netloc}; img-src {renderer}; style-src 'self'">
<title>kiosk</title><link rel="stylesheet" href="page.css"></head>
<body><button id="beneath">Beneath</button><sheet-view></sheet-view>
<script type="module" src="{module_url}"></script><script type="module" src="page.js"></script></body></html>
""")
with open(os.path.join(page_folder, "page.css"), "w") as file:
    file.write("html, body { margin: 0; height: 100%; background: #808080; font-family: sans-serif; }\n"
               "#beneath { position: absolute; left: 20px; top: 20px; width: 200px; height: 60px; }\n")
with open(os.path.join(page_folder, "page.js"), "w") as file:
    file.write("window.sheetEvents = []; window.clicks = 0;\n"
               "document.getElementById('beneath').addEventListener('click', () => { window.clicks += 1; });\n"
               "document.addEventListener('sheet-event', (event) => window.sheetEvents.push(event.detail));\n")


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *arguments):
        pass


for port in (allowed_port, other_port):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", int(port)), functools.partial(Quiet, directory=page_folder))
    threading.Thread(target=server.serve_forever, daemon=True).start()
allowed_page = f"http://127.0.0.1:{allowed_port}/index.html"
other_page = f"http://127.0.0.1:{other_port}/index.html"

VIEW = "document.querySelector('sheet-view')"


def wait_state(page, condition, what):
    """Waits until the state the element last drew satisfies `condition` (JS over `s`)."""
    try:
        page.wait_for_function(f"() => {{ const s = {VIEW}.state; return !!s && ({condition}); }}", timeout=120000)
    except Exception as error:
        state = page.evaluate(f"() => {VIEW}.state")
        fail(f"{what}: the page never drew it (last state {json.dumps(state)[:400]}): {error}")


def touch(cdp, kind, points):
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [{"x": x, "y": y} for x, y in points]})


def tap(cdp, x, y):
    touch(cdp, "touchStart", [(x, y)])
    touch(cdp, "touchEnd", [])


def drag(cdp, x, y0, y1, steps):
    touch(cdp, "touchStart", [(x, y0)])
    for step in range(1, steps + 1):
        touch(cdp, "touchMove", [(x, y0 + (y1 - y0) * step / steps)])
    touch(cdp, "touchEnd", [])


def row_centre(page, item):
    box = page.evaluate(f"""() => {{
        const row = [...{VIEW}.shadowRoot.querySelectorAll('[part~=item]')].find(r => r.textContent.includes({json.dumps(item)}));
        if (!row) return null;
        const r = row.getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2];
    }}""")
    if not box:
        fail(f"no row {item!r} in the sheet's shadow DOM")
    return box


def card_top(page):
    return page.evaluate(f"() => {VIEW}.shadowRoot.querySelector('[part=card]').getBoundingClientRect().top")


def shot(page, name):
    if shots:
        page.screenshot(path=os.path.join(shots, f"{name}.png"))
        ok(f"screenshot {name}.png")


def check(page, cdp):
    # A program's sheet, drawn from the daemon: `sheetctl open` holds it while it runs.
    opener = subprocess.Popen([sheetctl, "open", "--socket", socket, "--title", "Media", "--item", "play=Play",
                               "--item", "next=Next track", "--until-tapped"], stdout=subprocess.PIPE, text=True)
    wait_state(page, "s.sheet === 'sheet-1' && s.state === 'resting' && s.detent === 'half'", "the program's sheet at half")
    drawn = page.evaluate(f"""() => {{ const r = {VIEW}.shadowRoot;
        return [r.querySelector('[part=title]').textContent, [...r.querySelectorAll('[part~=item]')].map(n => n.textContent)]; }}""")
    if drawn != ["Media", ["Play", "Next track"]]:
        fail(f"the program's sheet drawn as {drawn}")
    ok(f"the program's sheet is drawn from the daemon: {drawn}")
    top = card_top(page)
    state_top = page.evaluate(f"() => {VIEW}.state.top")
    if abs(top - state_top) > 1:
        fail(f"the card's top {top} is not the state's {state_top}")
    ok(f"the card's top is the state's ({top} px)")

    # A tap on an item reaches its owner.
    x, y = row_centre(page, "Next track")
    tap(cdp, x, y)
    try:
        said, _ = opener.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        opener.kill()
        fail("the tap on Next track never reached the program")
    if '"item-tapped"' not in said or '"next"' not in said:
        fail(f"the program heard {said!r}")
    ok(f"a tap on an item reached its owner: {said.strip().splitlines()[-1]}")
    page.wait_for_function("() => window.sheetEvents.some(e => e.event === 'item-tapped')", timeout=120000)
    ok(f"the page heard it too (sheet-event): {page.evaluate('() => window.sheetEvents')[-1]}")

    # The shared sheet with settings: shown at half, expanded, light and dark.
    ctl("content", "set", os.path.join(root, "examples/settings.yaml"))
    ctl("present", "half")
    wait_state(page, "s.sheet === null && s.state === 'resting' && s.detent === 'half' && s.list && s.list.revision > 0",
               "the settings at half")
    page.wait_for_function(f"() => {VIEW}.shadowRoot.querySelectorAll('[part~=item]').length === 6", timeout=120000)
    shot(page, "web-light-half")
    ctl("detent", "expanded")
    wait_state(page, "s.state === 'resting' && s.detent === 'expanded'", "expanded")
    shot(page, "web-light-expanded")
    ctl("appearance", "--theme", "dark")
    wait_state(page, "s.appearance.theme === 'dark' && s.state === 'resting'", "dark")
    shot(page, "web-dark-expanded")
    ctl("detent", "half")
    wait_state(page, "s.state === 'resting' && s.detent === 'half'", "half again")
    shot(page, "web-dark-half")

    # The browser's accessibility tree has the roles the AT-SPI tree has.
    tree = cdp.send("Accessibility.getFullAXTree")["nodes"]
    roles = {}
    for node in tree:
        role = node.get("role", {}).get("value")
        name = node.get("name", {}).get("value", "")
        roles.setdefault(role, []).append(name)
    wanted = {"dialog": "Settings", "switch": "Wi-Fi", "checkbox": "Dark style", "button": "About this device", "list": "Connections"}
    for role, name in wanted.items():
        if not any(name in each for each in roles.get(role, [])):
            fail(f"the accessibility tree has no {role} named {name!r}: {roles.get(role)}")
    checked = [node for node in tree if node.get("role", {}).get("value") == "switch"
               and any(p.get("name") == "checked" and p.get("value", {}).get("value") in ("true", True) for p in node.get("properties", []))]
    disabled = [node for node in tree if any(p.get("name") == "disabled" and p.get("value", {}).get("value") is True
                                             for p in node.get("properties", []))]
    if not checked or not disabled:
        fail(f"switch states: {len(checked)} checked, {len(disabled)} disabled")
    ok(f"the accessibility tree: {', '.join(f'{r} {n!r}' for r, n in wanted.items())}; a switch checked, an item disabled")

    # Keys while the modal sheet holds the focus: Tab puts the focus ring on the close button.
    page.keyboard.press("Tab")
    wait_state(page, "s.focusVisible && s.focus === 'close'", "Tab's focus on the close button")
    ok("Tab reached the daemon: the focus ring on the close button")
    page.keyboard.press("Escape")
    wait_state(page, "s.state === 'resting' && s.detent === 'hidden'", "Escape")
    ok("Escape dismissed the sheet")

    # Korean and Arabic, light.
    ctl("appearance", "--theme", "light")
    for name in ("korean", "arabic"):
        ctl("content", "set", os.path.join(root, f"examples/{name}.yaml"))
        ctl("present", "half")
        wait_state(page, "s.state === 'resting' && s.detent === 'half' && s.appearance.theme === 'light'", name)
        page.wait_for_function(f"() => {VIEW}.content && {VIEW}.shadowRoot.querySelector('[part=title]').textContent === {VIEW}.content.content.title",
                               timeout=120000)
        shot(page, f"web-{name}")
    direction = page.evaluate(f"() => [{VIEW}.shadowRoot.querySelector('[part=card]').getAttribute('dir'), {VIEW}.shadowRoot.querySelector('[part=card]').getAttribute('lang')]")
    if direction != ["rtl", "ar"]:
        fail(f"the Arabic sheet is {direction}")
    ok("the Arabic sheet is right to left, lang ar")

    # A label with markup stays text.
    markup = '<b>bold</b><img src=x onerror="window.pwned=1">'
    with open(os.path.join(page_folder, "markup.json"), "w") as file:
        json.dump({"title": "<i>Title</i>", "items": [{"id": "m", "label": markup, "subtitle": "<script>window.pwned=2</script>"}]}, file)
    ctl("content", "set", os.path.join(page_folder, "markup.json"))
    page.wait_for_function(f"() => {VIEW}.shadowRoot.querySelector('[part~=item]') && {VIEW}.shadowRoot.querySelector('[part~=item]').textContent.includes('bold')",
                           timeout=120000)
    found = page.evaluate(f"""() => {{ const r = {VIEW}.shadowRoot;
        return [r.querySelector('.label').textContent, r.querySelectorAll('b, img, i, script').length, window.pwned === undefined,
                r.querySelector('[part=title]').textContent]; }}""")
    if found != [markup, 0, True, "<i>Title</i>"]:
        fail(f"markup in labels: {found}")
    ok("markup in a label, a subtitle and the title stays text: no element made, nothing run")

    # A drag down the card dismisses, as the daemon decides.
    ctl("content", "set", os.path.join(root, "examples/settings.yaml"))
    wait_state(page, "s.state === 'resting' && s.detent === 'half'", "half before the drag")
    top = card_top(page)
    drag(cdp, 270, top + 30, top + 500, 8)
    wait_state(page, "s.state === 'resting' && s.detent === 'hidden'", "the drag's dismissal")
    ok("a touch drag down the card dismissed it (the daemon's recogniser)")

    # A modal sheet: a tap on the dim over the page's button dismisses, and the button hears nothing.
    ctl("present", "half")
    wait_state(page, "s.state === 'resting' && s.detent === 'half'", "presented")
    tap(cdp, 120, 50)
    wait_state(page, "s.state === 'resting' && s.detent === 'hidden'", "the dim's tap")
    if page.evaluate("() => window.clicks") != 0:
        fail("a tap on a modal sheet's dim reached the page")
    ok("modal: a tap on the dim dismissed the sheet; the page's button heard nothing")
    # Not modal: the same tap reaches the page's button, and the sheet stays.
    ctl("presentation", "--modal", "false")
    ctl("present", "half")
    wait_state(page, "s.state === 'resting' && s.detent === 'half' && !s.presentation.modal", "presented, not modal")
    tap(cdp, 120, 50)
    page.wait_for_function("() => window.clicks === 1", timeout=120000)
    if page.evaluate(f"() => {VIEW}.state.detent") != "half":
        fail("a tap beside a non-modal sheet moved it")
    ok("not modal: a tap beside the card reached the page's button; the sheet stayed at half")
    ctl("presentation", "--modal", "true")


def closed_mid_drag(context):
    # A page closed while its finger drags the card: the daemon hears the touch cancelled and
    # the sheet settles; no finger is left down.
    ctl("present", "half")
    page = context.new_page()
    page.goto(allowed_page)
    wait_state(page, "s.state === 'resting' && s.detent === 'half'", "the second page at half")
    cdp = context.new_cdp_session(page)
    top = card_top(page)
    touch(cdp, "touchStart", [(270, top + 30)])
    for step in range(1, 6):
        touch(cdp, "touchMove", [(270, top + 30 - 20 * step)])
    page.wait_for_function(f"() => {VIEW}.state.state === 'dragging'", timeout=120000)
    page.close()
    ctl("watch", "--until-rest")
    state = json.loads(ctl("state"))
    if state["inputActive"] or state["state"] != "resting":
        fail(f"after the page closed mid-drag: {state['state']}, input active {state['inputActive']}")
    ok(f"a page closed mid-drag: its finger cancelled, the sheet settled at {state['detent']}, no input active")


def refused(browser):
    # A page of an origin not allowed: the module is not given to it (no CORS header), and its
    # socket is refused.
    page = browser.new_page()
    messages = []
    page.on("console", lambda message: messages.append(message.text))
    page.goto(other_page)
    result = page.evaluate(f"""() => new Promise((done) => {{
        const socket = new WebSocket('ws://{module.netloc}/socket');
        socket.onopen = () => done('open');
        socket.onmessage = () => done('message');
        socket.onclose = () => done('closed');
    }})""")
    defined = page.evaluate("() => customElements.get('sheet-view') !== undefined")
    if result != "closed" or defined:
        fail(f"a page of another origin: socket {result}, element defined {defined}")
    connection = http.client.HTTPConnection(module.hostname, module.port, timeout=30)
    connection.request("GET", "/socket", headers={"Origin": f"http://127.0.0.1:{other_port}", "Upgrade": "websocket",
                                                 "Connection": "Upgrade", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                                                 "Sec-WebSocket-Version": "13"})
    status = connection.getresponse().status
    if status != 403:
        fail(f"an upgrade from another origin got {status}, not 403")
    ok(f"a page of another origin: its socket closed unopened, the module not run, an upgrade answered 403")
    page.close()


def frame(text, opcode=1, masked=True):
    """A client's WebSocket frame (masked, as a client's must be, unless `masked` is False)."""
    payload = text.encode() if isinstance(text, str) else text
    mask = os.urandom(4) if masked else b""
    bit = 0x80 if masked else 0
    head = bytes([0x80 | opcode])
    if len(payload) < 126:
        head += bytes([bit | len(payload)])
    elif len(payload) < 65536:
        head += bytes([bit | 126]) + len(payload).to_bytes(2, "big")
    else:
        head += bytes([bit | 127]) + len(payload).to_bytes(8, "big")
    return head + mask + (bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if masked else payload)


def connection_close():
    # RFC 9112 §9.6: a request that says `Connection: close` is the last; the server closes after
    # its response (said in it).
    import socket as sockets
    connection = sockets.create_connection((module.hostname, module.port), timeout=30)
    connection.sendall(f"GET /sheetd.js HTTP/1.1\r\nHost: {module.netloc}\r\nConnection: close\r\n\r\n".encode())
    received = b""
    while True:
        chunk = connection.recv(65536)
        if not chunk:
            break
        received += chunk
    connection.close()
    head = received.split(b"\r\n\r\n", 1)[0].lower()
    if not received.startswith(b"HTTP/1.1 200") or b"connection: close" not in head:
        fail(f"Connection: close: not answered and closed ({received[:120]!r})")
    ok("Connection: close: the module served, the response says close, the connection closed after it")


def hostile():
    # A client of an allowed origin that sends what a page never would: each is closed with a
    # policy violation (1008) or, past the size limit, a protocol error, and the renderer goes on.
    import socket as sockets
    cases = [("not JSON", frame("{nope")), ("an unknown message", frame('{"launch":1}')),
             ("a key the sheet does not take", frame('{"key":{"code":30,"pressed":true}}')),
             ("a slot out of range", frame('{"touch":{"time":1,"contacts":[{"slot":99,"phase":"down","x":1,"y":1}]}}')),
             ("a huge screen", frame('{"screen":{"width":100000,"height":1}}')),
             ("a binary message", frame(b"\x00\x01", opcode=2)),
             # Its header says 20 kB: refused on reading the header, before any more is sent.
             ("a message over 16 KiB", frame('{"screen":' + " " * 20000 + "}")[:16]),
             ("an unmasked frame", frame('{"blur":{}}', masked=False))]
    for what, data in cases:
        connection = sockets.create_connection((module.hostname, module.port), timeout=30)
        connection.sendall((f"GET /socket HTTP/1.1\r\nHost: {module.netloc}\r\nOrigin: http://127.0.0.1:{allowed_port}\r\n"
                            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                            "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = connection.recv(4096)
            if not chunk:
                fail(f"{what}: the upgrade was not answered")
            received += chunk
        if b" 101 " not in received.split(b"\r\n", 1)[0]:
            fail(f"{what}: the upgrade from an allowed origin was refused: {received[:80]!r}")
        connection.sendall(data)
        # Read to the end: the close frame's code is the first two bytes of its payload.
        received = received.split(b"\r\n\r\n", 1)[1]
        while True:
            try:
                chunk = connection.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            received += chunk
        connection.close()
        closes = [i for i in range(len(received) - 3) if received[i] == 0x88]
        codes = {int.from_bytes(received[i + 2:i + 4], "big") for i in closes if received[i + 1] >= 2}
        if not codes & {1008, 1002, 1009}:
            fail(f"{what}: not closed with a policy violation (closes {codes}, {received[-40:]!r})")
        if what == "an unmasked frame" and codes != {1002}:
            fail(f"{what}: not closed with 1002, a protocol error (RFC 6455 5.1; closes {codes})")
    ok(f"a hostile client: {', '.join(what for what, _ in cases)}: each closed (1008, 1002 or 1009), the renderer serving on")


# What a process of another local user sends (Debian's python3, which any user may run): the
# allowed Origin, forged as any local process can forge it, on a request for the module and on
# an upgrade followed by a swipe down; it prints what came back.
ANOTHER_USER = r"""
import socket, sys
host, port, origin = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def ask(request, then=b""):
    connection = socket.create_connection((host, port), timeout=30)
    connection.sendall(request + then)
    received = b""
    while True:
        try:
            chunk = connection.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            break
        if not chunk:
            break
        received += chunk
    connection.close()
    return received
module = ask(f"GET /sheetd.js HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\n\r\n".encode())
upgrade = (f"GET /socket HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()
swipe = b"".join(bytes([0x81, 0x80 | len(text), 0, 0, 0, 0]) + text for text in (
    b'{"touch":{"time":1,"contacts":[{"slot":0,"phase":"down","x":270,"y":500}]}}',
    b'{"touch":{"time":20,"contacts":[{"slot":0,"phase":"move","x":270,"y":900}]}}',
    b'{"touch":{"time":30,"contacts":[{"slot":0,"phase":"up","x":270,"y":950}]}}'))
socket_reply = ask(upgrade, swipe)
print(repr(module))
print(repr(socket_reply))
"""


def another_user():
    # The allowed Origin forged by a process of uid 65534: it gets a refusal and nothing of the
    # sheet, and its swipe moves nothing (the kernel says whose the connection is).
    if os.geteuid() != 0:
        print("skip another local user: only root can run a process as another user here", flush=True)
        return
    ctl("content", "set", os.path.join(root, "examples/settings.yaml"))
    ctl("present", "half")
    ctl("watch", "--until-rest")
    before = json.loads(ctl("state"))
    result = subprocess.run(["/usr/bin/python3", "-c", ANOTHER_USER, module.hostname, str(module.port),
                             f"http://127.0.0.1:{allowed_port}"],
                            capture_output=True, text=True, timeout=120, user=65534, group=65534, cwd="/")
    if result.returncode != 0:
        fail(f"another local user: its process failed: {result.stderr.strip()}")
    replies = [eval(line) for line in result.stdout.splitlines()]
    for what, reply in zip(("the module", "the socket"), replies):
        if not reply.startswith(b"HTTP/1.1 403 ") or b"customElements" in reply or b" 101 " in reply or b"Settings" in reply:
            fail(f"another local user asked for {what} and got {reply[:200]!r}")
    ctl("watch", "--until-rest")
    after = json.loads(ctl("state"))
    if (after["state"], after.get("detent"), after.get("sheet")) != (before["state"], before.get("detent"), before.get("sheet")):
        fail(f"another local user's forged swipe moved the sheet: {before['state']} {before.get('detent')} -> {after['state']} {after.get('detent')}")
    ok(f"another local user (uid 65534) forging the allowed Origin: 403 for the module and the socket, nothing of the sheet, "
       f"its swipe moved nothing (still {after['state']} at {after.get('detent')})")


def bounded():
    # One user's connections: at most 32 at once (the page's own among them); past that, 503 and
    # closed. 40 are opened and held, sending nothing; a 41st asks for the module, and once it
    # is answered the renderer has taken the 40 before it (connections are taken in order), so
    # each refused one has its 503 waiting and each served one has nothing. Once they close, a
    # new connection is served again.
    import select
    import socket as sockets
    held = [sockets.create_connection((module.hostname, module.port), timeout=30) for _ in range(40)]
    last = sockets.create_connection((module.hostname, module.port), timeout=30)
    last.sendall(f"GET /sheetd.js HTTP/1.1\r\nHost: {module.netloc}\r\nConnection: close\r\n\r\n".encode())
    if not last.recv(12).startswith(b"HTTP/1.1 "):
        fail("the 41st connection of one user was not answered")
    last.close()
    served = refused = 0
    for connection in held:
        ready, _, _ = select.select([connection], [], [], 0)
        if not ready:
            served += 1
            continue
        reply = connection.recv(65536)
        if not reply.startswith(b"HTTP/1.1 503 "):
            fail(f"a connection past the bound got {reply[:80]!r}, not 503")
        refused += 1
    for connection in held:
        connection.close()
    if refused < 8 or served < 1 or served > 32:
        fail(f"40 connections of one user held at once: {served} served, {refused} answered 503")
    # The count goes down as the renderer hears each close.
    for attempt in range(600):
        connection = http.client.HTTPConnection(module.hostname, module.port, timeout=30)
        try:
            connection.request("GET", "/sheetd.js", headers={"Connection": "close"})
            status = connection.getresponse().status
        except (ConnectionResetError, http.client.RemoteDisconnected):
            status = None
        connection.close()
        if status == 200:
            break
        threading.Event().wait(0.05)
    else:
        fail("after 40 connections closed, a new one was still not served")
    ok(f"one user's connections bounded: of 40 held at once, {served} served and {refused} answered 503; served again once they closed")


def idle(connection):
    # Opened at the start and never written to: the renderer closed it (after 10 s of nothing).
    connection.settimeout(120)
    try:
        received = connection.recv(1)
    except ConnectionResetError:
        received = b""
    if received != b"":
        fail(f"a connection that sent nothing got {received!r}")
    ok("an idle connection (nothing sent) closed by the renderer")


def bench(page, cdp, browser):
    # A drag of 40 moves over the settings at half, traced: layouts and style recalculations
    # per state drawn, and the script's time per state.
    ctl("content", "set", os.path.join(root, "examples/settings.yaml"))
    ctl("present", "half")
    wait_state(page, "s.state === 'resting' && s.detent === 'half'", "half")
    page.wait_for_function(f"() => {VIEW}.shadowRoot.querySelectorAll('[part~=item]').length === 6", timeout=120000)
    page.evaluate("() => { window.drawnStates = 0; document.addEventListener('sheet-state', () => window.drawnStates += 1); }")
    top = card_top(page)
    browser.start_tracing(page=page, categories=["devtools.timeline", "disabled-by-default-devtools.timeline"])
    touch(cdp, "touchStart", [(270, top + 30)])
    for step in range(1, 41):
        touch(cdp, "touchMove", [(270, top + 30 - 8 * step)])
        # Two of the page's frames: the move reached the daemon and its state came back drawn.
        page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    touch(cdp, "touchEnd", [])
    wait_state(page, "s.state === 'resting'", "rest after the drag")
    trace = json.loads(browser.stop_tracing())
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    states = page.evaluate("() => window.drawnStates")
    layouts = [e for e in events if e.get("name") == "Layout"]
    styles = [e for e in events if e.get("name") in ("UpdateLayoutTree", "RecalculateStyles")]
    elements = [e.get("args", {}).get("elementCount", 0) for e in styles]
    # The module's own script: the calls into sheetd.js (its socket's messages, its frames).
    script = sum(e.get("dur", 0) for e in events if e.get("name") == "FunctionCall"
                 and "sheetd.js" in e.get("args", {}).get("data", {}).get("url", ""))
    print(json.dumps({"states": states, "layouts": len(layouts), "styleRecalcs": len(styles),
                      "elementsRestyledMax": max(elements, default=0), "elementsRestyled": sum(elements),
                      "listRows": 6, "scriptMicrosecondsPerState": round(script / max(states, 1), 1)}), flush=True)


with sync_playwright() as playwright:
    # Bounds, not timings: a loaded machine starts a browser slowly, and every wait is for a state.
    browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"], timeout=120000)
    context = browser.new_context(viewport={"width": 540, "height": 960}, has_touch=True, device_scale_factor=1)
    context.set_default_timeout(120000)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(allowed_page)
    page.wait_for_function(f"() => customElements.get('sheet-view') !== undefined && {VIEW}.state !== null", timeout=120000)
    cdp = context.new_cdp_session(page)
    cdp.send("Accessibility.enable")
    if mode == "check":
        import socket as sockets
        silent = sockets.create_connection((module.hostname, module.port), timeout=30)
        check(page, cdp)
        closed_mid_drag(context)
        refused(browser)
        hostile()
        connection_close()
        another_user()
        bounded()
        idle(silent)
    else:
        bench(page, cdp, browser)
    if errors:
        fail(f"the page's console had errors: {errors[:5]}")
    ok("no error in the page's console")
    browser.close()
