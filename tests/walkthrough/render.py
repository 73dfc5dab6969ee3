"""Hare's picture: a strip of squares from the start to the goal, each hare a disc in its colour."""

from __future__ import annotations

from PIL import Image, ImageDraw

from images import palette
from images.captions import Captioner, seat_name
from images.draw import style_colours, to_png
from images.fonts import font
from images.registry import Renderer
from tests.walkthrough.rules import GOAL, HareState

CELL = 48
ROW = 40


def _colour(state: HareState, player_id: str) -> tuple[int, int, int]:
    seat = next((i for i, p in enumerate(state.players) if p.id == player_id), 0)
    return palette.car_colour(seat)


def strip(state: HareState) -> Image.Image:
    """The squares and the hares on them (also a replay frame's map)."""
    image = Image.new("RGB", ((GOAL + 1) * CELL + 120, max(1, len(state.players)) * ROW + 20), palette.FIELD)
    draw = ImageDraw.Draw(image)
    for row, (seat, square) in enumerate(zip(state.players, state.squares, strict=True)):
        y = 10 + row * ROW
        draw.text((4, y + 10), seat.name[:12], fill=palette.INK, font=font(16))
        for cell in range(GOAL + 1):
            x = 120 + cell * CELL
            draw.rectangle((x, y, x + CELL - 4, y + ROW - 4), outline=palette.GRID)
        x = 120 + square * CELL
        draw.ellipse((x + 6, y + 4, x + CELL - 10, y + ROW - 8), fill=_colour(state, seat.id))
    return image


def render(state: HareState, last: tuple = (), turn: tuple = ()) -> bytes:
    return to_png(strip(state), style_colours(palette))


RENDERER = Renderer(render=render, replay_map=lambda state, _last: strip(state),
                    captioner=Captioner(seat_name, _colour))
