"""Loads Battlecars' data files (boards, vehicle mats, rounds, the d8 component tables, table values)
into plain values, refusing a file that does not make sense with a message naming the file and field."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rules.battlecars.grid import Point

DATA_DIR = Path(__file__).with_name("data")
TERRAIN = {".": "road", ",": "grass", "B": "building", "T": "trees"}
SECTIONS = ("front", "middle", "rear")
POD_FACINGS = ("front", "rear", "left", "right")
POD_TURN = {"front": 0, "right": 2, "rear": 4, "left": 6}   # eighths clockwise from the vehicle's nose
TYPES = ("car", "bike", "truck", "tank")
EQUIPMENT = ("supercharger", "power_brakes", "auto_steer", "crash_bars", "gunnery_computer", "fire_extinguisher")
TURNS = (45, 90, 135, 180)


class DataError(ValueError):
    """A data file that cannot be used as written."""


def _load(name: str) -> dict:
    with (DATA_DIR / name).open("rb") as fh:
        return tomllib.load(fh)


def _need(ok: bool, where: str, what: str) -> None:
    if not ok:
        raise DataError(f"{where}: {what}")


# --- boards ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Board:
    """A board of points: its terrain row by row (one character a point) and its start points."""

    id: str
    name: str
    rows: tuple[str, ...]
    starts: tuple[tuple[Point, int], ...]  # (point, facing) per seat, in seating order

    @property
    def width(self) -> int:
        return len(self.rows[0])

    @property
    def height(self) -> int:
        return len(self.rows)

    def inside(self, point: Point) -> bool:
        """Whether `point` is on the board."""
        return 0 <= point[0] < self.width and 0 <= point[1] < self.height

    def terrain(self, point: Point) -> str:
        """road, grass, building or trees; off the board: 'edge'."""
        if not self.inside(point):
            return "edge"
        return TERRAIN[self.rows[point[1]][point[0]]]

    def piece(self, point: Point) -> Point | None:
        """The building or tree clump `point` is part of, named by its first point (top row, then left);
        None for road, grass or off the board."""
        return _pieces(self.rows).get(point)


@cache
def _pieces(rows: tuple[str, ...]) -> dict[Point, Point]:
    """Each building or tree point -> the first point of the piece it belongs to: the points of one
    terrain joined orthogonally."""
    owner: dict[Point, Point] = {}
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if TERRAIN[ch] not in ("building", "trees") or (x, y) in owner:
                continue
            todo = [(x, y)]
            while todo:
                px, py = todo.pop()
                if (px, py) in owner or not (0 <= py < len(rows) and 0 <= px < len(row)) or rows[py][px] != ch:
                    continue
                owner[(px, py)] = (x, y)
                todo += [(px + 1, py), (px - 1, py), (px, py + 1), (px, py - 1)]
    return owner


def board_ids() -> tuple[str, ...]:
    """Every board's id, the classic open layout first."""
    names = sorted(p.stem for p in (DATA_DIR / "boards").glob("*.toml"))
    return tuple(sorted(names, key=lambda n: n != "open"))


@cache
def board(board_id: str, big: bool = False) -> Board:
    """A board by id: 13 x 9 points, or (`big`, for four players or more) two joined on a long edge and
    turned a quarter so the picture stays landscape: 17 x 13."""
    if board_id not in board_ids():
        raise KeyError(board_id)
    where = f"boards/{board_id}.toml"
    raw = _load(where)
    rows = tuple(raw.get("rows", ()))
    _need(bool(rows) and all(isinstance(r, str) and len(r) == len(rows[0]) for r in rows), where,
          "rows must be strings of one length")
    _need(all(ch in TERRAIN for r in rows for ch in r), where, f"a point is one of {''.join(TERRAIN)}")
    if big:   # turned a quarter so the joined pair lies landscape: 17 x 13
        turned = tuple("".join(rows[y][x] for y in range(len(rows))) for x in range(len(rows[0])))
        rows = tuple(row + row[::-1][1:] for row in turned)
    width, height = len(rows[0]), len(rows)
    mid_x, mid_y = width // 2, height // 2
    starts: tuple[tuple[Point, int], ...]
    if big:   # the centre points of both boards' sides
        half = len(raw["rows"]) // 2
        starts = (((0, mid_y), 2), ((width - 1, mid_y), 6), ((half, 0), 4), ((width - 1 - half, height - 1), 0),
                  ((width - 1 - half, 0), 4), ((half, height - 1), 0))
    else:
        starts = (((0, mid_y), 2), ((width - 1, mid_y), 6), ((mid_x, 0), 4), ((mid_x, height - 1), 0))
    made = Board(board_id, str(raw.get("name", board_id)), rows, starts)
    for point, _facing in starts:
        _need(made.terrain(point) in ("road", "grass"), where, f"start point {point} is inside a building or trees")
    return made


# --- rounds ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RoundSpec:
    """One kind of round a pod or turret holds."""

    id: str
    name: str
    kind: str  # missile or passive
    pods: tuple[str, ...]
    range_dice: int = 0
    max_range: int | None = None
    damage: int = 0  # d8 rolled
    bonus: int = 0
    turret: bool = False
    bikes: bool = True
    flame: bool = False
    explodes_on: int | None = None
    internal_hits: int = 0
    tyre_squares: int = 0


@cache
def rounds() -> dict[str, RoundSpec]:
    """Every round kind by id (weapons.toml)."""
    where = "weapons.toml"
    found = {}
    for rid, raw in _load(where)["rounds"].items():
        spec = RoundSpec(rid, raw["name"], raw["kind"], tuple(raw["pods"]), raw.get("range_dice", 0),
                         raw.get("max_range"), raw.get("damage", 0), raw.get("bonus", 0), raw.get("turret", False),
                         raw.get("bikes", True), raw.get("flame", False), raw.get("explodes_on"),
                         raw.get("internal_hits", 0), raw.get("tyre_squares", 0))
        _need(spec.kind in ("missile", "passive"), where, f"{rid}.kind is missile or passive")
        _need(all(p in POD_FACINGS for p in spec.pods), where, f"{rid}.pods are among {POD_FACINGS}")
        _need(spec.kind == "passive" or spec.range_dice > 0, where, f"{rid} needs range_dice")
        _need(spec.kind == "missile" or "front" not in spec.pods, where,
              f"{rid}: passive rounds never drop from the front")
        found[rid] = spec
    return found


# --- vehicles ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PodSpec:
    """A weapon pod as fitted: its letter, the way it fires, its load and rounds."""

    id: str
    facing: str
    load: str
    rounds: int


@dataclass(frozen=True)
class VehicleSpec:
    """A vehicle's play mat."""

    id: str
    name: str
    type: str
    armour: tuple[int, int, int]  # front, middle, rear
    engine: int
    engine_loss: int
    tyres: int
    tyre_loss: int
    fuel: int
    driver: int
    max_speed: int
    road: tuple[int, int]   # accel, decel
    grass: tuple[int, int]
    cornering: dict[str, tuple[int, ...]]   # by terrain: max speed for 45, 90, 135, 180 degrees
    auto_steer: dict[str, tuple[int, ...]]
    pods: tuple[PodSpec, ...]
    turret: PodSpec | None
    equipment: tuple[str, ...]
    components: str
    earlier_max_speed: tuple[int, int] | None = None   # (the last rules revision it held for, the top speed)

    def max_speed_at(self, revision: int) -> int:
        """The speedo's top position in a game of rules `revision`: a mat revised since keeps its earlier
        top in the games begun before."""
        if self.earlier_max_speed is not None and revision <= self.earlier_max_speed[0]:
            return self.earlier_max_speed[1]
        return self.max_speed


def _vehicle(vid: str, raw: dict) -> VehicleSpec:
    where = f"vehicles.toml [{vid}]"
    front, middle, rear = (int(raw["armour"][s]) for s in SECTIONS)
    armour = (front, middle, rear)
    pods = tuple(PodSpec(p["id"], p["facing"], p["load"], int(p["rounds"])) for p in raw.get("pods", ()))
    turret = raw.get("turret")
    earlier = raw.get("earlier_max_speed")
    spec = VehicleSpec(
        vid, raw["name"], raw["type"], armour, int(raw["engine"]["squares"]), int(raw["engine"]["speed_loss"]),
        int(raw["tyres"]["squares"]), int(raw["tyres"]["speed_loss"]), int(raw["fuel"]), int(raw["driver"]),
        int(raw["max_speed"]), (raw["road"]["accel"], raw["road"]["decel"]),
        (raw["grass"]["accel"], raw["grass"]["decel"]),
        {k: tuple(v) for k, v in raw.get("cornering", {}).items()},
        {k: tuple(v) for k, v in raw.get("auto_steer", {}).items()}, pods,
        PodSpec("turret", "any", turret["load"], int(turret["rounds"])) if turret else None,
        tuple(raw.get("equipment", ())), raw["components"],
        (int(earlier["until_revision"]), int(earlier["max_speed"])) if earlier else None)
    known = rounds()
    game = table()
    _need(spec.type in TYPES, where, f"type is one of {TYPES}")
    _need(all(a >= 0 for a in armour) and armour[0] > 0, where, "armour boxes are whole numbers, front above 0")
    _need(spec.engine > 0 and spec.fuel > 0 and spec.driver > 0 and spec.max_speed > 0, where,
          "engine, fuel, driver and max_speed are above 0")
    _need(spec.type == "tank" or all(len(spec.cornering.get(t, ())) == 4 for t in ("road", "grass")), where,
          "cornering gives road and grass speeds for 45, 90, 135 and 180 degrees")
    _need(all(e in EQUIPMENT for e in spec.equipment), where, f"equipment is among {EQUIPMENT}")
    _need(len({p.id for p in pods}) == len(pods), where, "pod letters are unique")
    for pod in pods:
        _need(pod.load in known, where, f"pod {pod.id} holds an unknown round {pod.load!r}")
        _need(pod.facing in known[pod.load].pods, where, f"pod {pod.id}: {pod.load} cannot go in a {pod.facing} pod")
        _need(spec.type != "bike" or known[pod.load].bikes, where, f"pod {pod.id}: a bike cannot carry {pod.load}")
        _need(0 < pod.rounds <= game["pod_capacity"], where, f"pod {pod.id} holds 1 to {game['pod_capacity']} rounds")
    if spec.turret:
        _need(spec.turret.load in known and known[spec.turret.load].kind == "missile", where,
              "a turret holds missile rounds")
        _need(0 < spec.turret.rounds <= game["turret_capacity"], where,
              f"the turret holds 1 to {game['turret_capacity']} rounds")
    _need(spec.components in component_tables(), where, "components names a table of components.toml")
    return spec


@cache
def vehicles() -> dict[str, VehicleSpec]:
    """Every vehicle mat by id, in the file's order (vehicles.toml). Seed, Player Reference: a bike has the
    "Higher top speed", so every bike's top speed is above every other vehicle's."""
    mats = {vid: _vehicle(vid, raw) for vid, raw in _load("vehicles.toml")["vehicles"].items()}
    bikes = [s.max_speed for s in mats.values() if s.type == "bike"]
    others = [s.max_speed for s in mats.values() if s.type != "bike"]
    _need(not bikes or not others or min(bikes) > max(others), "vehicles.toml",
          "every bike's max_speed is above every car's, truck's and tank's (seed: bikes have the higher top speed)")
    return mats


@cache
def component_tables() -> dict[str, dict[int, tuple[str, ...]]]:
    """The d8 internal-damage tables by name: roll -> what it hits, first that the vehicle has."""
    tables = {}
    for name, raw in _load("components.toml")["tables"].items():
        table_ = {int(k): tuple(v) for k, v in raw.items()}
        _need(sorted(table_) == list(range(1, 9)), f"components.toml [{name}]", "rows 1 to 8")
        tables[name] = table_
    return tables


@cache
def table() -> dict:
    """The table values (game.toml)."""
    raw = _load("game.toml")
    for key in ("building_strength", "trees_strength"):
        _need(isinstance(raw.get(key), int) and raw[key] > 0, "game.toml", f"{key} must be a whole number above 0")
    return raw
