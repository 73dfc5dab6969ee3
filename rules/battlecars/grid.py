"""The Battlecars board's geometry: points on a square grid with both diagonals drawn, eight facings,
the lines weapons fire along, and point labels players can name (A1 top left; letters are columns).

A point is (column, row), 0-based, row 0 at the top. Facings are numbered clockwise from north in
steps of 45 degrees.
"""

from __future__ import annotations

import re

Point = tuple[int, int]

DIRECTIONS: tuple[Point, ...] = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))
FACING_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
# A step's turn at its point before it moves on, by name: eighths, counter-clockwise negative.
TURN_STEPS = {"ahead": 0, "left-45": -1, "right-45": 1, "left-90": -2, "right-90": 2,
              "left-135": -3, "right-135": 3, "about": 4}
_LABEL = re.compile(r"^\s*([A-Za-z])\s*(\d{1,2})\s*$")


def label(point: Point) -> str:
    """'G5' for (6, 4)."""
    column, row = point
    return f"{chr(ord('A') + column)}{row + 1}"


def parse_label(text: str) -> Point | None:
    """The point a label names ('g5', ' G5 '), or None when it is not one."""
    match = _LABEL.match(text)
    if not match:
        return None
    return ord(match.group(1).upper()) - ord("A"), int(match.group(2)) - 1


def distance(a: Point, b: Point) -> int:
    """Steps between two points, diagonals counting one."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def step(point: Point, facing: int, count: int = 1) -> Point:
    """The point `count` steps from `point` along `facing`."""
    dx, dy = DIRECTIONS[facing % 8]
    return point[0] + dx * count, point[1] + dy * count


def facing_by_name(name: str) -> int | None:
    """The facing an 'N', 'ne', ... names, or None."""
    wanted = name.strip().upper()
    return FACING_NAMES.index(wanted) if wanted in FACING_NAMES else None


def turn_between(old: int, new: int) -> int:
    """The angle of a turn from facing `old` to facing `new`, in degrees: 0, 45, 90, 135 or 180."""
    eighths = (new - old) % 8
    return 45 * min(eighths, 8 - eighths)


def line_to(origin: Point, target: Point) -> tuple[int, int] | None:
    """(facing, distance) when `target` lies on one of the eight lines through `origin` (the lines a
    weapon fires along, found), else None. Distance is in steps; the same point is not on a line."""
    dx, dy = target[0] - origin[0], target[1] - origin[1]
    if (dx, dy) == (0, 0) or (dx and dy and abs(dx) != abs(dy)):
        return None
    distance = max(abs(dx), abs(dy))
    unit = (dx // distance, dy // distance)
    return DIRECTIONS.index(unit), distance


def between(origin: Point, facing: int, distance: int) -> tuple[Point, ...]:
    """The points strictly between `origin` and the point `distance` steps along `facing`."""
    return tuple(step(origin, facing, k) for k in range(1, distance))


def corners_passed(point: Point, facing: int) -> tuple[Point, Point] | None:
    """For a diagonal step from `point`, the two points it passes between (whose corners it touches);
    None for a straight step."""
    dx, dy = DIRECTIONS[facing % 8]
    if dx and dy:
        return (point[0] + dx, point[1]), (point[0], point[1] + dy)
    return None


def bearing(origin: Point, facing: int, other: Point) -> int:
    """Where `other` lies as seen from `origin` facing `facing`: eighths clockwise from dead ahead (0)
    to 7, for a point on one of the eight lines through `origin` (every shot and ram is; ValueError
    otherwise: a bug)."""
    line = line_to(origin, other)
    if line is None:
        raise ValueError(f"{label(other)} is on no line through {label(origin)}")
    return (line[0] - facing) % 8
