"""How `pitboss selfplay` sets up Speedway games of computer drivers, and what its summary counts."""

from __future__ import annotations

from rules.engine import SelfplaySetup, event_type
from rules.speedway import data


def _seats(rng) -> list[str]:
    designs = tuple(data.car_designs())
    return [f"/game add-ai car:{rng.choice(designs)}" for _ in range(rng.choice((2, 2, 3, 4)))]


def _is_hit(event: dict) -> bool:
    return event["type"] == "DiceRolled" and event["dice"] == "d6" and event["success"]


def _new(rng) -> str:
    """A round cap, and every arena in turn by chance (the Junkyard brings debris, water and paint)."""
    return f"rounds:60 arena:{rng.choice(data.arena_ids())}"


SELFPLAY = SelfplaySetup(_new, _seats, (
    ("shots", event_type("WeaponFired")), ("hits", _is_hit), ("collisions", event_type("Collided"))))
