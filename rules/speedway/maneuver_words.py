"""The maneuver names a player types (the command grammar reads them without loading the game's rules)."""

from __future__ import annotations

from rules.speedway import data

SIDES = {"left": 1, "right": -1}
SLIDE = "slide"


def maneuver_choices() -> tuple[str, ...]:
    """Every maneuver name a player can type, e.g. 'turn-left'."""
    names: list[str] = []
    for m in data.maneuvers().values():
        names.extend(f"{m.id}-{side}" for side in SIDES) if m.sided else names.append(m.id)
    return tuple(names)
