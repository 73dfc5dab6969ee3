"""Battlecars' review: its turning points (the checks each event words with its target: shots, skid tests,
ammunition and fuel tests, escapes, dives, a bike's dodge) and each seat's armour boxes left by turn."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fractions import Fraction

from rules.battlecars.events import (
    ArmourHit,
    ComponentHit,
    Crashed,
    DiceRolled,
    DriverLeft,
    GameWon,
    PedestrianHurt,
    PedestrianKilled,
    Rammed,
    Skidded,
    VehicleDestroyed,
    WeaponFired,
)
from rules.battlecars.state import BattlecarsState
from rules.review import Check, GameReview, ReviewStep, TurningPoint, chance_of_check, checked_rolls

DESTROYED = 6   # a vehicle destroyed weighs as much as six armour boxes
KILLED = 4
WON = 3
_SIDES = {"d3": 3, "d6": 6, "d8": 8}
# How each check's rule reads (its event's `rule`): success when the total is at least the target, at most
# it, or above it; a roll read any other way (a table row, a drift) is no check the review can prove.
_AT_LEAST = re.compile(r"range dice: .* >= range|explodes on \d+\+|out on \d+\+")
_AT_MOST = re.compile(r"skids on a roll of -?\d+ or less|cannot skid")
_ABOVE = re.compile(r"(they work|run over) on a roll of -?\d+ or less|range dice: .* > range")


def _chance(roll: DiceRolled) -> Fraction | None:
    """The exact chance of the check's outcome, by how its rule reads; None for no check."""
    if roll.success is None or roll.target is None or roll.dice not in _SIDES:
        return None
    faces = tuple(range(1, _SIDES[roll.dice] + 1))
    if _AT_LEAST.fullmatch(roll.rule):
        return chance_of_check(faces, roll.faces, roll.modifier, roll.target, roll.success)
    if _AT_MOST.match(roll.rule):
        return chance_of_check(faces, roll.faces, roll.modifier, roll.target, roll.success, at_most=True)
    if _ABOVE.match(roll.rule):
        return chance_of_check(faces, roll.faces, roll.modifier, roll.target + 1, roll.success)
    return None


def _what(event: object) -> tuple[int, str] | None:
    """What one event that followed a check did, with its size in the review's measure; None: nothing."""
    if isinstance(event, ArmourHit) and event.boxes_lost:
        return event.boxes_lost, f"{event.vehicle} lost {event.boxes_lost} {event.section} armour"
    if isinstance(event, ComponentHit) and "destroyed" in event.result:
        return 2, f"{event.vehicle}'s {event.component} was destroyed"
    if isinstance(event, VehicleDestroyed):
        return DESTROYED, f"{event.vehicle} was destroyed ({event.why})"
    if isinstance(event, Skidded):
        return 1, f"{event.vehicle} skidded"
    if isinstance(event, Crashed):
        return 2, f"{event.vehicle} crashed into {event.into}"
    if isinstance(event, Rammed):
        return 2, f"{event.rammer} rammed {event.rammed}"
    if isinstance(event, DriverLeft):
        return 1, f"{event.driver} got out on foot"
    if isinstance(event, PedestrianHurt):
        return event.points, f"{event.driver} was hurt ({event.points})"
    if isinstance(event, PedestrianKilled):
        return KILLED, f"{event.driver} was killed"
    if isinstance(event, GameWon):
        return WON, event.describe().rstrip(".")
    return None


def _subject(event: object) -> str | None:
    """Whom an event is about (a vehicle or a driver's name), where it says so."""
    for name in ("vehicle", "who", "driver"):
        if isinstance(value := getattr(event, name, None), str):
            return value
    return None


def _own(roller: str, event: object) -> bool:
    """Whether an event is about the roller (its vehicle, or its driver on foot), or about nobody named."""
    subject = _subject(event)
    return subject is None or subject in (roller, f"{roller}'s driver")


_VERDICTS = ((re.compile(r"range dice"), "hit", "missed"), (re.compile(r"explodes"), "it exploded", "it held"),
             (re.compile(r"out on"), "got out", "stayed in the wreck"),
             (re.compile(r"skid"), "skidded", "held the road"),
             (re.compile(r"they work"), "caught by it", "avoided it"),
             (re.compile(r"run over"), "dived clear", "was run over"))


def _verdict(roll: DiceRolled) -> str:
    """The check's outcome in words."""
    for rule, yes, no in _VERDICTS:
        if rule.search(roll.rule):
            return yes if roll.success else no
    return "yes" if roll.success else "no"


def _check(roll: object, _step: ReviewStep) -> Check | None:
    """A check with its exact chance, by how its rule reads."""
    if not isinstance(roll, DiceRolled) or (chance := _chance(roll)) is None:
        return None
    rule = re.sub(r"(>=?) range$", rf"\1 range {roll.target}", roll.rule)   # the range the shot was at
    return Check(roll.who, f"{roll.purpose} ({rule})", chance, _verdict(roll))


def _ends(roll: DiceRolled, later: object) -> bool:
    """Whether an event is past a check's consequence: the next check or shot, or (but for a shot, whose
    consequence is its target's) an event about someone else."""
    if isinstance(later, WeaponFired) or isinstance(later, DiceRolled) and later.success is not None:
        return True
    return roll.purpose != "rolls to hit" and not _own(roll.who, later)


def turning_points(steps: Sequence[ReviewStep]) -> list[TurningPoint]:
    """Every check the log proves, and what the events after it in its action did."""
    return checked_rolls(steps, "turn", _check, _ends, _what)


def standing(state: BattlecarsState) -> Mapping[str, int]:
    """Each seat's armour boxes left (none once its vehicle is destroyed)."""
    left = {}
    for seat in state.players:
        vehicle = state.vehicle_of(seat.id)
        left[seat.id] = 0 if vehicle is None or vehicle.destroyed else sum(vehicle.armour)
    return left


REVIEW = GameReview(turning_points, standing, lambda state: state.round + 1, "armour boxes left", round_word="turn")
