"""Drivers on foot. Seed: "When leaving a vehicle, the driver becomes a pedestrian with 3 health points,
a limited-use weapon, and can be run over." Truck drivers cannot leave (seed). Reconstruction
(rules-gaps.md 2.3.7): a driver leaves only at speed 0 and that is their whole move; a pedestrian walks
a point a turn, into buildings and trees too, and boards an empty vehicle beside it; the pistol has 6
rounds and rolls 2d6 to hit; a vehicle running onto a pedestrian's point kills them on a d8 at most its
speed, else they dive aside; a driver whose engine or fuel tank wrecked the vehicle escapes on a d6 of 3+.

From rules revision 6 every driver out of a vehicle is a pedestrian with the seed's 3 health points (before, 3
less the driver squares lost), and boarding again leaves the mat's driver squares as the driver left them
(ruling; before, what health the pedestrian had left set them).
"""

from __future__ import annotations

from dataclasses import replace

from rules.battlecars import data
from rules.battlecars.events import (
    DiceRolled,
    DriverBoarded,
    DriverLeft,
    PedestrianDived,
    PedestrianHurt,
    PedestrianKilled,
    PedestrianWalked,
    PistolReloaded,
)
from rules.battlecars.grid import FACING_NAMES, Point, distance, label, step
from rules.battlecars.rolls import D6, D8, roll
from rules.battlecars.state import BattlecarsState, Pedestrian, Vehicle, point_of
from rules.errors import BadOption, WrongPhase
from rules.table import plural

ESCAPE_ON = 3   # a d6 at least this: the driver gets out of the wreck
FULL_HEALTH_OUT = 6   # the rules revision from which a driver out of a vehicle always has the seed's 3 health


def is_free(state: BattlecarsState, point: Point) -> bool:
    """A point a pedestrian may stand on: on the board, no vehicle, no other pedestrian."""
    return state.the_board.inside(point) and state.vehicle_at(point) is None and state.pedestrian_at(point) is None


def beside(state: BattlecarsState, vehicle: Vehicle) -> Point | None:
    """Where a driver steps out: the first free point round the vehicle, from behind it clockwise."""
    for turn in range(8):
        point = step(point_of(vehicle), vehicle.facing + 4 + turn)
        if is_free(state, point):
            return point
    return None


def _on_foot(state: BattlecarsState, vehicle: Vehicle, point: Point) -> tuple[BattlecarsState, Pedestrian]:
    """The driver out on `point` as a pedestrian, and the vehicle left empty: with 3 health (seed: "the
    driver becomes a pedestrian with 3 health points"), or before revision 6 with 3 less the driver squares
    lost (at least 1)."""
    health = data.table()["pedestrian_health"]
    if state.revision < FULL_HEALTH_OUT:
        health = max(1, health - vehicle.driver_lost)
    walker = Pedestrian(f"d{vehicle.id[1:]}", vehicle.owner, f"{vehicle.name}'s driver", point, health,
                        data.table()["pistol_rounds"])
    state = state.with_vehicle(replace(vehicle, driver_out=True, speed=0))
    return replace(state, pedestrians=state.pedestrians + (walker,)), walker


def leave(state: BattlecarsState, vehicle: Vehicle) -> tuple[BattlecarsState, tuple]:
    """The driver gets out onto a point beside the vehicle, which stays there, empty."""
    if vehicle.spec.type == "truck":
        raise BadOption("A truck's driver cannot leave the vehicle (seed).")
    if vehicle.speed != 0 or vehicle.moved or vehicle.fired or vehicle.dropped:
        raise WrongPhase(f"{vehicle.name}'s driver can leave only at speed 0, as the whole move.")
    point = beside(state, vehicle)
    if point is None:
        raise BadOption(f"No free point beside {vehicle.name} to step out onto.")
    state, walker = _on_foot(state, vehicle, point)
    return state, (DriverLeft(walker.name, label(point), walker.health),)


def escape(state: BattlecarsState, vehicle_id: str) -> tuple[BattlecarsState, tuple]:
    """A vehicle wrecked by its engine or fuel tank: its driver gets out on a d6 of 3 or more."""
    vehicle = state.vehicle(vehicle_id)
    if vehicle.driver_out or state.pedestrian_of(vehicle.owner) is not None:
        return state, ()
    state, (face,) = roll(state, D6)
    out = face >= ESCAPE_ON
    events: tuple = (DiceRolled(vehicle.name, "tries to get out of the wreck", f"out on {ESCAPE_ON}+", "d6", (face,),
                                face, ESCAPE_ON, out),)
    point = beside(state, vehicle) if out else None
    if point is None:   # trapped in the wreck: the pistol stays there
        state = dies(state, point_of(vehicle), data.table()["pistol_rounds"])
        return state.with_vehicle(replace(state.vehicle(vehicle_id), driver_out=True)), events
    state, walker = _on_foot(state, state.vehicle(vehicle_id), point)
    walker = replace(walker, fresh=True)
    return state.with_pedestrian(walker), events + (DriverLeft(walker.name, label(point), walker.health),)


def walk(state: BattlecarsState, walker: Pedestrian, direction: str) -> tuple[BattlecarsState, tuple]:
    """One point on foot, any of the eight ways, into buildings and trees too; once a turn."""
    wanted = direction.strip().upper()
    if wanted not in FACING_NAMES:
        raise BadOption(f"direction: one of {', '.join(FACING_NAMES)}.")
    if walker.walked:
        raise WrongPhase(f"{walker.name} has walked this turn: a point a turn.")
    point = step(walker.point, FACING_NAMES.index(wanted))
    if not is_free(state, point):
        raise BadOption(f"{walker.name} cannot walk to {label(point)}: it is off the board or taken.")
    state = state.with_pedestrian(replace(walker, point=point, walked=True))
    return state, (PedestrianWalked(walker.name, label(walker.point), label(point)),)


def board(state: BattlecarsState, walker: Pedestrian) -> tuple[BattlecarsState, tuple]:
    """Climb back into the player's own vehicle, if it still runs and stands beside the pedestrian: it
    starts again from speed 0 next turn. The mat's driver squares are as the driver left them (ruling, from
    revision 6: the health on foot is the pedestrian counter's, not the mat's); before, the health left
    set them."""
    vehicle = state.vehicle_of(walker.owner)
    if vehicle is None or vehicle.destroyed:
        raise BadOption(f"{walker.name}'s vehicle is a wreck: there is nothing to board.")
    if distance(point_of(vehicle), walker.point) != 1:
        raise BadOption(f"{walker.name} must stand beside {vehicle.name} ({label(point_of(vehicle))}) to board it.")
    state = state.without_pedestrian(walker.id)
    lost = vehicle.driver_lost if state.revision >= FULL_HEALTH_OUT else \
        vehicle.spec.driver - min(vehicle.spec.driver, walker.health)
    state = state.with_vehicle(replace(vehicle, driver_out=False, speed=0, driver_lost=lost))
    return state, (DriverBoarded(walker.name, vehicle.name),)


def run_over(state: BattlecarsState, vehicle: Vehicle, walker: Pedestrian) -> tuple[BattlecarsState, tuple]:
    """A vehicle runs onto a pedestrian's point: a d8 at most its speed kills them; else they dive to a
    free point beside (none free: they are killed)."""
    state, (face,) = roll(state, D8)
    speed = max(0, vehicle.speed)
    hit = face <= speed
    events: tuple = (DiceRolled(walker.name, "tries to dive clear", f"run over on a roll of {speed} or less", "d8",
                                (face,), face, speed, not hit),)
    free = next((step(walker.point, way) for way in range(8) if is_free(state, step(walker.point, way))), None)
    if hit or free is None:
        state = dies(state.without_pedestrian(walker.id), walker.point, walker.rounds)
        return state, events + (PedestrianKilled(walker.name, f"run over by {vehicle.name}"),)
    state = state.with_pedestrian(replace(walker, point=free))
    return state, events + (PedestrianDived(walker.name, label(free)),)


def dies(state: BattlecarsState, point: Point, rounds: int) -> BattlecarsState:
    """A driver is dead at `point`: their pistol stays there with its rounds, for another to reload from."""
    if rounds <= 0:
        return state
    return replace(state, pistols_left=state.pistols_left + ((point, rounds),))


def wound(state: BattlecarsState, walker_id: str, points: int, by: str) -> tuple[BattlecarsState, tuple]:
    """A pedestrian loses health; at 0 they are dead."""
    walker = next(p for p in state.pedestrians if p.id == walker_id)
    left = walker.health - points
    if left <= 0:
        state = dies(state.without_pedestrian(walker_id), walker.point, walker.rounds)
        return state, (PedestrianKilled(walker.name, by),)
    state = state.with_pedestrian(replace(walker, health=left))
    return state, (PedestrianHurt(walker.name, points, f"{plural(left, 'health point', 'health points')} left"),)


def reload(state: BattlecarsState, walker: Pedestrian) -> tuple[BattlecarsState, tuple]:
    """Found: "Pedestrians reload from a dead pedestrian or driver's weapon on the same point; this takes
    a turn without firing." Ruling: from a pistol on the pedestrian's point or beside it (a wreck holds
    its point); the pistol is filled to its 6 rounds, the rest stays where it lay."""
    if walker.fired:
        raise WrongPhase(f"{walker.name} has fired this turn: reloading takes a turn without firing.")
    capacity = data.table()["pistol_rounds"]
    near = [(k, (point, rounds)) for k, (point, rounds) in enumerate(state.pistols_left)
            if distance(point, walker.point) <= 1]
    if not near:
        raise BadOption(f"No dead driver's pistol lies on or beside {label(walker.point)}.")
    if walker.rounds >= capacity:
        raise BadOption(f"{walker.name}'s pistol is full ({capacity} rounds).")
    index, (point, rounds) = near[0]
    taken = min(rounds, capacity - walker.rounds)
    left = list(state.pistols_left)
    if rounds - taken:
        left[index] = (point, rounds - taken)
    else:
        del left[index]
    state = replace(state.with_pedestrian(replace(walker, rounds=walker.rounds + taken, fired=True)),
                    pistols_left=tuple(left))
    return state, (PistolReloaded(walker.name, taken, label(point)),)


def new_turn(state: BattlecarsState) -> BattlecarsState:
    """A new turn: every pedestrian may walk and fire again."""
    return replace(state, pedestrians=tuple(replace(p, walked=False, fired=False, fresh=False)
                                            for p in state.pedestrians))
