#!/usr/bin/env python3
"""A car panel's media player: a sheet of its own whose items a person taps, answered by the
program as a player would, the title showing the track playing.

    PYTHONPATH=clients/python examples/python/media-player.py [SOCKET]   (default $SHEETD_SOCKET)

"Next track" and "Previous track" change the title; "Pause" and "Play" trade places; "Shuffle"
is a toggle the player confirms (its subtitle says the order it chose). The events come on a
connection of their own (OwnedSheet.events) while the calls that answer them go on the
Client's, so a tap made before the loop starts is not lost. A dismissal leaves the sheet down,
still the player's (the sheet beneath comes back); it closes when the program ends (Ctrl-C).
Prints one line per thing it does; needs group sheetd (or root). `--async` follows with
asyncio instead.
"""
import asyncio
import sys

from sheetd import Client, ConnectionLost, Item

TRACKS = ["Harbour Lights", "Northbound", "Slow Rain", "Tidewater", "Last Ferry"]
arguments = [argument for argument in sys.argv[1:] if not argument.startswith("--")]
path = arguments[0] if arguments else None


class Player:
    def __init__(self):
        self.track = 0
        self.playing = True
        self.shuffle = False

    def items(self):
        return [
            Item("toggle", "Pause" if self.playing else "Play", icon="media-playback-pause-symbolic" if self.playing
                 else "media-playback-start-symbolic"),
            Item("next", "Next track", icon="media-skip-forward-symbolic"),
            Item("previous", "Previous track", icon="media-skip-backward-symbolic"),
            Item("shuffle", "Shuffle", subtitle="Album order, random" if self.shuffle else "Album order",
                 accessory="toggle", on=self.shuffle),
        ]

    def title(self):
        return f"{'▶' if self.playing else '⏸'} {TRACKS[self.track]}"

    def answer(self, sheet, event):
        """What the player does about `event`; the sheet shows it."""
        if event.event == "item-tapped" and event.item == "next":
            self.track = (self.track + 1) % len(TRACKS)
        elif event.event == "item-tapped" and event.item == "previous":
            self.track = (self.track - 1) % len(TRACKS)
        elif event.event == "item-tapped" and event.item == "toggle":
            self.playing = not self.playing
        elif event.event == "item-toggled" and event.item == "shuffle":
            # The toggle flipped in the daemon at the tap; the player's answer is what stays.
            self.shuffle = bool(event.on)
        else:
            print(f"{event.event}{f' ({event.cause})' if event.cause else ''}", flush=True)
            return
        sheet.set_content(title=self.title(), items=self.items())
        print(f"{event.item}: {self.title()}{', shuffle' if self.shuffle else ''}", flush=True)


def follow(sheet, player):
    for event in sheet.events():
        player.answer(sheet, event)


async def follow_async(sheet, player):
    async for event in sheet.aevents():
        await asyncio.to_thread(player.answer, sheet, event)


player = Player()
with Client(path) as client:
    sheet = client.open_sheet(title=player.title(), items=player.items(), detent="half")
    print(f"{sheet.sheet} opened: {player.title()}", flush=True)
    try:
        if "--async" in sys.argv:
            asyncio.run(follow_async(sheet, player))
        else:
            follow(sheet, player)
    except (KeyboardInterrupt, ConnectionLost):
        pass
