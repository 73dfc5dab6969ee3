"""How `pitboss selfplay` sets up Battlecars games of computer drivers, and what its summary counts."""

from __future__ import annotations

from rules.battlecars import data
from rules.engine import SelfplaySetup, event_type


def _seats(rng) -> list[str]:
    """Two to six computer drivers, each with a mat drawn at random."""
    mats = list(data.vehicles())
    return [f"/game add-ai vehicle:{rng.choice(mats)}" for _ in range(rng.randint(2, data.table()["max_players"]))]


# A round cap far above the 2-12 turns a game takes, so drivers who never meet still end in a draw.
SELFPLAY = SelfplaySetup(lambda rng: f"rounds:60 board:{rng.choice(data.board_ids())}", _seats, (
    ("shots", event_type("WeaponFired")), ("rams", event_type("Rammed")), ("skids", event_type("Skidded")),
    ("drops", event_type("CounterDropped")), ("pedestrians", event_type("DriverLeft")),
    ("run over", event_type("PedestrianDived"))))
