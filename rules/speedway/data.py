"""Loads Speedway's data files (arenas, car designs, maneuvers, dice faces) into plain values."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rules.hexgrid import Hex, direction_index, from_offset, label, parse_label, step

DATA_DIR = Path(__file__).with_name("data")
# The seed's "Other Counters" an arena may start with (RECONSTRUCTION of their effects: RULES.md).
ARENA_COUNTERS = ("debris", "water", "paint")


def _load(name: str) -> dict:
    with (DATA_DIR / name).open("rb") as fh:
        return tomllib.load(fh)


@dataclass(frozen=True)
class StartSlot:
    """Where a seat's car begins: its front hex and facing."""

    front: Hex
    facing: int


@dataclass(frozen=True)
class Arena:
    """A hex field inside walls; hexes outside the field or in `obstacles` cannot be entered."""

    id: str
    name: str
    columns: int
    rows: int
    obstacles: frozenset[Hex]
    starts: tuple[StartSlot, ...]
    counters: tuple[tuple[str, Hex], ...] = ()  # (kind, hex) on the map from the start: debris, water, paint

    def in_field(self, h: Hex) -> bool:
        """True when `h` lies inside the arena walls."""
        q, r = h
        col = q + (r - (r & 1)) // 2
        return 0 <= r < self.rows and 0 <= col < self.columns

    def is_open(self, h: Hex) -> bool:
        """True when a car may occupy `h` (inside the walls, not an obstacle)."""
        return self.in_field(h) and h not in self.obstacles

    def field_hexes(self) -> tuple[Hex, ...]:
        """Every hex inside the walls, row by row."""
        return tuple(from_offset(c, r) for r in range(self.rows) for c in range(self.columns))


@dataclass(frozen=True)
class TrackSpec:
    """A damage-box row as printed on a car sheet."""

    boxes: tuple[int, ...]
    after: int | None


@dataclass(frozen=True)
class WeaponSpec:
    """A weapon as printed on a car sheet."""

    name: str
    mount: str
    boxes: tuple[int, ...]


@dataclass(frozen=True)
class CarDesign:
    """A pre-built car: its systems' damage rows and its weapons."""

    id: str
    name: str
    summary: str
    systems: dict[str, TrackSpec]
    weapons: tuple[WeaponSpec, ...]


@dataclass(frozen=True)
class Maneuver:
    """One maneuver's geometry and costs, in sixths of a turn relative to the car's facing."""

    id: str
    label: str
    front_step: int
    turn: int
    inertia: int
    skid_speed: int | None
    skid: int | None
    sided: bool


SYSTEMS = ("engine", "brakes", "suspension", "driver", "targeting", "armor")
MOUNTS = ("Front", "Back", "Left", "Right")


@cache
def arena(arena_id: str) -> Arena:
    """Load an arena by id (its file name under data/arenas)."""
    path = DATA_DIR / "arenas" / f"{arena_id}.toml"
    if not path.is_file() or not arena_id.replace("-", "").isalnum():
        raise KeyError(arena_id)
    raw = _load(f"arenas/{arena_id}.toml")
    result = Arena(
        id=arena_id,
        name=raw["name"],
        columns=raw["columns"],
        rows=raw["rows"],
        obstacles=frozenset(parse_label(h) for h in raw["obstacles"]),
        starts=tuple(
            StartSlot(parse_label(s["front"]), direction_index(s["facing"])) for s in raw["starts"]
        ),
        counters=tuple((c["kind"], parse_label(c["hex"])) for c in raw.get("counters", ())),
    )
    for slot in result.starts:
        if not result.is_open(slot.front):
            raise ValueError(f"arena {arena_id}: start {slot} is not an open hex")
    starting = {h for s in result.starts for h in (s.front, step(s.front, s.facing + 3))}
    for kind, h in result.counters:
        if kind not in ARENA_COUNTERS or not result.is_open(h) or h in starting:
            raise ValueError(f"arena {arena_id}: a {kind} counter at {label(h)} must be one of "
                             f"{', '.join(ARENA_COUNTERS)} on an open hex that no car starts on")
    return result


def arena_ids() -> tuple[str, ...]:
    """All bundled arenas."""
    return tuple(sorted(p.stem for p in (DATA_DIR / "arenas").glob("*.toml")))


def _track(raw: dict) -> TrackSpec:
    return TrackSpec(tuple(raw["boxes"]), raw.get("after"))


@cache
def car_designs() -> dict[str, CarDesign]:
    """Every bundled car design by id, in file order."""
    raw = _load("cars.toml")
    base = raw["base"]
    designs = {}
    for design_id, spec in raw["designs"].items():
        systems = {name: _track(spec.get(name, base[name])) for name in SYSTEMS}
        weapons = tuple(WeaponSpec(w["name"], w["mount"], tuple(w["boxes"])) for w in spec["weapons"])
        for weapon in weapons:
            if weapon.mount not in MOUNTS:
                raise ValueError(f"car {design_id}: bad mount {weapon.mount}")
            if weapon.name not in offensive_weapons() and weapon.name not in defensive_weapons():
                raise ValueError(f"car {design_id}: unknown weapon {weapon.name}")
        if len({w.mount for w in weapons}) != len(weapons):
            raise ValueError(f"car {design_id}: one weapon per mount")
        designs[design_id] = CarDesign(design_id, spec["name"], spec["summary"], systems, weapons)
    return designs


@cache
def default_design() -> str:
    """The design a player gets when `/game join` names none."""
    return _load("cars.toml")["default"]


@cache
def maneuvers() -> dict[str, Maneuver]:
    """The four maneuvers by id."""
    return {
        key: Maneuver(
            id=key,
            label=spec["label"],
            front_step=spec["front_step"],
            turn=spec["turn"],
            inertia=spec["inertia"],
            skid_speed=spec.get("skid_speed"),
            skid=spec.get("skid"),
            sided=spec["sided"],
        )
        for key, spec in _load("maneuvers.toml").items()
    }


@cache
def driver_die() -> tuple[int, ...]:
    """Faces of the white driver die."""
    return tuple(_load("dice.toml")["driver"])


@cache
def table_limits() -> dict:
    """Player counts, top speed and the default arena."""
    return _load("game.toml")


def max_cars(arena_id: str) -> int:
    """How many cars an arena seats: the table's limit, or fewer when the arena has fewer starts."""
    return min(table_limits()["max_players"], len(arena(arena_id).starts))


@dataclass(frozen=True)
class RangeBand:
    """Damage dice for shots up to `up_to` hexes."""

    up_to: int
    dice: tuple[str, ...]


@dataclass(frozen=True)
class OffensiveWeapon:
    """An offensive weapon's table row: maximum range and damage dice per range band."""

    name: str
    max_range: int
    bands: tuple[RangeBand, ...]

    def dice_at(self, range_hexes: int) -> tuple[str, ...]:
        """The damage dice for a hit at this range (empty beyond the maximum)."""
        for band in self.bands:
            if range_hexes <= band.up_to:
                return band.dice
        return ()


@dataclass(frozen=True)
class DefensiveWeapon:
    """A defensive weapon: the hazard it lays and how many times it can."""

    name: str
    hazard: str
    charges: int
    follow_up_moves: int = 0


@cache
def offensive_weapons() -> dict[str, OffensiveWeapon]:
    """The seed's nine offensive weapons by name."""
    raw = _load("weapons.toml")["offensive"]
    return {
        name: OffensiveWeapon(name, spec["max_range"],
                              tuple(RangeBand(band[0], tuple(band[1:])) for band in spec["bands"]))
        for name, spec in raw.items()
    }


@cache
def defensive_weapons() -> dict[str, DefensiveWeapon]:
    """Mines, oil and smoke by weapon name."""
    raw = _load("weapons.toml")["defensive"]
    return {name: DefensiveWeapon(name, spec["hazard"], spec["charges"], spec.get("follow_up_moves", 0))
            for name, spec in raw.items()}


@cache
def damage_dice() -> dict[str, tuple[str, ...]]:
    """Faces of the blue, yellow, green, red and gray damage dice."""
    return {colour: tuple(faces) for colour, faces in _load("dice.toml")["damage"].items()
            if isinstance(faces, list) and colour != "armor_priority"}


@cache
def armor_priority() -> tuple[str, ...]:
    """Which results Armor disregards first."""
    return tuple(_load("dice.toml")["damage"]["armor_priority"])


@cache
def collision_rules() -> dict:
    """Collision and hazard dice and constants (collisions.toml)."""
    return _load("collisions.toml")
