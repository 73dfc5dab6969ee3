"""Damage to buildings and trees, from rules revision 2.

Found (the extra reference sheet, rules-gaps.md 2.1): shots at a pedestrian inside a building or clump
of trees are at another -2, "where a miss damages the building or trees"; bikes "may go through
undamaged trees". Reconstruction: a miss there rolls the round's damage against the piece (a pistol's
d3, a d8 from rules revision 6), the damage is kept per piece, and at its strength (game.toml) the piece
is flattened: it no longer blocks fire or gives cover, and stays impassable to vehicles as rubble or
fallen trunks.
"""

from __future__ import annotations

from dataclasses import replace

from rules.battlecars import data
from rules.battlecars.events import SceneryDamaged
from rules.battlecars.grid import Point, label
from rules.battlecars.state import BattlecarsState
from rules.table import required

SCENERY = ("building", "trees")
SCENERY_DAMAGE = 2   # the rules revision from which buildings and trees take damage


def damage_of(state: BattlecarsState, point: Point) -> int:
    """The damage the building or clump at `point` has taken (0 for open ground)."""
    piece = state.the_board.piece(point)
    return next((taken for at, taken in state.scenery_damage if at == piece), 0)


def strength(kind: str) -> int:
    """The damage that flattens a building or a clump of trees (reconstruction, game.toml)."""
    return data.table()[f"{kind}_strength"]


def flattened(state: BattlecarsState, point: Point) -> bool:
    """Whether the building or clump at `point` has taken its strength in damage."""
    kind = state.the_board.terrain(point)
    return kind in SCENERY and damage_of(state, point) >= strength(kind)


def stands(state: BattlecarsState, point: Point) -> bool:
    """Whether `point` holds a building or trees that still block fire and give cover."""
    return state.the_board.terrain(point) in SCENERY and not flattened(state, point)


def bike_may_enter(state: BattlecarsState, point: Point) -> bool:
    """Whether a bike may ride onto `point`'s trees: only undamaged trees (found)."""
    return state.the_board.terrain(point) == "trees" and damage_of(state, point) == 0


def takes_misses(state: BattlecarsState, point: Point) -> bool:
    """Whether a miss at a pedestrian on `point` damages its cover (revision 2 on)."""
    return state.revision >= SCENERY_DAMAGE and stands(state, point)


def damage(state: BattlecarsState, point: Point, points: int) -> tuple[BattlecarsState, tuple]:
    """Add `points` of damage to the building or clump at `point`."""
    piece = required(state.the_board.piece(point), "no building or trees at", point)
    kind = state.the_board.terrain(point)
    total = damage_of(state, point) + points
    kept = tuple((at, taken) for at, taken in state.scenery_damage if at != piece)
    state = replace(state, scenery_damage=tuple(sorted(kept + ((piece, total),))))
    return state, (SceneryDamaged(kind, label(piece), points, total, strength(kind)),)
