"""A car's whole turn in a few words, for the reply to the player who acted before it."""

from __future__ import annotations

from rules.speedway.events import (
    CarManeuvered,
    CarSlid,
    CarWrecked,
    Collided,
    DamageTaken,
    DiceRolled,
    GameDrawn,
    GameWon,
    HazardLaid,
    WeaponFired,
)
from rules.table import plural


def turn_summary(events: tuple) -> str:
    """Its Moves, shots and hits, crashes, the damage each car took, the cars put out, and the end."""
    moves = sum(1 for e in events if isinstance(e, (CarManeuvered, CarSlid)))
    parts = [plural(moves, "Move", "Moves")]
    shots = [e for e in events if isinstance(e, WeaponFired)]
    if shots:
        hits = sum(1 for e in events if isinstance(e, DiceRolled) and e.dice == "d6" and e.success)
        targets = ", ".join(dict.fromkeys(s.target for s in shots))
        parts.append(f"{plural(len(shots), 'shot', 'shots')} at {targets}, {plural(hits, 'hit', 'hits')}")
    laid = [e for e in events if isinstance(e, HazardLaid)]
    if laid:
        parts.append("laid " + ", ".join(dict.fromkeys(e.kind for e in laid)))
    parts += [e.describe().rstrip(".") for e in events if isinstance(e, Collided)]
    damage: dict[str, list[str]] = {}
    for event in events:
        if isinstance(event, DamageTaken):
            damage.setdefault(event.car, []).extend(event.effects)
    parts += [f"{car} took {', '.join(effects)}" for car, effects in damage.items()]
    parts += [e.describe().rstrip(".") for e in events if isinstance(e, (CarWrecked, GameWon, GameDrawn))]
    return "; ".join(parts) + "."
