"""The static arena layer: field, walls, obstacles, grid and labels, drawn once per arena."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw

from images import palette
from images.draw import draw_text
from images.fonts import font
from images.hexmap import SQRT3, HexLayout
from images.speedway import style
from rules.hexgrid import DIRECTIONS, add, from_offset, label
from rules.speedway import data


@dataclass(frozen=True)
class MapFrame:
    """Where an arena's hexes land in its map image."""

    layout: HexLayout
    width: int
    height: int


@cache
def frame(arena_id: str) -> MapFrame:
    """The pixel frame of an arena's map."""
    arena = data.arena(arena_id)
    layout = HexLayout(style.HEX, (style.MAP_SIDE + SQRT3 / 2 * style.HEX, style.MAP_END + style.HEX))
    width = round(2 * style.MAP_SIDE + layout.width * (arena.columns + 0.5))
    height = round(2 * style.MAP_END + layout.row_height * (arena.rows - 1) + 2 * style.HEX)
    return MapFrame(layout, width, height)


def _edge_labels(draw: ImageDraw.ImageDraw, arena: data.Arena, mf: MapFrame) -> None:
    bold = font(24, bold=True)

    def put(xy, text):
        draw_text(draw, xy, text, bold, palette.WALL_TEXT, "mm", stroke_width=3, stroke_fill=palette.WALL)

    ends = ((0, style.MAP_END / 2), (arena.rows - 1, mf.height - style.MAP_END / 2))
    for col in range(arena.columns):
        for row, y in ends:
            letters = label(from_offset(col, row)).rstrip("0123456789")
            x = mf.layout.center(from_offset(col, row))[0]
            put((x, y), letters)
    for row in range(arena.rows):
        y = mf.layout.center(from_offset(0, row))[1]
        for x in (style.MAP_SIDE / 2 + 2, mf.width - style.MAP_SIDE / 2 - 2):
            put((x, y), str(row + 1))


@cache
def base_layer(arena_id: str, words: bool = True) -> Image.Image:
    """The arena with nothing on it (without its hex and edge labels when not `words`: a close-up
    writes its own); copy before drawing on it.

    Its wall is plain and its hex labels are drawn without antialiasing (crisp 10 px words, a few
    pixels on a phone in any case): the brick pattern and the labels' shades were a fifth of a channel
    picture's bytes (issue 39 item 4)."""
    arena = data.arena(arena_id)
    mf = frame(arena_id)
    image = Image.new("RGB", (mf.width, mf.height), palette.WALL)
    draw = ImageDraw.Draw(image)
    small = font(10)
    open_hexes = [h for h in arena.field_hexes() if arena.is_open(h)]
    draw.fontmode = "1"
    for h in open_hexes:
        draw.polygon(mf.layout.corners(h), fill=palette.FIELD, outline=palette.GRID, width=2)
        if words:
            draw_text(draw, mf.layout.center(h), label(h), small, palette.HEX_LABEL, "mm")
    draw.fontmode = "L"
    for h in open_hexes:
        for direction, delta in enumerate(DIRECTIONS):
            if not arena.is_open(add(h, delta)):
                draw.line(mf.layout.edge(h, direction), fill=palette.INK, width=5)
    if words:
        _edge_labels(draw, arena, mf)
    return image
