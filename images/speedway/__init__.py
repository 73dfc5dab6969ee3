"""Speedway's table picture: caption on top, the arena with its cars, then every car's sheet."""

from __future__ import annotations

from functools import cache

from PIL import Image

from images.captions import Captioner
from images.draw import build_palette, style_colours, to_png
from images.registry import Renderer
from images.speedway import style
from images.speedway.arena import base_layer, frame
from images.speedway.caption import colour_of, name_of, render_caption
from images.speedway.counters import draw_cars, draw_tags
from images.speedway.last_turn import last_shot
from images.speedway.sheets import render_panel
from images.speedway.style import MIN_PAGE_WIDTH, PAPER
from rules.speedway import data
from rules.speedway.actions import Join, Start
from rules.speedway.ruleset import SPEEDWAY
from rules.speedway.state import SpeedwayState

KEY_COLOURS = style_colours(style)


def map_band(state: SpeedwayState, last: tuple = ()) -> Image.Image:
    """The map alone: the arena with its cars, hazards, the shot `last` fired and the tags (also a
    replay frame's map)."""
    board = base_layer(state.arena).copy()
    boxes, marks = draw_cars(board, state, frame(state.arena).layout, last_shot(state, last))
    draw_tags(board, state, boxes, marks)
    return board


def render_image(state: SpeedwayState, last: tuple = ()) -> Image.Image:
    """The whole picture as a Pillow image; `last` is the events of the action that led to `state`."""
    mf = frame(state.arena)
    board = map_band(state, last)
    # Small arenas are centred on a page as wide as the classic one, so sheets keep their layout.
    width = max(mf.width, MIN_PAGE_WIDTH)
    parts = [render_caption(state, width, last), board]
    panel = render_panel(state, width)
    if panel is not None:
        parts.append(panel)
    image = Image.new("RGB", (width, sum(p.height for p in parts)), PAPER)
    y = 0
    for part in parts:
        image.paste(part, ((width - part.width) // 2, y))
        y += part.height
    return image


@cache
def palette_for(arena: str):
    """The fixed palette of every picture of `arena`: made once from a reference picture (a car of each
    colour the arena has room for, just placed), so a picture's bytes depend on its state alone."""
    state = SPEEDWAY.setup({"arena": arena}, 0, "p0")
    designs = list(data.car_designs())
    for seat in range(min(len(style.CAR_COLOURS), len(data.arena(arena).starts))):
        state = SPEEDWAY.apply(state, f"p{seat}", Join(f"Player {seat + 1}", designs[seat % len(designs)]))[0]
    state = SPEEDWAY.apply(state, "p0", Start())[0]
    return build_palette(render_image(state), KEY_COLOURS)


def render_speedway(state: SpeedwayState, last: tuple = ()) -> bytes:
    """Render a Speedway state and its last action's events to PNG bytes (the same input always gives
    the same bytes)."""
    return to_png(render_image(state, last), palette=palette_for(state.arena))


def _render_preview(view: SpeedwayState, preview) -> bytes:
    from images.speedway.preview import render_preview

    return render_preview(view, preview)


RENDERER = Renderer(render=render_speedway, replay_map=map_band,
                    captioner=Captioner(name_of, colour_of),
                    render_preview=_render_preview)
