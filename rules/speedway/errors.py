"""Typed refusals of Speedway (each a GameError with a message written for players)."""

from rules.errors import GameError


class IllegalManeuver(GameError):
    """The requested maneuver is not allowed for this car now."""


class IllegalSpeed(GameError):
    """The requested speed is outside what Engine and Brakes allow."""


class IllegalShot(GameError):
    """The weapon cannot fire at that target now (arc, range, sight, already fired, destroyed)."""


class IllegalDeployment(GameError):
    """A defensive weapon cannot be deployed now."""
