"""Refusals the service itself raises (the rules raise their own).

No game here, a stale button, another game's command.
"""

from __future__ import annotations

from bot.table.protocol.commands import CommandSyntaxError, for_game, foreign_to, setup_line
from rules.errors import GameError
from rules.registry import ruleset_ids


class NoGame(GameError):
    """The channel has no running game."""

    def __init__(self) -> None:
        games = ruleset_ids()
        super().__init__(f"No game is running in this channel. Create one with {setup_line(games[0])} "
                         f"(games: {', '.join(games)}).")


class StaleButton(GameError):
    """A button drawn for an earlier version of the game."""


class NotThisGame(GameError):
    """Another game's command or option, used in a channel that plays something else; or (`malformed`)
    a value the channel's game cannot read, such as text where it counts a number."""

    def __init__(self, message: str, malformed: bool = False):
        super().__init__(message)
        self.malformed = malformed

    @classmethod
    def fitted(cls, ruleset, command):
        """`command` as the channel's game declares it (bot.table.protocol.commands.for_game), or a refusal."""
        foreign = foreign_to(ruleset, command)
        if foreign:
            raise cls(foreign)
        try:
            return for_game(ruleset, command)
        except CommandSyntaxError as exc:
            raise cls(str(exc), malformed=True) from None
