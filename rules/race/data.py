"""Loads the race's data files (vehicles, racers, tracks, table values) into plain values, refusing
anything that does not make sense with a message naming the file and field. The same checks read a
group's own vehicle or racer, so every door is guarded alike."""

from __future__ import annotations

import builtins
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, NoReturn

from rules.names import NAME_LIMIT, plain_name

DATA_DIR = Path(__file__).with_name("data")
ABILITIES = ("str", "dex", "con", "int", "wis", "cha")
SIZES = {"small": (6, 3), "medium": (8, 5)}       # found (SOTG): hull die and its count at tier 0
HAZARDS = ("railing", "coarse_wall", "spiked_wall", "difficult_terrain", "ditch", "deep_trench", "traffic")
SEVERITIES = ("setback", "dangerous", "deadly")
FEATURES = ("boost", "boost_trap", "trampoline", "gap", "mines", "magnetic")
LEGALITY = ("legal", "illegal", "ask")
HINT_LIMIT = 300


class DataError(ValueError):
    """A data file (or an imported vehicle, racer or track) that cannot be used as written."""


def _refuse(where: str, what: str) -> NoReturn:
    """Refuses a file's field, naming the file and the field."""
    raise DataError(f"{where}: {what}")


def _need(ok: bool, where: str, what: str) -> None:
    if not ok:
        _refuse(where, what)


def _load(name: str) -> dict:
    with (DATA_DIR / name).open("rb") as fh:
        return tomllib.load(fh)


def _int(raw: dict, key: str, where: str, low: int, high: int, default: int | None = None) -> int:
    value = raw.get(key, default)
    if type(value) is not int or not low <= value <= high:
        _refuse(where, f"{key} must be a whole number from {low} to {high}")
    return value


def _choice(raw: dict, key: str, where: str, choices: tuple[str, ...], default: str | None = None) -> str:
    """One of a field's named values (any other value, of whatever kind, is refused by name)."""
    value = raw.get(key, default)
    shown = ", ".join(c for c in choices if c)
    if not isinstance(value, str) or value not in choices:
        _refuse(where, f"{key} is one of {shown}")
    return value


def _text(raw: dict, key: str, where: str, default: str | None = None, limit: int = NAME_LIMIT) -> str:
    """Words from a file, cleaned as every name is (no markup, mentions or invisible characters)."""
    value = raw.get(key, default)
    if not isinstance(value, str) or not 0 < len(value) <= 2000:
        _refuse(where, f"{key} must be some text")
    cleaned = plain_name(value, "", limit)
    _need(bool(cleaned), where, f"{key} must be some text")
    return cleaned


def modifier(score: int) -> int:
    """Found (5e): an ability score's modifier, floor((score - 10) / 2)."""
    return (score - 10) // 2


def vehicle_die(score: int) -> int | None:
    """Seed, Table 1: the die of a vehicle roll for an ability score; None below 10 (not qualified)."""
    for least, die in ((20, 20), (18, 12), (16, 10), (14, 8), (12, 6), (10, 4)):
        if score >= least:
            return die
    return None


# --- weapons -------------------------------------------------------------------------------------

FACINGS = ("forward", "backward", "sideways", "any")   # a vehicle weapon's; a pilot's sidearm is "hand"


@dataclass(frozen=True)
class Weapon:
    """A pilot's hand weapon (facing 'hand') or a vehicle's: to-hit bonus, damage dice, loudness."""

    name: str
    attack: int
    dice: int
    die: int
    bonus: int
    loud: bool
    facing: str = "hand"
    save: int = 0          # an explosive's Dexterity save DC (no attack roll: a save halves the damage)


def weapon_from(raw: Any, where: str, facing: str | None = None) -> Weapon:
    """A weapon from its data, checked; `facing` None reads a vehicle weapon's own."""
    _need(isinstance(raw, dict), where, "a weapon is a table of values")
    if facing is None:
        facing = _choice(raw, "facing", where, FACINGS)
    return Weapon(_text(raw, "name", where), _int(raw, "attack", where, -5, 30, 0), _int(raw, "dice", where, 1, 10),
                  _int(raw, "die", where, 2, 12), _int(raw, "bonus", where, -5, 20, 0), bool(raw.get("loud", True)),
                  facing, _int(raw, "save", where, 0, 30, 0))


# --- vehicles ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class VehicleSpec:
    """A racing vehicle: its physical abilities and what the seed's and SOTG's formulas make of them."""

    id: str
    name: str
    size: str
    tier: int
    str: int
    dex: int
    con: int
    max_speed: int
    ceiling: int
    hull_dice: int
    hull_die: int
    hp: int
    ac: int
    weapons: tuple[Weapon, ...] = ()   # none on the default vehicles (racing legality)

    def die(self, ability: builtins.str) -> int:
        """The vehicle roll's die for 'str', 'dex' or 'con' (seed, Table 1)."""
        die = vehicle_die(getattr(self, ability))
        if die is None:   # vehicle_from refuses a score below 10
            _refuse(self.id, f"{ability} is below 10: the vehicle is not qualified for racing")
        return die


def vehicle_from(vid: str, raw: Any, where: str) -> VehicleSpec:
    """A vehicle from its data (a file's table, or a group's own), checked."""
    _need(isinstance(raw, dict), where, "a vehicle is a table of values")
    name = _text(raw, "name", where, vid)
    size = _choice(raw, "size", where, tuple(SIZES), "small")
    tier = _int(raw, "tier", where, 0, 5, 0)
    scores = {a: _int(raw, a, where, 1, 30) for a in ("str", "dex", "con")}
    for ability, score in scores.items():
        # Seed: "If any of the vehicle's physical Ability scores are less than 10, the vehicle is, usually,
        # not qualified for racing."
        _need(score >= 10, where, f"{ability} {score} is below 10: the vehicle is not qualified for racing")
    formula_speed = 50 + (scores["str"] + modifier(scores["dex"]) - modifier(scores["con"])) * 25
    # A file that leaves max_speed to the formula is told what the formula made of its scores.
    _need("max_speed" in raw or formula_speed >= 300, where,
          f"max_speed is not set, and the formula 50 + (Str {scores['str']} + Dex modifier "
          f"{modifier(scores['dex']):+d} - Con modifier {modifier(scores['con']):+d}) x 25 gives "
          f"{formula_speed} km/h, below the 300 a racer needs: set max_speed (300 to 2000) or raise Str")
    max_speed = _int(raw, "max_speed", where, 300, 2000, formula_speed)
    ceiling = _int(raw, "ceiling", where, 1, 1000, max(1, 25 + modifier(scores["str"]) * 25))
    die, count = SIZES[size]
    dice = count + tier
    con = modifier(scores["con"])
    hp = max(1, die + con + (dice - 1) * (die // 2 + 1 + con))   # SOTG: the first die at its maximum
    ac_tier = {0: 0, 1: 0, 2: 1, 3: 2, 4: 3, 5: 4}[tier]
    ac = _int(raw, "ac", where, 5, 30, 10 + modifier(scores["dex"]) + ac_tier)
    raw_weapons = raw.get("weapons", [])
    _need(isinstance(raw_weapons, list) and len(raw_weapons) <= 4, where, "weapons is a list of at most 4")
    weapons = tuple(weapon_from(w, f"{where} weapon {n}") for n, w in enumerate(raw_weapons, start=1))
    return VehicleSpec(vid, name, size, tier, scores["str"], scores["dex"], scores["con"], max_speed, ceiling,
                       dice, die, _int(raw, "hp", where, 1, 500, hp), ac, weapons)


@cache
def vehicles() -> dict[str, VehicleSpec]:
    """The default vehicles by id."""
    raw_vehicles = _load("vehicles.toml")["vehicles"]
    return {vid: vehicle_from(vid, raw, f"vehicles.toml [{vid}]") for vid, raw in raw_vehicles.items()}


# --- racers --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RacerSpec:
    """A pilot's stat block: abilities and the skill totals a race asks for."""

    id: str
    name: str
    str: int
    dex: int
    con: int
    int: int
    wis: builtins.int
    cha: builtins.int
    piloting: builtins.int
    technology: builtins.int
    mechanic: builtins.int
    perception: builtins.int
    insight: builtins.int
    deception: builtins.int
    performance: builtins.int
    initiative: builtins.int
    dex_save: builtins.int
    sidearm: Weapon | None
    kit: builtins.str = "mechanic"  # the Patch kit: "mechanic", "other" (a GM's approval) or "none"
    force_user: bool = False    # Savvy may use Wisdom or Charisma instead of Intelligence (seed)

    @property
    def passive_perception(self) -> builtins.int:
        return 10 + self.perception


SKILLS = ("piloting", "technology", "mechanic", "perception", "insight", "deception", "performance",
          "initiative", "dex_save")


def racer_from(rid: str, raw: Any, where: str) -> RacerSpec:
    """A racer from its data (a file's table, or a group's own), checked."""
    _need(isinstance(raw, dict), where, "a racer is a table of values")
    name = _text(raw, "name", where, rid)
    scores = {a: _int(raw, a, where, 1, 30, 10) for a in ABILITIES}
    skills = {s: _int(raw, s, where, -10, 30, modifier(scores["int"]) if s in ("piloting", "technology", "mechanic")
                      else 0) for s in SKILLS}
    sidearm = weapon_from(raw["sidearm"], f"{where} sidearm", "hand") if raw.get("sidearm") is not None else None
    kit = raw.get("kit", "mechanic")
    _need(kit in ("mechanic", "other", "none"), where, "kit is mechanic, other or none")
    force = raw.get("force_user", False)
    _need(isinstance(force, bool), where, "force_user is true or false")
    return RacerSpec(rid, name, **scores, **skills, sidearm=sidearm, kit=kit, force_user=force)


@cache
def racers() -> dict[str, RacerSpec]:
    """The default racers by id."""
    return {rid: racer_from(rid, raw, f"racers.toml [{rid}]") for rid, raw in _load("racers.toml")["racers"].items()}


# --- tracks --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Hazard:
    """What a failed section check throws a racer into (seed, "Hazard suggestions")."""

    kind: str
    height: int = 0           # at or below it the racer hits this hazard; above it, the secondary one
    severity: str = ""        # the damage row's column: setback, dangerous, deadly ('' for none)
    speed_die: int = 0        # speed lost: a die x 10 km/h (coarse wall d4, difficult terrain d6-d12)
    rejoin: bool = False      # after it, back on the track last at 300 km/h (traffic beside the track)
    what: str = ""            # its name in words: "banthas", "jungle"


@dataclass(frozen=True)
class Condition:
    """A section condition: what it adds to DCs, and where (seed, "Section conditions")."""

    kind: str
    altitude: int = 0         # 0: at every altitude
    damage_dice: int = 0      # a storm's strike: dice of `damage_die`, a Dexterity save at `save_dc` for none
    damage_die: int = 0
    save_dc: int = 0
    what: str = ""


@dataclass(frozen=True)
class Feature:
    """A section feature (seed, "Features suggestions"): positive ones are contacted at `dc`, negative
    ones avoided at `dc`; a gap with no `dc` is unavoidable (before Race revision 5, every gap)."""

    kind: str
    dc: int = 0
    speed: int = 0            # boost: km/h gained; magnetic: lost; trampoline: lost; gap: needed
    altitude: int = 0         # trampoline: metres gained
    dice: int = 0             # mines: damage dice of `die`
    die: int = 0
    detect: int = 0           # boost trap: the passive Perception that sees it

    @property
    def positive(self) -> bool:
        return self.kind in ("boost", "boost_trap", "trampoline")


@dataclass(frozen=True)
class Section:
    name: str
    type: str
    hint: str
    hazard: Hazard
    secondary: Hazard | None
    conditions: tuple[Condition, ...]
    before: tuple[Feature, ...]
    after: tuple[Feature, ...]


@dataclass(frozen=True)
class Track:
    id: str
    name: str
    league: str
    laps: int
    ram: str
    weapons: str
    judges_dc: int
    sections: tuple[Section, ...]


def _hazard(raw: Any, where: str) -> Hazard:
    _need(isinstance(raw, dict), where, "a hazard is a table of values")
    kind = _choice(raw, "kind", where, HAZARDS)
    severity = _choice(raw, "severity", where, ("",) + SEVERITIES, "")
    die = _int(raw, "speed_die", where, 0, 12, 0)
    _need(die in (0, 4, 6, 8, 10, 12), where, "speed_die is 4, 6, 8, 10 or 12")
    return Hazard(kind, _int(raw, "height", where, 0, 1000, 0), severity, die, bool(raw.get("rejoin", False)),
                  _text(raw, "what", where, kind.replace("_", " ")))


def _condition(raw: Any, where: str) -> Condition:
    _need(isinstance(raw, dict), where, "a condition is a table of values")
    kind = _choice(raw, "kind", where, tuple(table()["conditions"]))
    return Condition(kind, _int(raw, "altitude", where, 0, 1000, 0), _int(raw, "damage_dice", where, 0, 10, 0),
                     _int(raw, "damage_die", where, 0, 12, 0), _int(raw, "save_dc", where, 0, 30, 0),
                     _text(raw, "what", where, kind.replace("_", " ")))


def _feature(raw: Any, where: str) -> Feature:
    _need(isinstance(raw, dict), where, "a feature is a table of values")
    kind = _choice(raw, "kind", where, FEATURES)
    made = Feature(kind, _int(raw, "dc", where, 0, 30, 0), _int(raw, "speed", where, 0, 1000, 0),
                   _int(raw, "altitude", where, 0, 1000, 10 if kind == "trampoline" else 0),
                   _int(raw, "dice", where, 0, 20, 0), _int(raw, "die", where, 0, 12, 0),
                   _int(raw, "detect", where, 0, 30, 0))
    _need(kind != "mines" or bool(made.dice and made.die), where, "mines need dice and die")
    _need(kind != "gap" or bool(made.speed), where, "a gap needs the speed that clears it")
    return made


MOST_FEATURES = 4   # a section's features before (and after) the action phase: the seed's samples use 2


def _items(raw: dict, key: str, where: str, most: int | None) -> list:
    """A list field of a table (absent: empty), of at most `most` entries when bounded."""
    value = raw.get(key, [])
    _need(isinstance(value, list), where, f"{key} is a list of tables")
    _need(most is None or len(value) <= most, where, f"{key} has at most {most} entries")
    return value


def track_from(tid: str, raw: Any, where: str, bounded: bool = True) -> Track:
    """A track from its data (a file, or a group's own), checked. `bounded` holds a section to what a
    track needs (MOST_FEATURES a stage, each condition once); games of Race revision 1 read their own
    track without those bounds, as they always did."""
    _need(isinstance(raw, dict), where, "a track is a table of values")
    league = _choice(raw, "league", where, tuple(table()["leagues"]), "rookie")
    ram, weapons = _choice(raw, "ram", where, LEGALITY, "legal"), _choice(raw, "weapons", where, LEGALITY, "illegal")
    raw_sections = raw.get("sections")
    _need(isinstance(raw_sections, list) and 1 <= len(raw_sections) <= 12, where, "a track has 1 to 12 sections")
    sections = []
    for n, sec in enumerate(raw_sections, start=1):
        at = f"{where} section {n}"
        _need(isinstance(sec, dict), at, "a section is a table of values")
        kind = _choice(sec, "type", at, tuple(table()["section_types"]))
        most = MOST_FEATURES if bounded else None
        before = tuple(_feature(f, f"{at} feature") for f in _items(sec, "before", at, most))
        after = tuple(_feature(f, f"{at} feature") for f in _items(sec, "after", at, most))
        conditions = tuple(_condition(c, f"{at} condition")
                           for c in _items(sec, "conditions", at, len(table()["conditions"]) if bounded else None))
        kinds = [c.kind for c in conditions]
        _need(not bounded or len(set(kinds)) == len(kinds), at, "each condition kind is given once")
        sections.append(Section(_text(sec, "name", at), kind, _text(sec, "hint", at, "No hint.", HINT_LIMIT),
                                _hazard(sec.get("hazard"), f"{at} hazard"),
                                _hazard(sec["secondary"], f"{at} secondary") if sec.get("secondary") else None,
                                conditions, before, after))
    judged = "illegal" in (ram, weapons) or "ask" in (ram, weapons)
    return Track(tid, _text(raw, "name", where, tid), league, _int(raw, "laps", where, 1, 10, 1), ram,
                 weapons, _int(raw, "judges_dc", where, 1, 30, 12 if judged else 10), tuple(sections))


def track_ids() -> tuple[str, ...]:
    """Every built-in track's id."""
    return tuple(sorted(p.stem for p in (DATA_DIR / "tracks").glob("*.toml")))


@cache
def track(tid: str) -> Track:
    """A built-in track by id; KeyError when there is none."""
    if tid not in track_ids():
        raise KeyError(tid)
    return track_from(tid, _load(f"tracks/{tid}.toml"), f"tracks/{tid}.toml")


@cache
def table() -> dict:
    """The table values (game.toml)."""
    return _load("game.toml")


def speed_penalty(speed: int) -> int:
    """Seed, Table 2: the Piloting penalty for speed, -1 per full 50 km/h above 300, at most -10 (the
    table's last row; ruling on the uncapped sentence)."""
    return -min(10, max(0, (speed - 300) // 50))

