"""Refusals the service itself raises (the rules raise their own).

No game here, a stale button, another game's command.
"""

from __future__ import annotations

from bot.table.commands import CommandSyntaxError, for_game
from rules.errors import GameError
from rules.registry import ruleset_ids


class NoGame(GameError):
    """The channel has no running game."""

    def __init__(self) -> None:
        games = ruleset_ids()
        super().__init__(f"No game is running in this channel. Create one with /game new ruleset:{games[0]} "
                         f"(games: {', '.join(games)}).")


class StaleButton(GameError):
    """A button drawn for an earlier version of the game."""


class NotThisGame(GameError):
    """Another game's command or option, used in a channel that plays something else."""

    @classmethod
    def fitted(cls, ruleset, command):
        """`command` as the channel's game declares it (bot.table.commands.for_game), or a refusal."""
        try:
            return for_game(ruleset, command)
        except CommandSyntaxError as exc:
            raise cls(str(exc)) from None
