"""The race's dice: d20 checks with advantage and disadvantage, vehicle rolls (seed, Table 1), damage
dice, all from the game's seeded stream, each roll told as a DiceRolled."""

from __future__ import annotations

from dataclasses import replace

from rules.dice import roll_faces
from rules.race import data
from rules.race.events import DiceRolled
from rules.race.state import Racer, RaceState

ABILITY_NAMES = {"str": "Strength", "dex": "Dexterity", "con": "Constitution"}


def dice(state: RaceState, count: int, die: int) -> tuple[RaceState, tuple[int, ...]]:
    """Roll `count` dice of `die` sides."""
    stream, faces = roll_faces(state.dice, tuple(range(1, die + 1)), count)
    return replace(state, dice=stream), faces


def edge(advantage: bool, disadvantage: bool) -> int:
    """Found (5e): advantage and disadvantage never stack, and one of each cancels."""
    return 0 if advantage == disadvantage else (1 if advantage else -1)


def d20(state: RaceState, who: str, purpose: str, modifiers: tuple[tuple[str, int], ...], advantage: bool = False,
        disadvantage: bool = False, verdict=None) -> tuple[RaceState, int, DiceRolled]:
    """A d20 check: two dice kept high or low under an edge; `verdict(total)` words the outcome."""
    kind = edge(advantage, disadvantage)
    state, faces = dice(state, 2 if kind else 1, 20)
    kept = max(faces) if kind > 0 else min(faces)
    total = kept + sum(v for _k, v in modifiers)
    return state, total, DiceRolled(who, purpose, "d20", faces, total, modifiers, kind,
                                    verdict(total) if verdict else "")


def vehicle_roll(state: RaceState, racer: Racer, ability: str,
                 spec: data.VehicleSpec) -> tuple[RaceState, int, DiceRolled]:
    """Seed: a Vehicle Roll of an ability is its Table 1 die, +1 when fine-tuned."""
    die = spec.die(ability)
    state, (face,) = dice(state, 1, die)
    tuned = (("fine-tuned", 1),) if ability in racer.tuned else ()
    total = face + sum(v for _k, v in tuned)
    return state, total, DiceRolled(racer.name, f"Vehicle Roll ({ABILITY_NAMES[ability]})", f"d{die}", (face,), total,
                                    tuned)


def damage_dice(state: RaceState, who: str, what: str, count: int, die: int,
                bonus: int = 0) -> tuple[RaceState, int, DiceRolled]:
    """Damage: `count` dice of `die` plus `bonus`."""
    state, faces = dice(state, count, die)
    total = sum(faces) + bonus
    return state, total, DiceRolled(who, what, f"{count}d{die}", faces, total, (("bonus", bonus),) if bonus else ())
