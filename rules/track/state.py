"""The track game's immutable state: seats, cars, hands, the draw and discard piles, and the turn."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rules.codec import added_field
from rules.dice import DiceState
from rules.track.phases import TrackPhase

PITS = "pits"     # the seed's Home area (Pits in the NEW VERSION reskin)
RING = "ring"     # the playing field: holes 0..ring_holes-1, clockwise
LANE = "lane"     # off the field: spot 0 is the white dot W, 1..5 are F1..F5


def evolve(obj, **changes):
    """`dataclasses.replace` for the hot paths: a copy with some fields changed, without re-running
    `__init__` (these dataclasses have no validation or `__post_init__`), several times faster."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    new.__dict__.update(changes)
    return new


@dataclass(frozen=True)
class Rulings:
    """The referee's settings (rulings.toml defaults, overridable per game)."""

    exact_count_into_finish: bool
    overshoot_own_corner: str  # "lane_only" or "go_round"
    may_pass_own_cars: bool
    start_spot_safe: bool
    seven_split_into_finish: bool
    seven_may_split: bool
    joker_forced: bool
    first_player: str  # "cut" or "host"


@dataclass(frozen=True)
class Board:
    """The reconstructed board (board.toml), copied into the state so a game keeps its geometry."""

    ring_holes: int
    corners: tuple[int, ...]
    start_after_corner: int
    finish_holes: int
    cars_per_player: int
    hand_size: int


@dataclass(frozen=True)
class Car:
    """One car (a peg): its owner, its number c1..c5 and where it is."""

    player_ids: ClassVar[tuple[str, ...]] = ("owner",)

    owner: str
    id: str  # "c1".."c5"
    where: str = PITS
    spot: int = 0  # ring hole, or lane spot (0 = W, 1..5 = F1..F5); 0 in the pits

    @property
    def finished(self) -> bool:
        """In F1..F5 (the white dot does not count)."""
        return self.where == LANE and self.spot >= 1


@dataclass(frozen=True)
class Player:
    """A seat: the seat index fixes the corner and start spot."""

    player_ids: ClassVar[tuple[str, ...]] = ("id",)

    id: str
    name: str
    seat: int
    ai: bool = False
    offered_to: str = added_field("")   # rules.seats: whom the seat is offered to,
    played_by: str = added_field("")    # who took it over,
    resigned: bool = added_field(False)  # and whether its player resigned


@dataclass(frozen=True)
class Hand:
    """A player's cards. `view` empties other players' hands; `size` always tells how many there are."""

    player_ids: ClassVar[tuple[str, ...]] = ("player",)

    player: str
    cards: tuple[str, ...]
    size: int


@dataclass(frozen=True)
class CarMove:
    """One car's move in the last play, for the board's highlighted path."""

    player_ids: ClassVar[tuple[str, ...]] = ("owner",)

    owner: str
    car: str
    from_where: str
    from_spot: int
    to_where: str
    to_spot: int
    path: tuple[int, ...] = ()  # ring holes passed through, then lane spots as ring_holes + spot


# Rules revision 3 follows the seed's Joker (RULES.md "Rules revisions"): a Joker that can move must be
# played by default, and it may swap a car from its own white dot.
SEED_FIDELITY = 3
# Rules revision 4 referees "from anywhere" as written: a Joker may swap a car out of its finish holes.
JOKER_FROM_FINISH = 4
# Rules revision 5: a Joker comes out when no opponent car on the field can be taken, so a car safe on
# its start spot (ruling start_spot_safe) no longer stops it.
JOKER_OUT_PAST_SAFE = 5
# Rules revision 6: the finish rulings' non-default settings do what their words say. Without exact count
# a car stops short in the deepest free hole of its lane it can reach; go_round laps a car its lane cannot
# take; a split 7 kept out of the finish keeps a car on its white dot out too.
FINISH_RULINGS_AS_WORDED = 6
# Ruling defaults of the games stored before revision 3, which replay as they were played.
RULINGS_BEFORE_SEED_FIDELITY = {"joker_forced": False}


@dataclass(frozen=True)
class TrackState:
    """Everything a track game is; replaying its action log from `dice.seed` rebuilds it exactly."""

    player_ids: ClassVar[tuple[str, ...]] = ("order", "winner")

    host: str
    dice: DiceState
    rulings: Rulings
    board: Board
    players: tuple[Player, ...] = ()
    cars: tuple[Car, ...] = ()
    hands: tuple[Hand, ...] = ()
    draw_pile: tuple[str, ...] = ()  # top card first; emptied by `view`
    draw_count: int = 0
    discard_pile: tuple[str, ...] = ()  # face up, most recent last
    phase: TrackPhase = TrackPhase.LOBBY
    order: tuple[str, ...] = ()
    turn_index: int = 0
    turn: int = 0  # turns begun so far
    round: int = 0
    reshuffles: int = 0
    last_card: str = ""
    last_moves: tuple[CarMove, ...] = ()
    winner: str | None = None
    ended_by: str | None = None
    agreed: str = added_field("")   # a result the table agreed to (rules.table.AgreeResult): "draw", "end"
    max_rounds: int | None = None
    hidden: bool = False  # True in a view with hidden information removed
    # The rules revision (setup option "revision"): 2 gives every seat a unique name and computer
    # seats ids of their own; 3 (SEED_FIDELITY) follows the seed on the Joker; 4 (JOKER_FROM_FINISH) lets
    # it swap a finished car; 5 and 6 as their constants above say. Left out of a snapshot while 1, as
    # before it existed.
    revision: int = added_field(1)

    def player(self, player_id: str | None) -> Player | None:
        """The seat of `player_id`, if seated."""
        for p in self.players:
            if p.id == player_id:
                return p
        return None

    def seated(self, player_id: str | None) -> Player:
        """The seat of `player_id`, who is seated (KeyError otherwise: a bug, never a player's mistake)."""
        seat = self.player(player_id)
        if seat is None:
            raise KeyError(player_id)
        return seat

    def cars_of(self, player_id: str) -> tuple[Car, ...]:
        """A player's cars, c1..c5."""
        return tuple([c for c in self.cars if c.owner == player_id])

    def car(self, owner: str, car_id: str) -> Car:
        for c in self.cars:
            if c.owner == owner and c.id == car_id:
                return c
        raise KeyError((owner, car_id))

    def hand(self, player_id: str) -> Hand:
        for h in self.hands:
            if h.player == player_id:
                return h
        raise KeyError(player_id)

    @property
    def active_player(self) -> str | None:
        if self.phase != TrackPhase.PLAY or not self.order:
            return None
        return self.order[self.turn_index]

    @property
    def top_discard(self) -> str:
        return self.discard_pile[-1] if self.discard_pile else ""

    def corner_of(self, player_id: str) -> int:
        return self.board.corners[self.seated(player_id).seat]

    def start_of(self, player_id: str) -> int:
        return (self.corner_of(player_id) + self.board.start_after_corner) % self.board.ring_holes

    def occupant(self, where: str, spot: int, lane_owner: str | None = None) -> Car | None:
        """The car in a ring hole, or in `lane_owner`'s lane spot."""
        for c in self.cars:
            if c.where == where and c.spot == spot and (where != LANE or c.owner == lane_owner):
                return c
        return None

    def with_car(self, car: Car) -> TrackState:
        return evolve(self, cars=tuple(car if (c.owner, c.id) == (car.owner, car.id) else c
                                        for c in self.cars))

    def with_hand(self, player_id: str, cards: tuple[str, ...]) -> TrackState:
        return evolve(self, hands=tuple(Hand(h.player, cards, len(cards)) if h.player == player_id else h
                                         for h in self.hands))
