"""Arcs, range and line of sight between cars (seed: Weapons; edge cases ruled in RULES.md)."""

from __future__ import annotations

import math
from collections.abc import Iterable

from rules.hexgrid import DIRECTIONS, Hex, distance
from rules.speedway.data import Arena
from rules.speedway.state import Car

SQRT3 = math.sqrt(3.0)
# Arc boundaries fall exactly on some hex centres; a point on a boundary lies in both arcs.
_ARC_TOLERANCE_DEG = 1e-6
# The nudge that separates the two hexes a line runs between when it follows a hex edge.
_NUDGE = (1e-6, 2e-6, -3e-6)


def centre(h: Hex) -> tuple[float, float]:
    """A hex centre in plane coordinates (pointy-top, unit size, y pointing down the map)."""
    q, r = h
    return SQRT3 * (q + r / 2.0), 1.5 * r


def _heading(facing: int) -> tuple[float, float]:
    x, y = centre(DIRECTIONS[facing % 6])
    length = math.hypot(x, y)
    return x / length, y / length


def midpoint(car: Car) -> tuple[float, float]:
    """The middle of the counter: halfway between its two hex centres."""
    (fx, fy), (bx, by) = centre(car.front_hex), centre(car.back_hex)
    return (fx + bx) / 2.0, (fy + by) / 2.0


def bearing(car: Car, point: tuple[float, float]) -> float:
    """Degrees from the car's heading to `point`, counter-clockwise on the map (left positive)."""
    hx, hy = _heading(car.facing)
    mx, my = midpoint(car)
    vx, vy = point[0] - mx, point[1] - my
    dot = hx * vx + hy * vy
    cross = hx * vy - hy * vx  # y points down, so a point on the left has a negative cross
    return math.degrees(math.atan2(-cross, dot))


def arcs_of(car: Car, point: tuple[float, float]) -> frozenset[str]:
    """The arcs (Front, Left, Back, Right) of `car` that contain `point`: 90-degree quadrants."""
    angle = bearing(car, point)
    tol = _ARC_TOLERANCE_DEG
    found = set()
    if -45 - tol <= angle <= 45 + tol:
        found.add("Front")
    if 45 - tol <= angle <= 135 + tol:
        found.add("Left")
    if angle >= 135 - tol or angle <= -135 + tol:
        found.add("Back")
    if -135 - tol <= angle <= -45 + tol:
        found.add("Right")
    return frozenset(found)


def in_arc(car: Car, mount: str, target: Car) -> bool:
    """True when any part (either hex centre) of `target` lies in the arc of `mount`."""
    return any(mount in arcs_of(car, centre(h)) for h in target.hexes)


def range_hexes(a: Car, b: Car) -> int:
    """The shortest hex distance between any hex of `a` and any hex of `b`."""
    return min(distance(x, y) for x in a.hexes for y in b.hexes)


def _cube_round(x: float, y: float, z: float) -> Hex:
    rx, ry, rz = round(x), round(y), round(z)
    dx, dy, dz = abs(rx - x), abs(ry - y), abs(rz - z)
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dy > dz:
        ry = -rx - rz
    return rx, rz


def hex_line(a: Hex, b: Hex, sign: int = 1) -> tuple[Hex, ...]:
    """The hexes a straight line from the centre of `a` to the centre of `b` passes, nudged by `sign`."""
    n = distance(a, b)
    ax, az = a[0] + sign * _NUDGE[0], a[1] + sign * _NUDGE[2]
    ay = -a[0] - a[1] + sign * _NUDGE[1]
    bx, bz = b[0] + sign * _NUDGE[0], b[1] + sign * _NUDGE[2]
    by = -b[0] - b[1] + sign * _NUDGE[1]
    if n == 0:
        return (a,)
    return tuple(_cube_round(ax + (bx - ax) * i / n, ay + (by - ay) * i / n, az + (bz - az) * i / n)
                 for i in range(n + 1))


def line_is_clear(line: Iterable[Hex], arena: Arena, blockers: frozenset[Hex], ends: frozenset[Hex]) -> bool:
    """A line is clear when no hex on it, other than the two cars' own hexes, blocks sight."""
    for h in line:
        if h in ends:
            continue
        if not arena.is_open(h) or h in blockers:
            return False
    return True


def line_of_sight(firer: Car, target: Car, arena: Arena, blockers: frozenset[Hex]) -> bool:
    """True when a clear line runs from some hex of `firer` to some hex of `target`.

    `blockers` are hexes of other cars and smoke. A line that runs exactly along a hex edge is
    nudged both ways and counts as clear when either nudged line is clear (RULES.md ruling).
    """
    ends = frozenset(firer.hexes) | frozenset(target.hexes)
    if ends & blockers:  # smoke on either car blocks fire from or into it
        return False
    for a in firer.hexes:
        for b in target.hexes:
            for sign in (1, -1):
                if line_is_clear(hex_line(a, b, sign), arena, blockers, ends):
                    return True
    return False
