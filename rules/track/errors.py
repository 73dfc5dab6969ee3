"""Typed refusals of the track game (each a GameError with a message written for players)."""

from rules.errors import GameError


class IllegalPlay(GameError):
    """The card cannot do that now (the car cannot move that way, the target is not allowed, ...)."""


class NotInHand(GameError):
    """The player does not hold that card."""


class MustPlay(GameError):
    """A discard was asked for while a card in the hand can move a car (seed: "You must play if you have a move")."""
