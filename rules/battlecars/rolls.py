"""The dice Battlecars rolls, from the game's own seeded stream."""

from __future__ import annotations

from dataclasses import replace

from rules.battlecars.state import BattlecarsState
from rules.dice import roll_faces

D3, D6, D8 = (1, 2, 3), (1, 2, 3, 4, 5, 6), (1, 2, 3, 4, 5, 6, 7, 8)
ALL_DAMAGE_D8 = 6   # the rules revision from which every damage roll uses the d8 (seed: "All damage uses the D8")


def damage_die(state: BattlecarsState, before: tuple[int, ...]) -> tuple[int, ...]:
    """The die a damage roll uses: the d8 from rules revision 6 (seed, Special Rules: "All damage uses the
    D8"); `before` (a ram's or a crash's d6, the pistol's d3) in a game begun earlier."""
    return D8 if state.revision >= ALL_DAMAGE_D8 else before


def roll(state: BattlecarsState, faces: tuple[int, ...], count: int = 1) -> tuple[BattlecarsState, tuple[int, ...]]:
    """Roll `count` dice with `faces` from the game's dice stream."""
    dice, shown = roll_faces(state.dice, faces, count)
    return replace(state, dice=dice), shown
