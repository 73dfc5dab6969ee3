"""The shape of a command grammar: each ruleset declares its own commands and options as plain data."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OptionSpec:
    """One command option, as on Discord: name, type, description, choices, range."""

    name: str
    kind: str  # "str", "int" or "file"
    description: str
    required: bool = False
    choices: tuple[str, ...] = ()
    min_value: int | None = None
    max_value: int | None = None
    suggest: bool = False  # Discord offers what is legal now (autocomplete) instead of fixed choices


@dataclass(frozen=True)
class CommandSpec:
    """A slash command (or a subcommand of /game)."""

    name: str  # "game new", "move"
    description: str
    options: tuple[OptionSpec, ...] = ()
    query: bool = False  # only reads the game: answered privately, never logged
    # Options that make the answer private from the first moment (a seated GM's private ruling): given
    # any of them, the command is acknowledged privately, so the channel never sees it was used.
    private_with: tuple[str, ...] = ()

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(self.name.split())


# `/game new rounds:N`, for a game with a round cap (rules.engine.Ruleset.round_cap) to add to its
# new_options: the same option, words and range in every game that has one.
ROUND_CAP = OptionSpec("rounds", "int", "Declare a draw after this many rounds (no limit if omitted)",
                       min_value=1, max_value=1000)


@dataclass(frozen=True)
class Grammar:
    """A ruleset's own commands, plus the options it adds to /game new and /game join."""

    commands: tuple[CommandSpec, ...] = ()
    new_options: tuple[OptionSpec, ...] = ()
    join_options: tuple[OptionSpec, ...] = ()
