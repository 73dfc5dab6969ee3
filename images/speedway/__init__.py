"""Speedway's table picture: caption on top, the arena with its cars, then every car's sheet."""

from __future__ import annotations

from PIL import Image

from images.draw import style_colours, to_png
from images.speedway.arena import base_layer, frame
from images.speedway.caption import render_caption
from images.speedway.counters import draw_cars, draw_tags
from images.speedway.sheets import render_panel
from images.speedway import style
from images.speedway.style import MIN_PAGE_WIDTH, PAPER
from rules.speedway.state import SpeedwayState


KEY_COLOURS = style_colours(style)


def render_image(state: SpeedwayState) -> Image.Image:
    """The whole picture as a Pillow image."""
    mf = frame(state.arena)
    board = base_layer(state.arena).copy()
    boxes, marks = draw_cars(board, state, mf.layout)
    draw_tags(board, state, boxes, marks)
    # Small arenas are centred on a page as wide as the classic one, so sheets keep their layout.
    width = max(mf.width, MIN_PAGE_WIDTH)
    parts = [render_caption(state, width), board]
    panel = render_panel(state, width)
    if panel is not None:
        parts.append(panel)
    image = Image.new("RGB", (width, sum(p.height for p in parts)), PAPER)
    y = 0
    for part in parts:
        image.paste(part, ((width - part.width) // 2, y))
        y += part.height
    return image


def render_speedway(state: SpeedwayState) -> bytes:
    """Render a Speedway state to PNG bytes (the same state always gives the same bytes)."""
    return to_png(render_image(state), KEY_COLOURS)
