"""How `pitboss selfplay` sets up Battlecars games of computer drivers, and what its summary counts."""

from __future__ import annotations

from rules.battlecars import data
from rules.engine import SelfplaySetup, event_type


def _seats(rng) -> list[str]:
    """Two to six computer drivers, each with a mat drawn at random."""
    mats = list(data.vehicles())
    return [f"/game add-ai vehicle:{rng.choice(mats)}" for _ in range(rng.randint(2, data.table()["max_players"]))]


def _seated(kind: str):
    """Counts the vehicles of one type seated (their Joined events)."""
    names = {spec.name for spec in data.vehicles().values() if spec.type == kind}
    return lambda event: event["type"] == "Joined" and event["vehicle"] in names


def _round(rid: str):
    """Counts one kind of round used: fired (missiles) or dropped (passive rounds)."""
    spec = data.rounds()[rid]
    if spec.kind == "passive":
        return lambda event: event["type"] == "CounterDropped" and event["kind"] == spec.name.lower()
    return lambda event: event["type"] == "WeaponFired" and f"({spec.name}," in event["weapon"]


# A round cap far above the 2-12 turns a game takes, so drivers who never meet still end in a draw.
SELFPLAY = SelfplaySetup(lambda rng: f"rounds:60 board:{rng.choice(data.board_ids())}", _seats, (
    ("shots", event_type("WeaponFired")), ("rams", event_type("Rammed")), ("skids", event_type("Skidded")),
    ("drops", event_type("CounterDropped")), ("pedestrians", event_type("DriverLeft")),
    ("run over", event_type("PedestrianDived")), ("cover hits", event_type("SceneryDamaged")),
    *((f"{kind}s", _seated(kind)) for kind in data.TYPES),
    *((rid, _round(rid)) for rid in data.rounds())))
