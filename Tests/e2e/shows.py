#!/usr/bin/python3
"""Whether the screenshot RUN/NAME.ppm shows the state in RUN/NAME.state.json (checks.py's
check_shot: the display's size the daemon's screen, the dim over the background, the card's top
row where the state puts it). The as-installed guest asks for screenshots until one does: a
renderer run by its unit keeps no frame log to wait on.

Usage: shows.py RUN NAME [GREY]   (exit 0: it does; GREY: the level, 0 to 255, of the fullscreen
       app's background the dim darkens, in hex; else the renderer's own #808080)
"""
import sys

from checks import check_shot, failures

check_shot(sys.argv[2], None, *(int(grey, 16) for grey in sys.argv[3:4]))
sys.exit(1 if failures else 0)
