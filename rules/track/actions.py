"""The track game's actions: what a player (or the host) asks the referee to do."""

from __future__ import annotations

from dataclasses import dataclass

from rules.codec import Registry
from rules.table import EndGame as EndGame  # shared actions
from rules.table import TakeOver as TakeOver
from rules.table import register_table_actions

ACTIONS = Registry()
register_table_actions(ACTIONS)


@ACTIONS.register
@dataclass(frozen=True)
class Join:
    """Take a seat (two seats)."""

    name: str = ""


@ACTIONS.register
@dataclass(frozen=True)
class AddComputer:
    """Seat a computer player (host only)."""


@ACTIONS.register
@dataclass(frozen=True)
class Start:
    """Close the lobby: pick the first player, shuffle and deal (host only)."""


@ACTIONS.register
@dataclass(frozen=True)
class PlayCard:
    """Play one card from the hand, with the choices it needs.

    card: '7H', '10S', 'AS', 'JK'. car: 'c1'..'c5' (or 'pits' for any car in the pits).
    move: 'out' (come out), '1' or '11' (Ace), '10' (J/Q/K), 'swap' (Joker); empty when obvious.
    split: a split 7 as 'c1:4,c3:3' (parts move in the order written).
    target: the opponent's car a Joker swaps with, 'c1'..'c5'.
    """

    card: str
    car: str = ""
    move: str = ""
    split: str = ""
    target: str = ""


@ACTIONS.register
@dataclass(frozen=True)
class Discard:
    """No card can move a car: discard one, draw, and pass (seed)."""

    card: str
