"""Speedway's close-up for a phone: the acting car and every car within its weapons' reach.

"The acting car" is the car of the player the close-up is for, when they drive one still running,
else the car the game waits on (the active car), else none: the close-up then holds every car. A car
is within reach when one of the acting car's working offensive weapons could fire at it by range
and arc (line of sight left out: a car behind an obstacle is still worth seeing). The nearest rival is
always held too, reached or not: a phone player sees whom they drive against.
"""

from __future__ import annotations

from PIL import Image

from images.closeup import Closeup, Ruler, Spot, around, closeup, crop_box
from images.palette import car_colour
from images.speedway import style
from images.speedway.arena import base_layer, frame
from images.speedway.counters import draw_cars, midpoint
from images.speedway.livery import liveried
from images.speedway.preview import draw_plan, travelled
from images.speedway.trails import draw_crashes, draw_trails
from rules.hexgrid import from_offset, label
from rules.speedway import data
from rules.speedway.geometry import in_arc, range_hexes
from rules.speedway.preview import TurnPreview
from rules.speedway.state import Car, SpeedwayState

TAG_TEXT = 18    # a car's tag's smallest words (images.speedway.counters.draw_tags), font px
FIRE_TEXT = 11   # a burning car's count on its counter, font px


def in_reach(state: SpeedwayState, car: Car) -> tuple[Car, ...]:
    """The other placed cars one of `car`'s working offensive weapons reaches (range and arc)."""
    weapons = [w for w in car.weapons if w.offensive and w.working and w.name in data.offensive_weapons()]
    return tuple(other for other in state.cars if other.id != car.id and other.front is not None and not other.out
                 and any(range_hexes(car, other) <= data.offensive_weapons()[w.name].max_range
                         and in_arc(car, w.mount, other) for w in weapons))


def nearest_rival(state: SpeedwayState, car: Car) -> Car | None:
    """The other placed car still running nearest `car` (in hexes), or None."""
    rivals = [c for c in state.cars if c.id != car.id and c.front is not None and not c.out]
    return min(rivals, key=lambda c: (range_hexes(car, c), c.id), default=None)


def held(state: SpeedwayState, car: Car) -> list[Car]:
    """What the close-up holds round `car`: itself, the cars in its reach and its nearest rival."""
    rival = nearest_rival(state, car)
    reached = list(in_reach(state, car))
    return [car, *reached, *([rival] if rival is not None and rival not in reached else [])]


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


def _spots(state: SpeedwayState) -> list[Spot]:
    layout = frame(state.arena).layout
    return [Spot(c.id, *midpoint(c, layout), _words(state, c), car_colour(c.colour), style.HEX * 1.6)
            for c in state.cars if c.front is not None]


def _crop(state: SpeedwayState, hexes: list, margin: float = 1.6,
          least: tuple[float, float] = (18, 12)) -> tuple[float, float, float, float]:
    """The piece of the arena holding every hex of `hexes` (the middle when none), `margin` hexes round
    them, at least `least` hexes' sizes across."""
    mf = frame(state.arena)
    centres = [mf.layout.center(h) for h in hexes] or [(mf.width / 2, mf.height / 2)]
    return crop_box(around(centres, style.HEX * margin), (0, 0, mf.width, mf.height),
                    (least[0] * style.HEX, least[1] * style.HEX), ruled=True)


def render_closeup_image(state: SpeedwayState, last: tuple = (), turn: tuple = (), focus: str | None = None) -> Closeup:
    """The close-up of a public view: the arena without its labels, the trails and cars, cropped round
    the acting car, the cars in its reach and its nearest rival, the cars named and the hexes' letters and numbers along
    the edges."""
    state = liveried(state)
    mf = frame(state.arena)
    board: Image.Image = base_layer(state.arena, words=False).copy()
    draw_trails(board, state, mf.layout, turn)
    draw_cars(board, state, mf.layout, None, words=False)
    draw_crashes(board, mf.layout, turn)
    car = acting_car(state, focus)
    shown = held(state, car) if car is not None else [c for c in state.cars if c.front is not None]
    return closeup(board, _crop(state, [h for c in shown for h in c.hexes]), _spots(state), _ruler(state))


def render_preview_closeup(state: SpeedwayState, preview: TurnPreview, focus: str | None = None) -> Closeup:
    """The close-up of a planned turn: the plan drawn as its preview draws it (path, pins, odds, shots,
    tags) on the arena without its hex labels, cropped round the car, the hexes it sweeps and the cars
    its planned shots aim at; the map's own smallest words are its tags' (or a burning car's count)."""
    state = liveried(state)
    mf = frame(state.arena)
    board: Image.Image = base_layer(state.arena, words=False).copy()
    draw_plan(board, state, preview, mf.layout)
    car = state.car(preview.car)
    shots = (*preview.shots, *((preview.fire,) if preview.fire else ()))
    aimed = [c for c in state.cars if c.front is not None and any(s.target in (c.id, c.name) for s in shots)]
    hexes = [*car.hexes, *preview.end.hexes, *travelled(preview), *(h for c in aimed for h in c.hexes)]
    burning = any(c.fire_chips > 1 for c in state.cars)
    crop = _crop(state, hexes, 3.5, (26, 17))   # room for the badges the plan puts beside its path
    return closeup(board, crop, (), _ruler(state), map_text=FIRE_TEXT if burning else TAG_TEXT)
