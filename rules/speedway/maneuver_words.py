"""The maneuver names a player types (the command grammar reads them without loading the game's rules)."""

from __future__ import annotations

from rules.speedway import data

SIDES = {"left": 1, "right": -1}
SLIDE = "slide"


def maneuver_choices() -> tuple[str, ...]:
    """Every maneuver name a player can type, e.g. 'turn-left'."""
    names: list[str] = []
    for m in data.maneuvers().values():
        names.extend(maneuver_name(m, side) for side in SIDES.values()) if m.sided else names.append(m.id)
    return tuple(names)


def maneuver_name(maneuver: data.Maneuver, side: int) -> str:
    """The name a player types for a maneuver to one side: (the Tight Turn, -1) -> 'tight-turn-right'."""
    if not maneuver.sided:
        return maneuver.id
    return f"{maneuver.id}-{next(word for word, s in SIDES.items() if s == side)}"
