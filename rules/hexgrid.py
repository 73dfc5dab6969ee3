"""Axial hex geometry for pointy-top maps, with the A1-style labels players talk in.

Directions are numbered counter-clockwise from east, so +1 is a left turn and -1 a right turn:
0 E, 1 NE, 2 NW, 3 W, 4 SW, 5 SE. Labels use odd-r offset columns (letters) and rows (numbers
from 1 at the top).
"""

from __future__ import annotations

import re

Hex = tuple[int, int]

DIRECTIONS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
DIRECTION_NAMES: tuple[str, ...] = ("E", "NE", "NW", "W", "SW", "SE")

_LABEL = re.compile(r"^([A-Z]+)(\d+)$")


def direction(index: int) -> Hex:
    """The unit step for a direction index (taken modulo 6)."""
    return DIRECTIONS[index % 6]


def direction_index(name: str) -> int:
    """Parse a compass name such as 'NE' into a direction index."""
    try:
        return DIRECTION_NAMES.index(name.strip().upper())
    except ValueError:
        raise ValueError(f"unknown direction {name!r}; use one of {', '.join(DIRECTION_NAMES)}") from None


def add(a: Hex, b: Hex) -> Hex:
    """Vector sum of two axial coordinates."""
    return (a[0] + b[0], a[1] + b[1])


def step(h: Hex, index: int, times: int = 1) -> Hex:
    """The hex `times` steps from `h` in direction `index`."""
    dq, dr = direction(index)
    return (h[0] + dq * times, h[1] + dr * times)


def distance(a: Hex, b: Hex) -> int:
    """Number of steps between two hexes."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def neighbours(h: Hex) -> tuple[Hex, ...]:
    """The six adjacent hexes, in direction order."""
    return tuple(step(h, i) for i in range(6))


def to_offset(h: Hex) -> tuple[int, int]:
    """Axial to odd-r offset (column, row), both zero-based."""
    q, r = h
    return q + (r - (r & 1)) // 2, r


def from_offset(col: int, row: int) -> Hex:
    """Odd-r offset (column, row) to axial."""
    return col - (row - (row & 1)) // 2, row


def _column_letters(col: int) -> str:
    letters = ""
    col += 1
    while col:
        col, rem = divmod(col - 1, 26)
        letters = chr(ord("A") + rem) + letters
    return letters


def _column_index(letters: str) -> int:
    col = 0
    for ch in letters:
        col = col * 26 + (ord(ch) - ord("A") + 1)
    return col - 1


def label(h: Hex) -> str:
    """The player-facing name of a hex, e.g. 'C7' (column letter, row number from 1)."""
    col, row = to_offset(h)
    if col < 0 or row < 0:
        return f"({h[0]},{h[1]})"
    return f"{_column_letters(col)}{row + 1}"


def parse_label(text: str) -> Hex:
    """Inverse of `label`: 'C7' -> axial coordinates."""
    match = _LABEL.match(text.strip().upper())
    if not match or int(match.group(2)) < 1:
        raise ValueError(f"{text!r} is not a hex label like C7")
    return from_offset(_column_index(match.group(1)), int(match.group(2)) - 1)
