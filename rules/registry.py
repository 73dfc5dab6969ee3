"""The one place games are registered, and where the shell looks them up.

A game is a package `rules/<id>/` whose `ruleset` module holds `RULESET`, and a package `images/<id>/`
holding `RENDERER`. Adding a game means writing those two packages and its tests, and one line here.
A plug-in from elsewhere (a test's toy game) registers itself with `register`.
"""

from __future__ import annotations

import importlib

from rules.engine import Ruleset

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
