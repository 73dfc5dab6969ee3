"""Driving: maneuver geometry, skid vectors and Driver Rolls (seed: Movement Phase)."""

from __future__ import annotations

from dataclasses import replace

from rules.dice import roll_faces
from rules.hexgrid import Hex, step
from rules.speedway import data
from rules.speedway.errors import IllegalManeuver
from rules.speedway.events import DiceRolled
from rules.speedway.maneuver_words import SIDES, maneuver_choices
from rules.speedway.state import Car, SpeedwayState
from rules.table import required


def parse_maneuver(text: str) -> tuple[data.Maneuver, int]:
    """'tight-turn-right' -> (the Tight Turn maneuver, side -1)."""
    table = data.maneuvers()
    if text in table and not table[text].sided:
        return table[text], 0
    base, _, side = text.rpartition("-")
    if base in table and table[base].sided and side in SIDES:
        return table[base], SIDES[side]
    raise IllegalManeuver(
        f"'{text}' is not a maneuver. Choose one of: {', '.join(maneuver_choices())}."
    )


def maneuver_pose(car: Car, maneuver: data.Maneuver, side: int) -> tuple[Hex, int]:
    """Where the front ends up and which way the car faces after `maneuver`."""
    front = step(car.front_hex, car.facing + maneuver.front_step * side)
    return front, (car.facing + maneuver.turn * side) % 6


def skid_vector(facing_before: int, maneuver: data.Maneuver, side: int) -> int | None:
    """The direction a skid from `maneuver` slides the car, or None if it never skids."""
    if maneuver.skid_speed is None:
        return None
    return (facing_before + required(maneuver.skid, "no skid vector", maneuver.id) * side) % 6


def skids_at(maneuver: data.Maneuver, speed: int) -> bool:
    """True when the skid procedure applies to `maneuver` at `speed`."""
    return maneuver.skid_speed is not None and speed >= maneuver.skid_speed


def counter_hexes(front: Hex, facing: int) -> tuple[Hex, Hex]:
    """Front and back hex of a counter with this front and facing."""
    return front, step(front, facing + 3)


def driver_roll(state: SpeedwayState, car: Car, target: int, purpose: str,
                rule: str) -> tuple[SpeedwayState, DiceRolled]:
    """Roll Driver-rating white dice; success when the total meets or exceeds `target`."""
    count = car.systems.rating("driver")
    dice, faces = roll_faces(state.dice, data.driver_die(), count)
    total = sum(faces)
    event = DiceRolled(car.name, purpose, rule, "white driver dice", faces, total, target, total >= target,
                       car_id=car.id)
    return replace(state, dice=dice), event
