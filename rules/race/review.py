"""The Race's review: its turning points (the opposed rolls, a maneuver's Piloting against its target's and a
feint's Deception against Insight, whose chance the two events prove: the mover wins only by rolling higher)
and each racer's place, section by section (1: leading; a racer out falls behind every racer still in, the
later out ahead). Its checks against a DC are left out: their events do not name the DC (a section's may be
the GM's secret), so no such roll's chance can be proved from the log alone."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache

from rules.race.events import Damaged, DiceRolled, HazardHit, Maneuver, Out, PlacesLost, PlacesSwapped
from rules.race.state import RaceState
from rules.review import GameReview, ReviewStep, TurningPoint, told

D20 = 20
OUT = 6


@cache
def _kept(edge: int) -> dict[int, Fraction]:
    """The chance of each face a d20 check keeps: one die, or the higher (1) or lower (-1) of two."""
    if edge == 0:
        return {k: Fraction(1, D20) for k in range(1, D20 + 1)}
    if edge > 0:
        return {k: Fraction(k * k - (k - 1) ** 2, D20 * D20) for k in range(1, D20 + 1)}
    return {k: Fraction((D20 + 1 - k) ** 2 - (D20 - k) ** 2, D20 * D20) for k in range(1, D20 + 1)}


def _kept_face(roll: DiceRolled) -> int | None:
    """The face a d20 check kept, or None when the event is not one (its total not what its dice make)."""
    if roll.dice != "d20" or len(roll.faces) != (2 if roll.edge else 1) or not all(1 <= f <= D20 for f in roll.faces):
        return None
    kept = max(roll.faces) if roll.edge > 0 else min(roll.faces)
    return kept if kept + sum(v for _k, v in roll.modifiers) == roll.total else None


def chance_higher(ours: DiceRolled, theirs: DiceRolled) -> Fraction:
    """P(the first check's total beats the second's), each d20 with its own edge and modifiers."""
    plus = sum(v for _k, v in ours.modifiers) - sum(v for _k, v in theirs.modifiers)
    return sum((pa * pb for a, pa in _kept(ours.edge).items() for b, pb in _kept(theirs.edge).items()
                if a + plus > b), Fraction(0))


def _opposed(first: object, second: object) -> bool:
    """Whether two events in a row are an opposed pair: a maneuver's check and its target's answer, or a feint."""
    if not isinstance(first, DiceRolled) or not isinstance(second, DiceRolled):
        return False
    answered = first.purpose.startswith("Piloting (") and second.purpose == f"Piloting against {first.who}"
    return answered or (first.purpose == "Deception (feint)" and second.purpose == "Insight")


def _what(event: object) -> int:
    """How much an event that followed an opposed roll weighs: places and racers out most."""
    if isinstance(event, Out):
        return OUT
    if isinstance(event, PlacesSwapped):
        return 3
    if isinstance(event, PlacesLost):
        return 2 * event.places
    if isinstance(event, HazardHit):
        return 1
    if isinstance(event, Damaged):
        return 1 + event.points // 10
    return 0


def turning_points(steps: Sequence[ReviewStep]) -> list[TurningPoint]:
    """Every opposed roll: the mover's exact chance to roll higher, and what the events after it did (up to the
    next d20 check)."""
    found = []
    for step in steps:
        events = step.events
        for index in range(len(events) - 1):
            ours, theirs = events[index], events[index + 1]
            if not _opposed(ours, theirs) or _kept_face(ours) is None or _kept_face(theirs) is None:
                continue
            won = ours.total > theirs.total
            made = chance_higher(ours, theirs)
            done, words = 1, []
            for later in events[index + 2:]:
                if isinstance(later, DiceRolled) and later.dice == "d20":
                    break
                if isinstance(later, Maneuver) or (weight := _what(later)):
                    done += 0 if isinstance(later, Maneuver) else weight
                    words.append(later.describe().rstrip("."))
            against = f"rolls {ours.purpose} against {theirs.who} ({ours.total} to {theirs.total})"
            found.append(TurningPoint(step.number, step.round, "section", ours.who, against, ours.faces,
                                      made if won else 1 - made, "rolled higher" if won else "did not roll higher",
                                      told(words), done))
    return found


def places(state: RaceState) -> Mapping[str, int]:
    """Each racer's seat and place: those racing in move order, then those out, the last out first."""
    racing = [r for r in (state.racer(i) for i in state.order) if not r.out]
    out = sorted((r for r in state.racers if r.out), key=lambda r: -r.out_order)
    return {racer.owner: place for place, racer in enumerate(racing + out, start=1)}


REVIEW = GameReview(turning_points, places, lambda state: state.round + 1, "place (1: leading)",
                    higher_is_better=False, round_word="section")
