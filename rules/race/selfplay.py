"""How `pitboss selfplay` sets up races of computer racers, and what its summary counts."""

from __future__ import annotations

from rules.engine import SelfplaySetup, event_type
from rules.race import data


def _seats(rng) -> list[str]:
    """Two to six computer racers, each with a pilot and a vehicle drawn at random."""
    pilots, vehicles = list(data.racers()), list(data.vehicles())
    return [f"/game add-ai pilot:{rng.choice(pilots)} vehicle:{rng.choice(vehicles)}"
            for _ in range(rng.randint(2, 6))]


def _maneuver(kind: str):
    return lambda event: event["type"] == "Maneuver" and event["kind"] == kind


def _out(why: str):
    return lambda event: event["type"] == "Out" and event["why"] == why


def _speed(why: str):
    return lambda event: event["type"] == "SpeedChanged" and event["why"] == why


def _reaction(kind: str):
    return lambda event: event["type"] == "Reacted" and event["reaction"] == kind


def _rolled(purpose: str):
    return lambda event: event["type"] == "DiceRolled" and event["purpose"].endswith(purpose)


SELFPLAY = SelfplaySetup(lambda rng: f"track:{rng.choice(data.track_ids())}", _seats, (
    ("passes", _maneuver("passes")), ("rams", _maneuver("rams")), ("sweeps", _maneuver("side sweeps")),
    ("feints", _maneuver("feints at")), ("shots", lambda e: e["type"] == "Maneuver" and e["kind"].startswith("shoots")),
    ("turbo boosts", _speed("turbo boosts")), ("emergency brakes", _maneuver("brakes hard in front of")),
    ("show offs", _rolled("Piloting (show off)")), ("savvies", _rolled("(savvy)")),
    ("patches", _rolled("Mechanic's kit (patch)")), ("blocks", _reaction("block")), ("dodges", _reaction("dodge")),
    ("sweep reactions", _reaction("sweep")), ("attack reactions", _reaction("attack")),
    ("boost strips", _speed("hits the boost strip")), ("hazards", event_type("HazardHit")),
    ("wrecks", _out("wrecked")), ("falls", _out("fell")), ("disqualifications", _out("disqualified"))))
