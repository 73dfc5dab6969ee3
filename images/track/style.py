"""The track board's look: page and cell sizes, the palette and the two seat colours (Okabe-Ito)."""

from __future__ import annotations

from images.draw import Colour, hex_colour
from images.palette import (
    FIELD,
    GRID,
    INK,
    MUTED,
    PAPER,
    car_colour,
)

WIDTH = 1240                  # the board's drawing space, in page units (shrunk to the picture's BOARD pixels)
MARGIN = 30                   # board edge to the ring of holes
CELL = (WIDTH - 2 * MARGIN) // 10   # one square of the 10x10 drawing in rules-gaps 3.2.1
HOLE = 40                     # radius of an empty hole
CAR = 50                      # radius of a car disc
PAD = 24

# Seat colours: blue and yellow, the pair most easily told apart (also with colour-vision deficiencies),
# and neither looks like the red start dots.
SEAT_COLOURS = (car_colour(1), car_colour(2))
START_RED = hex_colour("#C8102E")
PATH = car_colour(4)          # reddish purple: the last move's path
HOLE_FILL = hex_colour("#FBF9F4")
HOLE_RIM = GRID
HOLE_TEXT = hex_colour("#6F6859")
TABLE = hex_colour("#2F6B3F")          # the green felt in the middle
TABLE_TEXT = hex_colour("#FFFFFF")
CARD_RED = hex_colour("#C8102E")
CARD_BACK = hex_colour("#1F3F8F")
BANNER = hex_colour("#111111")

__all__ = ["FIELD", "INK", "MUTED", "PAPER"]


def seat_colour(seat: int) -> Colour:
    """The RGB colour of seat `seat` (0 or 1)."""
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def tint(colour, share: float = 0.3):
    """`colour` washed out towards white."""
    return tuple(round(share * c + (1 - share) * 255) for c in colour)
