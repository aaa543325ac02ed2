#!/usr/bin/env python3
"""sheetctl watch in Python: one line per change, through daemon restarts.

    PYTHONPATH=clients/python examples/python/watch.py [SOCKET]   (default $SHEETD_SOCKET)
"""
import sys

from sheetd import follow

for update in follow(sys.argv[1] if len(sys.argv) > 1 else None):
    s = update.state
    where = f"toward {s.target}" if s.target else (s.detent or "between detents")
    line = f"{update.seq:6} {s.state:8} {where:16} top {s.top:7.1f}px dim {s.dim:.2f}"
    if update.gesture:
        line += f"  {update.gesture.kind} {update.gesture.phase}"
    for event in update.events:
        line += f"  [{event.event} {event.item or event.cause or ''}]"
    print(line, flush=True)
