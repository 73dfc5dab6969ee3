"""Seeded, replayable dice: the seed and a roll counter live in the game state."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class DiceState:
    """Where a game's dice stream stands: its seed and how many dice were rolled so far."""

    seed: int
    counter: int = 0


def _uniform(seed: int, counter: int, sides: int) -> int:
    """Return a value in [0, sides) determined only by (seed, counter)."""
    # Rejection sampling over a 64-bit hash keeps every face exactly equally likely.
    limit = (1 << 64) - ((1 << 64) % sides)
    salt = 0
    while True:
        digest = hashlib.sha256(f"{seed}:{counter}:{salt}".encode()).digest()
        value = int.from_bytes(digest[:8], "big")
        if value < limit:
            return value % sides
        salt += 1


def roll_faces(dice: DiceState, faces: tuple[int, ...], count: int) -> tuple[DiceState, tuple[int, ...]]:
    """Roll `count` dice whose sides carry `faces`; return the advanced state and the faces shown."""
    shown = tuple(
        faces[_uniform(dice.seed, dice.counter + i, len(faces))] for i in range(count)
    )
    return replace(dice, counter=dice.counter + count), shown


def roll_d6(dice: DiceState, count: int) -> tuple[DiceState, tuple[int, ...]]:
    """Roll `count` ordinary six-sided dice."""
    return roll_faces(dice, (1, 2, 3, 4, 5, 6), count)


def shuffle(dice: DiceState, items: tuple) -> tuple[DiceState, tuple]:
    """Fisher-Yates shuffle driven by the dice stream."""
    pool = list(items)
    counter = dice.counter
    for i in range(len(pool) - 1, 0, -1):
        j = _uniform(dice.seed, counter, i + 1)
        counter += 1
        pool[i], pool[j] = pool[j], pool[i]
    return replace(dice, counter=counter), tuple(pool)
