"""A finished game's review, as the rules see it: the turning points (rolls whose chance and consequence
the log proves) and each seat's standing through the game. Pure: a game offers it as its `review`
capability (rules.engine.Ruleset), and the shell walks the replayed log through it."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

SHOWN = 3   # the turning points a review shows: the highest ranked
TOLD = 4    # what followed a roll, told at most this many events (a chain of explosions is long)


@dataclass(frozen=True)
class ReviewStep:
    """One logged action of a finished game, re-run: its number as /game log numbers it, who took it,
    the events it made and the state it left."""

    number: int
    round: int      # the round it was taken in, as the game's players count it
    actor: str
    events: tuple
    state: Any      # the state it left


@dataclass(frozen=True)
class TurningPoint:
    """A roll whose chance and consequence the log proves: action `number`'s roll of `faces`, against
    the target the rules used (`rolled` says it), had `chance` of coming out as it did (`outcome`); what
    followed from it in that action is `consequence`, `weight` big in the game's own measure (1: nothing
    more than the outcome itself)."""

    number: int
    round: int
    round_word: str     # what the game calls a round
    roller: str
    rolled: str
    faces: tuple[int, ...]
    chance: Fraction
    outcome: str
    consequence: str
    weight: int

    @property
    def surprise(self) -> float:
        """How unlikely the outcome was, in bits (a coin's toss: 1)."""
        return -math.log2(self.chance) if self.chance > 0 else math.inf

    @property
    def score(self) -> float:
        """Surprise × consequence: what ranks the turning points."""
        return self.surprise * self.weight

    def words(self) -> str:
        """The turning point in one line: 'round 4 (#31): alice rolls to hold on (3d6 >= 12) [1] [3] [2]:
        failure, a 9% chance; alice lost control'."""
        shown = " ".join(f"[{f}]" for f in self.faces)
        tail = f"; {self.consequence}" if self.consequence else ""
        return (f"{self.round_word} {self.round} (#{self.number}): {self.roller} {self.rolled} {shown}: "
                f"{self.outcome}, a {percent(self.chance)} chance{tail}")


@dataclass(frozen=True)
class GameReview:
    """What a game offers its review: the turning points of its re-run log, and each seat's standing
    (player id -> a number in the game's own measure, `measure` naming it) after any action."""

    turning_points: Callable[[Sequence[ReviewStep]], list[TurningPoint]] | None
    standing: Callable[[Any], Mapping[str, int]]
    round_of: Callable[[Any], int]   # the round a state is in, as the game's players count it
    measure: str                     # e.g. "damage boxes left", "position (1: leading)"
    higher_is_better: bool = True
    round_word: str = "round"        # what the game calls a round (a "turn", a "section")
    why_none: str = ""               # why a game without turning points has none, in a few words


def told(done: Sequence[str]) -> str:
    """What followed a roll in a few words: its first TOLD events, then how many more."""
    more = f"; and {len(done) - TOLD} more" if len(done) > TOLD else ""
    return "; ".join(done[:TOLD]) + more


def percent(chance: Fraction) -> str:
    """A chance in words a player reads at a glance: '8%', '0.4%', '99.5%'."""
    value = float(chance) * 100
    if value < 1 or value > 99:
        return f"{value:.1f}%"
    return f"{value:.0f}%"


@cache
def _totals(faces: tuple[int, ...], count: int) -> dict[int, Fraction]:
    """The exact chance of each total of `count` dice whose sides carry `faces`."""
    dist = {0: Fraction(1)}
    for _ in range(count):
        step: dict[int, Fraction] = {}
        for total, p in dist.items():
            for face in faces:
                step[total + face] = step.get(total + face, Fraction(0)) + p / len(faces)
        dist = step
    return dist


def chance_at_least(faces: tuple[int, ...], count: int, need: int) -> Fraction:
    """P(the total of `count` dice with `faces` >= need), exactly."""
    return sum((p for total, p in _totals(faces, count).items() if total >= need), Fraction(0))


def chance_at_most(faces: tuple[int, ...], count: int, most: int) -> Fraction:
    """P(the total of `count` dice with `faces` <= most), exactly."""
    return 1 - chance_at_least(faces, count, most + 1)


def chance_of_check(faces: tuple[int, ...], shown: Sequence[int], modifier: int, need: int, success: bool,
                    at_most: bool = False) -> Fraction | None:
    """The exact chance a check (the dice's total plus `modifier` >= need; <= need when `at_most`) came out
    as it did, or None when the stored outcome is not what that rule gives for the faces shown: such a roll
    is not one the review can prove, and it names none it cannot."""
    total = sum(shown) + modifier
    if (total <= need if at_most else total >= need) != success or not all(f in faces for f in shown):
        return None
    made = chance_at_most(faces, len(shown), need - modifier) if at_most else \
        chance_at_least(faces, len(shown), need - modifier)
    return made if success else 1 - made


@dataclass(frozen=True)
class Check:
    """A roll a game's review can prove, as it reads one event: who rolled, what (the dice and the target in
    words), the exact chance of the outcome it had, and that outcome in words."""

    roller: str
    rolled: str
    chance: Fraction
    outcome: str


def checked_rolls(steps: Sequence[ReviewStep], round_word: str, check: Callable[[Any, ReviewStep], Check | None],
                  ends: Callable[[Any, Any], bool], what: Callable[[Any], tuple[int, str] | None]
                  ) -> list[TurningPoint]:
    """Every event of the steps that `check` proves a roll, with what the events after it in its action did
    (`what`: a size and words, or None for nothing), up to the first that `ends(roll, event)` says is no
    longer its consequence (the next check, another shot)."""
    found = []
    for step in steps:
        events = step.events
        for index, roll in enumerate(events):
            if (proved := check(roll, step)) is None:
                continue
            done: list[tuple[int, str]] = []
            for later in events[index + 1:]:
                if ends(roll, later):
                    break
                if (followed := what(later)) is not None:
                    done.append(followed)
            found.append(TurningPoint(step.number, step.round, round_word, proved.roller, proved.rolled,
                                      tuple(roll.faces), proved.chance, proved.outcome,
                                      told([words for _n, words in done]), 1 + sum(n for n, _w in done)))
    return found


def ranked(points: Sequence[TurningPoint], shown: int = SHOWN) -> list[TurningPoint]:
    """The `shown` turning points of highest surprise × consequence (the earlier of equal ones first),
    told in the order they happened; a certain outcome turns nothing."""
    best = sorted((p for p in points if p.chance < 1), key=lambda p: (-p.score, p.number))[:shown]
    return sorted(best, key=lambda p: p.number)
