"""Every registered game's example opening, as the cross-game suites play it (rules.engine.ExampleOpening):
a game that is registered is covered by them all, with no line of theirs naming it."""

from __future__ import annotations

from rules.engine import ExampleOpening
from rules.registry import get_ruleset, ruleset_ids

START = "/game start"


def games() -> tuple[str, ...]:
    """Every registered game, plug-ins included: what a cross-game suite is parametrized by."""
    return ruleset_ids()


def games_with(capability: str) -> tuple[str, ...]:
    """The registered games that have a capability (a Ruleset attribute that is None where they do not)."""
    return tuple(g for g in ruleset_ids() if getattr(get_ruleset(g), capability) is not None)


def lines(game: str, seed: int, opening: ExampleOpening | None = None, start: bool = True) -> list[tuple[str, str]]:
    """The (player, command line) of `game`'s example opening (or `opening`) with `seed`; without its last
    command, the start, when not `start` (a suite adds seats or settings first)."""
    every = (opening or get_ruleset(game).example).lines(game, seed)
    return every if start else every[:-1]


def third_join(game: str) -> tuple[str, str]:
    """A third player ("cal") joining as the example's last joiner does: for suites that need three seats
    (the game may refuse it: a table of two)."""
    joins = [line for _player, line in get_ruleset(game).example.commands if line.startswith("/game join")]
    return "cal", joins[-1]
