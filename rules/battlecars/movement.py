"""Driving a point at a time: turning at a point against the mat's cornering speeds, skid tests and
skid results, reverse and the three-point turn, crashes into buildings, trees and the board's edge,
and rams.

Seed: "Move the full amount shown on the speed dial. A vehicle comes to a dead stop after a crash or
ram." "Cornering: If travelling above the speed threshold shown on the play mat, roll for skid when
making turns." "Tanks have no skidding, no cornering modifiers". The skid test and result are the
reconstruction of rules-gaps.md 2.3.6.
"""

from __future__ import annotations

from dataclasses import replace

from rules.battlecars import data, scenery
from rules.battlecars.damage import hit_armour
from rules.battlecars.events import (
    Crashed,
    DiceRolled,
    DriftCarried,
    Drifted,
    FacingAfterSkid,
    Skidded,
    TurnedOnTheSpot,
    VehicleMoved,
)
from rules.battlecars.grid import FACING_NAMES, TURN_STEPS, Point, corners_passed, label, step, turn_between
from rules.battlecars.passive import run_onto
from rules.battlecars.pedestrians import run_over
from rules.battlecars.rams import ram
from rules.battlecars.rolls import D3, D6, D8, damage_die, roll
from rules.battlecars.state import REVERSE, BattlecarsState, Vehicle, point_of
from rules.errors import BadOption, WrongPhase

BLOCKING = ("building", "trees", "edge")
SKID_AGAIN = ("oil", "smoke", "spikes")   # drifting onto these starts a new skid result (found)
OIL_ON_LAST_POINT = 5     # the rules revision from which oil entered on the move's last point rolls too
CARRIED_DRIFT_SKIDS = 5   # the rules revision from which drift carried into a move skids again on oil


def cornering_limit(vehicle: Vehicle, terrain: str, angle: int) -> int | None:
    """The fastest speed a turn of `angle` degrees may be made at without a skid test, on `terrain`
    (trees count as grass); None for a tank (no cornering limits) or no turn."""
    spec = vehicle.spec
    if angle == 0 or spec.type == "tank":
        return None
    table = spec.auto_steer if vehicle.has("auto_steer") and spec.auto_steer else spec.cornering
    return table["road" if terrain == "road" else "grass"][data.TURNS.index(angle)]


def blocked_for(state: BattlecarsState, vehicle: Vehicle, origin: Point, facing: int) -> str | None:
    """What stops `vehicle` stepping from `origin` along `facing` other than a vehicle: the board's edge,
    a building, trees (a bike may ride through undamaged trees, found), or the corners of two such
    points a diagonal squeezes between; None when the step is open."""
    board = state.the_board
    bike = vehicle.spec.type == "bike"

    def open_to(point: Point) -> bool:
        return board.terrain(point) in ("road", "grass") or (bike and scenery.bike_may_enter(state, point))

    target = step(origin, facing)
    ground = board.terrain(target)
    if not open_to(target):
        if ground == "edge":
            return "the board's edge"
        if ground == "building":
            return f"a building at {label(target)}"
        return f"{'damaged trees' if bike else 'trees'} at {label(target)}"
    corners = corners_passed(origin, facing)
    if corners and not any(open_to(c) for c in corners):
        return f"the corners at {label(corners[0])} and {label(corners[1])}"
    return None


def open_turns(state: BattlecarsState, vehicle: Vehicle) -> tuple[str, ...]:
    """The turns whose step is open (a vehicle there is a ram, and open); every turn when none is (the
    vehicle is boxed in and must crash). On oil, straight on only."""
    if vehicle.oiled or vehicle.speed < 0:
        return ("ahead",)
    here = point_of(vehicle)
    names = tuple(t for t, eighths in TURN_STEPS.items()
                  if blocked_for(state, vehicle, here, (vehicle.facing + eighths) % 8) is None)
    return names or tuple(TURN_STEPS)


def left_to_move(vehicle: Vehicle) -> int:
    """Points still to drive this turn: the whole speed must be driven (seed); R is one point back."""
    if vehicle.speed == REVERSE:
        return 1 - vehicle.moved
    return max(0, vehicle.speed - vehicle.moved)


def mid_move(vehicle: Vehicle) -> bool:
    """Whether the vehicle's move has started and is not yet complete (seed: "all movement must be
    completed once started")."""
    return vehicle.moved > 0 and left_to_move(vehicle) > 0


def drive(state: BattlecarsState, vehicle_id: str, turn: str) -> tuple[BattlecarsState, tuple]:
    """One point of movement: the turn at the point (with its skid test), then the step, a crash or a
    ram. A step into a building, trees or off the board is refused while another step is open."""
    vehicle = state.vehicle(vehicle_id)
    if turn not in TURN_STEPS:
        raise BadOption(f"turn: one of {', '.join(TURN_STEPS)}.")
    if left_to_move(vehicle) <= 0:
        raise WrongPhase(f"{vehicle.name} has driven its whole speed this turn: /fire, or /end the move.")
    if vehicle.speed == REVERSE:
        if turn != "ahead":
            raise BadOption("In reverse a vehicle backs straight up one point: /move turn:ahead.")
        return _step(state, vehicle, (vehicle.facing + 4) % 8, 0, reverse=True)
    if vehicle.oiled and turn != "ahead":
        raise BadOption(f"{vehicle.name} is on oil: it goes straight on for the rest of this turn.")
    facing = (vehicle.facing + TURN_STEPS[turn]) % 8
    angle = turn_between(vehicle.facing, facing)
    why = blocked_for(state, vehicle, point_of(vehicle), facing)
    if why and turn not in open_turns(state, vehicle):
        raise BadOption(f"{vehicle.name} cannot drive into {why}; another way is open.")
    limit = cornering_limit(vehicle, state.the_board.terrain(point_of(vehicle)), angle)
    if limit is not None and vehicle.speed > limit:
        state, events, skidded = _skid_test(state, vehicle, limit)
        if skidded:
            state, more = _skid(state, vehicle_id, facing, vehicle.speed - limit)
            return state, events + more
        state, more = _step(state, state.vehicle(vehicle_id), facing, angle)
        return state, events + more
    return _step(state, vehicle, facing, angle)


def _skid_test(state: BattlecarsState, vehicle: Vehicle, limit: int) -> tuple[BattlecarsState, tuple, bool]:
    """Roll a d6: a skid when it is at most 2 x (speed - cornering speed)."""
    over = vehicle.speed - limit
    state, (face,) = roll(state, D6)
    skids = face <= 2 * over
    odds = f"skids on a roll of {2 * over} or less" if over > 0 else "cannot skid"
    event = DiceRolled(vehicle.name, "tests for a skid", f"{odds} (speed {vehicle.speed}, cornering {limit})", "d6",
                       (face,), face, 2 * over, skids)
    return state, (event,), skids


def _skid(state: BattlecarsState, vehicle_id: str, wanted: int, over: int,
          left: int = 0) -> tuple[BattlecarsState, tuple]:
    """The vehicle does not turn: it drifts straight on (speed - cornering) + d3 points, which use up the
    move (the rest carries into next turn); then a d6 sets its facing: 1-3 the new way, 4-5 the old,
    6 a spin (d8). Drifting into oil, smoke or spikes skids again, the drift left added to the new
    one (found); `left` is drift left from a skid before (a carried drift's, from revision 5)."""
    vehicle = state.vehicle(vehicle_id)
    state, drift, events = _drift_roll(state, vehicle, over, left)
    old = vehicle.facing
    while drift > 0:
        vehicle = state.vehicle(vehicle_id)
        if left_to_move(vehicle) <= 0 or vehicle.speed == 0:
            break
        state, more = _step(state, vehicle, old, 0, drifting=True)
        events += more
        drift -= 1
        moved = state.vehicle(vehicle_id)
        counter = state.counter_at(point_of(moved)) if moved.speed > 0 and not moved.destroyed else None
        if counter is not None and counter.kind in SKID_AGAIN:
            state, drift, more = _drift_roll(state, moved, over, drift)
            events += more
    vehicle = state.vehicle(vehicle_id)
    if vehicle.speed == 0 or vehicle.destroyed:   # crashed: the skid is over
        return state, events
    if drift > 0:
        state = state.with_vehicle(replace(vehicle, drift=drift))
        events += (DriftCarried(vehicle.name, drift),)
    state, (face,) = roll(state, D6)
    events += (DiceRolled(vehicle.name, "rolls where the skid leaves it facing", "1-3 new, 4-5 old, 6 spin", "d6",
                          (face,), face),)
    if face <= 3:
        facing, why = wanted, "the new direction"
    elif face <= 5:
        facing, why = old, "the old direction"
    else:
        state, (spin,) = roll(state, D8)
        events += (DiceRolled(vehicle.name, "spins", "d8: 1 north, then clockwise", "d8", (spin,), spin),)
        facing, why = spin - 1, "a spin"
    state = state.with_vehicle(replace(state.vehicle(vehicle_id), facing=facing))
    return state, events + (FacingAfterSkid(vehicle.name, FACING_NAMES[facing], why),)


def _drift_roll(state: BattlecarsState, vehicle: Vehicle, over: int, left: int) -> tuple[BattlecarsState, int, tuple]:
    """A skid result's drift: (speed - cornering) + d3, plus any drift `left` from the skid before."""
    state, (extra,) = roll(state, D3)
    drift = over + extra + left
    rule = "speed over cornering + d3" + (f" + {left} drift left" if left else "")
    return state, drift, (DiceRolled(vehicle.name, "rolls the drift", rule, "d3", (extra,), drift,
                                     modifier=over + left), Skidded(vehicle.name, drift))


def _step(state: BattlecarsState, vehicle: Vehicle, facing: int, angle: int, reverse: bool = False,
          drifting: bool = False) -> tuple[BattlecarsState, tuple]:
    """Move one point along `facing` (the vehicle faces it, or backs along it in reverse): a crash into
    what blocks, a ram into a vehicle there."""
    origin = point_of(vehicle)
    target = step(origin, facing)
    heading = vehicle.facing if reverse or drifting else facing
    why = blocked_for(state, vehicle, origin, facing)
    if why:
        return crash(state, vehicle.id, why)
    other = state.vehicle_at(target)
    if other is not None:
        turned = replace(vehicle, facing=heading, moved=vehicle.moved + 1)
        return ram(state.with_vehicle(turned), vehicle.id, other.id)
    events: tuple = (Drifted(vehicle.name, label(origin), label(target)),) if drifting else \
        (VehicleMoved(vehicle.name, label(origin), label(target), FACING_NAMES[heading], angle, reverse),)
    walker = state.pedestrian_at(target)
    if walker is not None:
        state, more = run_over(state, vehicle, walker)
        events += more
    moved = replace(state.vehicle(vehicle.id), point=target, facing=heading, moved=vehicle.moved + 1)
    state = state.with_vehicle(moved)
    state, more, oiled = run_onto(state, vehicle.id)
    events += more
    if oiled and not drifting:
        state, more = _oil_skid(state, vehicle.id)
        events += more
    return state, events


def _oil_skid(state: BattlecarsState, vehicle_id: str) -> tuple[BattlecarsState, tuple]:
    """Oil "forces straight-line movement and skid roll" (seed): the skid test is taken against the
    mat's gentlest (45 degree) cornering speed on that ground; a tank never skids (ruling). From
    revision 3 every vehicle entering oil rolls, and the test's table decides (at or under that
    cornering speed no roll skids); before, only one over it rolled. From revision 5 oil entered on the
    move's last point rolls too, a skid's drift carrying into the next move; before, it rolled nothing."""
    vehicle = state.vehicle(vehicle_id)
    limit = cornering_limit(vehicle, state.the_board.terrain(point_of(vehicle)), 45)
    slow = limit is not None and vehicle.speed <= limit and state.revision < 3
    spent = left_to_move(vehicle) <= 0 and state.revision < OIL_ON_LAST_POINT
    if limit is None or slow or spent:
        return state, ()
    state, events, skidded = _skid_test(state, vehicle, limit)
    if not skidded:
        return state, events
    state, more = _skid(state, vehicle_id, vehicle.facing, vehicle.speed - limit)
    return state, events + more


def carry_drift(state: BattlecarsState, vehicle_id: str) -> tuple[BattlecarsState, tuple]:
    """Drift a skid carried over: driven straight on first thing in the vehicle's next move, each point
    using a point of its new speed; what the new speed cannot use is lost (ruling). From revision 5,
    drifting onto oil, smoke or spikes starts a new skid result (found), as it does in the skid's own
    move: its speed over its 45 degree cornering speed there (ruling) + d3, plus the drift left."""
    vehicle = state.vehicle(vehicle_id)
    events: tuple = ()
    carried = min(vehicle.drift, left_to_move(vehicle) if vehicle.speed > 0 else 0)
    for done in range(carried):
        vehicle = state.vehicle(vehicle_id)
        if vehicle.speed <= 0 or vehicle.destroyed:
            break
        state, more = _step(state, vehicle, vehicle.facing, 0, drifting=True)
        events += more
        moved = state.vehicle(vehicle_id)
        counter = state.counter_at(point_of(moved)) if moved.speed > 0 and not moved.destroyed else None
        if state.revision >= CARRIED_DRIFT_SKIDS and counter is not None and counter.kind in SKID_AGAIN:
            limit = cornering_limit(moved, state.the_board.terrain(point_of(moved)), 45)
            if limit is None:   # a tank never skids
                break
            state = state.with_vehicle(replace(moved, drift=0))
            state, more = _skid(state, vehicle_id, moved.facing, max(0, moved.speed - limit), carried - done - 1)
            return state, events + more
    return state.with_vehicle(replace(state.vehicle(vehicle_id), drift=0)), events


def crash(state: BattlecarsState, vehicle_id: str, into: str) -> tuple[BattlecarsState, tuple]:
    """A crash into a fixed object: 3 dice + speed to the vehicle's front, and a dead stop (seed: "A
    vehicle comes to a dead stop after a crash"; the damage is the reconstruction's). The dice are d8s from
    revision 6 (seed: "All damage uses the D8"), d6s before."""
    vehicle = state.vehicle(vehicle_id)
    speed = max(0, vehicle.speed)
    die = damage_die(state, D6)
    state, faces = roll(state, die, 3)
    total = sum(faces) + speed
    events: tuple = (Crashed(vehicle.name, into, label(point_of(vehicle))),
                     DiceRolled(vehicle.name, "rolls the crash's damage", f"3d{len(die)} + own speed", f"d{len(die)}",
                                faces, total, modifier=speed))
    state = state.with_vehicle(replace(state.vehicle(vehicle_id), speed=0, drift=0))
    state, more = hit_armour(state, vehicle_id, "front", total)
    return state, events + more


def three_point_turn(state: BattlecarsState, vehicle_id: str, facing: int) -> tuple[BattlecarsState, tuple]:
    """With the counter on 3 POINT TURN the vehicle turns to any facing on its point; that is its move
    (found: "needs the speed counter on the 3-point-turn space")."""
    vehicle = state.vehicle(vehicle_id)
    if vehicle.moved:
        raise WrongPhase(f"{vehicle.name} has made its three-point turn this turn.")
    turned = replace(vehicle, facing=facing, moved=1)
    return state.with_vehicle(turned), (TurnedOnTheSpot(vehicle.name, label(point_of(vehicle)), FACING_NAMES[facing]),)
