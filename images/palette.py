"""The colours of every game's pictures: ink and paper, the six player colours, hazard counters, the
ground. One fixed palette (images.draw.style_colours of this module) keeps each picture's colours exact
and the games alike at a glance."""

from __future__ import annotations

from images.draw import hex_colour, mix

INK = hex_colour("#111111")
PAPER = hex_colour("#FFFFFF")
MUTED = hex_colour("#555555")
FIELD = hex_colour("#EEEAE0")
GRID = hex_colour("#B9B2A3")
HEX_LABEL = hex_colour("#968F80")
WALL = hex_colour("#3A3F44")
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


TRAIL_SHARE = 0.6   # a car's trail on the map: this much of its colour over the field
TRAIL_COLOURS = tuple(mix(c, FIELD, TRAIL_SHARE) for c in CAR_COLOURS)   # in the fixed palette, exact

# Combat: hazard counters, the last shot, wrecks and fire.
MINE = hex_colour("#2B2B2E")
MINE_RIM = hex_colour("#000000")
OIL = hex_colour("#2E1A47")
OIL_SHEEN = hex_colour("#8A63C2")
SMOKE = hex_colour("#7D858E")
SMOKE_RIM = hex_colour("#4D545B")
WATER = hex_colour("#9CCAEB")
WATER_RIM = hex_colour("#2F6E9E")
DEBRIS = hex_colour("#7A6A58")
DEBRIS_DARK = hex_colour("#3F352B")
PAINT = hex_colour("#8FD400")
PAINT_RIM = hex_colour("#3E5C00")
WRECK = hex_colour("#8C8C8C")
FLAME = hex_colour("#F25C05")
FLAME_CORE = hex_colour("#FFD23F")
HIGHLIGHT = hex_colour("#FFF3B0")


def wreck_colour(index: int):
    """A wrecked car's colour: mostly grey, with a hint of its player colour so it can still be told apart."""
    r, g, b = car_colour(index)
    w = WRECK
    return (round(0.3 * r + 0.7 * w[0]), round(0.3 * g + 0.7 * w[1]), round(0.3 * b + 0.7 * w[2]))
