"""Table pieces every ruleset shares: ending a game, an admin taking the host's chair, turn starts."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from rules.codec import Registry
from rules.errors import BadOption, NotHost


@dataclass(frozen=True)
class EndGame:
    """Stop the game (the host, or a server admin when `by_admin`)."""

    by_admin: bool = False


@dataclass(frozen=True)
class TakeOver:
    """A server admin becomes the table's host (to start, settle or end an abandoned game)."""

    by_admin: bool = False


@dataclass(frozen=True)
class TurnBegan:
    player: str
    round: int

    def describe(self) -> str:
        return f"Round {self.round + 1}: {self.player}'s turn."


@dataclass(frozen=True)
class GameEnded:
    by: str

    def describe(self) -> str:
        return f"The game was ended by {self.by}."


@dataclass(frozen=True)
class HostChanged:
    host: str

    def describe(self) -> str:
        return f"{self.host} took over as host."


def register_table_actions(registry: Registry) -> None:
    """Make the shared actions part of a ruleset's action registry."""
    for cls in (EndGame, TakeOver):
        registry.register(cls)


def register_table_events(registry: Registry) -> None:
    """Make the shared events part of a ruleset's event registry."""
    for cls in (TurnBegan, GameEnded, HostChanged):
        registry.register(cls)


def who_ends(state: Any, actor: str, action: EndGame) -> str:
    """The name to credit with ending the game; only the host or a server admin may."""
    if actor != state.host and not action.by_admin:
        raise NotHost("Only the host or a server admin can end the game.")
    seat = state.player(actor)
    return seat.name if seat else actor


def take_over(state: Any, actor: str, action: TakeOver) -> tuple[Any, tuple]:
    """A server admin takes the host's chair (any ruleset's state with `host` and `player()`)."""
    if not action.by_admin:
        raise NotHost("Only a server admin (Manage Server) can take over a game.")
    if actor == state.host:
        raise BadOption("You are already the host.")
    seat = state.player(actor)
    return replace(state, host=actor), (HostChanged(seat.name if seat else "a server admin"),)
