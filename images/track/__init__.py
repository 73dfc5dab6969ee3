"""The track (card race) table picture: a caption, then the square ring of 36 holes with pits, starts,
white dots, finish lanes, the cars, the last move's path and the discard and draw piles.

Renders only what the public view holds: hand sizes, never a hand's cards; the draw pile as a count.
"""

from __future__ import annotations

from functools import cache, lru_cache

from PIL import Image

from images.bands import Part, assembled, mapped, mapped_alone
from images.bounded import bounded
from images.captions import Captioner
from images.closeup import Closeup
from images.draw import build_palette, colour_counts, shown, small_palette, style_colours, to_png
from images.reference import started
from images.registry import Renderer
from images.track import style
from images.track.board import BOARD, Box, draw_board, drawn_board, joined_where_overlapping, kept_board_of, warm_board
from images.track.caption import LINES_BAND, colour_of, name_of, render_sidebar, sidebar_parts
from rules.track.actions import Join
from rules.track.ruleset import TRACK
from rules.track.state import Board, TrackState

KEY_COLOURS = style_colours(style)
SIDEBAR = 420   # the column of words beside the board
REPLAY_SIDE = 640  # a replay frame's board: the frame's width, so it is not shrunk twice

# The channel picture's deflate (images.png): zlib-ng at this level, within the game's speed goal
# (a move at most half a plain Pillow PNG's time; docs/performance.md). Its 16 colours (few_colours)
# make it 4 bits a pixel: half the bytes to deflate, so a higher level costs less than before.
PNG_LEVEL = 2


def render_image(state: TrackState, last: tuple = ()) -> Image.Image:
    """The whole picture as a Pillow image: the board, and beside it whose turn, the last card and the
    seats; landscape, and the same size all game. `last` is the events of the action that led to `state`."""
    board = draw_board(state)
    image = Image.new("RGB", (board.width + SIDEBAR, board.height), style.PAPER)
    image.paste(board, (0, 0))
    image.paste(render_sidebar(state, SIDEBAR, board.height, last), (board.width, 0))
    return image


def render_track(state: TrackState, last: tuple = (), turn: tuple = ()) -> bytes:
    """Render a track state (pass the public view) and its last action's events to PNG bytes; the same
    input gives the same bytes. A card race needs no trail of the turn: `turn` is not drawn."""
    return to_png(render_paletted(state, last), colours=0, level=PNG_LEVEL)


def render_paletted(state: TrackState, last: tuple = ()) -> Image.Image:
    """render_image mapped to the picture's palette, pixel for pixel the same, for less: Pillow maps a
    pixel by its colour alone (no dither), so the kept board is mapped once, and a move maps only the
    boxes the game drew in over it (drawn_board); the words beside it are mapped band by band, most of
    them kept mapped from an earlier move (_mapped_sidebar)."""
    palette = pictures_palette()
    board, boxes = drawn_board(state)
    kept = _kept_mapped(state.board, frozenset(p.seat for p in state.players)).copy()
    for box in merged(boxes, board.size):
        kept.paste(mapped(board.crop(box), palette), box[:2])
    image = Image.new("P", (board.width + SIDEBAR, board.height), _paper_index())
    image.putpalette(kept.getpalette() or ())
    image.paste(kept, (0, 0))
    image.paste(_mapped_sidebar(state, board.height, last), (board.width, 0))
    return image


def _mapped_sidebar(state: TrackState, height: int, last: tuple) -> Image.Image:
    """The sidebar mapped to the palette band by band (caption.sidebar_parts), each band but the last
    card's lines kept mapped by what it shows (a move changes the banner and a seat or two); the rows
    between bands are paper. A band whose drawing reaches past its rows has the sidebar drawn whole."""
    sidebar = assembled((SIDEBAR, height), _paper_index(), sidebar_parts(state, SIDEBAR, height, last),
                        lambda part: _mapped_band(part) if part[0] is not LINES_BAND else
                        mapped_alone(part, SIDEBAR, style.PAPER, pictures_palette()))
    return sidebar if sidebar is not None else mapped(render_sidebar(state, SIDEBAR, height, last), pictures_palette())


SIDEBAR_BYTES = 2 << 20   # the sidebar's bands kept mapped (images.bounded): a seat's ~40 KB, the banner ~37 KB


@bounded(SIDEBAR_BYTES)
def _mapped_band(part: Part) -> Image.Image | None:
    """A band of the sidebar drawn and mapped to the palette (None: it reaches past its rows). Kept by the
    band alone: Track's pictures have one palette (pictures_palette), unlike Race's, which a state picks."""
    return mapped_alone(part, SIDEBAR, style.PAPER, pictures_palette())


@cache
def _paper_index() -> int:
    """The paper's entry in the pictures' palette."""
    return mapped(Image.new("RGB", (1, 1), style.PAPER), pictures_palette()).tobytes()[0]


@lru_cache(maxsize=4)
def _kept_mapped(board: Board, occupied: frozenset[int]) -> Image.Image:
    """The kept board of these seats mapped to the pictures' palette (copy it before pasting on it)."""
    return mapped(kept_board_of(board, occupied), pictures_palette())


def merged(boxes: list[Box], size: tuple[int, int]) -> list[Box]:
    """`boxes` cut to a picture of `size`, those that overlap joined into the box around both: fewer,
    bigger boxes to map (each costs its own call)."""
    cut = [(max(0, x0), max(0, y0), min(size[0], x1), min(size[1], y1)) for x0, y0, x1, y1 in boxes]
    return joined_where_overlapping([b for b in cut if b[0] < b[2] and b[1] < b[3]], lambda box: box,
                                    lambda one, other: (min(one[0], other[0]), min(one[1], other[1]),
                                                        max(one[2], other[2]), max(one[3], other[3])))


def _reference_picture() -> Image.Image:
    """A reference picture: both seats, a card on the discard pile and the move it made."""
    state = started(TRACK, {}, [Join("P0"), Join("P1")])
    while not state.last_moves and not TRACK.is_finished(state):
        player = TRACK.acting_players(state)[0]
        state = TRACK.apply(state, player, TRACK.legal_actions(state, player)[0].action)[0]
    return render_image(state)


@cache
def reference_palette() -> Image.Image:
    """The fixed palette of Track's pictures, made once from the reference picture, so a picture's bytes
    depend on its state alone and no picture pays for building one."""
    return build_palette(_reference_picture(), KEY_COLOURS)


@cache
def few_colours() -> Image.Image | None:
    """The 16 colours of a channel picture (images.draw.small_palette): every key colour the reference
    picture shows, then its most common tints and shades. A card race has two seat colours and a fixed
    board, so 16 keep every colour exact and its words' edges smooth."""
    counts = colour_counts(_reference_picture(), reference_palette())
    return small_palette(counts, shown(counts, KEY_COLOURS))


def pictures_palette() -> Image.Image:
    """The palette of every channel picture of Track: its 16 colours (few_colours), else the reference's."""
    return few_colours() or reference_palette()


def warm() -> None:
    """The palettes and the empty and full boards, made before the first move needs them."""
    few_colours()
    warm_board(TRACK.setup({}, 0, "p0").board, BOARD)


def _closeup(view, last: tuple, turn: tuple, focus: str | None) -> Closeup:
    from images.track.closeup import render_closeup_image

    return render_closeup_image(view, last, turn, focus)


RENDERER = Renderer(render=render_track, replay_map=lambda state, _last: draw_board(state, REPLAY_SIDE),
                    captioner=Captioner(name_of, colour_of), warm=warm, closeup=_closeup)
