"""Battlecars' close-up for a phone: the acting vehicle and every vehicle within its weapons' reach.

"The acting vehicle" is the vehicle of the player the close-up is for, when they have one, else the
vehicle of the player moving now (`state.active`), else none: the close-up then holds every vehicle.
A vehicle is within reach when one of the acting vehicle's working missile weapons (not destroyed,
rounds left) could fire at it by its lines, arc and range (a nearer target or a blocker on the line
left out: it is still worth seeing).
"""

from __future__ import annotations

from images.battlecars import HEADER, LABELS, TEXT, _centre, _tag_words, board_image, cell_size
from images.closeup import Closeup, Ruler, Spot, around, closeup, crop_box
from images.fonts import font
from rules.battlecars import data
from rules.battlecars.combat import lines_of
from rules.battlecars.grid import line_to
from rules.battlecars.state import BattlecarsState, Vehicle


def in_reach(state: BattlecarsState, vehicle: Vehicle) -> tuple[Vehicle, ...]:
    """The other placed vehicles one of `vehicle`'s working missile weapons reaches (lines, arc, range)."""
    if vehicle.point is None:
        return ()
    weapons = [w for w in vehicle.weapons() if not w.destroyed and w.rounds > 0
               and data.rounds()[w.load].kind != "passive"]
    found = []
    for other in state.vehicles:
        if other.id == vehicle.id or other.point is None or other.destroyed:
            continue
        line = line_to(vehicle.point, other.point)
        if line is None:
            continue
        facing, distance = line
        if any(facing in lines_of(vehicle, w) and distance <= (data.rounds()[w.load].max_range or distance)
               for w in weapons):
            found.append(other)
    return tuple(found)


def acting_vehicle(state: BattlecarsState, focus: str | None) -> Vehicle | None:
    """The vehicle the close-up centres on: the reader's own, else the mover's."""
    for player in (focus, state.active):
        vehicle = state.vehicle_of(player)
        if vehicle is not None and vehicle.point is not None:
            return vehicle
    return None


def render_closeup_image(state: BattlecarsState, last: tuple = (), turn: tuple = (),
                         focus: str | None = None) -> Closeup:
    """The close-up of a public view: the board and what stands on it (tokens without letters), cropped
    round the acting vehicle and the vehicles in its reach inside the rulers, everyone named on a tag
    and the grid's letters and numbers along the edges."""
    board = state.the_board
    cell = cell_size(board)
    image = board_image(state, last, turn, words=False)
    inner = (LABELS, HEADER + LABELS, LABELS + board.width * cell, HEADER + LABELS + board.height * cell)
    placed = [v for v in state.vehicles if v.point is not None]
    vehicle = acting_vehicle(state, focus)
    shown = [vehicle, *in_reach(state, vehicle)] if vehicle is not None else placed
    points = [_centre(v.point, cell, HEADER) for v in shown if v.point is not None] or \
        [((inner[0] + inner[2]) / 2, (inner[1] + inner[3]) / 2)]
    crop = crop_box(around(points, cell * 1.1), inner, (7 * cell, 5 * cell))
    spots = [Spot(ident, *_centre(point, cell, HEADER), words, colour, cell * 0.45)
             for ident, point, words, colour, _muted in _tag_words(state, font(TEXT, bold=True))]
    ruler = Ruler(tuple((_centre((x, 0), cell, HEADER)[0], chr(ord("A") + x)) for x in range(board.width)),
                  tuple((_centre((0, y), cell, HEADER)[1], str(y + 1)) for y in range(board.height)))
    damaged = bool(state.scenery_damage)   # a damaged piece's badge ('7/20') is the map's own words
    return closeup(image, crop, spots, ruler, map_text=TEXT if damaged else 0.0)
