"""The dice Battlecars rolls, from the game's own seeded stream."""

from __future__ import annotations

from dataclasses import replace

from rules.battlecars.state import BattlecarsState
from rules.dice import roll_faces

D3, D6, D8 = (1, 2, 3), (1, 2, 3, 4, 5, 6), (1, 2, 3, 4, 5, 6, 7, 8)


def roll(state: BattlecarsState, faces: tuple[int, ...], count: int = 1) -> tuple[BattlecarsState, tuple[int, ...]]:
    """Roll `count` dice with `faces` from the game's dice stream."""
    dice, shown = roll_faces(state.dice, faces, count)
    return replace(state, dice=dice), shown
