"""Exact probabilities for shots and Driver Rolls, so players can weigh a move before making it."""

from __future__ import annotations

from functools import cache
from typing import Any

from rules.speedway import data


@cache
def _distribution(faces: tuple[int, ...], count: int) -> dict[int, float]:
    """Probability of each total when rolling `count` dice with these faces."""
    dist = {0: 1.0}
    for _ in range(count):
        step: dict[int, float] = {}
        for total, p in dist.items():
            for face in faces:
                step[total + face] = step.get(total + face, 0.0) + p / len(faces)
        dist = step
    return dist


def chance_at_least(faces: tuple[int, ...], count: int, target: int) -> float:
    """P(total of `count` dice >= target)."""
    return sum(p for total, p in _distribution(faces, count).items() if total >= target)


def hit_chance(dice: int, targeting: int, range_hexes: int) -> float:
    """P(dice d6 + Targeting >= range): the seed's to-hit roll."""
    return chance_at_least((1, 2, 3, 4, 5, 6), dice, range_hexes - targeting)


def resist_chance(car: Any) -> float:
    """The chance a car's driver resists the skid pending now: Driver dice against speed plus inertia (the
    maneuver's inertia is already on the car)."""
    return driver_chance(car.systems.rating("driver"), car.speed + car.inertia)


def driver_chance(driver_dice: int, target: int) -> float:
    """P(a Driver Roll with this many white dice meets the target)."""
    return chance_at_least(data.driver_die(), driver_dice, target)
