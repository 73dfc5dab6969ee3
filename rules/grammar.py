"""The shape of a command grammar: each ruleset declares its own commands and options as plain data."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class OptionSpec:
    """One command option, as on Discord: name, type, description, choices, range."""

    name: str
    kind: str  # "str", "int", "file" or "user" (a member: their id)
    description: str
    required: bool = False
    choices: tuple[str, ...] = ()
    min_value: int | None = None
    max_value: int | None = None
    suggest: bool = False  # Discord offers what is legal now (autocomplete) instead of fixed choices
    max_length: int | None = None  # a text longer than the usual 100 characters (a note); None: 100


@dataclass(frozen=True)
class CommandSpec:
    """A slash command (or a subcommand of /game)."""

    name: str  # "game new", "move"
    description: str
    options: tuple[OptionSpec, ...] = ()
    query: bool = False  # only reads the game: answered privately, never logged
    # Options that make the answer private from the first moment (a seated GM's private ruling): given
    # any of them, the command is acknowledged privately, so the channel never sees it was used. An entry
    # "option:value" makes it private with that value only (a close-up: "view:closeup").
    private_with: tuple[str, ...] = ()
    # Answered to the asker alone, always (a hand, the log): acknowledged privately from the first
    # moment, unless one of `public_with` is set to true (a sheet shown to the channel).
    private: bool = False
    public_with: tuple[str, ...] = ()

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(self.name.split())


# `/game new rounds:N`, for a game with a round cap (rules.engine.Ruleset.round_cap) to add to its
# new_options: the same option, words and range in every game that has one.
ROUND_CAP = OptionSpec("rounds", "int", "Draw after this many rounds",
                       min_value=1, max_value=1000)


@dataclass(frozen=True)
class Grammar:
    """A ruleset's own commands, plus the options it adds to /game new and /game join."""

    commands: tuple[CommandSpec, ...] = ()
    new_options: tuple[OptionSpec, ...] = ()
    join_options: tuple[OptionSpec, ...] = ()
    # The /rules topic (a section of the game's RULES.md, by its key) a refusal of each command points to.
    rules_topics: Mapping[str, str] = field(default_factory=dict)


# What a verb, or one of its options, means in any game: the words Discord (and the command line's help)
# show where the games sharing it word it differently, instead of any one game's (keyed "verb" or
# "verb option"). A verb shared without words here is described by a neutral sentence of its name.
SHARED_WORDS: dict[str, str] = {
    "speed": "Set your speed for this turn",
    "speed value": "Your speed this turn: a number, or a value the suggestions offer",
    "move": "Move: one step, or a whole turn as a plan",
    "move plan": "Several moves in order, comma-separated",
    "move fire": "Fire at the first point of the path that allows it, e.g. weapon@target",
    "fire": "Fire a weapon at a target",
    "fire weapon": "The weapon that fires",
    "fire target": "The target: its id, its name or its driver's name",
    "drop": "Drop a defensive weapon (mines, oil, smoke...) behind you",
    "drop weapon": "The weapon that drops it",
    "end": "End your move for this turn",
    "odds": "The chance of a shot or a move (changes nothing)",
    "odds weapon": "The weapon that would fire",
    "odds target": "The target: its id or its name",
    "game join vehicle": "Your vehicle (suggested as you type)",
    "game add-ai vehicle": "Its vehicle (suggested as you type)",
}
