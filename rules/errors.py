"""Typed refusals raised by rulesets; each carries a message written for players."""


class GameError(Exception):
    """A refused action: the message is shown to the player and nothing changes."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class NotSeated(GameError):
    """The acting user has no seat at this table."""


class NotYourTurn(GameError):
    """Another player (or another car) is acting now."""


class WrongPhase(GameError):
    """The action exists but does not fit the current phase of the turn."""


class NotHost(GameError):
    """Only the host (or a server admin) may do this."""


class BadOption(GameError):
    """A command option has a value the game does not understand."""


class TableFull(GameError):
    """No free seat remains."""


class GameOver(GameError):
    """The game has finished and accepts no more actions."""
