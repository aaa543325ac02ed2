#!/usr/bin/python3
"""Whether the screenshot RUN/NAME.ppm shows the state in RUN/NAME.state.json (checks.py's
check_shot: the display's size the daemon's screen, the dim over the background, the card's top
row where the state puts it). The as-installed guest asks for screenshots until one does: a
renderer run by its unit keeps no frame log to wait on.

Usage: shows.py RUN NAME [COLOUR]   (exit 0: it does; COLOUR: the fullscreen app's background
       the dim darkens, in hex: a grey level (24) or red, green and blue (1c3f6e); else the
       renderer's own #808080)
"""
import sys

from checks import background, check_shot, failures

check_shot(sys.argv[2], None, *(background(colour) for colour in sys.argv[3:4]))
sys.exit(1 if failures else 0)
