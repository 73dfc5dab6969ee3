"""Battlecars' actions: what a player (or the host) asks the referee to do."""

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
    """Take a seat with a vehicle (empty: the first mat)."""

    name: str
    vehicle: str = ""


@ACTIONS.register
@dataclass(frozen=True)
class AddComputer:
    """The host seats a computer driver with a vehicle (empty: the first mat)."""

    vehicle: str = ""


@ACTIONS.register
@dataclass(frozen=True)
class Start:
    """Close the lobby: place the vehicles and roll for the first mover (host only)."""


@ACTIONS.register
@dataclass(frozen=True)
class SetSpeed:
    """Place this turn's speed counter face down: 0 up to the top speed, R (-1) or 3PT (-2)."""

    speed: int


@ACTIONS.register
@dataclass(frozen=True)
class Move:
    """One point of movement: turn at the point (a grid.TURN_STEPS name), then step along the new facing."""

    turn: str = "ahead"


@ACTIONS.register
@dataclass(frozen=True)
class ThreePointTurn:
    """With the counter on 3 POINT TURN: turn to any facing, staying on the point."""

    facing: str


@ACTIONS.register
@dataclass(frozen=True)
class Fire:
    """Fire a pod or the turret (`weapon`: its letter or 'turret') at a vehicle."""

    weapon: str
    target: str


@ACTIONS.register
@dataclass(frozen=True)
class Drop:
    """Drop one passive round (oil, mine, spikes, smoke) from a pod onto the point behind or beside."""

    weapon: str


@ACTIONS.register
@dataclass(frozen=True)
class ChooseSection:
    """A hit vehicle's driver puts the damage on one of the sections the shot could strike."""

    section: str


@ACTIONS.register
@dataclass(frozen=True)
class Leave:
    """The driver gets out of the vehicle (at speed 0, as the whole move): a pedestrian."""


@ACTIONS.register
@dataclass(frozen=True)
class Walk:
    """A pedestrian walks one point, N..NW."""

    direction: str


@ACTIONS.register
@dataclass(frozen=True)
class Board:
    """A pedestrian climbs back into their own vehicle beside them."""


@ACTIONS.register
@dataclass(frozen=True)
class Reload:
    """A pedestrian refills the pistol from a dead driver's, on or beside its point (the whole move)."""


@ACTIONS.register
@dataclass(frozen=True)
class HoldFire:
    """Fired upon: let the chance to return fire go."""


@ACTIONS.register
@dataclass(frozen=True)
class EndMove:
    """The move is complete (every point of the speed driven): hand over to the next player."""
