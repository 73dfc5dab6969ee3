"""Speedway's actions: what a player (or the host) asks the referee to do."""

from __future__ import annotations

from dataclasses import dataclass

from rules.codec import Registry, added_field
from rules.table import EndGame as EndGame  # shared actions
from rules.table import TakeOver as TakeOver
from rules.table import register_table_actions

ACTIONS = Registry()
register_table_actions(ACTIONS)


@ACTIONS.register
@dataclass(frozen=True)
class Join:
    """Take a seat with a car design (empty: the default design)."""

    name: str
    car: str = ""


@ACTIONS.register
@dataclass(frozen=True)
class Start:
    """Close the lobby: place the cars and roll the turn order (host only)."""


@ACTIONS.register
@dataclass(frozen=True)
class SetSpeed:
    """Upkeep step 2: choose the active car's speed for this turn."""

    value: int


@ACTIONS.register
@dataclass(frozen=True)
class Move:
    """Spend one Move: a maneuver such as 'turn-left', or 'slide' when Out Of Control.

    `skid` may pre-answer the skid procedure ('accept' or 'resist') so a turn needs fewer commands.
    """

    maneuver: str
    skid: str = ""


@ACTIONS.register
@dataclass(frozen=True)
class AnswerSkid:
    """Answer the pending skid: accept or resist it, continue, or swipe a car in a skid hex (`target`, its
    id or name, when there are several: revision 6)."""

    choice: str
    target: str = added_field("")



@ACTIONS.register
@dataclass(frozen=True)
class AddComputer:
    """Seat a computer driver with a car design (host only)."""

    car: str = ""


@ACTIONS.register
@dataclass(frozen=True)
class Fire:
    """Fire an offensive weapon (by mount or name) at a target car (by car or player name)."""

    weapon: str
    target: str


@ACTIONS.register
@dataclass(frozen=True)
class Drop:
    """Deploy a defensive weapon (mines, oil, smoke) behind the car."""

    weapon: str


@ACTIONS.register
@dataclass(frozen=True)
class EndTurn:
    """Finish the active car's movement once its Moves are spent."""


@ACTIONS.register
@dataclass(frozen=True)
class ChooseRam:
    """The ramming roll-off winner picks outcome A or B."""

    outcome: str
