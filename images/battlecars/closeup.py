"""Battlecars' close-up for a phone: the vehicle it centres on and the vehicles its weapons reach.

The close-up itself is drawn by images.battlecars.render_closeup_image, with the board's own drawing.

"The acting vehicle" is the vehicle of the player the close-up is for, when they have one, else the
vehicle of the player moving now (`state.active`), else none: the close-up then holds every vehicle.
A vehicle is within reach when one of the acting vehicle's working missile weapons (not destroyed,
rounds left) could fire at it by its lines, arc and range (a nearer target or a blocker on the line
left out: it is still worth seeing). The nearest rival is always held too, reached or not: a phone
player sees whom they drive against.
"""

from __future__ import annotations

import math

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


def nearest_rival(state: BattlecarsState, vehicle: Vehicle) -> Vehicle | None:
    """The other placed vehicle not destroyed nearest `vehicle` (as the crow flies), or None."""
    if vehicle.point is None:
        return None
    here = vehicle.point
    rivals = [v for v in state.vehicles if v.id != vehicle.id and v.point is not None and not v.destroyed]
    return min(rivals, key=lambda v: (math.dist(here, v.point or here), v.id), default=None)


def held(state: BattlecarsState, vehicle: Vehicle, rival_too: bool = True) -> list[Vehicle]:
    """What the close-up holds round `vehicle`: itself, what its weapons reach and (`rival_too`) its nearest
    rival."""
    rival = nearest_rival(state, vehicle) if rival_too else None
    reached = list(in_reach(state, vehicle))
    return [vehicle, *reached, *([rival] if rival is not None and rival not in reached else [])]
