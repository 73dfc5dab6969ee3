"""Refusals the service itself raises (the rules raise their own): no game here, a stale button."""

from __future__ import annotations

from rules.errors import GameError


class NoGame(GameError):
    """The channel has no running game."""

    def __init__(self) -> None:
        super().__init__("No game is running in this channel. Create one with /game new ruleset:speedway.")


class StaleButton(GameError):
    """A button drawn for an earlier version of the game."""
