"""Damage on a play mat: armour boxes first, then internal hits rolled on the d8 component table, the
pod and turret ammunition explosions, the fuel tank's explosion test and a vehicle's destruction.

Seed: "Damage first hits armor on the targeted side, then internal components are rolled for
randomly"; "Vehicles are destroyed when critical internal components (engine, fuel tank, driver) are
fully damaged". The component tables and the explosion thresholds are reconstructions (data files).
"""

from __future__ import annotations

import math
from dataclasses import replace

from rules.battlecars import data, pedestrians
from rules.battlecars.events import ArmourHit, ComponentHit, DiceRolled, VehicleDestroyed
from rules.battlecars.grid import Point, bearing
from rules.battlecars.rolls import D3, D6, D8, roll
from rules.battlecars.state import BattlecarsState, Vehicle, point_of
from rules.table import plural, required

SECTION_INDEX = {name: i for i, name in enumerate(data.SECTIONS)}
# The sections a blow from each bearing (eighths clockwise from the struck vehicle's nose) may strike.
SECTIONS_FROM = {0: ("front",), 1: ("front", "middle"), 2: ("front", "middle", "rear"), 3: ("middle", "rear"),
                 4: ("rear",), 5: ("middle", "rear"), 6: ("front", "middle", "rear"), 7: ("front", "middle")}
FLAME_ONLY = 5           # the rules revision from which the extinguisher stops only a flame weapon's explosions
TRUCK_DRIVER_STAYS = 5   # the rules revision from which a truck's driver never gets out of the wreck
EMPTY_SEAT = 6           # the rules revision from which an empty vehicle's driver squares hold nobody to hit


def sections_hit(target: Vehicle, from_point: Point) -> tuple[str, ...]:
    """The sections a shot (or, from revision 6, a ram) from `from_point` may strike (those the mat has
    armour for); where several may, the struck vehicle's driver chooses (seed)."""
    options = SECTIONS_FROM[bearing(point_of(target), target.facing, from_point)]
    return tuple(s for s in options if target.spec.armour[SECTION_INDEX[s]] > 0) or ("front",)


def hit_armour(state: BattlecarsState, vehicle_id: str, section: str, points: int, flame: bool = False,
               ignore_armour: bool = False, flamer: bool = False) -> tuple[BattlecarsState, tuple]:
    """`points` of damage on one section: its boxes go first; beyond them every 2 points (rounded up)
    is an internal hit (table). `flame` (flame, rockets, shells: found) makes a damaged fuel tank test
    for an explosion when the rear is hit. `ignore_armour`: a mine's internal hits. `flamer`: a flame
    weapon's round (not a rocket's or a shell's), whose ammunition explosions an extinguisher stops."""
    vehicle = state.vehicle(vehicle_id)
    index = SECTION_INDEX[section]
    boxes = vehicle.armour[index]
    lost = 0 if ignore_armour else min(boxes, points)
    beyond = points - lost
    hits = math.ceil(beyond / data.table()["damage_per_internal_hit"]) if beyond > 0 else 0
    front, middle, rear = (b - lost if i == index else b for i, b in enumerate(vehicle.armour))
    armour = (front, middle, rear)
    state = state.with_vehicle(replace(vehicle, armour=armour))
    events: tuple = (ArmourHit(vehicle.name, section, points, lost, boxes - lost, hits),)
    if flame and section == "rear":
        state, more = _fuel_tank_test(state, vehicle_id)
        events += more
    for _ in range(hits):
        if state.vehicle(vehicle_id).destroyed:
            break
        state, more = internal_hit(state, vehicle_id, flame, flamer)
        events += more
    return state, events


def internal_hit(state: BattlecarsState, vehicle_id: str, flame: bool = False,
                 flamer: bool = False) -> tuple[BattlecarsState, tuple]:
    """One internal hit: roll the d8 on the vehicle's table; a result it lacks (or lost) is rolled once
    more, and a second miss hits the engine (reconstruction)."""
    events: tuple = ()
    vehicle = state.vehicle(vehicle_id)
    table = data.component_tables()[vehicle.spec.components]
    for attempt in range(2):
        state, (face,) = roll(state, D8)
        events += (DiceRolled(vehicle.name, "rolls for an internal hit", f"component table row {face}", "d8",
                              (face,), face),)
        state, part, more = _which_part(state, vehicle_id, table[face])
        events += more
        if part is not None:
            state, more = _damage_part(state, vehicle_id, part, flame, flamer)
            return state, events + more
        events += (ComponentHit(vehicle.name, " or ".join(part_name(p) for p in table[face]),
                                "nothing left there: rolled again" if attempt == 0 else
                                "nothing left there: the hit goes to the engine"),)
    state, more = _damage_part(state, vehicle_id, "engine", flame, flamer)
    return state, events + more


def part_name(part: str) -> str:
    """A component table entry in words: 'pod:C' -> 'pod C', 'fuel_or_driver' -> 'fuel tank or driver'."""
    if part.startswith("pod:"):
        return f"pod {part[4:]}"
    return {"fuel_or_driver": "fuel tank or driver", "fuel": "fuel tank"}.get(part, part)


def _which_part(state: BattlecarsState, vehicle_id: str, row: tuple[str, ...]) -> tuple[BattlecarsState, str | None,
                                                                                          tuple]:
    """The first part of a table row the vehicle still has, or None; 'fuel_or_driver' and 'equipment'
    roll for which."""
    vehicle = state.vehicle(vehicle_id)
    for part in row:
        if part.startswith("pod:"):
            pod = next((p for p in vehicle.pods if p.id == part[4:]), None)
            if pod is not None and not pod.destroyed:
                return state, part, ()
        elif part == "turret":
            if vehicle.turret is not None and not vehicle.turret.destroyed:
                return state, part, ()
        elif part == "tyres":
            if vehicle.tyres_lost < vehicle.spec.tyres:
                return state, part, ()
        elif part == "equipment":
            working = [e for e in vehicle.spec.equipment if e not in vehicle.equipment_lost]
            if working:
                state, (face,) = roll(state, tuple(range(1, len(working) + 1)))
                event = DiceRolled(vehicle.name, "rolls for which equipment", ", ".join(working), f"d{len(working)}",
                                   (face,), face)
                return state, f"equipment:{working[face - 1]}", (event,)
        elif part == "fuel_or_driver":
            state, (face,) = roll(state, D6)
            event = DiceRolled(vehicle.name, "rolls fuel tank or driver", "1-3 fuel tank, 4-6 driver", "d6", (face,),
                               face)
            found = "fuel" if face <= 3 else "driver"
            return state, None if _nobody_at(state, vehicle, found) else found, (event,)
        elif not _nobody_at(state, vehicle, part):
            return state, part, ()
    return state, None, ()


def _nobody_at(state: BattlecarsState, vehicle: Vehicle, part: str) -> bool:
    """Whether `part` is the driver of a vehicle whose driver is out (on foot, or gone): from revision 6 a
    part the vehicle lacks, so the hit is rolled again (seed: "A player is eliminated when their driver is
    killed", not when their empty vehicle is hit); before, a hit there killed the driver all the same."""
    return part == "driver" and vehicle.driver_out and state.revision >= EMPTY_SEAT


def _damage_part(state: BattlecarsState, vehicle_id: str, part: str, flame: bool,
                 flamer: bool = False) -> tuple[BattlecarsState, tuple]:
    """Cross off one square of `part` (or destroy a pod, the turret or a piece of equipment); an empty
    vehicle's driver squares take nothing (revision 6 on; internal_hit rolls again before it comes here)."""
    vehicle = state.vehicle(vehicle_id)
    spec = vehicle.spec
    if _nobody_at(state, vehicle, part):
        return state, (ComponentHit(vehicle.name, "driver", "nobody aboard: nothing there"),)
    if part.startswith("pod:") or part == "turret":
        weapon = required(vehicle.turret, "no turret on", vehicle.id) if part == "turret" else \
            next(p for p in vehicle.pods if p.id == part[4:])
        loaded = weapon.rounds > 0
        broken = replace(weapon, destroyed=True)
        vehicle = replace(vehicle, turret=broken) if part == "turret" else \
            replace(vehicle, pods=tuple(broken if p.id == weapon.id else p for p in vehicle.pods))
        state = state.with_vehicle(vehicle)
        events: tuple = (ComponentHit(vehicle.name, weapon.label, "destroyed"),)
        if loaded:
            state, more = _ammunition_test(state, vehicle_id, weapon.label, weapon.load, flame, flamer)
            events += more
        return state, events
    if part.startswith("equipment:"):
        name = part.split(":", 1)[1]
        vehicle = replace(vehicle, equipment_lost=vehicle.equipment_lost + (name,))
        return state.with_vehicle(vehicle), (ComponentHit(vehicle.name, name.replace("_", " "), "destroyed"),)
    counts = {"engine": ("engine_lost", spec.engine), "tyres": ("tyres_lost", spec.tyres),
              "fuel": ("fuel_lost", spec.fuel), "driver": ("driver_lost", spec.driver)}
    field, squares = counts[part]
    lost = min(squares, getattr(vehicle, field) + 1)
    vehicle = replace(vehicle, **{field: lost})
    vehicle = replace(vehicle, speed=min(vehicle.speed, vehicle.top_speed(state.revision)))
    state = state.with_vehicle(vehicle)
    name = {"fuel": "fuel tank"}.get(part, part)
    left = squares - lost
    events = (ComponentHit(vehicle.name, name, f"{plural(left, 'square', 'squares')} of {squares} left"),)
    if left == 0 and part in ("engine", "fuel", "driver"):
        state, more = destroy(state, vehicle_id, f"its {name} is gone" if part != "driver" else "its driver is dead",
                              escape=part != "driver")
        events += more
    return state, events


def _ammunition_test(state: BattlecarsState, vehicle_id: str, label: str, load: str,
                     flame: bool, flamer: bool = False) -> tuple[BattlecarsState, tuple]:
    """A pod or turret hit with rounds left explodes on a d6 at least its load's threshold: d3 more
    internal hits, its rounds lost (reconstruction). A working Fire Extinguisher stops an explosion
    a flame weapon caused (seed: "prevents flame weapons from causing explosions"): from revision 5
    only a flame weapon's (`flamer`); before, a rocket's or a shell's too (`flame`, which counts only
    against the fuel tank)."""
    vehicle = state.vehicle(vehicle_id)
    threshold = data.rounds()[load].explodes_on
    if threshold is None:
        return state, ()
    by_flame = flamer if state.revision >= FLAME_ONLY else flame
    if by_flame and vehicle.has("fire_extinguisher"):
        return state, (ComponentHit(vehicle.name, label, "the fire extinguisher stops any explosion"),)
    state, (face,) = roll(state, D6)
    blew = face >= threshold
    events: tuple = (DiceRolled(vehicle.name, f"tests {label} for an ammunition explosion",
                                f"explodes on {threshold}+", "d6", (face,), face, threshold, blew),)
    if not blew:
        return state, events
    state, (more_hits,) = roll(state, D3)
    events += (DiceRolled(vehicle.name, "rolls the explosion's internal hits", "d3 more internal hits", "d3",
                          (more_hits,), more_hits),)
    for _ in range(more_hits):
        if state.vehicle(vehicle_id).destroyed:
            break
        state, more = internal_hit(state, vehicle_id)
        events += more
    return state, events


def _fuel_tank_test(state: BattlecarsState, vehicle_id: str) -> tuple[BattlecarsState, tuple]:
    """Flame on the rear of a vehicle whose fuel tank is damaged: it explodes on a d6 of 5 or 6 and the
    vehicle is destroyed (found: the test; reconstruction: the odds). A working extinguisher stops it."""
    vehicle = state.vehicle(vehicle_id)
    if vehicle.fuel_lost == 0 or vehicle.destroyed:
        return state, ()
    if vehicle.has("fire_extinguisher"):
        return state, (ComponentHit(vehicle.name, "fuel tank", "the fire extinguisher stops the explosion"),)
    state, (face,) = roll(state, D6)
    blew = face >= 5
    events: tuple = (DiceRolled(vehicle.name, "tests the damaged fuel tank for an explosion", "explodes on 5+",
                                "d6", (face,), face, 5, blew),)
    if blew:
        state, more = destroy(state, vehicle_id, "its fuel tank exploded", escape=True)
        events += more
    return state, events


def destroy(state: BattlecarsState, vehicle_id: str, why: str, escape: bool = False) -> tuple[BattlecarsState, tuple]:
    """The vehicle is out: it stays on its point as a wreck, speed 0. Wrecked by its engine or fuel tank
    (`escape`), a driver still aboard may get out on foot (reconstruction); from revision 5 never a
    truck's (seed: "Truck ... Driver cannot leave vehicle"), who dies in the wreck."""
    vehicle = state.vehicle(vehicle_id)
    if vehicle.destroyed:
        return state, ()
    state = state.with_vehicle(replace(vehicle, destroyed=True, speed=0))
    events: tuple = (VehicleDestroyed(vehicle.name, why),)
    if vehicle.spec.type == "truck" and state.revision >= TRUCK_DRIVER_STAYS:
        escape = False
    if escape and not vehicle.driver_out:
        state, more = pedestrians.escape(state, vehicle_id)
        return state, events + more
    if not vehicle.driver_out:   # the driver dies aboard: the pistol stays in the wreck
        state = pedestrians.dies(state, point_of(vehicle), data.table()["pistol_rounds"])
    return state.with_vehicle(replace(state.vehicle(vehicle_id), driver_out=True)), events


def defended(state: BattlecarsState, vehicle: Vehicle) -> bool:
    """Whether anyone may choose where a blow on `vehicle` lands: its driver, aboard or on foot, while the
    vehicle is no wreck; nobody defends a wreck, nor the empty vehicle of a player out of the game."""
    return not vehicle.destroyed and (not vehicle.driver_out or state.pedestrian_of(vehicle.owner) is not None)


def is_running(vehicle: Vehicle) -> bool:
    """Whether a vehicle still counts: not destroyed, its driver aboard and alive."""
    return not vehicle.destroyed and not vehicle.driver_out and vehicle.driver_lost < vehicle.spec.driver
