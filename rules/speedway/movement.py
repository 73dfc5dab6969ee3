"""Putting a car somewhere new: maneuvers and slides, with what they run into on the way.

Each step checks the hexes it would enter: another car in front is a ram, an object in front a
straight-on strike, a lateral slide into a car or object its own collision, and hexes entered
for real meet the hazards there.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from rules.hexgrid import DIRECTION_NAMES, Hex, label, step
from rules.speedway import collisions, data
from rules.speedway.damage import damage_car
from rules.speedway.driving import counter_hexes, maneuver_pose
from rules.speedway.events import CarManeuvered, CarSlid, Collided, SpeedLostInCrash
from rules.speedway.geometry import centre
from rules.speedway.state import Car, SpeedwayState

# What keeps a car out of a hex: the arena wall, an obstacle, or another car (with that car's id).
Block = tuple[Literal["wall", "obstacle"], None] | tuple[Literal["car"], str]


def what_blocks(state: SpeedwayState, car_id: str, h: Hex) -> Block | None:
    """("wall" | "obstacle" | "car", other car id) for a hex the car cannot enter; None if open."""
    arena = data.arena(state.arena)
    if not arena.in_field(h):
        return "wall", None
    if h in arena.obstacles:
        return "obstacle", None
    for other in state.cars:
        if other.id != car_id and h in other.hexes:
            return "car", other.id
    return None


def _object_name(kind: str, h: Hex) -> str:
    return "the arena wall" if kind == "wall" else f"the obstacle at {label(h)}"


def _glance(state: SpeedwayState, car_id: str, at: Hex, what: str) -> tuple[SpeedwayState, tuple]:
    """RULING: a maneuver whose back half alone would hit something: the lateral dice, speed -1,
    and the car stays where it was (the Move is spent)."""
    car = state.car(car_id)
    events: tuple = (Collided("glance", car.name, what, collisions.where(state, at, car), 0),)
    state, dealt, _ = damage_car(state, car_id, tuple(data.collision_rules()["slide_one_half"]),
                                 f"glanced off {what}", centre(at))
    events += dealt
    car = state.car(car_id)
    if car.speed > 0:
        state = state.with_car(replace(car, speed=car.speed - 1))
        events += (SpeedLostInCrash(car.name, 1, car.speed - 1),)
    if state.car(car_id).speed == 0:
        state, halted = collisions.stopped(state, car_id, "it lost its last speed")
        events += halted
    return state, events


def maneuver(state: SpeedwayState, car: Car, spec: data.Maneuver, side: int,
             name: str) -> tuple[SpeedwayState, tuple, bool]:
    """Perform one maneuver. Returns (state, events, placed) where placed means the car moved."""
    front, facing = maneuver_pose(car, spec, side)
    back = counter_hexes(front, facing)[1]
    front_block = what_blocks(state, car.id, front)
    if front_block and front_block[0] == "car":
        state, events = collisions.ram(state, car.id, front_block[1], front, front, facing)
        return state, events, False
    if front_block:
        state, events = collisions.strike_straight(state, car.id, front, _object_name(front_block[0], front))
        return state, events, False
    back_block = what_blocks(state, car.id, back) if back not in car.hexes else None
    if back_block and back_block[0] == "car":
        state, events = collisions.slide_into_car(state, car.id, back_block[1], back)
        return state, events, False
    if back_block:
        state, events = _glance(state, car.id, back, _object_name(back_block[0], back))
        return state, events, False
    moved = replace(car, front=front, facing=facing, inertia=car.inertia + spec.inertia, must_turn=False)
    events = (CarManeuvered(car.name, name, label(car.front_hex), label(front),
                            DIRECTION_NAMES[facing], spec.inertia),)
    state, met = collisions.arrive(state, car, moved)
    return state, events + met, True


MOVED, GLANCED, STOPPED = "moved", "glanced", "stopped"


def slide(state: SpeedwayState, car: Car, vector: int, reason: str) -> tuple[SpeedwayState, tuple, str]:
    """Translate the car one hex along `vector`, or collide.

    Returns (state, events, outcome): MOVED, GLANCED (one half struck: the car swung round and
    lost a point of speed, still moving) or STOPPED.
    """
    front, back = counter_hexes(car.front_hex, car.facing)
    targets = ((front, step(front, vector)), (back, step(back, vector)))
    blocks = [(half, h, what_blocks(state, car.id, h)) for half, h in targets]
    for _half, h, block in blocks:
        if block and block[0] == "car":
            state, events = collisions.slide_into_car(state, car.id, block[1], h)
            return state, events, STOPPED
    struck = [(half, h, block) for half, h, block in blocks if block]
    if len(struck) == 2:
        state, events = collisions.strike_straight(state, car.id, struck[0][1],
                                                   _object_name(struck[0][2][0], struck[0][1]))
        return state, events, STOPPED
    if struck:
        half, h, block = struck[0]
        state, events = collisions.strike_one_half(state, car.id, half, vector, h, _object_name(block[0], h))
        after = state.car(car.id)
        return state, events, GLANCED if after.speed > 0 and not after.out else STOPPED
    moved = replace(car, front=targets[0][1])
    events = (CarSlid(car.name, DIRECTION_NAMES[vector], label(moved.front_hex), reason),)
    state, met = collisions.arrive(state, car, moved)
    return state, events + met, STOPPED if state.car(car.id).out else MOVED
