"""The square ring of holes: starts, corners, white dots, finish lanes, pits, cars, the last move's path
and, on the felt in the middle, the discard pile's top card and the draw pile."""

from __future__ import annotations

import math

from PIL import Image, ImageDraw

from images.draw import draw_text, fit_font, ink_on
from images.fonts import font
from images.track import cards, geometry, style
from images.track.geometry import centre
from rules.track.state import TrackState

BOARD = 800   # the board's side in the channel picture


def board_height(state: TrackState) -> int:
    return 2 * style.MARGIN + geometry.side(state.board) * style.CELL


def _seat_of(state: TrackState, owner: str) -> int:
    p = state.player(owner)
    return p.seat if p else 0


class _Pen:
    """Draws in final-page pixels on a canvas `k` times larger."""

    def __init__(self, image: Image.Image, k: int):
        self.draw = ImageDraw.Draw(image)
        self.k = k

    def p(self, xy):
        return (xy[0] * self.k, xy[1] * self.k)

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
        x0, y0 = self.p(box[:2])
        x1, y1 = self.p(box[2:])
        self.draw.rounded_rectangle((x0, y0, x1, y1), radius=radius * self.k, fill=fill, outline=outline,
                                    width=round(width * self.k))

    def line(self, points, fill, width):
        pts = [self.p(q) for q in points]
        self.draw.line(pts, fill=fill, width=round(width * self.k), joint="curve")
        r = width * self.k / 2
        for x, y in (pts[0], pts[-1]):
            self.draw.ellipse((x - r, y - r, x + r, y + r), fill=fill)

    def text(self, xy, text, size, fill, anchor="mm", bold=False, max_width=None):
        f = fit_font(text, size * self.k, max_width * self.k, bold) if max_width else font(size * self.k, bold)
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
    """The felt in the middle of the board (the discard and draw piles and the key), page pixels."""
    n, m, cell = geometry.side(state.board), style.MARGIN, style.CELL
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


def _arrow_head(pen: _Pen, a, b, size):
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy) or 1
    ux, uy = dx / length, dy / length
    tip = (b[0] - ux * (style.CAR + 4), b[1] - uy * (style.CAR + 4))
    base = (tip[0] - ux * size, tip[1] - uy * size)
    nx, ny = -uy, ux
    pen.polygon([tip, (base[0] + nx * size * 0.6, base[1] + ny * size * 0.6),
                 (base[0] - nx * size * 0.6, base[1] - ny * size * 0.6)], style.PATH)


def draw_board(state: TrackState, side: int = BOARD, k: int = style.SCALE) -> Image.Image:
    """The board, `side` pixels wide: drawn at `k` times the page-wide size, then shrunk once (a replay
    frame, shrunk much further anyway, is drawn at k=1)."""
    b = state.board
    n = geometry.side(b)
    width, height = style.WIDTH, board_height(state)
    image = Image.new("RGB", (width * k, height * k), style.PAPER)
    pen = _Pen(image, k)
    m, cell = style.MARGIN, style.CELL
    # The track: a grey band under the ring, the felt in the middle.
    pen.rect((m - 6, m - 6, m + n * cell + 6, m + n * cell + 6), fill=style.FIELD, radius=40)
    pen.rect((m + cell * 0.5, m + cell * 0.5, m + (n - 0.5) * cell, m + (n - 0.5) * cell),
             outline=style.HOLE_RIM, width=cell * 0.42, radius=30)
    pen.rect((m + 2 * cell + 8, m + 3 * cell + 8, m + (n - 2) * cell - 8, m + (n - 3) * cell - 8),
             fill=style.TABLE, radius=24)
    seats = {p.seat: p for p in state.players}
    starts = {}
    corners = {}
    for seat in range(len(b.corners)):
        corners[b.corners[seat] % b.ring_holes] = seat
        starts[(b.corners[seat] + b.start_after_corner) % b.ring_holes] = seat
    # Lanes and pits, tinted in the seat colour (grey while the seat is empty).
    for seat in range(len(b.corners)):
        colour = style.seat_colour(seat)
        light = style.tint(colour, 0.35) if seat in seats else style.tint(style.MUTED, 0.2)
        lane = [centre(geometry.lane_cell(b, seat, s)) for s in range(b.finish_holes + 1)]
        corner_xy = centre(geometry.ring_cell(b, b.corners[seat]))
        pen.line([corner_xy] + lane, light, cell * 0.42)
        pits = [centre(geometry.pit_cell(b, seat, i)) for i in range(b.cars_per_player)]
        x0 = min(x for x, _ in pits) - cell / 2 + 4
        x1 = max(x for x, _ in pits) + cell / 2 - 4
        y = pits[0][1]
        pen.rect((x0, y - cell / 2 + 4, x1, y + cell / 2 - 4), fill=light, radius=18)
        name = seats[seat].name if seat in seats else f"Seat {seat + 1}"
        label_y = y - cell / 2 - 12 if seat % 2 == 0 else y + cell / 2 + 14
        pen.text(((x0 + x1) / 2, label_y), f"PITS \u00b7 {name}", 26, style.INK, "mm", True,
                 max_width=x1 - x0)
    # The last move's path, under the holes and cars; a jump across the felt (a Joker's swap) is shown
    # by the rings on both its holes, never by a line over the discard pile.
    for move in state.last_moves:
        for a, z in _drawn_legs(state, move):
            pen.line([a, z], style.PATH, 34)
    # The spots of the lanes and pits, over the path.
    for seat in range(len(b.corners)):
        colour = style.seat_colour(seat)
        lane = [centre(geometry.lane_cell(b, seat, s)) for s in range(b.finish_holes + 1)]
        pits = [centre(geometry.pit_cell(b, seat, i)) for i in range(b.cars_per_player)]
        for i, xy in enumerate(pits):
            pen.square(xy, style.HOLE - 2, style.HOLE_FILL, style.HOLE_RIM, 3, radius=12)
            pen.text(xy, str(i + 1), 30, style.HOLE_RIM, bold=True)
        for s, xy in enumerate(lane):
            if s == 0:
                pen.disc(xy, style.HOLE + 2, (255, 255, 255), style.INK, 5)
                pen.text(xy, "W", 34, style.INK, bold=True)
            else:
                pen.square(xy, style.HOLE - 2, style.HOLE_FILL, colour, 6, radius=8)
                pen.text(xy, f"F{s}", 30, style.HOLE_TEXT, bold=True)
    # The ring of holes.
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
    # Path markers: a ring on every hole passed.
    for move in state.last_moves:
        cells = _path_cells(state, move)
        for c in cells[1:]:
            pen.disc(centre(c), style.HOLE + 6, None, style.PATH, 7)
        pen.disc(centre(cells[0]), style.HOLE + 6, None, style.PATH, 7)
    # The car that moved last wears a halo in the path colour.
    for move in state.last_moves:
        seat = _seat_of(state, move.owner)
        pen.disc(centre(geometry.spot_cell(b, seat, move.to_where, move.to_spot, move.car)), style.CAR + 11,
                 style.PATH)
    # Cars.
    for car in state.cars:
        seat = _seat_of(state, car.owner)
        xy = centre(geometry.car_cell(b, seat, car))
        colour = style.seat_colour(seat)
        pen.disc(xy, style.CAR, colour, style.INK, 5)
        pen.text((xy[0], xy[1] + 1), car.id.lstrip("c"), 52, ink_on(colour), bold=True)
    for move in state.last_moves:
        legs = _drawn_legs(state, move)
        if legs and legs[-1][1] == centre(_path_cells(state, move)[-1]) and legs[-1][0] != legs[-1][1]:
            _arrow_head(pen, *legs[-1], 26)
    _draw_table(pen, state)
    # The channel picture (k=2) gets the sharpest filter; a replay frame (k=1) a cheaper one, 4x faster.
    quality = Image.Resampling.LANCZOS if k > 1 else Image.Resampling.HAMMING
    return image.resize((side, round(height * side / width)), quality, reducing_gap=2.0)


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


def _draw_table(pen: _Pen, state: TrackState) -> None:
    """The felt: the discard pile's top card, the draw pile and its count, and a small key."""
    x0, y0, x1, y1 = felt_box(state)
    mid = (x0 + x1) / 2
    card_w, card_h = 170, 238
    top = y0 + 58
    pen.text((mid - 130, y0 + 30), "DISCARD", 28, style.TABLE_TEXT, bold=True)
    pen.text((mid + 130, y0 + 30), "DRAW PILE", 28, style.TABLE_TEXT, bold=True)
    dx0 = mid - 130 - card_w / 2
    if state.top_discard:
        box = (dx0 * pen.k, top * pen.k, (dx0 + card_w) * pen.k, (top + card_h) * pen.k)
        cards.face(pen.draw, box, state.top_discard, pen.k)
    else:
        pen.rect((dx0, top, dx0 + card_w, top + card_h), outline=style.TABLE_TEXT, width=3, radius=14)
        pen.text((dx0 + card_w / 2, top + card_h / 2), "empty", 28, style.TABLE_TEXT)
    count = state.draw_count
    gx0 = mid + 130 - card_w / 2
    if count:
        for i in range(min(3, count) - 1, -1, -1):
            off = i * 7
            box = ((gx0 + off) * pen.k, (top - off) * pen.k, (gx0 + card_w + off) * pen.k,
                   (top + card_h - off) * pen.k)
            cards.back(pen.draw, box, pen.k)
    else:
        pen.rect((gx0, top, gx0 + card_w, top + card_h), outline=style.TABLE_TEXT, width=3, radius=14)
    pen.text((gx0 + card_w / 2, top + card_h / 2), str(count), 64, style.TABLE_TEXT, bold=True)
    pen.text((gx0 + card_w / 2, top + card_h / 2 + 52), "cards", 26, style.TABLE_TEXT, bold=True)
    # Key.
    ky = y1 - 34
    pen.disc((x0 + 40, ky), 16, style.START_RED, style.INK, 2)
    pen.text((x0 + 64, ky), "start", 26, style.TABLE_TEXT, "lm", True)
    pen.disc((x0 + 180, ky), 16, (255, 255, 255), style.INK, 3)
    pen.text((x0 + 204, ky), "W safe", 26, style.TABLE_TEXT, "lm", True)
    pen.line([(x0 + 340, ky), (x0 + 390, ky)], style.PATH, 14)
    pen.text((x0 + 404, ky), "last move", 26, style.TABLE_TEXT, "lm", True)

