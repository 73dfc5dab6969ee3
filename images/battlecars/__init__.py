"""Battlecars' table picture: the board of points (roads, grass, buildings, trees) with grid labels,
every vehicle as a top-down token in its driver's colour pointing its facing, the last move's path and
shot, and beside the board one compact line-up of each vehicle's mat (speed, armour, components, rounds).

Landscape and one size per board all game. Speed counters still face down show as "?" (the view has
blanked them); nothing hidden is drawn.

The pieces: style (sizes, colours, where a point is drawn), board (the bare board and the page over it),
marks (tokens, counters, trails), pieces (redrawing only where something is), tags, chips, header.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from images import palette as colours
from images.battlecars.board import bare, bare_large, board_image
from images.battlecars.chips import chip_image, chip_lines
from images.battlecars.closeup import acting_vehicle, held
from images.battlecars.header import colour_of, draw_header, name_of, turn_words
from images.battlecars.marks import plan_end
from images.battlecars.mats import render_mats
from images.battlecars.style import (
    BUILDING,
    CHIP,
    GRASS,
    HEADER,
    LABELS,
    LINE,
    PATH,
    ROAD,
    SIDEBAR,
    TEXT,
    TRAILS,
    TREES,
    cell_size,
    centre,
    page_size,
)
from images.battlecars.tags import draw_tags, tag_words
from images.captions import Captioner
from images.closeup import Closeup, Ruler, Spot, around, closeup, crop_box
from images.draw import FEW_COLOURS, build_palette, colour_counts, small_palette, style_colours, to_png
from images.fonts import font
from images.reference import started
from images.registry import Renderer
from rules.battlecars import data
from rules.battlecars.actions import Join
from rules.battlecars.events import Drifted, VehicleMoved, WeaponFired
from rules.battlecars.grid import parse_label
from rules.battlecars.ruleset import RULESET as BATTLECARS
from rules.battlecars.state import BattlecarsState, Phase

# The channel picture's deflate (images.png): zlib-ng at this level, within the game's speed goal
# (a move at most half a plain Pillow PNG's time; docs/performance.md). A picture in 16 colours
# (few_colours) is 4 bits a pixel: half the bytes to deflate.
PNG_LEVEL = 4
COLOURS = 14   # a picture's colours when they fit: its own, then shades for its words' and lines' edges


def render_image(state: BattlecarsState, last: tuple = (), title: str = "", whole: bool = False,
                 turn: tuple = (), plan: bool = False) -> Image.Image:
    """The channel picture: header, board with tokens, tags, the last action and each vehicle's trail
    through `turn` (the recent turns' events), chips beside it (a plan's preview passes its own `title`
    and its path as `last`, and `plan`: the path ends in a ghost of its vehicle).

    The bare board is drawn once per board and kept; a picture redraws only the pieces of the board where
    something stands or happened (pieces_of), then lays the name tags, the header and the chips over it.
    `whole` draws the whole board afresh instead: the same pixels, which the tests compare."""
    board = state.the_board
    width, height = page_size(board)
    image = board_image(state, last, turn, whole, plan=plan)
    draw = ImageDraw.Draw(image)
    draw_tags(draw, state, cell_size(board), HEADER, (width, height))
    draw_header(draw, state, last, width, title)
    x0 = width - SIDEBAR + 10
    for index, vehicle in enumerate(state.vehicles):
        fill = colours.wreck_colour(vehicle.colour) if vehicle.destroyed else colours.car_colour(vehicle.colour)
        active = state.active == vehicle.owner and state.phase == Phase.MOVE
        chip = chip_image(chip_lines(state, vehicle), fill, vehicle.destroyed, active, (width - 12 - x0, CHIP))
        image.paste(chip, (x0, HEADER + index * (CHIP + 6)))
    return image


KEY_COLOURS = style_colours(colours) + (ROAD, GRASS, BUILDING, TREES, LINE) + TRAILS


def render_battlecars(state: BattlecarsState, last: tuple = (), turn: tuple = ()) -> bytes:
    """Render a Battlecars view and its last action's events to PNG bytes (same input, same bytes)."""
    palette = few_colours(state.board, state.big, drawn_colours(state, last)) or palette_for(state.board, state.big)
    return to_png(render_image(state, last, turn=turn), palette=palette, level=PNG_LEVEL)


GROUND_COLOURS = (colours.PAPER, colours.INK, colours.MUTED, ROAD, GRASS, BUILDING, TREES, LINE)
COUNTER_COLOURS = {"oil": (colours.OIL, colours.OIL_SHEEN), "mine": (colours.MINE, colours.MINE_RIM, colours.HIGHLIGHT),
                   "spikes": (colours.HIGHLIGHT,), "smoke": (colours.SMOKE, colours.SMOKE_RIM)}


def drawn_colours(state: BattlecarsState, last: tuple) -> tuple[tuple[int, int, int], ...]:
    """Every colour the channel picture of `state` and its last action's events draws (images.battlecars.marks,
    chips, tags): the board's, each vehicle's and its trail's (a wreck's grey), the last move's path, the
    counters', fire and debris, a shot's."""
    found = list(GROUND_COLOURS)
    for vehicle in state.vehicles:
        found += [colours.wreck_colour(vehicle.colour) if vehicle.destroyed else colours.car_colour(vehicle.colour),
                  TRAILS[vehicle.colour % len(TRAILS)]]
    if any(isinstance(event, (VehicleMoved, Drifted)) for event in last):
        found.append(PATH)
    for counter in state.counters:
        found += COUNTER_COLOURS.get(counter.kind, ())
    if state.pedestrians or state.scenery_damage:
        found.append(colours.FLAME)
    if state.scenery_damage:
        found += [colours.DEBRIS, colours.DEBRIS_DARK]
    if any(isinstance(event, WeaponFired) for event in last):
        found.append(colours.HIGHLIGHT)
    return tuple(dict.fromkeys(found))


@lru_cache(maxsize=8)
def _reference_counts(board_id: str, big: bool) -> dict:
    """How much of the reference picture of a board (palette_for) each colour of its fixed palette takes,
    less the key colours (a picture's own colours are chosen by what it draws)."""
    counts = colour_counts(_reference_picture(board_id, big), palette_for(board_id, big))
    return {colour: count for colour, count in counts.items() if colour not in KEY_COLOURS}


@lru_cache(maxsize=64)
def few_colours(board_id: str, big: bool, drawn: tuple) -> Image.Image | None:
    """The 16 colours or fewer of a channel picture that draws the colours `drawn` (drawn_colours), then
    the reference picture's most common shades up to COLOURS; None when they do not fit (then the picture
    keeps the fixed palette's 256 colours)."""
    return small_palette(_reference_counts(board_id, big), drawn, min(FEW_COLOURS, max(COLOURS, len(drawn) + 2)))


def render_plan(state: BattlecarsState, preview) -> bytes:
    """A plan's private preview: the map with the planned path drawn as a move, not yet driven."""
    return to_png(render_image(state, preview.moves, "Your plan (not driven yet)", plan=True),
                  palette=palette_for(state.board, state.big))


@lru_cache(maxsize=8)
def palette_for(board_id: str, big: bool) -> Image.Image:
    """The fixed palette of every picture of a board: made once from a reference picture (a vehicle of
    every colour the board seats, just placed), so a picture's bytes depend on its state alone and no
    picture pays for building one."""
    return build_palette(_reference_picture(board_id, big), KEY_COLOURS)


def _reference_picture(board_id: str, big: bool) -> Image.Image:
    """A board's reference picture: a vehicle of every colour the board seats, just placed."""
    seats = data.table()["max_players"] if big else data.table()["big_board_from"] - 1
    mats = list(data.vehicles())
    state = started(BATTLECARS, {"board": board_id},
                    [Join(f"Player {seat + 1}", mats[seat % len(mats)]) for seat in range(seats)])
    return render_image(state)


def warm() -> None:
    """Every board's palette and its colours' shares, made before the first move needs them. The bare
    boards its reference pictures drew are let go: one a board and size at twice the picture's size (59 MB
    in all) where a game needs its own only, built in 25 ms by its first picture (issue 39, item 8)."""
    for board_id in data.board_ids():
        for big in (False, True):
            _reference_counts(board_id, big)   # the palette, and its shares for few_colours
    bare_large.cache_clear()
    bare.cache_clear()


def render_closeup_image(state: BattlecarsState, last: tuple = (), turn: tuple = (),
                         focus: str | None = None, plan: bool = False) -> Closeup:
    """The close-up for a phone of a public view (images.closeup): the board and what stands on it
    (tokens without letters), cropped round the acting vehicle, the vehicles in its reach, its nearest
    rival and the path of `last` inside the rulers, everyone named on a tag and the grid's letters and
    numbers along the edges (images.battlecars.closeup says which vehicle acts and what it reaches). A
    `plan`'s path (`last`) ends in a ghost of its vehicle, tagged "Ends here" (and the plan is drawn large:
    the nearest rival is held only when in reach)."""
    board = state.the_board
    cell = cell_size(board)
    image = board_image(state, last, turn, words=False, plan=plan)
    inner = (LABELS, HEADER + LABELS, LABELS + board.width * cell, HEADER + LABELS + board.height * cell)
    vehicle = acting_vehicle(state, focus)
    shown = held(state, vehicle, rival_too=not plan) if vehicle is not None else list(state.vehicles)
    driven = [parse_label(getattr(e, end)) for e in last if isinstance(e, (VehicleMoved, Drifted))
              for end in ("from_point", "to_point")]   # the last move's (or a plan's) path
    points = [centre(p, cell, HEADER) for p in [v.point for v in shown if v.point is not None] + driven] or \
        [((inner[0] + inner[2]) / 2, (inner[1] + inner[3]) / 2)]
    crop = crop_box(around(points, cell * 1.1), inner, (7 * cell, 5 * cell), ruled=True)
    spots = [Spot(ident, *centre(point, cell, HEADER), words, colour, cell * 0.45)
             for ident, point, words, colour, _muted in tag_words(state, font(TEXT, bold=True))]
    if plan and (end := plan_end(state, last)) is not None:
        spots.insert(0, Spot(PLAN_END, *centre(end[1], cell, HEADER), "Ends here", PATH, cell * 0.5))
    ruler = Ruler(tuple((centre((x, 0), cell, HEADER)[0], chr(ord("A") + x)) for x in range(board.width)),
                  tuple((centre((0, y), cell, HEADER)[1], str(y + 1)) for y in range(board.height)))
    damaged = bool(state.scenery_damage)   # a damaged piece's badge ('7/20') is the map's own words
    return closeup(image, crop, spots, ruler, map_text=TEXT if damaged else 0.0, map_box=inner)


PLAN_END = "plan-end"   # the spot of a plan's end in its close-up


def render_preview_closeup(state: BattlecarsState, preview, focus: str | None = None) -> Closeup:
    """The close-up of a plan's private preview: the planned path drawn as a move (as the preview's
    picture draws it) to a ghost of the vehicle where it ends, cropped round the planning vehicle, its
    path and what its weapons reach."""
    return render_closeup_image(state, preview.moves, (), focus, plan=True)


RENDERER = Renderer(render=render_battlecars, replay_map=lambda state, last: render_image(state, last),
                    captioner=Captioner(name_of, colour_of, turn_words), render_preview=render_plan,
                    render_sheets=render_mats, warm=warm,
                    closeup=render_closeup_image, preview_closeup=render_preview_closeup)
