"""Tables for the Battlecars rules tests: vehicles placed by hand on a board, dice from a fixed seed."""

from __future__ import annotations

from dataclasses import replace

from rules.battlecars import data
from rules.battlecars.events import DiceRolled
from rules.battlecars.grid import facing_by_name, parse_label
from rules.battlecars.lobby import new_vehicle
from rules.battlecars.ruleset import RULESET, apply
from rules.battlecars.state import BattlecarsState, Phase, Player
from rules.dice import DiceState


def table(*seats: tuple, board: str = "open", seed: int = 1, phase: Phase = Phase.MOVE) -> BattlecarsState:
    """A running game: each seat is (player, design, point label, facing name, speed), in moving order;
    the first one is moving."""
    state = RULESET.setup({"board": board}, seed, seats[0][0])
    players, vehicles = [], []
    for i, (player, design, at, facing, speed) in enumerate(seats):
        players.append(Player(player, player))
        vehicle = new_vehicle(data.vehicles()[design], f"v{i + 1}", player, player, i)
        vehicles.append(replace(vehicle, point=parse_label(at), facing=facing_by_name(facing), speed=speed))
    order = tuple(p.id for p in players)
    return replace(state, players=tuple(players), vehicles=tuple(vehicles), order=order, phase=phase,
                   active=order[0] if phase == Phase.MOVE else None, dice=DiceState(seed))


def act(state: BattlecarsState, actor: str, action) -> tuple[BattlecarsState, tuple]:
    return apply(state, actor, action)


def of(events: tuple, kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


def rolls(events: tuple, purpose: str) -> list[DiceRolled]:
    """The DiceRolled events whose purpose starts with `purpose`."""
    return [e for e in events if isinstance(e, DiceRolled) and e.purpose.startswith(purpose)]


def vehicle(state: BattlecarsState, player: str):
    return state.vehicle_of(player)


def with_mat(state: BattlecarsState, player: str, **marks) -> BattlecarsState:
    """Mark a player's mat (engine_lost=2, armour=(0, 4, 6), ...)."""
    return state.with_vehicle(replace(state.vehicle_of(player), **marks))
