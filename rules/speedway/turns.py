"""Turn sequencing: whose turn, Upkeep for each car, then Movement for each car (seed: Player Turns)."""

from __future__ import annotations

from dataclasses import replace

from rules.speedway.events import InertiaShed, TurnBegan
from rules.speedway.state import SpeedwayState


def begin_turn(state: SpeedwayState) -> tuple[SpeedwayState, tuple]:
    """Start the active player's turn: Upkeep step 1 for each of their cars, then ask for speeds."""
    player = state.active_player
    events: list = [TurnBegan(state.player(player).name, state.round)]
    for car in state.cars_of(player):
        if car.speed == 0:
            removed, reason = car.inertia, "starting at speed 0 clears all inertia"
        else:
            removed = min(car.inertia, car.systems.rating("suspension"))
            reason = f"Suspension {car.systems.rating('suspension')}"
        if removed:
            state = state.with_car(replace(car, inertia=car.inertia - removed))
            events.append(InertiaShed(car.name, removed, car.inertia - removed, reason))
    first = state.cars_of(player)[0]
    state = replace(state, phase="upkeep", active_car=first.id, moves_left=0, moves_total=0,
                    pending_skid=None)
    return state, tuple(events)


def _next_car(state: SpeedwayState) -> str | None:
    cars = [c.id for c in state.cars_of(state.active_player)]
    index = cars.index(state.active_car) + 1
    return cars[index] if index < len(cars) else None


def after_speed_set(state: SpeedwayState) -> tuple[SpeedwayState, tuple]:
    """Move on to the next car's Upkeep, or to the Movement phase once every car has a speed."""
    following = _next_car(state)
    if following:
        return replace(state, active_car=following), ()
    first = state.cars_of(state.active_player)[0]
    return start_movement(state, first.id)


def start_movement(state: SpeedwayState, car_id: str) -> tuple[SpeedwayState, tuple]:
    """Give `car_id` as many Moves as its speed; a car at speed 0 is done at once."""
    speed = state.car(car_id).speed
    state = replace(state, phase="movement", active_car=car_id, moves_left=speed, moves_total=speed)
    if speed == 0:
        return finish_car(state)
    return state, ()


def finish_move(state: SpeedwayState) -> tuple[SpeedwayState, tuple]:
    """After a Move resolves: continue, or hand over when no Moves remain."""
    state = replace(state, phase="movement", pending_skid=None)
    if state.moves_left > 0:
        return state, ()
    return finish_car(state)


def finish_car(state: SpeedwayState) -> tuple[SpeedwayState, tuple]:
    """The active car's movement is over: the next car of the player moves, or the turn passes."""
    following = _next_car(state)
    if following:
        return start_movement(state, following)
    return end_turn(state)


def end_turn(state: SpeedwayState) -> tuple[SpeedwayState, tuple]:
    """Pass the turn to the next player in this round's order, starting a new round after the last."""
    index = state.turn_index + 1
    if index >= len(state.order):
        state = replace(state, round=state.round + 1, turn_index=0)
    else:
        state = replace(state, turn_index=index)
    return begin_turn(state)
