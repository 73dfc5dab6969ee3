"""Seeded, replayable dice: the seed and a roll counter live in the game state."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from rules.codec import added_field


@dataclass(frozen=True)
class DiceState:
    """Where a game's dice stream stands: its seed, how many dice were rolled so far, and which branch of
    the game draws them (0 until the table first rolls back; each rollback starts a stream of its own,
    derived from the same committed seed, so nobody knows a rolled-back game's next dice)."""

    seed: int
    counter: int = 0
    branch: int = added_field(0)

    def on_branch(self, branch: int) -> DiceState:
        """The stream the game draws from after its rollback number `branch`, the count going on."""
        return replace(self, branch=branch)


def _uniform(dice: DiceState, counter: int, sides: int) -> int:
    """Return a value in [0, sides) determined only by (seed, branch, counter)."""
    # Rejection sampling over a 64-bit hash keeps every face exactly equally likely.
    limit = (1 << 64) - ((1 << 64) % sides)
    stream = f"{dice.seed}" if dice.branch == 0 else f"{dice.seed}/branch{dice.branch}"
    salt = 0
    while True:
        digest = hashlib.sha256(f"{stream}:{counter}:{salt}".encode()).digest()
        value = int.from_bytes(digest[:8], "big")
        if value < limit:
            return value % sides
        salt += 1


def roll_faces(dice: DiceState, faces: tuple[int, ...], count: int) -> tuple[DiceState, tuple[int, ...]]:
    """Roll `count` dice whose sides carry `faces`; return the advanced state and the faces shown."""
    shown = tuple(
        faces[_uniform(dice, dice.counter + i, len(faces))] for i in range(count)
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
        j = _uniform(dice, counter, i + 1)
        counter += 1
        pool[i], pool[j] = pool[j], pool[i]
    return replace(dice, counter=counter), tuple(pool)
