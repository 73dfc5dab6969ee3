"""Speedway's close-up for a phone: the acting car and every car within its weapons' reach.

"The acting car" is the car of the player the close-up is for, when they drive one still running,
else the car the game waits on (the active car), else none: the close-up then holds every car. A car
is within reach when one of the acting car's working offensive weapons could fire at it by range
and arc (line of sight left out: a car behind an obstacle is still worth seeing).
"""

from __future__ import annotations

from PIL import Image

from images.closeup import Closeup, Ruler, Spot, around, closeup, crop_box
from images.palette import car_colour
from images.speedway import style
from images.speedway.arena import base_layer, frame
from images.speedway.counters import draw_cars, midpoint
from images.speedway.livery import liveried
from images.speedway.trails import draw_crashes, draw_trails
from rules.hexgrid import from_offset, label
from rules.speedway import data
from rules.speedway.geometry import in_arc, range_hexes
from rules.speedway.state import Car, SpeedwayState


def in_reach(state: SpeedwayState, car: Car) -> tuple[Car, ...]:
    """The other placed cars one of `car`'s working offensive weapons reaches (range and arc)."""
    weapons = [w for w in car.weapons if w.offensive and w.working and w.name in data.offensive_weapons()]
    return tuple(other for other in state.cars if other.id != car.id and other.front is not None and not other.out
                 and any(range_hexes(car, other) <= data.offensive_weapons()[w.name].max_range
                         and in_arc(car, w.mount, other) for w in weapons))


def acting_car(state: SpeedwayState, focus: str | None) -> Car | None:
    """The car the close-up centres on: the reader's own running car, else the active one."""
    own = [c for c in state.cars if focus is not None and c.owner == focus and c.front is not None and not c.out]
    if own:
        return own[0]
    if state.active_car is not None:
        car = state.car(state.active_car)
        return car if car.front is not None else None
    return None


def _words(state: SpeedwayState, car: Car) -> str:
    return car.name + (f" · fire {car.fire_chips}" if car.fire_chips > 1 else "") + (" · out" if car.out else "")


def _ruler(state: SpeedwayState) -> Ruler:
    arena = data.arena(state.arena)
    layout = frame(state.arena).layout
    columns = tuple((layout.center(from_offset(c, 0))[0], label(from_offset(c, 0)).rstrip("0123456789"))
                    for c in range(arena.columns))
    rows = tuple((layout.center(from_offset(0, r))[1], str(r + 1)) for r in range(arena.rows))
    return Ruler(columns, rows)


def render_closeup_image(state: SpeedwayState, last: tuple = (), turn: tuple = (), focus: str | None = None) -> Closeup:
    """The close-up of a public view: the arena without its labels, the trails and cars, cropped round
    the acting car and the cars in its reach, the cars named and the hexes' letters and numbers along
    the edges."""
    state = liveried(state)
    mf = frame(state.arena)
    board: Image.Image = base_layer(state.arena, words=False).copy()
    draw_trails(board, state, mf.layout, turn)
    draw_cars(board, state, mf.layout, None, words=False)
    draw_crashes(board, mf.layout, turn)
    placed = [c for c in state.cars if c.front is not None]
    car = acting_car(state, focus)
    shown = [car, *in_reach(state, car)] if car is not None else placed
    hexes = [mf.layout.center(h) for c in shown for h in c.hexes] or [(mf.width / 2, mf.height / 2)]
    must = around(hexes, style.HEX * 1.6)
    crop = crop_box(must, (0, 0, mf.width, mf.height), (18 * style.HEX, 12 * style.HEX))
    spots = [Spot(c.id, *midpoint(c, mf.layout), _words(state, c), car_colour(c.colour), style.HEX * 1.6)
             for c in placed]
    return closeup(board, crop, spots, _ruler(state))
