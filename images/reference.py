"""The reference tables the games' fixed palettes are made from: a game just started, seed 0."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rules.engine import Ruleset


def started(ruleset: Ruleset, options: dict[str, Any], joins: Sequence[Any]) -> Any:
    """A game of `ruleset` set up with `options` from seed 0, each of `joins` (a join action) taken by
    players p0, p1, ... in turn, and started by its host p0."""
    state = ruleset.setup(options, 0, "p0")
    for seat, join in enumerate(joins):
        state = ruleset.apply(state, f"p{seat}", join)[0]
    return ruleset.apply(state, "p0", ruleset.command_to_action("game start", {}))[0]
