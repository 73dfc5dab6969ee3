"""Speedway's immutable game state: seats, cars with their damage-box sheets, and the turn."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from rules.codec import added_field
from rules.dice import DiceState
from rules.hexgrid import Hex, step
from rules.speedway.phases import RUNNING, SpeedwayPhase
from rules.table import Player as Player  # the shared seat; importers keep finding it here
from rules.table import required


@dataclass(frozen=True)
class DamageTrack:
    """A row of damage boxes; `crossed` boxes are crossed off from the left."""

    boxes: tuple[int, ...]
    crossed: int = 0
    after: int | None = None

    @property
    def rating(self) -> int | None:
        """The leftmost undamaged box, else the number after the boxes, else None (disabled)."""
        if self.crossed < len(self.boxes):
            return self.boxes[self.crossed]
        return self.after

    def cross(self, count: int = 1) -> DamageTrack:
        """Cross off `count` more boxes, left to right."""
        return replace(self, crossed=min(len(self.boxes), self.crossed + count))


@dataclass(frozen=True)
class Weapon:
    """A mounted weapon and its damage boxes."""

    name: str
    mount: str
    track: DamageTrack
    charges: int | None = None  # deployments left for defensive weapons; None: offensive

    @property
    def working(self) -> bool:
        """A weapon works while it has an undamaged box (and, if defensive, a charge)."""
        return self.track.crossed < len(self.track.boxes) and self.charges != 0

    @property
    def offensive(self) -> bool:
        return self.charges is None

    @property
    def label(self) -> str:
        return f"{self.name} ({self.mount})"


@dataclass(frozen=True)
class Systems:
    """A car sheet's six system rows."""

    engine: DamageTrack
    brakes: DamageTrack
    suspension: DamageTrack
    driver: DamageTrack
    targeting: DamageTrack
    armor: DamageTrack

    def rating(self, name: str) -> int:
        """A system's rating, with a disabled system counting as 0."""
        return getattr(self, name).rating or 0


@dataclass(frozen=True)
class Car:
    """One car: where it is, how fast, how wild, and its sheet."""

    player_ids: ClassVar[tuple[str, ...]] = ("owner",)

    id: str
    owner: str
    name: str
    design: str
    colour: int
    systems: Systems
    weapons: tuple[Weapon, ...]
    front: Hex | None = None
    facing: int = 0
    speed: int = 0
    inertia: int = 0
    in_control: bool = True
    skid: int | None = None
    fire_chips: int = 0
    fired: tuple[str, ...] = ()  # mounts of weapons fired this turn
    out: bool = False  # no longer operable: a wreck on the map
    oil_drops_left: int = 0  # oil counters still to lay behind the car, one per Move
    must_turn: bool = False  # ramming outcome A: the next Move must be a Turn
    painted: bool = added_field(False)  # drove through paint: Targeting lower until the end of its turn

    def weapon(self, mount: str) -> Weapon | None:
        """The weapon on a mount (Front, Back, Left, Right), if any."""
        return next((w for w in self.weapons if w.mount == mount), None)

    @property
    def back(self) -> Hex | None:
        """The back half of the counter, straight behind the front."""
        if self.front is None:
            return None
        return self.back_hex

    @property
    def front_hex(self) -> Hex:
        """The front half of a car on the map (KeyError before it is placed: a bug)."""
        return required(self.front, "car not on the map", self.id)

    @property
    def back_hex(self) -> Hex:
        """The back half of a car on the map, straight behind the front."""
        return step(self.front_hex, self.facing + 3)

    @property
    def skid_heading(self) -> int:
        """The direction an out-of-control car slides (always set while it is out of control)."""
        return required(self.skid, "car not skidding", self.id)

    @property
    def hexes(self) -> tuple[Hex, ...]:
        """Both hexes the counter covers (empty before the car is placed)."""
        if self.front is None:
            return ()
        return (self.front, self.back_hex)


@dataclass(frozen=True)
class PendingSkid:
    """A sided maneuver waits for the driver: accept or resist a skid, or swipe a car in a skid hex."""

    maneuver: str
    vector: int
    skid_applies: bool = True
    swipe_target: str | None = None  # the first car in a skid hex (the only one offered before revision 6)
    other_targets: tuple[str, ...] = added_field(())  # revision 6: the other cars in the skid hexes

    @property
    def swipe_targets(self) -> tuple[str, ...]:
        """Every car a swipe may hit, the first one first."""
        return ((self.swipe_target,) if self.swipe_target is not None else ()) + self.other_targets


@dataclass(frozen=True)
class PendingRam:
    """A ramming roll-off was won: `chooser` picks outcome A or B (seed: Ramming Collisions)."""

    player_ids: ClassVar[tuple[str, ...]] = ("chooser",)

    attacker: str
    defender: str
    struck: Hex
    chooser: str
    front: Hex  # where the attacker's front was heading
    facing: int
    skid: str = added_field("")  # revision 6: the Move's skid answer given in advance, for outcome B's skid


@dataclass(frozen=True)
class Hazard:
    """A counter on the map: a mine, an oil slick or smoke, and whose car laid it."""

    id: int
    kind: str
    hex: Hex
    owner: str
    owner_clear: bool = False  # the layer moved more than one hex away: no longer immune
    checked: tuple[str, ...] = ()  # cars a mine has already tested


# Rules revision 3 follows the seed where earlier revisions departed from it (RULES.md "Rules
# revisions"): a layer is immune to its own counters' every effect, a ram always goes through the
# roll-off and outcome, and outcome A on the last Move carries the Turn to the attacker's next Move.
SEED_FIDELITY = 3
# Rules revision 4: a ram whose two outcomes would leave the table the same (the attacker stopped
# where it is) asks nobody to choose; earlier revisions asked, and their logs hold the answer.
RAM_CHOICE_THAT_MATTERS = 4
# Rules revision 5 follows the seed where two rules meet (RULES.md "Rules revisions"): a Turn that rams and
# wins outcome B pays the Turn a ram owed and earns its inertia, a wreck's smoke waits for its owner's Upkeep
# while they still drive, a car rammed to speed 0 is In Control, and a Swipe's extra Move counts among oil's
# four.
WHERE_RULES_MEET = 5
# Rules revision 6 follows seed sentences an audit found the code contradicting (RULES.md "Rules revisions"): a
# car given no Move (speed 0) may still drop a mine, oil or smoke in its Movement phase, Armor disregards only
# results that would do something, a maneuver completed by ram outcome B at its skid speed asks the skid, and
# a car in either skid hex may be swiped.
SEED_AUDIT = 6


@dataclass(frozen=True)
class SpeedwayState:
    """Everything a Speedway game is; replaying its action log from `dice.seed` rebuilds it."""

    player_ids: ClassVar[tuple[str, ...]] = ("order", "winner")

    arena: str
    host: str
    dice: DiceState
    players: tuple[Player, ...] = ()
    cars: tuple[Car, ...] = ()
    phase: SpeedwayPhase = SpeedwayPhase.LOBBY
    order: tuple[str, ...] = ()
    round: int = 0
    turn_index: int = 0
    active_car: str | None = None
    moves_left: int = 0
    moves_total: int = 0
    pending_skid: PendingSkid | None = None
    pending_ram: PendingRam | None = None
    hazards: tuple[Hazard, ...] = ()
    next_hazard_id: int = 1
    winner: str | None = None  # the winning player's id
    ended_by: str | None = None
    agreed: str = added_field("")   # a result the table agreed to (rules.table.AgreeResult): "draw", "end"
    max_rounds: int | None = None  # a draw is declared when this many rounds have passed
    # The rules revision (setup option "revision"; see RULES.md). 2: unique car names, computer seats
    # with ids of their own, targets by car id. Left out of a snapshot while 1, as before it existed.
    revision: int = added_field(1)

    def car(self, car_id: str) -> Car:
        """Look a car up by id."""
        for car in self.cars:
            if car.id == car_id:
                return car
        raise KeyError(car_id)

    def player(self, player_id: str | None) -> Player | None:
        """The seat of `player_id`, if seated."""
        return next((p for p in self.players if p.id == player_id), None)

    def seat(self, player_id: str | None) -> Player:
        """The seat of a player the game knows is seated (KeyError otherwise: a bug)."""
        return required(self.player(player_id), "no such player", player_id)

    def cars_of(self, player_id: str) -> tuple[Car, ...]:
        """A player's cars in seating order."""
        return tuple(c for c in self.cars if c.owner == player_id)

    @property
    def turn_order(self) -> tuple[str, ...]:
        """This round's order: the base order rotated one seat per round."""
        if not self.order:
            return ()
        shift = self.round % len(self.order)
        return self.order[shift:] + self.order[:shift]

    @property
    def active_player(self) -> str | None:
        """Whose turn it is, if the game is running."""
        if self.phase not in RUNNING or not self.order:
            return None
        return self.turn_order[self.turn_index]

    @property
    def current_player(self) -> str:
        """Whose turn it is, in a game under way (KeyError otherwise: a bug)."""
        return required(self.active_player, "no turn under way", self.phase)

    @property
    def current_car(self) -> Car:
        """The car whose turn it is, in a game under way (KeyError otherwise: a bug)."""
        return self.car(required(self.active_car, "no car active", self.phase))

    @property
    def open_skid(self) -> PendingSkid:
        """The skid waiting for its answer (the SKID phase always holds one)."""
        return required(self.pending_skid, "no skid pending", self.phase)

    @property
    def open_ram(self) -> PendingRam:
        """The ramming outcome waiting to be chosen (the RAM phase always holds one)."""
        return required(self.pending_ram, "no ram pending", self.phase)

    @property
    def deciding_player(self) -> str | None:
        """Who the game waits on: the ramming roll-off's winner while it chooses, else the active player."""
        if self.pending_ram is not None:
            return self.pending_ram.chooser
        return self.active_player

    def operable_cars_of(self, player_id: str) -> tuple[Car, ...]:
        """A player's cars that are still in the game."""
        return tuple(c for c in self.cars_of(player_id) if not c.out)

    def car_named(self, name: str) -> Car | None:
        """A car by its name or its owner's name (case-insensitive): how revision 1 finds a target
        (the first car of that name). Revision 2 uses `combat.find_target`."""
        wanted = name.strip().lower()
        for car in self.cars:
            if car.name.lower() == wanted:
                return car
        owners = [c for c in self.cars if (p := self.player(c.owner)) and p.name.lower() == wanted]
        return owners[0] if len(owners) == 1 else None

    def with_car(self, car: Car) -> SpeedwayState:
        """A copy with one car replaced."""
        return replace(self, cars=tuple(car if c.id == car.id else c for c in self.cars))
