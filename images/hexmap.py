"""Pixel geometry for pointy-top axial hex maps: centres, corners and shared edges."""

from __future__ import annotations

import math
from dataclasses import dataclass

Point = tuple[float, float]

SQRT3 = math.sqrt(3)


def unit(direction: int) -> Point:
    """The screen-space unit vector of hex direction `direction` (0 E, counter-clockwise, y down)."""
    angle = math.radians(60 * (direction % 6))
    return (math.cos(angle), -math.sin(angle))


@dataclass(frozen=True)
class HexLayout:
    """Maps axial hexes to pixels: `size` is centre-to-corner, `origin` the centre of hex (0, 0)."""

    size: float
    origin: Point

    @property
    def width(self) -> float:
        """Horizontal distance between neighbouring hex centres (flat side to flat side)."""
        return SQRT3 * self.size

    @property
    def row_height(self) -> float:
        """Vertical distance between rows of hex centres."""
        return 1.5 * self.size

    def center(self, h: tuple[int, int]) -> Point:
        """Pixel centre of axial hex `h`."""
        q, r = h
        return (self.origin[0] + self.width * (q + r / 2), self.origin[1] + self.row_height * r)

    def corners(self, h: tuple[int, int], scale: float = 1.0) -> list[Point]:
        """The six corners of `h`, counter-clockwise from the lower right; `scale` shrinks or grows."""
        cx, cy = self.center(h)
        radius = self.size * scale
        angles = [math.radians(60 * i - 30) for i in range(6)]
        return [(cx + radius * math.cos(a), cy - radius * math.sin(a)) for a in angles]

    def edge(self, h: tuple[int, int], direction: int) -> tuple[Point, Point]:
        """The side of `h` shared with its neighbour in `direction`."""
        corners = self.corners(h)
        return corners[direction % 6], corners[(direction + 1) % 6]
