"""The track (card race) table picture: a caption, then the square ring of 36 holes with pits, starts,
white dots, finish lanes, the cars, the last move's path and the discard and draw piles.

Renders only what the public view holds: hand sizes, never a hand's cards; the draw pile as a count.
"""

from __future__ import annotations

from PIL import Image

from images.captions import Captioner
from images.draw import style_colours, to_png
from images.registry import Renderer
from images.track import style
from images.track.board import draw_board
from images.track.caption import colour_of, name_of, render_caption
from rules.track.state import TrackState

KEY_COLOURS = style_colours(style)


def render_image(state: TrackState, last: tuple = ()) -> Image.Image:
    """The whole picture as a Pillow image; `last` is the events of the action that led to `state`."""
    parts = [render_caption(state, style.WIDTH, last), draw_board(state)]
    image = Image.new("RGB", (style.WIDTH, sum(p.height for p in parts)), style.PAPER)
    y = 0
    for part in parts:
        image.paste(part, (0, y))
        y += part.height
    return image


def render_track(state: TrackState, last: tuple = ()) -> bytes:
    """Render a track state (pass the public view) and its last action's events to PNG bytes; the same
    input gives the same bytes."""
    return to_png(render_image(state, last), KEY_COLOURS)


RENDERER = Renderer(render=render_track, replay_map=lambda state, _last: draw_board(state),
                    captioner=Captioner(name_of, colour_of))
