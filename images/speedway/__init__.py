"""Speedway's table picture: caption on top, the arena with its cars, then every car's sheet."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

from PIL import Image, ImageChops

from images import palette
from images.bounded import bounded
from images.captions import Captioner
from images.closeup import Closeup
from images.draw import build_palette, style_colours, to_png
from images.palette import PAPER
from images.reference import started
from images.registry import Renderer
from images.speedway.arena import base_layer, frame
from images.speedway.caption import (
    BANDS,
    DICE_TOP,
    HEADER,
    TITLE_END,
    BandWords,
    caption_words,
    colour_of,
    draw_band,
    name_of,
    render_caption,
)
from images.speedway.counters import draw_cars, draw_tags, keep_clear, prebuild_counters
from images.speedway.last_turn import last_shot
from images.speedway.livery import liveried
from images.speedway.sheets import render_panel
from images.speedway.status import ChipFace, band_height, chip_image, render_status, smallest_text, status_chips
from images.speedway.trails import draw_crashes, draw_trails
from rules.speedway import data
from rules.speedway.actions import Join
from rules.speedway.combat import find_target
from rules.speedway.ruleset import SPEEDWAY
from rules.speedway.state import SpeedwayState

KEY_COLOURS = style_colours(palette)
WIDE_MAP = 800      # maps at least this wide carry the chips under them; narrower ones beside them
SIDEBAR = 330       # the chips' column beside a narrow map
SHEETS_WIDTH = 1000  # the car sheets picture

# The channel picture's deflate (images.png): zlib-ng at this level, within the game's speed goal
# (a move at most half a plain Pillow PNG's time; docs/performance.md), strip by strip: about half of
# a move's strips are the last move's, and are not deflated again (PNG_STRIPS; strip_breaks).
PNG_LEVEL = 5
PNG_STRIPS = True


def map_band(state: SpeedwayState, last: tuple = (), turn: tuple = ()) -> Image.Image:
    """The map alone: the arena, the trails and crashes of `turn`, the cars and hazards, the shot `last`
    fired, and the tags (also a replay frame's map, whose turn is its own events)."""
    board = base_layer(state.arena).copy()
    layout = frame(state.arena).layout
    trails = draw_trails(board, state, layout, turn)
    boxes, marks = draw_cars(board, state, layout, last_shot(state, last))
    marks += draw_crashes(board, layout, turn) + trails + keep_clear(state, layout)
    draw_tags(board, state, boxes, marks)
    return board


@dataclass(frozen=True)
class Page:
    """Where the parts of an arena's channel picture go; the same for every picture of a game."""

    width: int
    height: int
    map_at: tuple[int, int]
    status_at: tuple[int, int]
    status_size: tuple[int, int]
    columns: int


@cache
def page(arena_id: str) -> Page:
    """The layout of an arena's picture: the header across the top, then the map with the cars' chips
    under it (wide arenas) or beside it (narrow ones), so the picture is landscape and its size fixed
    by the arena alone (room for as many chips as the arena has seats)."""
    mf = frame(arena_id)
    seats = data.max_cars(arena_id)
    if mf.width >= WIDE_MAP:
        band = band_height(-(-seats // 3))
        return Page(mf.width, HEADER + mf.height + band, (0, HEADER), (0, HEADER + mf.height),
                    (mf.width, band), 3)
    band = max(mf.height, band_height(seats))
    return Page(mf.width + SIDEBAR, HEADER + band, (0, HEADER + (band - mf.height) // 2), (mf.width, HEADER),
                (SIDEBAR, band), 1)


@cache
def strip_breaks(arena_id: str) -> tuple[int, ...]:
    """The rows where the parts of an arena's picture meet (the header's title, news and dice rows, the
    map, the chips' band), where its PNG strips start (images.png): what changes with every move (the
    header's words) then shares no strip with the map, whose unchanged strips are found again."""
    layout, mf = page(arena_id), frame(arena_id)
    parts = {TITLE_END, DICE_TOP, HEADER, layout.map_at[1], layout.map_at[1] + mf.height, layout.status_at[1],
             layout.status_at[1] + layout.status_size[1]}
    return tuple(sorted(row for row in parts if 0 < row < layout.height))


def _parts(state: SpeedwayState, last: tuple, turn: tuple) -> tuple[Page, list[tuple[Image.Image, tuple[int, int]]]]:
    """The picture's layout and its parts, each with where it goes: header, map and the cars' chips."""
    layout = page(state.arena)
    return layout, [(render_caption(state, layout.width, last), (0, 0)), (map_band(state, last, turn), layout.map_at),
                    (render_status(state, *layout.status_size, layout.columns, layout.width), layout.status_at)]


def render_image(state: SpeedwayState, last: tuple = (), turn: tuple = ()) -> Image.Image:
    """The channel picture as a Pillow image: header, map and the cars' chips, at the arena's fixed size;
    `last` is the events of the action that led to `state`."""
    layout, parts = _parts(liveried(state), last, turn)
    image = Image.new("RGB", (layout.width, layout.height), PAPER)
    for part, at in parts:
        image.paste(part, at)
    return image


def _mapped(image: Image.Image, arena: str) -> Image.Image:
    """An RGB image mapped to the arena's palette, without dither: each pixel by its colour alone."""
    return image.quantize(palette=palette_for(arena), dither=Image.Dither.NONE)


@cache
def _paper_index(arena: str) -> int:
    """The paper's entry in the arena's palette."""
    paper = _mapped(Image.new("RGB", (1, 1), PAPER), arena)
    return paper.tobytes()[0]


MAPPED_BYTES = 3 << 20   # the header's bands kept mapped to the palette (images.bounded): ~60 KB each
NEWS_BAND = 1   # what the last action said: seldom the same twice (~8% of moves), drawn every time
CHIPS_BYTES = 2 << 20    # the chips kept mapped to the palette: ~27 KB each beside a narrow map


@bounded(MAPPED_BYTES)
def _mapped_band(arena: str, band: int, words: BandWords, width: int) -> Image.Image:
    """A header band (`band`: caption.BANDS, showing `words`) drawn and mapped to the arena's palette: a
    band kept (often the dice row, and a title seen before) is neither drawn nor mapped again."""
    return _mapped(draw_band(band, words, width), arena)


@bounded(CHIPS_BYTES)
def _mapped_chip(arena: str, face: ChipFace, width: int, minimum: int) -> Image.Image:
    """A car's chip (status.chip_image) mapped to the arena's palette: most chips are the same from one
    move to the next."""
    return _mapped(chip_image(face, width, minimum), arena)


_LAST_MAP: list[tuple[str, Image.Image, Image.Image] | None] = [None]   # (arena, map, the map mapped)


@cache
def _mapped_base(arena: str) -> Image.Image:
    """The bare arena mapped to its palette."""
    return _mapped(base_layer(arena), arena)


def _mapped_map(arena: str, board: Image.Image) -> Image.Image:
    """`board` (map_band) mapped to the arena's palette, mapping only the box where it differs from the last
    map drawn (a move changes a fifth of it), or from the bare arena when that one was another arena's:
    the rest is that one's mapping copied. Pillow maps a pixel by its colour alone, so it is the same
    picture as `board` mapped whole. Neither image is changed once kept (render threads share them)."""
    last = _LAST_MAP[0]
    seen, seen_mapped = (last[1], last[2]) if last is not None and last[0] == arena else \
        (base_layer(arena), _mapped_base(arena))
    box = ImageChops.difference(board, seen).getbbox()
    mapped = seen_mapped.copy()
    if box:
        mapped.paste(_mapped(board.crop(box), arena), box[:2])
    _LAST_MAP[0] = (arena, board, mapped)
    return mapped


def render_paletted(state: SpeedwayState, last: tuple = (), turn: tuple = ()) -> Image.Image:
    """render_image mapped to the arena's palette, pixel for pixel the same: each part is mapped alone
    (Pillow maps a pixel by its colour alone, without dither) and pasted, which spares building the
    whole picture in RGB first; the header's bands and the chips are kept mapped by what they show, and
    the map is mapped only where it differs from the last one (_mapped_map)."""
    state = liveried(state)
    arena, layout = state.arena, page(state.arena)
    board = _mapped_map(arena, map_band(state, last, turn))
    image = Image.new("P", (layout.width, layout.height), _paper_index(arena))
    image.putpalette(board.getpalette() or ())
    for band, words in enumerate(caption_words(state, last)):
        mapped = _mapped_band(arena, band, words, layout.width) if band != NEWS_BAND else \
            _mapped(draw_band(band, words, layout.width), arena)
        image.paste(mapped, (0, BANDS[band][0]))
    image.paste(board, layout.map_at)
    (x, y), minimum = layout.status_at, smallest_text(layout.width)
    for face, box in status_chips(state, *layout.status_size, layout.columns):
        image.paste(_mapped_chip(arena, face, box[2] - box[0], minimum), (x + box[0], y + box[1]))
    return image


def render_sheets(state: SpeedwayState, which: str = "") -> bytes:
    """The full car sheets (every car, or the one `which` names by id or name) as a PNG: drawn on
    request, not with every move. BadOption when no car fits `which`."""
    state = liveried(state)
    shown = replace(state, cars=(find_target(state, which),)) if which.strip() else state
    panel = render_panel(shown, SHEETS_WIDTH)
    if panel is None:
        raise ValueError("no car is seated yet")
    return to_png(panel, palette=palette_for(state.arena))


@cache
def palette_for(arena: str):
    """The fixed palette of every picture of `arena`: made once from a reference picture (a car of each
    colour the arena has room for, just placed), so a picture's bytes depend on its state alone."""
    designs = list(data.car_designs())
    seats = range(min(len(palette.CAR_COLOURS), len(data.arena(arena).starts)))
    state = started(SPEEDWAY, {"arena": arena},
                    [Join(f"Player {seat + 1}", designs[seat % len(designs)]) for seat in seats])
    return build_palette(render_image(state), KEY_COLOURS)


def render_speedway(state: SpeedwayState, last: tuple = (), turn: tuple = ()) -> bytes:
    """Render a Speedway state, its last action's events and its recent turn's to PNG bytes (the same
    input always gives the same bytes)."""
    return to_png(render_paletted(state, last, turn), colours=0, level=PNG_LEVEL,
                  strips=strip_breaks(state.arena) if PNG_STRIPS else False)


def warm() -> None:
    """Every arena's palette and the common car counters, made before the first move needs them."""
    for arena in data.arena_ids():
        palette_for(arena)
    prebuild_counters()


def _render_preview(view: SpeedwayState, preview) -> bytes:
    from images.speedway.preview import render_preview

    return render_preview(liveried(view), preview)


def _preview_closeup(view: SpeedwayState, preview, focus: str | None) -> Closeup:
    from images.speedway.closeup import render_preview_closeup

    return render_preview_closeup(view, preview, focus)


def _closeup(view, last: tuple, turn: tuple, focus: str | None) -> Closeup:
    from images.speedway.closeup import render_closeup_image

    return render_closeup_image(view, last, turn, focus)


RENDERER = Renderer(render=render_speedway,
                    replay_map=lambda state, events: map_band(liveried(state), events, events),
                    captioner=Captioner(name_of, lambda state, name: colour_of(liveried(state), name)),
                    render_preview=_render_preview, render_sheets=render_sheets, warm=warm,
                    closeup=_closeup, preview_closeup=_preview_closeup)
