"""The square ring of holes: starts, corners, white dots, finish lanes, pits, cars, the last move's path
and, on the felt in the middle, the discard pile's top card and the draw pile.

What stays the same all game (the ring, lanes, pits and felt of a board) is drawn once and kept; each
picture lays the pieces that move over a copy of it. Everything is drawn SUPER times larger than the
picture and box-averaged down (antialiasing), on canvases aligned to the picture's pixels.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import TypeVar

from PIL import Image, ImageDraw

from images.bounded import bounded
from images.draw import Colour, draw_text, fit_font, ink_on
from images.fonts import font
from images.track import cards, geometry, style
from images.track.geometry import centre
from rules.track.state import Board, TrackState

BOARD = 800   # the board's side in the channel picture
SUPER = 3     # drawn at three times the picture's pixels, then averaged down
PATH_WIDTH = 34   # the last move's line, page units
# What a render process keeps (images.bounded; issue 39, item 8): 282 cars, 75 draw piles, 64 discards
# and the rings, halos and arrows of 800 pictures held 28 MB. A miss costs 0.2-0.3 ms (a car, a ring),
# 1 ms (a discard), 2.5 ms (a draw pile: ~58 kept, every count a deck goes through, as a count stays for
# several moves; 23 kept made Track's picture 1.6 ms slower).
PIECE_BYTES = 2 << 20
PILE_BYTES = 5 << 20
DISCARD_BYTES = 6 << 20
CARD_W, CARD_H = 170, 238   # a card on the felt, page units

# A piece of the picture: an image to lay over the board (RGBA, by its alpha) or into it (RGB), and where.
Piece = tuple[Image.Image, tuple[int, int]]
Point = tuple[float, float]


def board_height(state: TrackState) -> int:
    return board_height_of(state.board)


def board_height_of(b: Board) -> int:
    return 2 * style.MARGIN + geometry.side(b) * style.CELL


def _seat_of(state: TrackState, owner: str) -> int:
    p = state.player(owner)
    return p.seat if p else 0


class _Pen:
    """Draws in page units (the board's drawing space, style.WIDTH wide) on a canvas `scale` times larger,
    whose top left corner is the page point `origin`."""

    def __init__(self, image: Image.Image, scale: float, origin: tuple[float, float] = (0.0, 0.0)):
        self.draw = ImageDraw.Draw(image)
        self.k = scale
        self.origin = origin

    def p(self, xy):
        return ((xy[0] - self.origin[0]) * self.k, (xy[1] - self.origin[1]) * self.k)

    def box(self, box):
        return (*self.p(box[:2]), *self.p(box[2:]))

    def disc(self, xy, r, fill, outline=None, width=0):
        x, y = self.p(xy)
        r *= self.k
        self.draw.ellipse((x - r, y - r, x + r, y + r), fill=fill, outline=outline, width=round(width * self.k))

    def square(self, xy, r, fill, outline=None, width=0, radius=10):
        x, y = self.p(xy)
        r *= self.k
        self.draw.rounded_rectangle((x - r, y - r, x + r, y + r), radius=radius * self.k, fill=fill,
                                    outline=outline, width=round(width * self.k))

    def rect(self, box, fill=None, outline=None, width=0, radius=0):
        self.draw.rounded_rectangle(self.box(box), radius=radius * self.k, fill=fill, outline=outline,
                                    width=round(width * self.k))

    def line(self, points, fill, width):
        pts = [self.p(q) for q in points]
        self.draw.line(pts, fill=fill, width=round(width * self.k), joint="curve")
        r = width * self.k / 2
        for x, y in (pts[0], pts[-1]):
            self.draw.ellipse((x - r, y - r, x + r, y + r), fill=fill)

    def text(self, xy, text, size, fill, anchor="mm", bold=False, max_width=None):
        scaled = round(size * self.k)
        f = fit_font(text, scaled, max_width * self.k, bold) if max_width else font(scaled, bold)
        draw_text(self.draw, self.p(xy), text, f, fill, anchor)

    def polygon(self, points, fill):
        self.draw.polygon([self.p(q) for q in points], fill=fill)


def _path_cells(state: TrackState, move) -> list:
    seat = _seat_of(state, move.owner)
    b = state.board
    cells = [geometry.spot_cell(b, seat, move.from_where, move.from_spot, move.car)]
    cells += [geometry.trail_cell(b, seat, step) for step in move.path]
    if not move.path:
        cells.append(geometry.spot_cell(b, seat, move.to_where, move.to_spot, move.car))
    return cells


def felt_box(state: TrackState) -> tuple[float, float, float, float]:
    """The felt in the middle of the board (the discard and draw piles and the key), page units."""
    return felt_box_of(state.board)


def felt_box_of(b: Board) -> tuple[float, float, float, float]:
    n, m, cell = geometry.side(b), style.MARGIN, style.CELL
    return m + 2 * cell + 8, m + 3 * cell + 8, m + (n - 2) * cell - 8, m + (n - 3) * cell - 8


def crosses(a: tuple[float, float], z: tuple[float, float], box: tuple[float, float, float, float]) -> bool:
    """Whether the segment from `a` to `z` passes through `box` (Liang-Barsky clipping)."""
    low, high = 0.0, 1.0
    dx, dy = z[0] - a[0], z[1] - a[1]
    for p, q in ((-dx, a[0] - box[0]), (dx, box[2] - a[0]), (-dy, a[1] - box[1]), (dy, box[3] - a[1])):
        if p == 0:
            if q < 0:
                return False
            continue
        if p < 0:
            low = max(low, q / p)
        else:
            high = min(high, q / p)
        if low > high:
            return False
    return True


def _drawn_legs(state: TrackState, move) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """The legs of a move's path drawn as a line: every one but those that would cross the felt."""
    points = [centre(c) for c in _path_cells(state, move)]
    felt = felt_box(state)
    return [(a, z) for a, z in zip(points, points[1:]) if not crosses(a, z, felt)]


def draw_board(state: TrackState, side: int = BOARD) -> Image.Image:
    """The board, `side` pixels wide: the kept board of these seats, then the names at the pits, the last
    move's path, the cars and the piles."""
    return drawn_board(state, side)[0]


Box = tuple[int, int, int, int]
Grouped = TypeVar("Grouped")


def drawn_board(state: TrackState, side: int = BOARD) -> tuple[Image.Image, list[Box]]:
    """draw_board, and the boxes it drew in: outside them every pixel is the kept board's (kept_board)."""
    b = state.board
    occupied = frozenset(p.seat for p in state.players)
    image = _static(b, occupied, side).copy()
    boxes: list[Box] = []
    for legs in _path_groups([tuple(_drawn_legs(state, move)) for move in state.last_moves]):
        boxes.append(_draw_path(image, b, occupied, legs, side))
    names = {p.seat: p.name for p in state.players}
    for seat in range(len(b.corners)):   # over the path, which may pass by them
        boxes.append(_put(image, _pits_label(b, seat, names.get(seat, f"Seat {seat + 1}"), side)))
    for move in state.last_moves:   # a ring on every hole the path passed
        for cell in _path_cells(state, move):
            boxes.append(_put(image, _ring(centre(cell), side)))
    for move in state.last_moves:   # the car that moved last wears a halo in the path colour
        seat = _seat_of(state, move.owner)
        boxes.append(_put(image, _halo(centre(geometry.spot_cell(b, seat, move.to_where, move.to_spot, move.car)),
                                       side)))
    for car in state.cars:
        seat = _seat_of(state, car.owner)
        boxes.append(_put(image, _car(centre(geometry.car_cell(b, seat, car)), style.seat_colour(seat),
                                      car.id.lstrip("c"), side)))
    for move in state.last_moves:
        move_legs = _drawn_legs(state, move)
        if move_legs and move_legs[-1][1] == centre(_path_cells(state, move)[-1]) and \
                move_legs[-1][0] != move_legs[-1][1]:
            boxes.append(_put(image, _arrow(move_legs[-1], side)))
    felt = felt_box(state)
    boxes.append(_put(image, _discard(felt, state.top_discard, side)))
    boxes.append(_put(image, _draw_pile(felt, state.draw_count, side)))
    return image, boxes


def kept_board_of(b: Board, occupied: frozenset[int], side: int = BOARD) -> Image.Image:
    """The board with these seats taken and nothing of the game on it, what drawn_board draws on (not to
    be drawn on: copy it first)."""
    return _static(b, occupied, side)


def warm_board(b: Board, side: int) -> None:
    """Draw ahead the kept boards of every seating (a long-running process pays for them at start)."""
    for seated in range(len(b.corners) + 1):
        _static(b, frozenset(range(seated)), side)


def _put(image: Image.Image, piece: Piece) -> Box:
    """`piece` pasted on `image`; the box it covers."""
    sprite, at = piece
    image.paste(sprite, at, sprite if sprite.mode == "RGBA" else None)
    return at[0], at[1], at[0] + sprite.width, at[1] + sprite.height


def _drawn(side: int, page_box: tuple[float, float, float, float], paint: Callable[[_Pen], None],
           mode: str = "RGBA", background: Colour | tuple[int, int, int, int] | int = (0, 0, 0, 0)) -> Piece:
    """What `paint(pen)` draws inside `page_box` (page units), as a piece of a `side`-wide picture."""
    f = side / style.WIDTH
    x0, y0 = math.floor(page_box[0] * f), math.floor(page_box[1] * f)
    x1, y1 = math.ceil(page_box[2] * f), math.ceil(page_box[3] * f)
    canvas = Image.new(mode, ((x1 - x0) * SUPER, (y1 - y0) * SUPER), background)
    paint(_Pen(canvas, SUPER * f, (x0 / f, y0 / f)))
    return canvas.reduce(SUPER), (x0, y0)


def _around(xy: Point, r: float) -> tuple[float, float, float, float]:
    return xy[0] - r, xy[1] - r, xy[0] + r, xy[1] + r


@lru_cache(maxsize=8)
def _under(b: Board, occupied: frozenset[int], side: int) -> Image.Image:
    """What lies under the last move's path: the band, the felt and its key, the lanes and the pits in
    their seats' tints (grey while a seat is empty)."""
    return _drawn(side, (0, 0, style.WIDTH, board_height_of(b)), lambda pen: _paint_under(pen, b, occupied),
                  "RGB", style.PAPER)[0]


@lru_cache(maxsize=8)
def _over(b: Board, side: int) -> Image.Image:
    """What lies over the path: the spots of the lanes and pits, the ring of holes, the chevrons."""
    return _drawn(side, (0, 0, style.WIDTH, board_height_of(b)), lambda pen: _paint_over(pen, b))[0]


@lru_cache(maxsize=8)
def _static(b: Board, occupied: frozenset[int], side: int) -> Image.Image:
    """The board with nothing on it that moves."""
    image = _under(b, occupied, side).copy()
    over = _over(b, side)
    image.paste(over, (0, 0), over)
    return image


def _paint_under(pen: _Pen, b: Board, occupied: frozenset[int]) -> None:
    n = geometry.side(b)
    m, cell = style.MARGIN, style.CELL
    pen.rect((m - 6, m - 6, m + n * cell + 6, m + n * cell + 6), fill=style.FIELD, radius=40)
    pen.rect((m + cell * 0.5, m + cell * 0.5, m + (n - 0.5) * cell, m + (n - 0.5) * cell),
             outline=style.HOLE_RIM, width=cell * 0.42, radius=30)
    felt = felt_box_of(b)
    pen.rect(felt, fill=style.TABLE, radius=24)
    for seat in range(len(b.corners)):
        colour = style.seat_colour(seat)
        light = style.tint(colour, 0.35) if seat in occupied else style.tint(style.MUTED, 0.2)
        lane = [centre(geometry.lane_cell(b, seat, s)) for s in range(b.finish_holes + 1)]
        pen.line([centre(geometry.ring_cell(b, b.corners[seat]))] + lane, light, cell * 0.42)
        x0, x1, y = _pits_span(b, seat)
        pen.rect((x0, y - cell / 2 + 4, x1, y + cell / 2 - 4), fill=light, radius=18)
    _paint_key(pen, felt)


def _paint_over(pen: _Pen, b: Board) -> None:
    starts, corners = {}, {}
    for seat in range(len(b.corners)):
        corners[b.corners[seat] % b.ring_holes] = seat
        starts[(b.corners[seat] + b.start_after_corner) % b.ring_holes] = seat
    for seat in range(len(b.corners)):
        colour = style.seat_colour(seat)
        for i in range(b.cars_per_player):
            xy = centre(geometry.pit_cell(b, seat, i))
            pen.square(xy, style.HOLE - 2, style.HOLE_FILL, style.HOLE_RIM, 3, radius=12)
            pen.text(xy, str(i + 1), 30, style.HOLE_RIM, bold=True)
        for s in range(b.finish_holes + 1):
            xy = centre(geometry.lane_cell(b, seat, s))
            if s == 0:
                pen.disc(xy, style.HOLE + 2, (255, 255, 255), style.INK, 5)
                pen.text(xy, "W", 34, style.INK, bold=True)
            else:
                pen.square(xy, style.HOLE - 2, style.HOLE_FILL, colour, 6, radius=8)
                pen.text(xy, f"F{s}", 30, style.HOLE_TEXT, bold=True)
    for hole in range(b.ring_holes):
        xy = centre(geometry.ring_cell(b, hole))
        if hole in starts:   # the seed's red start dot, filled with its owner's colour
            owner = style.seat_colour(starts[hole])
            pen.disc(xy, style.HOLE + 6, owner, style.START_RED, 8)
            pen.text(xy, str(hole), 30, ink_on(owner), bold=True)
        elif hole in corners:
            pen.disc(xy, style.HOLE, style.HOLE_FILL, style.seat_colour(corners[hole]), 9)
            pen.text(xy, str(hole), 30, style.INK, bold=True)
        else:
            pen.disc(xy, style.HOLE, style.HOLE_FILL, style.HOLE_RIM, 3)
            pen.text(xy, str(hole), 28, style.HOLE_TEXT, bold=False)
    _direction_arrows(pen, b)


def _pits_span(b: Board, seat: int) -> tuple[float, float, float]:
    """A seat's pits: their left and right edges and their row (page units)."""
    pits = [centre(geometry.pit_cell(b, seat, i)) for i in range(b.cars_per_player)]
    half = style.CELL / 2 - 4
    return min(x for x, _ in pits) - half, max(x for x, _ in pits) + half, pits[0][1]


PITS_TEXT = 26      # the pits' labels, page units (fitted smaller for a long name)
SMALLEST_TEXT = 26  # the board's smallest words but a fitted pits label, page units


def pits_label_box(b: Board, seat: int) -> tuple[float, float, float, float]:
    """Where "PITS · <name>" stands above (or below) a seat's pits: its box, page units."""
    x0, x1, y = _pits_span(b, seat)
    label_y = y - style.CELL / 2 - 12 if seat % 2 == 0 else y + style.CELL / 2 + 14
    return x0, label_y - 20, x1, label_y + 20


def pits_label_size(b: Board, seat: int, name: str, side: int) -> int:
    """The font pixel size a seat's pits label is drawn in on a board `side` px wide."""
    x0, _y0, x1, _y1 = pits_label_box(b, seat)
    k = side / style.WIDTH
    return int(fit_font(f"PITS \u00b7 {name}", round(PITS_TEXT * k), (x1 - x0) * k, True).size)


@lru_cache(maxsize=64)
def _pits_label(b: Board, seat: int, name: str, side: int) -> Piece:
    """"PITS · <name>" above (or below) a seat's pits."""
    x0, y0, x1, y1 = pits_label_box(b, seat)
    return _drawn(side, (x0, y0, x1, y1),
                  lambda pen: pen.text(((x0 + x1) / 2, (y0 + y1) / 2), f"PITS \u00b7 {name}", PITS_TEXT, style.INK,
                                       "mm", True, max_width=x1 - x0))


def _path_box(legs: tuple) -> tuple[float, float, float, float]:
    """The box (page units) a path of `legs` covers, its line's width included."""
    half = PATH_WIDTH / 2 + 2
    return (min(min(a[0], z[0]) for a, z in legs) - half, min(min(a[1], z[1]) for a, z in legs) - half,
            max(max(a[0], z[0]) for a, z in legs) + half, max(max(a[1], z[1]) for a, z in legs) + half)


def _path_groups(paths: list[tuple]) -> list[tuple]:
    """The last moves' paths (each a tuple of legs) as groups drawn together: paths whose boxes overlap are
    one group, the others each their own, so a split card's two cars far apart are drawn (supersampled,
    then mapped to the palette) in two small boxes, not in one box around both. Outside a path's line its
    box shows the board as it was, so the picture is the same either way, but for Pillow's rounding of a
    line's ends measured from another box's corner: an anti-aliased pixel or two in some made-up layouts
    (the bench's 2,532 pictures and 294 split cards of 40 seeded games hash the same)."""
    return joined_where_overlapping([p for p in paths if p], _path_box, lambda group, path: group + path)


def joined_where_overlapping(items: list[Grouped], box_of: Callable[[Grouped], tuple[float, float, float, float]],
                             join: Callable[[Grouped, Grouped], Grouped]) -> list[Grouped]:
    """`items` in order, each joined (`join(earlier, later)`) with every earlier one whose box overlaps its
    own, again until no two boxes overlap."""
    joined: list[Grouped] = []
    for item in items:
        while True:
            box = box_of(item)
            hit = next((i for i, other in enumerate(joined) if _overlap(box, box_of(other))), None)
            if hit is None:
                break
            item = join(joined.pop(hit), item)
        joined.append(item)
    return joined


def _overlap(one: tuple[float, float, float, float], other: tuple[float, float, float, float]) -> bool:
    """Whether two boxes (left, top, right, bottom) share any area."""
    return one[0] < other[2] and other[0] < one[2] and one[1] < other[3] and other[1] < one[3]


def _draw_path(image: Image.Image, b: Board, occupied: frozenset[int], legs: tuple, side: int) -> Box:
    """The last move's path: a thick line under the holes, so the holes it passed show through it; the
    box it covers."""
    page = _path_box(legs)

    def paint(pen: _Pen) -> None:
        for a, z in legs:
            pen.line([a, z], 255, PATH_WIDTH)
    mask, (x, y) = _drawn(side, page, paint, "L", 0)
    box = (x, y, x + mask.width, y + mask.height)
    patch = _under(b, occupied, side).crop(box)
    patch.paste(style.PATH, (0, 0, mask.width, mask.height), mask)
    over = _over(b, side).crop(box)
    patch.paste(over, (0, 0), over)
    image.paste(patch, box[:2])
    return box


@bounded(PIECE_BYTES)
def _ring(xy: Point, side: int) -> Piece:
    return _drawn(side, _around(xy, style.HOLE + 10), lambda pen: pen.disc(xy, style.HOLE + 6, None, style.PATH, 7))


@bounded(PIECE_BYTES)
def _halo(xy: Point, side: int) -> Piece:
    return _drawn(side, _around(xy, style.CAR + 13), lambda pen: pen.disc(xy, style.CAR + 11, style.PATH))


@bounded(PIECE_BYTES)
def _car(xy: Point, colour: Colour, label: str, side: int) -> Piece:
    def paint(pen: _Pen) -> None:
        pen.disc(xy, style.CAR, colour, style.INK, 5)
        pen.text((xy[0], xy[1] + 1), label, 52, ink_on(colour), bold=True)
    return _drawn(side, _around(xy, style.CAR + 4), paint)


@bounded(PIECE_BYTES)
def _arrow(leg: tuple[Point, Point], side: int) -> Piece:
    corners = _arrow_corners(*leg, 26)
    return _drawn(side, _around(corners[0], 40), lambda pen: pen.polygon(corners, style.PATH))


def _direction_arrows(pen: _Pen, b) -> None:
    """The direction of play: a chevron on the band halfway along each side, pointing to the next hole."""
    side = geometry.side(b) - 1
    for k in range(4):
        hole = (b.corners[0] + k * side + side // 2) % b.ring_holes
        a, z = centre(geometry.ring_cell(b, hole)), centre(geometry.ring_cell(b, (hole + 1) % b.ring_holes))
        mx, my = (a[0] + z[0]) / 2, (a[1] + z[1]) / 2
        dx, dy = z[0] - a[0], z[1] - a[1]
        length = math.hypot(dx, dy) or 1
        ux, uy, size = dx / length, dy / length, 16
        tip = (mx + ux * size, my + uy * size)
        pen.polygon([tip, (mx - ux * size - uy * size, my - uy * size + ux * size),
                     (mx - ux * size * 0.3, my - uy * size * 0.3),
                     (mx - ux * size + uy * size, my - uy * size - ux * size)], style.INK)


def _arrow_corners(a: Point, b: Point, size: float) -> list[Point]:
    """The arrowhead at the end of a leg from `a` to `b`, just short of the car standing at `b`."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy) or 1
    ux, uy = dx / length, dy / length
    tip = (b[0] - ux * (style.CAR + 4), b[1] - uy * (style.CAR + 4))
    base = (tip[0] - ux * size, tip[1] - uy * size)
    nx, ny = -uy, ux
    return [tip, (base[0] + nx * size * 0.6, base[1] + ny * size * 0.6),
            (base[0] - nx * size * 0.6, base[1] - ny * size * 0.6)]


def _paint_key(pen: _Pen, felt: tuple[float, float, float, float]) -> None:
    """The felt's fixed words: the piles' headings and a small key."""
    x0, y0, x1, y1 = felt
    mid = (x0 + x1) / 2
    pen.text((mid - 130, y0 + 30), "DISCARD", 28, style.TABLE_TEXT, bold=True)
    pen.text((mid + 130, y0 + 30), "DRAW PILE", 28, style.TABLE_TEXT, bold=True)
    ky = y1 - 34
    pen.disc((x0 + 40, ky), 16, style.START_RED, style.INK, 2)
    pen.text((x0 + 64, ky), "start", 26, style.TABLE_TEXT, "lm", True)
    pen.disc((x0 + 180, ky), 16, (255, 255, 255), style.INK, 3)
    pen.text((x0 + 204, ky), "W safe", 26, style.TABLE_TEXT, "lm", True)
    pen.line([(x0 + 340, ky), (x0 + 390, ky)], style.PATH, 14)
    pen.text((x0 + 404, ky), "last move", 26, style.TABLE_TEXT, "lm", True)


def _piles_top(felt: tuple[float, float, float, float]) -> tuple[float, float, float]:
    """Where the cards lie on the felt: the discard's and the draw pile's left edges, and their top."""
    mid = (felt[0] + felt[2]) / 2
    return mid - 130 - CARD_W / 2, mid + 130 - CARD_W / 2, felt[1] + 58


@bounded(DISCARD_BYTES)
def _discard(felt: tuple[float, float, float, float], card: str | None, side: int) -> Piece:
    """The discard pile: its top card face up, or an empty outline."""
    x0, _gx0, top = _piles_top(felt)

    def paint(pen: _Pen) -> None:
        if card:
            cards.face(pen.draw, pen.box((x0, top, x0 + CARD_W, top + CARD_H)), card, pen.k)
        else:
            pen.rect((x0, top, x0 + CARD_W, top + CARD_H), outline=style.TABLE_TEXT, width=3, radius=14)
            pen.text((x0 + CARD_W / 2, top + CARD_H / 2), "empty", 28, style.TABLE_TEXT)
    return _drawn(side, (x0 - 4, top - 4, x0 + CARD_W + 4, top + CARD_H + 4), paint)


@bounded(PILE_BYTES)
def _draw_pile(felt: tuple[float, float, float, float], count: int, side: int) -> Piece:
    """The draw pile, face down, with how many cards it holds."""
    _dx0, x0, top = _piles_top(felt)

    def paint(pen: _Pen) -> None:
        if count:
            for i in range(min(3, count) - 1, -1, -1):
                off = i * 7
                cards.back(pen.draw, pen.box((x0 + off, top - off, x0 + CARD_W + off, top + CARD_H - off)), pen.k)
        else:
            pen.rect((x0, top, x0 + CARD_W, top + CARD_H), outline=style.TABLE_TEXT, width=3, radius=14)
        pen.text((x0 + CARD_W / 2, top + CARD_H / 2), str(count), 64, style.TABLE_TEXT, bold=True)
        pen.text((x0 + CARD_W / 2, top + CARD_H / 2 + 52), "cards", 26, style.TABLE_TEXT, bold=True)
    return _drawn(side, (x0 - 4, top - 20, x0 + CARD_W + 20, top + CARD_H + 4), paint)
