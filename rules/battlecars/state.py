"""Battlecars' game state: players, their vehicles with the marks on their play mats, the board's
counters, and where the turn stands. Immutable; replaying the action log from the dice seed rebuilds it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import ClassVar

from rules.battlecars import data
from rules.battlecars.grid import Point
from rules.codec import added_field
from rules.dice import DiceState
from rules.table import Player as Player  # the shared seat; importers keep finding it here
from rules.table import required

REVERSE = -1       # the speedo's R position: one point backwards
THREE_POINT = -2   # the speedo's 3 POINT TURN position: turn on the spot


class Phase(StrEnum):
    """Where a Battlecars game is; the values are what a stored snapshot holds."""

    LOBBY = "lobby"
    SPEED = "speed"        # every driver secretly sets a speed counter
    MOVE = "move"          # the active player moves and fires
    SECTION = "section"    # a hit vehicle's driver picks which armour section takes it
    RETURN = "return"      # a vehicle fired upon may return fire at its attacker
    FINISHED = "finished"


def speed_label(speed: int) -> str:
    """How a speed counter position reads on the dial: '7', 'R' or '3PT'."""
    return {REVERSE: "R", THREE_POINT: "3PT"}.get(speed, str(speed))


@dataclass(frozen=True)
class Pod:
    """A weapon pod (or the turret, id 'turret') as it stands: its load, the rounds left, and whether
    an internal hit has destroyed it."""

    id: str
    facing: str  # front, rear, left, right; 'any' for the turret
    load: str
    rounds: int
    destroyed: bool = False

    @property
    def label(self) -> str:
        name = data.rounds()[self.load].name
        return f"turret ({name})" if self.id == "turret" else f"pod {self.id} ({name}, {self.facing})"


@dataclass(frozen=True)
class Vehicle:
    """A vehicle and its play mat: position, speed counter, armour boxes left, components lost."""

    player_ids: ClassVar[tuple[str, ...]] = ("owner",)

    id: str  # v1, v2, ...
    owner: str
    design: str
    name: str
    colour: int
    point: Point | None = None
    facing: int = 0
    speed: int = 0
    armour: tuple[int, int, int] = (0, 0, 0)  # front, middle, rear boxes left
    engine_lost: int = 0
    tyres_lost: int = 0
    fuel_lost: int = 0
    driver_lost: int = 0
    pods: tuple[Pod, ...] = ()
    turret: Pod | None = None
    equipment_lost: tuple[str, ...] = ()
    fired: tuple[str, ...] = ()     # pods (and 'turret') fired this turn
    return_fired: tuple[str, ...] = added_field(())   # pods (and 'turret') fired as return fire this turn (rev. 6)
    targets: tuple[str, ...] = ()   # vehicles shot at this turn
    dropped: tuple[str, ...] = ()   # pods that dropped a passive round this turn
    moved: int = 0                  # points moved this turn
    drift: int = 0                  # skid drift carried into the next turn
    oiled: bool = False             # drove onto oil: straight on for the rest of the turn
    destroyed: bool = False
    driver_out: bool = False        # its driver is not aboard: left on foot, or escaped the wreck, or dead

    @property
    def spec(self) -> data.VehicleSpec:
        return data.vehicles()[self.design]

    def has(self, equipment: str) -> bool:
        """Whether a piece of equipment is fitted and working."""
        return equipment in self.spec.equipment and equipment not in self.equipment_lost

    def top_speed(self, revision: int) -> int:
        """The top speed the speedo allows now in a game of rules `revision`: the larger of the engine and
        tyre losses counts (found)."""
        spec = self.spec
        return max(0, spec.max_speed_at(revision) - max(self.engine_lost * spec.engine_loss,
                                                        self.tyres_lost * spec.tyre_loss))

    @property
    def dial_damaged(self) -> bool:
        """R and 3 POINT TURN are crossed off at the table's count of engine or tyre squares lost (ruling
        on the seed's "progressively ... eliminate reverse gears")."""
        return max(self.engine_lost, self.tyres_lost) >= data.table()["reverse_lost_at"]

    @property
    def has_reverse(self) -> bool:
        """Whether R is open on the speedo (a bike's mat has no R, found)."""
        return self.spec.type != "bike" and not self.dial_damaged

    @property
    def has_three_point(self) -> bool:
        return not self.dial_damaged

    def weapons(self) -> tuple[Pod, ...]:
        """The pods and the turret, in mat order."""
        return self.pods + ((self.turret,) if self.turret else ())

    def weapon(self, ident: str) -> Pod | None:
        wanted = ident.strip().lower()
        return next((w for w in self.weapons() if w.id.lower() == wanted), None)


@dataclass(frozen=True)
class Pedestrian:
    """A driver on foot (seed: "3 health points, a limited-use weapon, and can be run over")."""

    player_ids: ClassVar[tuple[str, ...]] = ("owner",)

    id: str        # d1 for the driver of v1
    owner: str
    name: str      # "alice's driver"
    point: Point
    health: int
    rounds: int
    walked: bool = False
    fired: bool = False
    fresh: bool = False  # just out of a wreck: acts from the next turn


def point_of(thing: Vehicle | Pedestrian) -> Point:
    """The point a vehicle or a pedestrian stands on (every vehicle is placed once the game starts)."""
    return required(thing.point, "not on the board", thing.id)


@dataclass(frozen=True)
class Counter:
    """A passive weapon's marker on a point: oil, mine, spikes or smoke."""

    id: int
    kind: str
    point: Point
    owner: str  # the vehicle that dropped it


@dataclass(frozen=True)
class PendingHit:
    """A hit whose damage two or more sections could take: the target's driver chooses (seed)."""

    player_ids: ClassVar[tuple[str, ...]] = ("chooser",)

    target: str     # vehicle id
    chooser: str    # its driver
    points: int
    sections: tuple[str, ...]
    flame: bool
    attacker: str = ""        # the vehicle that fired
    returning: bool = False   # the shot was return fire (none is returned to it)
    flamer: bool = added_field(False)   # a flame weapon's round, whose explosions an extinguisher stops (rev. 5)
    ram: bool = added_field(False)      # a ram's damage (rev. 6): no return fire follows it


@dataclass(frozen=True)
class PendingReturn:
    """A vehicle fired upon may answer its attacker with one round (found)."""

    player_ids: ClassVar[tuple[str, ...]] = ("chooser",)

    defender: str   # vehicle id
    chooser: str    # its driver
    attacker: str   # vehicle or pedestrian id


@dataclass(frozen=True)
class BattlecarsState:
    """Everything a Battlecars game is."""

    player_ids: ClassVar[tuple[str, ...]] = ("order", "active", "declared", "winner")

    board: str
    host: str
    dice: DiceState
    revision: int = 1
    big: bool = False
    players: tuple[Player, ...] = ()
    vehicles: tuple[Vehicle, ...] = ()
    phase: Phase = Phase.LOBBY
    round: int = 0
    order: tuple[str, ...] = ()     # players in moving order (the die roll's winner first)
    active: str | None = None       # the player moving now
    declared: tuple[tuple[str, int], ...] = ()   # secret speed counters, (player, speed); hidden in views
    pending_hit: PendingHit | None = None
    pending_return: PendingReturn | None = None
    returned: tuple[str, ...] = ()   # vehicles that returned fire during this driver's move
    counters: tuple[Counter, ...] = ()
    next_counter: int = 1
    pedestrians: tuple[Pedestrian, ...] = ()
    pistols_left: tuple[tuple[Point, int], ...] = ()   # a dead driver's pistol and its rounds, where they fell
    scenery_damage: tuple[tuple[Point, int], ...] = ()  # (a building's or clump's first point, damage taken)
    hidden: bool = False            # a view: declared speeds of others are blanked
    max_rounds: int | None = None
    winner: str | None = None
    ended_by: str | None = None
    agreed: str = added_field("")   # a result the table agreed to (rules.table.AgreeResult): "draw", "end"

    def player(self, player_id: str | None) -> Player | None:
        return next((p for p in self.players if p.id == player_id), None)

    def seat(self, player_id: str | None) -> Player:
        """The seated player of that id (LookupError when there is none: a bug)."""
        return required(self.player(player_id), "no such player", player_id)

    def vehicle(self, vehicle_id: str) -> Vehicle:
        """The vehicle of that id (KeyError when there is none: a bug, never a player's mistake)."""
        for vehicle in self.vehicles:
            if vehicle.id == vehicle_id:
                return vehicle
        raise KeyError(vehicle_id)

    def vehicle_of(self, player_id: str | None) -> Vehicle | None:
        return next((v for v in self.vehicles if v.owner == player_id), None)

    def vehicle_for(self, player_id: str | None) -> Vehicle:
        """The player's vehicle (every seat has one; LookupError otherwise: a bug)."""
        return required(self.vehicle_of(player_id), "no vehicle for player", player_id)

    def vehicle_at(self, point: Point) -> Vehicle | None:
        return next((v for v in self.vehicles if v.point == point), None)

    def with_vehicle(self, vehicle: Vehicle) -> BattlecarsState:
        return replace(self, vehicles=tuple(vehicle if v.id == vehicle.id else v for v in self.vehicles))

    @property
    def the_board(self) -> data.Board:
        return data.board(self.board, self.big)

    def pedestrian_of(self, player_id: str | None) -> Pedestrian | None:
        return next((p for p in self.pedestrians if p.owner == player_id), None)

    def pedestrian_at(self, point: Point) -> Pedestrian | None:
        return next((p for p in self.pedestrians if p.point == point), None)

    def with_pedestrian(self, walker: Pedestrian) -> BattlecarsState:
        return replace(self, pedestrians=tuple(walker if p.id == walker.id else p for p in self.pedestrians))

    def without_pedestrian(self, walker_id: str) -> BattlecarsState:
        return replace(self, pedestrians=tuple(p for p in self.pedestrians if p.id != walker_id))

    def pedestrian(self, walker_id: str) -> Pedestrian:
        """The pedestrian of that id (LookupError when there is none: a bug)."""
        return required(next((p for p in self.pedestrians if p.id == walker_id), None), "no such pedestrian",
                        walker_id)

    @property
    def open_hit(self) -> PendingHit:
        """The hit waiting for its section (the SECTION phase always holds one)."""
        return required(self.pending_hit, "no hit waits for a section", self.phase)

    @property
    def open_return(self) -> PendingReturn:
        """The chance to return fire (the RETURN phase always holds one)."""
        return required(self.pending_return, "no return fire is open", self.phase)

    def face_down(self, player_id: str) -> bool:
        """Whether `player_id`'s speed counter is down but blanked in this view (not yet revealed)."""
        return self.hidden and any(p == player_id for p, _ in self.declared)

    def shootable(self, ident: str | None) -> Vehicle | Pedestrian | None:
        """A vehicle (v2) or a pedestrian (d2) by id."""
        return next((v for v in self.vehicles if v.id == ident), None) or \
            next((p for p in self.pedestrians if p.id == ident), None)

    def target(self, ident: str) -> Vehicle | Pedestrian:
        """The vehicle or pedestrian of that id (LookupError when there is none: a bug)."""
        found = self.shootable(ident)
        if found is None:   # not `required`: mypy solves its type variable against this union as `object`
            raise LookupError(f"no such target: {ident!r}")
        return found

    def counter_at(self, point: Point) -> Counter | None:
        return next((c for c in self.counters if c.point == point), None)
