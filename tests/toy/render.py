"""Toy's picture: the 5x5 grid, each token, and a tick beside those who have declared (never what)."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from images.captions import Captioner, event_words
from images.fonts import font
from images.registry import Renderer
from tests.toy.rules import SIZE, ToyState

CELL = 64
COLOURS = ((0, 114, 178), (230, 159, 0), (0, 158, 115), (204, 121, 167), (86, 180, 233))


def _colour(state: ToyState, player: str) -> tuple[int, int, int]:
    seat = next((i for i, p in enumerate(state.players) if p.id == player), 0)
    return COLOURS[seat % len(COLOURS)]


def _name(state: ToyState, player: str | None) -> str:
    seat = state.player(player) if player else None
    return seat.name if seat else (player or "")


def grid(state: ToyState) -> Image.Image:
    """The board alone (also a replay frame's map)."""
    image = Image.new("RGB", (SIZE * CELL + 160, SIZE * CELL), (250, 248, 240))
    draw = ImageDraw.Draw(image)
    for i in range(SIZE + 1):
        draw.line((i * CELL, 0, i * CELL, SIZE * CELL), fill=(120, 120, 120))
        draw.line((0, i * CELL, SIZE * CELL, i * CELL), fill=(120, 120, 120))
    declared = {p for p, _ in state.declared}
    for row, seat in enumerate(state.players):
        x, y = seat.x * CELL + CELL // 2, seat.y * CELL + CELL // 2
        draw.ellipse((x - 20, y - 20, x + 20, y + 20), fill=_colour(state, seat.id))
        mark = " ✓" if seat.id in declared else ""
        draw.text((SIZE * CELL + 10, 10 + row * 24), seat.name + mark, fill=_colour(state, seat.id), font=font(16))
    return image


def render(state: ToyState, last: tuple = (), turn: tuple = ()) -> bytes:
    """The grid with the last action's words under it."""
    image = grid(state)
    ImageDraw.Draw(image).text((SIZE * CELL + 10, SIZE * CELL - 24), event_words(last)[:24], fill=(0, 0, 0),
                               font=font(12))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


RENDERER = Renderer(render=render, replay_map=lambda state, _last: grid(state), captioner=Captioner(_name, _colour))
