"""Seats and the start: choosing a vehicle, computer drivers, placing the vehicles on the centre points
of the board's sides (found) and the die roll for the first mover (found)."""

from __future__ import annotations

from dataclasses import replace

from rules.battlecars import data
from rules.battlecars.actions import AddComputer, Join, Start
from rules.battlecars.events import DiceRolled, FirstMover, Joined
from rules.battlecars.state import BattlecarsState, Phase, Player, Pod, Vehicle
from rules.dice import roll_faces
from rules.errors import BadOption, NotHost, TableFull, WrongPhase
from rules.table import computer_seat, name_key, unique_name

MAX_NAME_LENGTH = 32
MAX_ROLL_OFFS = 20


def design_of(text: str) -> data.VehicleSpec:
    """A vehicle mat by id or name, any letter case ('war_rig', 'War Rig'); empty: the first mat."""
    mats = data.vehicles()
    wanted = text.strip().casefold().replace(" ", "_")
    if not wanted:
        return next(iter(mats.values()))
    for spec in mats.values():
        if wanted in (spec.id, spec.name.casefold().replace(" ", "_")):
            return spec
    raise BadOption(f"No vehicle called '{text.strip()}'. Vehicles: {', '.join(s.name for s in mats.values())}.")


def new_vehicle(spec: data.VehicleSpec, ident: str, owner: str, name: str, colour: int) -> Vehicle:
    """A vehicle fresh from its mat: full armour, loaded pods, nothing crossed off."""
    pods = tuple(Pod(p.id, p.facing, p.load, p.rounds) for p in spec.pods)
    turret = Pod("turret", "any", spec.turret.load, spec.turret.rounds) if spec.turret else None
    return Vehicle(ident, owner, spec.id, name, colour, armour=spec.armour, pods=pods, turret=turret)


def _check_seat_free(state: BattlecarsState) -> None:
    """A seat is left (the phase table has kept seats to the lobby)."""
    limit = data.table()["max_players"]
    if len(state.players) >= limit:
        raise TableFull(f"The table is full ({limit} drivers).")


def _seat(state: BattlecarsState, player: Player, spec: data.VehicleSpec) -> BattlecarsState:
    vehicle = new_vehicle(spec, f"v{len(state.vehicles) + 1}", player.id, player.name, len(state.vehicles))
    return replace(state, players=state.players + (player,), vehicles=state.vehicles + (vehicle,))


def _taken(state: BattlecarsState) -> set[str]:
    return {name_key(p.name) for p in state.players}


def join(state: BattlecarsState, actor: str, action: Join) -> tuple[BattlecarsState, tuple]:
    """Take a seat with a vehicle: one vehicle a driver (seed: "Each player chooses a vehicle")."""
    _check_seat_free(state)
    if state.player(actor) is not None:
        raise BadOption("You are already seated: one vehicle a driver.")
    spec = design_of(action.vehicle)
    name = unique_name(action.name.strip()[:MAX_NAME_LENGTH] or actor[:MAX_NAME_LENGTH], _taken(state),
                       MAX_NAME_LENGTH)
    player = Player(actor, name)
    return _seat(state, player, spec), (Joined(name, spec.name),)


def add_computer(state: BattlecarsState, actor: str, action: AddComputer) -> tuple[BattlecarsState, tuple]:
    """The host seats a computer driver."""
    if actor != state.host:
        raise NotHost("Only the host can add a computer driver.")
    _check_seat_free(state)
    spec = design_of(action.vehicle)
    ident, name = computer_seat({p.id for p in state.players}, _taken(state))
    return _seat(state, Player(ident, name, ai=True), spec), (Joined(name, spec.name, computer=True),)


def start(state: BattlecarsState, actor: str, action: Start) -> tuple[BattlecarsState, tuple]:
    """Place every vehicle on a side's centre point facing inwards (two boards for four drivers or more,
    found), roll a die each for the first mover (ties roll again), then everyone sets a speed."""
    if actor != state.host:
        raise NotHost("Only the host can start the game.")
    if state.phase != Phase.LOBBY:
        raise WrongPhase("The game has already started.")
    table = data.table()
    if len(state.players) < table["min_players"]:
        raise WrongPhase(f"At least {table['min_players']} drivers are needed to start.")
    big = len(state.players) >= table["big_board_from"]
    board = data.board(state.board, big)
    placed = tuple(replace(v, point=point, facing=facing) for v, (point, facing) in zip(state.vehicles, board.starts))
    state = replace(state, big=big, vehicles=placed)
    state, first, events = _roll_for_first(state)
    seats = [p.id for p in state.players]
    at = seats.index(first)
    order = tuple(seats[at:] + seats[:at])
    names = tuple(state.seat(p).name for p in order)
    state = replace(state, order=order, phase=Phase.SPEED, round=0)
    return state, events + (FirstMover(names),)


def _roll_for_first(state: BattlecarsState) -> tuple[BattlecarsState, str, tuple]:
    """Each driver rolls a d6; the highest moves first; the tied highest roll again."""
    rolling = [p.id for p in state.players]
    events: tuple = ()
    dice = state.dice
    for _ in range(MAX_ROLL_OFFS):
        rolls = {}
        for player in rolling:
            dice, (face,) = roll_faces(dice, (1, 2, 3, 4, 5, 6), 1)
            rolls[player] = face
            events += (DiceRolled(state.seat(player).name, "rolls for the first move", "highest moves first",
                                  "d6", (face,), face),)
        best = max(rolls.values())
        rolling = [p for p in rolling if rolls[p] == best]
        if len(rolling) == 1:
            break
    return replace(state, dice=dice), rolling[0], events
