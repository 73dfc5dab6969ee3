"""Passive weapons: dropping oil, mines, spikes and smoke, what each does to a vehicle that runs onto
it, and the smoke roll at the end of a turn.

Seed: "Any number of passive weapons may be dropped in a single turn. Two passive weapon tokens cannot
occupy the same square. Types include Oil (permanent; forces straight-line movement and skid roll),
Mine (removed after hit; 2D damage to front internal), Spikes (permanent; 1D damage to each wheel), and
Smoke (permanent; blocks line of sight and firing)." Found: one round from each pod loaded with them
a turn; passive rounds never leave a front pod; "Roll for Smoke Markers" at the end of the turn; bikes
"try to avoid mines and spikes" (d8 at most the speed: they work as normal).
"""

from __future__ import annotations

from dataclasses import replace

from rules.battlecars import data
from rules.battlecars.damage import internal_hit
from rules.battlecars.events import CounterDropped, CounterTriggered, DiceRolled, SmokeDrifted
from rules.battlecars.grid import DIRECTIONS, Point, label, step
from rules.battlecars.rolls import D6, D8, roll
from rules.battlecars.state import BattlecarsState, Counter, Pod, Vehicle, point_of
from rules.errors import BadOption, GameError


class IllegalDrop(GameError):
    """That pod cannot drop a round now."""


def drop_point(vehicle: Vehicle, facing: str) -> Point:
    """Where a pod drops its round: the point behind (a rear pod) or beside (a side pod)."""
    return step(point_of(vehicle), vehicle.facing + data.POD_TURN[facing])


def check_drop(state: BattlecarsState, vehicle: Vehicle, pod_id: str) -> tuple[Pod, Point]:
    """The pod and the point a drop would use, or IllegalDrop saying why not."""
    pod = vehicle.weapon(pod_id)
    if pod is None or pod.id == "turret":
        names = ", ".join(p.id for p in vehicle.pods if data.rounds()[p.load].kind == "passive") or "none"
        raise BadOption(f"{vehicle.name} has no passive pod '{pod_id}'. Its passive pods: {names}.")
    spec = data.rounds()[pod.load]
    if spec.kind != "passive":
        raise IllegalDrop(f"{pod.label} holds {spec.name}, a missile: use /fire.")
    if pod.destroyed:
        raise IllegalDrop(f"{pod.label} is destroyed.")
    if pod.rounds <= 0:
        raise IllegalDrop(f"{pod.label} is empty.")
    if pod.id in vehicle.dropped:
        raise IllegalDrop(f"{pod.label} has dropped its round this turn: one round a pod.")
    point = drop_point(vehicle, pod.facing)
    ground = state.the_board.terrain(point)
    if ground not in ("road", "grass"):
        raise IllegalDrop(f"{pod.label} would drop onto {'the edge of the board' if ground == 'edge' else ground}"
                          f"{'' if ground == 'edge' else ' at ' + label(point)}.")
    held = state.counter_at(point)
    if held is not None:
        raise IllegalDrop(f"{label(point)} already holds {held.kind}: two passive weapon tokens cannot share a "
                          "point.")
    there = state.vehicle_at(point)
    if there is not None:
        raise IllegalDrop(f"{there.name} is on {label(point)}.")
    return pod, point


def drop(state: BattlecarsState, vehicle_id: str, pod_id: str) -> tuple[BattlecarsState, tuple]:
    """Drop one round from a passive pod: a counter on the point behind or beside."""
    vehicle = state.vehicle(vehicle_id)
    pod, point = check_drop(state, vehicle, pod_id)
    spent = replace(pod, rounds=pod.rounds - 1)
    vehicle = replace(vehicle, pods=tuple(spent if p.id == pod.id else p for p in vehicle.pods),
                      dropped=vehicle.dropped + (pod.id,))
    counter = Counter(state.next_counter, pod.load, point, vehicle.id)
    state = replace(state.with_vehicle(vehicle), counters=state.counters + (counter,),
                    next_counter=state.next_counter + 1)
    return state, (CounterDropped(vehicle.name, data.rounds()[pod.load].name.lower(), label(point)),)


def _dodged(state: BattlecarsState, vehicle: Vehicle, kind: str) -> tuple[BattlecarsState, bool, tuple]:
    """A bike tries to avoid a mine or spikes: a d8 at most its speed and they work (found)."""
    if vehicle.spec.type != "bike" or kind not in ("mine", "spikes"):
        return state, False, ()
    state, (face,) = roll(state, D8)
    works = face <= max(0, vehicle.speed)
    event = DiceRolled(vehicle.name, f"tries to avoid the {kind}", f"they work on a roll of {vehicle.speed} or less",
                       "d8", (face,), face, vehicle.speed, not works)
    return state, not works, (event,)


def run_onto(state: BattlecarsState, vehicle_id: str) -> tuple[BattlecarsState, tuple, bool]:
    """What the counter on the vehicle's new point does; the flag says it must now test for a skid (oil)."""
    vehicle = state.vehicle(vehicle_id)
    counter = state.counter_at(point_of(vehicle))
    if counter is None or counter.kind == "smoke":
        return state, (), False
    state, dodged, events = _dodged(state, vehicle, counter.kind)
    at = label(counter.point)
    if dodged:
        return state, events + (CounterTriggered(vehicle.name, counter.kind, at, "avoided"),), False
    if counter.kind == "oil":
        state = state.with_vehicle(replace(vehicle, oiled=True))
        return state, events + (CounterTriggered(vehicle.name, "oil", at, "straight on for the rest of the turn, "
                                                 "and a skid test"),), True
    if counter.kind == "spikes":
        if vehicle.spec.tyres == 0 or vehicle.tyres_lost >= vehicle.spec.tyres:
            return state, events + (CounterTriggered(vehicle.name, "spikes", at, "no tyres to puncture"),), False
        lost = vehicle.tyres_lost + data.rounds()["spikes"].tyre_squares
        worn = replace(vehicle, tyres_lost=min(vehicle.spec.tyres, lost))
        worn = replace(worn, speed=min(worn.speed, worn.top_speed(state.revision)))
        left = worn.spec.tyres - worn.tyres_lost
        return state.with_vehicle(worn), events + (CounterTriggered(vehicle.name, "spikes", at,
                                                                    f"a tyre square lost, {left} left"),), False
    # A mine: two internal hits on the front, past the armour; the mine is gone.
    state = replace(state, counters=tuple(c for c in state.counters if c.id != counter.id))
    events += (CounterTriggered(vehicle.name, "mine", at, "it explodes under the front"),)
    for _ in range(data.rounds()["mine"].internal_hits):
        if state.vehicle(vehicle_id).destroyed:
            break
        state, more = internal_hit(state, vehicle_id)
        events += more
    return state, events, False


SMOKE = "Smoke"        # who rolls a smoke marker's end-of-turn d6
SMOKE_DRIFTS_ON = 1    # the face that makes it drift


def smoke_stayed(event: object) -> bool:
    """Whether `event` is a smoke marker's end-of-turn roll that left it where it was (no news)."""
    return isinstance(event, DiceRolled) and event.who == SMOKE and event.purpose.endswith("rolls") and \
        event.total != SMOKE_DRIFTS_ON


def smoke_roll(state: BattlecarsState) -> tuple[BattlecarsState, tuple]:
    """At the end of a turn each smoke marker rolls a d6: on a 1 it drifts a point in a d8 direction
    (1 north, then clockwise), if that point is on the board and free of counters (reconstruction)."""
    events: tuple = ()
    for counter in [c for c in state.counters if c.kind == "smoke"]:
        state, (face,) = roll(state, D6)
        events += (DiceRolled(SMOKE, f"at {label(counter.point)} rolls", "1 drifts, 2-6 stays", "d6", (face,),
                              face),)
        if face != SMOKE_DRIFTS_ON:
            continue
        state, (way,) = roll(state, D8)
        to = (counter.point[0] + DIRECTIONS[way - 1][0], counter.point[1] + DIRECTIONS[way - 1][1])
        events += (DiceRolled(SMOKE, "drifts", "d8: 1 north, then clockwise", "d8", (way,), way),)
        if state.the_board.inside(to) and state.counter_at(to) is None:
            moved = replace(counter, point=to)
            state = replace(state, counters=tuple(moved if c.id == counter.id else c for c in state.counters))
            events += (SmokeDrifted(label(counter.point), label(to)),)
    return state, events


def smoke_between(state: BattlecarsState, points) -> str | None:
    """Smoke on any of `points` blocks a line of fire (seed)."""
    smoky = {c.point for c in state.counters if c.kind == "smoke"}
    hit = next((p for p in points if p in smoky), None)
    return None if hit is None else f"the smoke at {label(hit)}"
