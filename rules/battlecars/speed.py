"""The speedo and the secret speed counters: the dial's positions, how far a turn's acceleration or
deceleration may move the counter (by vehicle, terrain and equipment), and the reveal."""

from __future__ import annotations

from dataclasses import replace

from rules.battlecars.damage import is_running
from rules.battlecars.events import SpeedChosen, SpeedsRevealed
from rules.battlecars.state import REVERSE, THREE_POINT, BattlecarsState, Phase, Vehicle, point_of, speed_label
from rules.errors import BadOption, NotYourTurn, WrongPhase


def dial(vehicle: Vehicle, revision: int) -> tuple[int, ...]:
    """The speedo's positions still open in a game of rules `revision`, top down: top speed .. 0, then R
    (not on a bike: its mat has none, found) and 3 POINT TURN, both crossed off by heavy engine or tyre
    damage (ruling)."""
    return tuple(range(vehicle.top_speed(revision), -1, -1)) + ((REVERSE,) if vehicle.has_reverse else ()) + \
        ((THREE_POINT,) if vehicle.has_three_point else ())


def _position(vehicle: Vehicle, speed: int) -> int:
    """A counter position's place on the full dial (the distance between two places is what moving the
    counter costs): speeds count up from 0, then R and 3PT below it; a bike's 3PT sits right below 0."""
    if speed >= 0:
        return speed
    if vehicle.spec.type == "bike":
        return -1
    return speed


def limits(vehicle: Vehicle, terrain: str) -> tuple[int, int]:
    """(accel, decel) this turn: the mat's road or grass values (trees count as grass), +1 accel for a
    working Supercharger and +1 decel for working Power Brakes."""
    spec = vehicle.spec
    accel, decel = spec.road if terrain == "road" else spec.grass
    return accel + vehicle.has("supercharger"), decel + vehicle.has("power_brakes")


def choices(state: BattlecarsState, vehicle: Vehicle) -> tuple[int, ...]:
    """Every counter position the vehicle may choose this turn, fastest first."""
    accel, decel = limits(vehicle, state.the_board.terrain(point_of(vehicle)))
    now = _position(vehicle, vehicle.speed)
    return tuple(p for p in dial(vehicle, state.revision) if -decel <= _position(vehicle, p) - now <= accel)


def parse_speed(text: str) -> int:
    """'7', 'R' or '3PT' as a counter position; BadOption otherwise."""
    wanted = str(text).strip().upper().replace(" ", "")
    if wanted in ("R", "REVERSE"):
        return REVERSE
    if wanted in ("3PT", "3POINT", "THREE-POINT", "THREEPOINT"):
        return THREE_POINT
    if wanted.isdigit():
        return int(wanted)
    raise BadOption("speed: a number from 0 to your top speed, R (reverse) or 3PT (three-point turn).")


def waiting(state: BattlecarsState) -> tuple[str, ...]:
    """The drivers still to set a counter (those aboard a running vehicle), in moving order."""
    done = {p for p, _ in state.declared}
    return tuple(p for p in state.order if p not in done and (v := state.vehicle_of(p)) and is_running(v))


def own_counter(state: BattlecarsState, player: str) -> str:
    """What a driver alone reads of their own counter in the speed step (a refusal to them, their private
    menu): its speed, face down until all are set; "" when they have none down."""
    mine = dict(state.declared).get(player) if state.phase == Phase.SPEED else None
    return "" if mine is None else f"Your speed counter is down for this turn: {speed_label(mine)}, face down " \
                                   f"until all are set."


def declare(state: BattlecarsState, actor: str, speed: int) -> tuple[BattlecarsState, tuple]:
    """Place `actor`'s counter face down; the last one placed reveals them all."""
    if state.phase != Phase.SPEED:
        raise WrongPhase("Speeds are set at the start of a turn, before anyone moves.")
    if actor not in waiting(state):
        raise NotYourTurn((own_counter(state, actor) or "Your speed counter is already down for this turn.")
                          if state.vehicle_of(actor) else "You have no vehicle in this game.")
    vehicle = state.vehicle_for(actor)
    allowed = choices(state, vehicle)
    if speed not in allowed:
        shown = ", ".join(speed_label(p) for p in allowed)
        raise BadOption(f"{speed_label(speed)} is out of reach: from {speed_label(vehicle.speed)} "
                        f"{vehicle.name} can set {shown}.")
    state = replace(state, declared=state.declared + ((actor, speed),))
    events: tuple = (SpeedChosen(state.seat(actor).name),)
    if not waiting(state):
        state, more = reveal(state)
        events += more
    return state, events


def reveal(state: BattlecarsState) -> tuple[BattlecarsState, tuple]:
    """Turn every counter over together; the turn's marks are wiped and the first driver moves."""
    chosen = dict(state.declared)
    vehicles = tuple(replace(v, speed=chosen[v.owner], fired=(), return_fired=(), targets=(), dropped=(), moved=0,
                             oiled=False) if v.owner in chosen else v for v in state.vehicles)
    words = tuple(f"{state.seat(p).name} {speed_label(chosen[p])}" for p in state.order if p in chosen)
    state = replace(state, vehicles=vehicles, declared=(), phase=Phase.MOVE, active=None)
    return state, (SpeedsRevealed(words),)
