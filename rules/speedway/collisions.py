"""Collisions: ramming, swipes, slides into cars and strikes on immobile objects (seed: Collisions)."""

from __future__ import annotations

import math
from dataclasses import replace

from rules.hexgrid import DIRECTIONS, Hex, distance, label, neighbours, step
from rules.speedway import data, hazards
from rules.speedway.damage import damage_car, wreck_if_inoperable
from rules.speedway.driving import driver_roll, maneuver_pose
from rules.speedway.events import CarRotated, CarStopped, Collided, ControlRegained, InertiaGained, SpeedLostInCrash
from rules.speedway.geometry import centre, midpoint
from rules.speedway.phases import SpeedwayPhase
from rules.speedway.state import (
    RAM_CHOICE_THAT_MATTERS,
    SEED_FIDELITY,
    WHERE_RULES_MEET,
    Car,
    PendingRam,
    SpeedwayState,
)


def _rules() -> dict:
    return data.collision_rules()


def _direction_between(a: Hex, b: Hex) -> int:
    """The direction index of the step from `a` to its neighbour `b`."""
    return DIRECTIONS.index((b[0] - a[0], b[1] - a[1]))


def where(state: SpeedwayState, at: Hex, car: Car) -> str:
    """A hex name for an event: the hex itself, or the car's own hex when `at` is beyond the wall."""
    return label(at) if data.arena(state.arena).in_field(at) else label(car.front_hex)


def stopped(state: SpeedwayState, car_id: str, reason: str) -> tuple[SpeedwayState, tuple]:
    """Stop the car and say so."""
    car = state.car(car_id)
    return stop(state, car_id), (CarStopped(car.name, label(car.front_hex), reason),)


def stop(state: SpeedwayState, car_id: str) -> SpeedwayState:
    """The car moves no further this turn and begins the next at speed 0 (seed)."""
    car = state.car(car_id)
    state = state.with_car(replace(car, speed=0, in_control=True, skid=None, must_turn=False))
    if state.active_car == car_id:
        state = replace(state, moves_left=0)
    return state


def _lose_speed(state: SpeedwayState, car_id: str, amount: int) -> tuple[SpeedwayState, tuple]:
    """A crash's speed loss. From revision 5 an Out Of Control car it brings to speed 0 is In Control
    again (RULING: "a car that reaches speed 0 stops and is In Control")."""
    car = state.car(car_id)
    if amount <= 0 or car.speed == 0:
        return state, ()
    speed = max(0, car.speed - amount)
    events: tuple = (SpeedLostInCrash(car.name, car.speed - speed, speed),)
    slowed = replace(car, speed=speed)
    if speed == 0 and not car.in_control and state.revision >= WHERE_RULES_MEET:
        slowed = replace(slowed, in_control=True, skid=None)
        events += (ControlRegained(car.name),)
    return state.with_car(slowed), events


def collision_speed(attacker_speed: int, defender_speed: int, attacker_facing: int, defender_facing: int) -> int:
    """RECONSTRUCTION of the lost diagram: Vc = Va - Vd * cos(angle), rounded down, at least 0."""
    sixths = (attacker_facing - defender_facing) % 6
    factor = _rules()["angle_factor"][min(sixths, 6 - sixths)]
    return max(0, math.floor(attacker_speed - defender_speed * factor))


def ram(state: SpeedwayState, attacker_id: str, defender_id: str, struck: Hex, front: Hex,
        facing: int) -> tuple[SpeedwayState, tuple]:
    """The attacker's front runs into the defender: damage, speed loss, then the driver roll-off.

    The attacker stays short of the defender; (front, facing) is where its Move was heading.
    """
    attacker, defender = state.car(attacker_id), state.car(defender_id)
    vc = collision_speed(attacker.speed, defender.speed, facing, defender.facing)
    events: tuple = (Collided("ram", attacker.name, defender.name, label(struck), vc),)
    # Each car rolls gray dice that damage the other; the attacker rolls one more (RULES.md reading).
    state, dealt, damage_to_defender = damage_car(state, defender_id, ("gray",) * (vc + 1),
                                                  f"rammed by {attacker.name}", midpoint(attacker))
    events += dealt
    state, dealt, damage_to_attacker = damage_car(state, attacker_id, ("gray",) * vc,
                                                  f"ramming {defender.name}", midpoint(defender))
    events += dealt
    for car_id, taken in ((attacker_id, damage_to_attacker), (defender_id, damage_to_defender)):
        state, lost = _lose_speed(state, car_id, taken)
        events += lost
    attacker, defender = state.car(attacker_id), state.car(defender_id)
    # A wrecked attacker moves no further. A wrecked defender (by this ram or before it) still rolls:
    # the seed's steps have no exception, so from revision 3 the roll-off and the outcome follow.
    if attacker.out or (defender.out and state.revision < SEED_FIDELITY):
        return stop(state, attacker_id), events
    state, winner, rolls = _roll_off(state, attacker, defender, damage_to_defender, damage_to_attacker)
    events += rolls
    if attacker.speed == 0 and state.revision >= SEED_FIDELITY:
        # Stopped by the crash: either outcome leaves it stopped, so nobody is asked to choose.
        state, halted = stopped(state, attacker_id, "the crash took all its speed, so no outcome is chosen")
        return state, events + halted
    chooser = state.car(winner).owner
    pending = PendingRam(attacker_id, defender_id, struck, chooser, front, facing)
    asked = replace(state, phase=SpeedwayPhase.RAM, pending_ram=pending)
    if state.revision >= RAM_CHOICE_THAT_MATTERS and _choice_changes_nothing(asked, stop(state, attacker_id)):
        state, halted = stopped(state, attacker_id, "either outcome leaves it stopped here, so none is chosen")
        return state, events + halted
    return asked, events


def _choice_changes_nothing(asked: SpeedwayState, halted: SpeedwayState) -> bool:
    """Whether outcome A and outcome B would both only stop the attacker where it is (no Turn open for
    A, no room for B): then the winner has nothing to choose."""
    return all(resolve_ram(asked, outcome) == (halted, ()) for outcome in ("A", "B"))


def _roll_off(state: SpeedwayState, attacker: Car, defender: Car, attacker_bonus: int,
              defender_bonus: int) -> tuple[SpeedwayState, str, tuple]:
    """Each driver rolls plus the damage they did to the other; ties are re-rolled."""
    events: tuple = ()
    for _ in range(_rules()["max_rolloff_rerolls"] + 1):
        state, a = driver_roll(state, attacker, 0, f"ram roll-off (+{attacker_bonus})", "ramming roll-off")
        state, d = driver_roll(state, defender, 0, f"ram roll-off (+{defender_bonus})", "ramming roll-off")
        a_total, d_total = a.total + attacker_bonus, d.total + defender_bonus
        a = replace(a, total=a_total, target=d_total, success=a_total > d_total, modifier=attacker_bonus)
        d = replace(d, total=d_total, target=a_total, success=d_total > a_total, modifier=defender_bonus)
        events += (a, d)
        if a_total != d_total:
            return state, (attacker.id if a_total > d_total else defender.id), events
    return state, attacker.id, events


def turn_is_open(car: Car, is_open) -> bool:
    """Whether a Turn left or right is possible for `car` (used by ramming outcome A)."""
    for side in (1, -1):
        front = step(car.front_hex, car.facing + side)
        back = step(front, car.facing + side + 3)
        if is_open(front) and is_open(back):
            return True
    return False


def open_for(state: SpeedwayState, ignore: tuple[str, ...]):
    arena = data.arena(state.arena)
    occupied = {h for c in state.cars if c.id not in ignore for h in c.hexes}
    return lambda h: arena.is_open(h) and h not in occupied


def resolve_ram(state: SpeedwayState, outcome: str) -> tuple[SpeedwayState, tuple]:
    """Outcome A: the attacker must Turn on its next Move (or stops). B: the defender pivots away."""
    pending = state.open_ram
    state = replace(state, pending_ram=None, phase=SpeedwayPhase.MOVEMENT)
    attacker, defender = state.car(pending.attacker), state.car(pending.defender)
    if attacker.speed == 0:  # the crash took all its speed: it has stopped, whatever was chosen
        return stopped(state, attacker.id, "the crash took all its speed")
    if outcome == "A":
        if state.moves_left > 0 and turn_is_open(attacker, open_for(state, (attacker.id,))):
            return state.with_car(replace(attacker, must_turn=True)), ()
        if state.moves_left == 0 and state.revision >= SEED_FIDELITY:
            # "must take a turn maneuver on its next move": the first Move of its next turn
            # (turns.start_movement stops it then if no Turn is open).
            return state.with_car(replace(attacker, must_turn=True)), ()
        return stop(state, attacker.id), ()
    pivot = defender.back_hex if pending.struck == defender.front else defender.front_hex
    candidates = [h for h in neighbours(pivot) if distance(h, pending.struck) == 1]
    away = max(candidates, key=lambda h: (distance(h, attacker.front_hex), -DIRECTIONS.index(
        (h[0] - pivot[0], h[1] - pivot[1]))))
    is_open = open_for(state, (attacker.id, defender.id))
    attacker_back = step(pending.struck, pending.facing + 3)
    # The attacker needs both its new hexes: the one the defender vacated and the one behind it.
    if not is_open(away) or not is_open(attacker_back) or attacker_back in (away, pivot):
        return stop(state, attacker.id), ()
    if pending.struck == defender.front:
        rotated = replace(defender, front=away, facing=_direction_between(pivot, away))
    else:
        rotated = replace(defender, facing=_direction_between(away, pivot))
    events: tuple = (CarRotated(defender.name, label(rotated.front_hex), label(rotated.back_hex), "pushed aside"),)
    state, met = arrive(state, defender, rotated)
    events += met
    placed = replace(attacker, front=pending.struck, facing=pending.facing)
    if state.revision >= WHERE_RULES_MEET:
        # The maneuver is made: it earns its inertia, and a Turn the car owed (outcome A) is paid.
        made = maneuver_made(attacker, pending.front, pending.facing)
        placed = replace(placed, must_turn=False)
        if made is not None and made[0].inertia:
            spec = made[0]
            placed = replace(placed, inertia=attacker.inertia + spec.inertia)
            events += (InertiaGained(attacker.name, spec.inertia, spec.label),)
    state, met = arrive(state, attacker, placed)
    return state, events + met


def maneuver_made(car: Car, front: Hex, facing: int) -> tuple[data.Maneuver, int] | None:
    """The maneuver and side that take `car` (where it stands) to this front and facing."""
    for spec in data.maneuvers().values():
        for side in ((1, -1) if spec.sided else (0,)):
            if maneuver_pose(car, spec, side) == (front, facing):
                return spec, side
    return None


def arrive(state: SpeedwayState, before: Car, after: Car) -> tuple[SpeedwayState, tuple]:
    """Put a car in its new hexes and let it meet the hazards in the ones it entered."""
    state = state.with_car(after)
    entered = tuple(h for h in after.hexes if h not in before.hexes)
    return hazards.car_entered(state, after.id, entered)


def swipe(state: SpeedwayState, car_id: str, target_id: str) -> tuple[SpeedwayState, tuple]:
    """Spend an extra Move to bump a car in a skid hex: dice to both, and the target gains inertia."""
    car, target = state.car(car_id), state.car(target_id)
    dice = tuple(_rules()["swipe"])
    events: tuple = (Collided("swipe", car.name, target.name, label(target.front_hex), 0),)
    state, dealt, _ = damage_car(state, target_id, dice, f"swiped by {car.name}", midpoint(car))
    events += dealt
    state, dealt, _ = damage_car(state, car_id, dice, f"swiping {target.name}", midpoint(target))
    events += dealt
    target = state.car(target_id)
    state = state.with_car(replace(target, inertia=target.inertia + 1))
    events += (InertiaGained(target.name, 1, "swiped"),)
    return state, events


def slide_into_car(state: SpeedwayState, car_id: str, other_id: str, at: Hex) -> tuple[SpeedwayState, tuple]:
    """A sliding car hits another car: both take the slide dice and the slider stops."""
    car, other = state.car(car_id), state.car(other_id)
    dice = tuple(_rules()["slide_into_car"])
    events: tuple = (Collided("slide", car.name, other.name, label(at), 0),)
    state, dealt, _ = damage_car(state, other_id, dice, f"{car.name} slid into it", midpoint(car))
    events += dealt
    state, dealt, _ = damage_car(state, car_id, dice, f"slid into {other.name}", midpoint(other))
    events += dealt
    state, halted = stopped(state, car_id, f"it slid into {other.name}")
    return state, events + halted


def strike_straight(state: SpeedwayState, car_id: str, at: Hex, what: str) -> tuple[SpeedwayState, tuple]:
    """A straight-on strike on an immobile object: one gray die per point of speed, then stop."""
    car = state.car(car_id)
    events: tuple = (Collided("strike", car.name, what, where(state, at, car), car.speed),)
    if car.speed > 0:
        state, dealt, _ = damage_car(state, car_id, ("gray",) * car.speed, f"hit {what}", centre(at))
        events += dealt
    state, halted = stopped(state, car_id, f"it hit {what}")
    return state, events + halted


def strike_one_half(state: SpeedwayState, car_id: str, struck_half: Hex, vector: int,
                    at: Hex, what: str) -> tuple[SpeedwayState, tuple]:
    """Only one half hits the object: dice, speed -1, and the free half swings round the struck one."""
    car = state.car(car_id)
    free_half = car.back_hex if struck_half == car.front else car.front_hex
    target = step(free_half, vector)
    candidates = [h for h in neighbours(struck_half) if distance(h, free_half) == 1]
    swing = min(candidates, key=lambda h: (distance(h, target), DIRECTIONS.index(
        (h[0] - struck_half[0], h[1] - struck_half[1]))))
    if not open_for(state, (car_id,))(swing):
        return strike_straight(state, car_id, at, what)
    events: tuple = (Collided("glance", car.name, what, where(state, at, car), 0),)
    state, dealt, _ = damage_car(state, car_id, tuple(_rules()["slide_one_half"]), f"glanced off {what}",
                                 centre(at))
    events += dealt
    state, lost = _lose_speed(state, car_id, 1)
    events += lost
    before = state.car(car_id)
    if struck_half == before.front:
        car = replace(before, facing=_direction_between(swing, struck_half))
    else:
        car = replace(before, front=swing, facing=_direction_between(struck_half, swing))
    events += (CarRotated(car.name, label(car.front_hex), label(car.back_hex), f"swung round {what}"),)
    state, met = arrive(state, before, car)
    events += met
    car = state.car(car_id)
    if car.speed == 0:
        state, halted = stopped(state, car_id, "it lost its last speed")
        events += halted
    return wreck_check(state, car_id, events)


def wreck_check(state: SpeedwayState, car_id: str, events: tuple) -> tuple[SpeedwayState, tuple]:
    state, wrecked = wreck_if_inoperable(state, car_id)
    return state, events + wrecked
