"""Speedway's look: sizes in pixels, the palette and the six player colours."""

from __future__ import annotations

from images.draw import hex_colour

HEX = 26                      # hex centre-to-corner, in pixels
MAP_SIDE = 46                 # wall band left and right of the field (row numbers)
MAP_END = 40                  # wall band above and below the field (column letters)
PAD = 20                      # outer padding of caption and panel

INK = hex_colour("#111111")
PAPER = hex_colour("#FFFFFF")
MUTED = hex_colour("#555555")
FIELD = hex_colour("#EEEAE0")
GRID = hex_colour("#B9B2A3")
HEX_LABEL = hex_colour("#968F80")
WALL = hex_colour("#3A3F44")
BRICK = hex_colour("#50565C")
WALL_TEXT = hex_colour("#FFFFFF")
CROSSED = hex_colour("#A8A8A8")
ZEBRA = hex_colour("#F2F2F2")
GOOD = hex_colour("#00734D")
BAD = hex_colour("#B03A00")

# Okabe-Ito: distinct under the common colour-vision deficiencies.
CAR_COLOURS = tuple(hex_colour(c) for c in ("#D55E00", "#0072B2", "#F0E442", "#009E73", "#CC79A7", "#56B4E9"))


def car_colour(index: int):
    """The RGB colour of player colour `index` (wrapping past six)."""
    return CAR_COLOURS[index % len(CAR_COLOURS)]
