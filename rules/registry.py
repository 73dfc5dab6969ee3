"""The one place games are registered, and where the shell looks them up.

A game is a package `rules/<id>/` whose `ruleset` module holds `RULESET`, and a package `images/<id>/`
holding `RENDERER`. Adding a game means writing those two packages and its tests, and one line here.
A plug-in from elsewhere (a test's toy game) registers itself with `register`. A built-in game declares
its commands in `rules/<id>/commands.py` as `GRAMMAR` (its ruleset's `grammar`), which the command grammar
reads without loading the game's rules (`declarations`).
"""

from __future__ import annotations

import importlib
from typing import NamedTuple

from rules.engine import Ruleset
from rules.grammar import Grammar

GAMES = ("speedway", "track", "battlecars", "race")  # the registration line: one id per game

_PLUGINS: dict[str, Ruleset] = {}
_LOADED: dict[str, Ruleset] = {}


def register(ruleset: Ruleset) -> None:
    """Add a game that lives outside rules/ (its renderer registers with images.registry)."""
    if ruleset.id in GAMES:
        raise ValueError(f"{ruleset.id} is a built-in game")
    _PLUGINS[ruleset.id] = ruleset


def get_ruleset(ruleset_id: str) -> Ruleset:
    """A game's ruleset by id; KeyError when unknown."""
    if ruleset_id in _PLUGINS:
        return _PLUGINS[ruleset_id]
    if ruleset_id not in GAMES:
        raise KeyError(ruleset_id)
    if ruleset_id not in _LOADED:
        _LOADED[ruleset_id] = importlib.import_module(f"rules.{ruleset_id}.ruleset").RULESET
    return _LOADED[ruleset_id]


def ruleset_ids() -> tuple[str, ...]:
    """Ids of the playable games, built-in first."""
    return GAMES + tuple(_PLUGINS)


def rulesets() -> tuple[Ruleset, ...]:
    """Every playable game's ruleset."""
    return tuple(get_ruleset(r) for r in ruleset_ids())


class Declared(NamedTuple):
    """A game as the command grammar sees it: its id and the commands it declares."""

    id: str
    grammar: Grammar


def declarations() -> tuple[Declared, ...]:
    """Every playable game's commands, in `ruleset_ids` order, loading no game's rules: a command line
    process parses its one command without importing every game (~0.2 s of CPU)."""
    return tuple(Declared(r, _grammar(r)) for r in ruleset_ids())


def _grammar(ruleset_id: str) -> Grammar:
    if ruleset_id in _PLUGINS or ruleset_id in _LOADED:
        return get_ruleset(ruleset_id).grammar
    return importlib.import_module(f"rules.{ruleset_id}.commands").GRAMMAR
