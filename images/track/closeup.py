"""Track's close-up for a phone: the contested holes, drawn at a scale where the board's words read.

A ring hole is contested when its car has an opponent's car within CLOSE holes along the ring (either
way: a card of that size, or the 8 backwards, may land on it and send it to its pits). The close-up
holds the contested pairs of the reader's own cars when they have any, else of the player the game
waits on, else every pair, nearest first, as many as fit MOST page units across (so its words stay
readable). With no contested hole, it holds that player's cars on the ring (the first of them when they stand too
far apart), else their start and pits: the way out.
"""

from __future__ import annotations

from images.closeup import LEGIBLE, PHONE, Closeup, Spot, around, closeup, crop_box
from images.track import style
from images.track.board import SMALLEST_TEXT, board_height, draw_board, pits_label_box, pits_label_size
from images.track.geometry import car_cell, centre, pit_cell, ring_cell
from rules.track.state import RING, Car, TrackState

CLOSE = 6
WIDEST = SMALLEST_TEXT * PHONE / LEGIBLE   # the widest piece whose words stay LEGIBLE, page units
MOST = WIDEST - 2 * style.CELL   # the widest stretch of contested holes, page units
SIDES = (800, 1000, 1240, 1600, 2000)   # the boards a close-up is drawn on (each kept, as the channel's is)


def _gap(a: Car, b: Car, holes: int) -> int:
    step = (a.spot - b.spot) % holes
    return min(step, holes - step)


def contested_pairs(state: TrackState, player: str | None) -> list[tuple[Car, Car]]:
    """The pairs of opposing ring cars within CLOSE holes, nearest first: `player`'s own when they have
    any, else everyone's."""
    ring = [c for c in state.cars if c.where == RING]
    holes = state.board.ring_holes
    pairs = sorted(((a, b) for i, a in enumerate(ring) for b in ring[i + 1:]
                    if a.owner != b.owner and _gap(a, b, holes) <= CLOSE), key=lambda p: _gap(p[0], p[1], holes))
    own = [p for p in pairs if player is not None and player in (p[0].owner, p[1].owner)]
    return own or pairs


def _where(state: TrackState, car: Car) -> tuple[float, float]:
    return centre(car_cell(state.board, state.seated(car.owner).seat, car))


def contested_holes(state: TrackState, focus: str | None = None) -> tuple[int, ...]:
    """The ring holes the close-up holds (see the module's words), as many as fit MOST across."""
    player = focus if state.player(focus) is not None else state.active_player
    chosen: list[Car] = []
    for pair in contested_pairs(state, player):
        points = [_where(state, c) for c in (*chosen, *pair)]
        box = around(points, 0)
        if box[2] - box[0] <= MOST and box[3] - box[1] <= MOST:
            chosen.extend(c for c in pair if c not in chosen)
    return tuple(sorted({c.spot for c in chosen}))


def _focus_points(state: TrackState, focus: str | None) -> list[tuple[float, float]]:
    player = focus if state.player(focus) is not None else state.active_player
    contested = set(contested_holes(state, focus))
    if contested:
        return [_where(state, c) for c in state.cars if c.where == RING and c.spot in contested]
    seat = state.player(player)
    if seat is None:
        return []
    out = [_where(state, c) for c in state.cars if c.owner == player and c.where == RING]
    box = around(out, 0) if out else (0.0, 0.0, 0.0, 0.0)
    if box[2] - box[0] > MOST or box[3] - box[1] > MOST:
        out = out[:1]   # spread round the board: their first car's
    start = centre(ring_cell(state.board, state.board.corners[seat.seat]))
    return out or [start, centre(pit_cell(state.board, seat.seat, 0))]   # none out yet: the way out


def render_closeup_image(state: TrackState, last: tuple = (), turn: tuple = (), focus: str | None = None) -> Closeup:
    """The close-up of a public view: the board drawn larger (its own words grow with it), cropped round
    the contested holes, each car there tagged with its player's name."""
    page_h = float(board_height(state))   # page units, as the width
    bounds = (0.0, 0.0, float(style.WIDTH), page_h)
    points = _focus_points(state, focus) or [(style.WIDTH / 2, page_h / 2)]
    page = crop_box(around(points, style.CAR + 40), bounds, (6 * style.CELL, 4 * style.CELL))
    if page[2] - page[0] > WIDEST:   # too wide to read: round the first point only
        page = crop_box(around(points[:1], style.CAR + 40), bounds, (6 * style.CELL, 4 * style.CELL))
    side = max([s for s in SIDES if (page[2] - page[0]) * s / style.WIDTH <= 640] or [SIDES[0]])
    k = side / style.WIDTH
    board = draw_board(state, side)
    crop = (page[0] * k, page[1] * k, min(page[2] * k, board.width), min(page[3] * k, board.height))
    names = {p.seat: p.name for p in state.players}
    smallest = SMALLEST_TEXT * k
    for seat, name in names.items():
        x0, y0, x1, y1 = pits_label_box(state.board, seat)
        if x1 >= page[0] and x0 <= page[2] and y1 >= page[1] and y0 <= page[3]:
            smallest = min(smallest, pits_label_size(state.board, seat, name, side))
    spots = [Spot(f"{c.owner}:{c.id}", _where(state, c)[0] * k, _where(state, c)[1] * k, state.seated(c.owner).name,
                  style.seat_colour(state.seated(c.owner).seat), style.CAR * k)
             for c in state.cars if c.where == RING]
    return closeup(board, crop, spots, map_text=smallest)
