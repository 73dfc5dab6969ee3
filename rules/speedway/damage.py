"""Damage dice, Armor and crossing boxes; when a car stops being operable (seed: Damage)."""

from __future__ import annotations

from dataclasses import replace

from rules.dice import DiceState, roll_faces
from rules.speedway import data
from rules.speedway.events import FACE_NAMES, ArmorDisregarded, CarWrecked, DamageRolled, DamageTaken
from rules.speedway.geometry import arcs_of
from rules.speedway.state import SEED_AUDIT, Car, SpeedwayState, Systems

SYSTEM_OF_FACE = {"A": "armor", "E": "engine", "B": "brakes", "S": "suspension", "D": "driver",
                  "T": "targeting"}


def roll_symbols(dice: DiceState, faces: tuple[str, ...], count: int) -> tuple[DiceState, tuple[str, ...]]:
    """Roll `count` dice whose sides carry symbols: the sides are rolled by position, as roll_faces does."""
    dice, sides = roll_faces(dice, tuple(range(len(faces))), count)
    return dice, tuple(faces[side] for side in sides)


def roll_damage(state: SpeedwayState, colours: tuple[str, ...]) -> tuple[SpeedwayState, tuple[str, ...]]:
    """Roll the named damage dice together; return the faces in the same order."""
    faces = data.damage_dice()
    dice = state.dice
    shown: list[str] = []
    for colour in colours:
        dice, (face,) = roll_symbols(dice, faces[colour], 1)
        shown.append(face)
    return replace(state, dice=dice), tuple(shown)


def disregard(results: tuple[str, ...], armor: int, car: Car | None = None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Split results into (kept, disregarded): Armor ignores up to `armor` non-Armor results.

    The defender's choice is made for them by data/dice.toml's armor_priority (RULES.md ruling). Given the
    car (revision 6), Armor goes only where it lessens what lands: never on a result that would cross
    nothing (a W with no weapon left, an S past Suspension's last box), nor on one of several results
    of a face when too few are disregarded to spare a box.
    """
    kept = list(results)
    ignored: list[str] = []
    for face in data.armor_priority():
        count = kept.count(face)
        lands = count if car is None else _landing(car, face, count)
        still_lands = min(max(0, count - (armor - len(ignored))), lands)
        if still_lands < lands:
            for _ in range(count - still_lands):
                kept.remove(face)
                ignored.append(face)
    return tuple(kept), tuple(ignored)


def _landing(car: Car, face: str, count: int) -> int:
    """How many of `count` results of `face` would take effect on the car, applied one by one as
    `_apply_one` applies them."""
    if face in SYSTEM_OF_FACE:
        track = getattr(car.systems, SYSTEM_OF_FACE[face])
        return min(count, len(track.boxes) - track.crossed)
    if face == "W":
        return min(count, sum(len(w.track.boxes) - w.track.crossed for w in car.weapons))
    return count if face == "F" else 0


def _weapon_hit(car: Car, attacker_point: tuple[float, float] | None) -> int | None:
    """Index of the weapon a W result crosses: one facing the attacker, else any; None if none left."""
    standing = [i for i, w in enumerate(car.weapons) if w.track.crossed < len(w.track.boxes)]
    if not standing:
        return None
    if attacker_point is not None:
        arcs = arcs_of(car, attacker_point)
        facing = [i for i in standing if car.weapons[i].mount in arcs]
        if facing:
            return facing[0]
    # The defender's choice: give up a defensive weapon before a gun (RULES.md ruling).
    defensive = [i for i in standing if not car.weapons[i].offensive]
    return (defensive or standing)[0]


def _apply_one(car: Car, face: str, attacker_point) -> tuple[Car, str | None]:
    """Cross one box for one result; return the car and a description, or None if it had no effect."""
    if face in SYSTEM_OF_FACE:
        name = SYSTEM_OF_FACE[face]
        track = getattr(car.systems, name)
        if track.crossed >= len(track.boxes):
            return car, None
        before = track.rating
        track = track.cross()
        after = "off" if track.rating is None else track.rating
        said = f"{FACE_NAMES[face]} {before}" + (" (a box crossed)" if after == before else f"->{after}")
        return replace(car, systems=replace(car.systems, **{name: track})), said
    if face == "W":
        index = _weapon_hit(car, attacker_point)
        if index is None:
            return car, None
        weapon = car.weapons[index]
        weapon = replace(weapon, track=weapon.track.cross())
        weapons = car.weapons[:index] + (weapon,) + car.weapons[index + 1:]
        return replace(car, weapons=weapons), f"{weapon.label} hit"
    if face == "F":
        return replace(car, fire_chips=car.fire_chips + 1), "On Fire +1"
    return car, None


def is_operable(car: Car) -> bool:
    """RECONSTRUCTION: a car runs while its Driver works and it can either drive or shoot."""
    systems: Systems = car.systems
    if systems.driver.rating is None:
        return False
    can_drive = (systems.engine.rating or 0) > 0
    can_shoot = any(w.offensive and w.working for w in car.weapons)
    return can_drive or can_shoot


def damage_car(state: SpeedwayState, car_id: str, colours: tuple[str, ...], source: str,
               attacker_point: tuple[float, float] | None) -> tuple[SpeedwayState, tuple, int]:
    """Roll `colours` at a car, let Armor disregard what it can, cross boxes.

    Returns the new state, events, and how many results took effect (the "damage taken").
    """
    state, faces = roll_damage(state, colours)
    car = state.car(car_id)
    events: list = [DamageRolled(car.name, source, colours, faces)]
    kept, ignored = disregard(faces, car.systems.rating("armor"), car if state.revision >= SEED_AUDIT else None)
    if ignored:
        events.append(ArmorDisregarded(car.name, ignored))
    effects = []
    for face in kept:
        car, effect = _apply_one(car, face, attacker_point)
        if effect:
            effects.append(effect)
    if effects:
        events.append(DamageTaken(car.name, tuple(effects)))
    state = state.with_car(car)
    state, wrecked = wreck_if_inoperable(state, car_id)
    return state, tuple(events) + wrecked, len(effects)


def wreck_if_inoperable(state: SpeedwayState, car_id: str) -> tuple[SpeedwayState, tuple]:
    """Mark a car that can no longer run as out: it stays on the map as a wreck at speed 0."""
    car = state.car(car_id)
    if car.out or is_operable(car):
        return state, ()
    wreck = replace(car, out=True, speed=0, in_control=True, skid=None, must_turn=False, oil_drops_left=0)
    return state.with_car(wreck), (CarWrecked(car.name),)
