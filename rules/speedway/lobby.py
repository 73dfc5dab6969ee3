"""Seats, computer drivers, the start and the end of a Speedway table."""

from __future__ import annotations

from dataclasses import replace

from rules.dice import shuffle
from rules.errors import BadOption, NotHost, TableFull, WrongPhase
from rules.speedway import data
from rules.speedway.actions import AddComputer, Join, Start
from rules.speedway.cars import new_car
from rules.speedway.events import GameStarted, PlayerJoined
from rules.speedway.phases import SpeedwayPhase
from rules.speedway.state import Player, SpeedwayState
from rules.speedway.turns import begin_turn
from rules.table import computer_seat, looks_like_an_id, name_key, unique_name

MAX_NAME_LENGTH = 32


def _design(car: str):
    design_id = (car or data.default_design()).strip().casefold()
    designs = data.car_designs()
    if design_id not in designs:
        raise BadOption(f"No car design called '{design_id}'. Designs: {', '.join(designs)}.")
    return designs[design_id]


def _check_open_seat(state: SpeedwayState) -> None:
    limit = data.max_cars(state.arena)
    if len(state.cars) >= limit:
        raise TableFull(f"The table is full ({limit} cars on {data.arena(state.arena).name}).")


def _taken_names(state: SpeedwayState) -> set[str]:
    """Every name at the table, players' and cars' (as name keys)."""
    return {name_key(p.name) for p in state.players} | {name_key(c.name) for c in state.cars}


def _car_name(state: SpeedwayState, owner: Player) -> str:
    """The owner's name for a first car, `alice-2` for a second. From revision 2 a car's name is
    unique at the table and reads like no id: `alice-2` skips on to `alice-3` when it is taken."""
    own = len(state.cars_of(owner.id))
    if state.revision < 2:
        return owner.name if own == 0 else f"{owner.name}-{own + 1}"
    if own == 0 and name_key(owner.name) not in {name_key(c.name) for c in state.cars}:
        return owner.name  # unique among the players (see `join`), and no car's
    taken = _taken_names(state)
    number = max(own + 1, 2)
    while name_key(f"{owner.name}-{number}") in taken or looks_like_an_id(f"{owner.name}-{number}"):
        number += 1
    return f"{owner.name}-{number}"


def _add_car(state: SpeedwayState, owner: Player, design) -> SpeedwayState:
    name = _car_name(state, owner)
    seat = len(state.cars)
    car = new_car(design, f"c{seat + 1}", owner.id, name, colour=seat)
    return replace(state, cars=state.cars + (car,))


def join(state: SpeedwayState, actor: str, action: Join) -> tuple[SpeedwayState, tuple]:
    """Take a seat with a car; a seated player joining again brings one more car."""
    _check_open_seat(state)
    design = _design(action.car)
    seat = state.player(actor)
    if seat is not None and seat.ai and state.revision >= 2:
        raise BadOption(f"{seat.name} is a computer driver's seat; you cannot join as it.")
    if seat is None:
        name = action.name.strip()[:MAX_NAME_LENGTH] or actor[:MAX_NAME_LENGTH]
        if state.revision >= 2:
            name = unique_name(name, _taken_names(state), MAX_NAME_LENGTH)
        elif any(p.name.lower() == name.lower() for p in state.players):
            name = f"{name}#{len(state.players) + 1}"
        seat = Player(actor, name)
        state = replace(state, players=state.players + (seat,))
    state = _add_car(state, seat, design)
    return state, (PlayerJoined(state.cars[-1].name, design.name),)


def add_computer(state: SpeedwayState, actor: str, action: AddComputer) -> tuple[SpeedwayState, tuple]:
    """The host seats a computer driver; it plays its turns through the same rules."""
    if actor != state.host:
        raise NotHost("Only the host can add a computer driver.")
    _check_open_seat(state)
    design = _design(action.car)
    if state.revision >= 2:  # an id no seat has, a name no seat or car has
        seat = Player(*computer_seat({p.id for p in state.players}, _taken_names(state)), ai=True)
    else:
        number = sum(1 for p in state.players if p.ai) + 1
        seat = Player(f"ai-{number}", f"Robo{number}", ai=True)
    state = _add_car(replace(state, players=state.players + (seat,)), seat, design)
    return state, (PlayerJoined(state.cars[-1].name + " (computer)", design.name),)


def start(state: SpeedwayState, actor: str, action: Start) -> tuple[SpeedwayState, tuple]:
    """Place the cars on the start slots and roll the turn order (host only)."""
    if actor != state.host:
        raise NotHost("Only the host can start the game.")
    limits = data.table_limits()
    if not limits["min_players"] <= len(state.players) <= limits["max_players"]:
        raise WrongPhase(f"Speedway needs {limits['min_players']} to {limits['max_players']} players; "
                         f"{len(state.players)} seated.")
    arena = data.arena(state.arena)
    placed = tuple(replace(car, front=arena.starts[i].front, facing=arena.starts[i].facing)
                   for i, car in enumerate(state.cars))
    dice, order = shuffle(state.dice, tuple(p.id for p in state.players))
    state = replace(state, cars=placed, dice=dice, order=order, round=0, turn_index=0,
                    phase=SpeedwayPhase.UPKEEP)
    names = tuple(state.seat(p).name for p in order)
    state, events = begin_turn(state)
    return state, (GameStarted(names),) + events
