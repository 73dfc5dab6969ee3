"""The track game's events, past tense; none ever names a card that is still hidden."""

from __future__ import annotations

from dataclasses import dataclass

from rules.codec import Registry, added_field
from rules.table import GameEnded as GameEnded  # shared
from rules.table import HostChanged as HostChanged
from rules.table import TurnBegan as TurnBegan
from rules.table import register_table_events

EVENTS = Registry()
register_table_events(EVENTS)


@EVENTS.register
@dataclass(frozen=True)
class PlayerJoined:
    player: str

    def describe(self) -> str:
        return f"{self.player} joined."


@EVENTS.register
@dataclass(frozen=True)
class GameStarted:
    order: tuple[str, ...]
    hand_size: int

    def describe(self) -> str:
        return (f"The game started: the deck was shuffled and {self.hand_size} cards dealt to each player. "
                f"Turn order: {', '.join(self.order)}.")



@EVENTS.register
@dataclass(frozen=True)
class CardPlayed:
    player: str
    card: str
    use: str  # e.g. "come out", "11", "split 4+3", "swap", "back 8"

    def describe(self) -> str:
        return f"{self.player} played {self.card} ({self.use})."


@EVENTS.register
@dataclass(frozen=True)
class CarCameOut:
    car: str
    at: str

    def describe(self) -> str:
        return f"{self.car} came out of the pits onto its start spot {self.at}."


@EVENTS.register
@dataclass(frozen=True)
class CarMoved:
    car: str
    steps: int  # negative: backwards
    from_spot: str
    to_spot: str

    def describe(self) -> str:
        how = f"back {-self.steps}" if self.steps < 0 else f"{self.steps} forward"
        return f"{self.car} moved {how}: {self.from_spot} -> {self.to_spot}."


@EVENTS.register
@dataclass(frozen=True)
class CarBumped:
    car: str
    at: str
    by: str
    holes: int = added_field(0)   # how far along its course the car sent back had come (0 in older logs)

    def describe(self) -> str:
        return f"{self.by} landed on {self.car} at {self.at}: {self.car} goes back to the pits."


@EVENTS.register
@dataclass(frozen=True)
class CarsSwapped:
    car: str
    from_spot: str
    target: str
    at: str
    holes: int = added_field(0)   # how far along its course the car sent back had come (0 in older logs)

    def describe(self) -> str:
        return (f"Joker: {self.car} ({self.from_spot}) took {self.target}'s place at {self.at}; "
                f"{self.target} goes back to the pits.")


@EVENTS.register
@dataclass(frozen=True)
class CardDiscarded:
    player: str
    card: str

    def describe(self) -> str:
        return f"{self.player} had no move and discarded {self.card}."


@EVENTS.register
@dataclass(frozen=True)
class CardDrawn:
    player: str
    draw_count: int

    def describe(self) -> str:
        return f"{self.player} drew a card ({self.draw_count} left in the draw pile)."


@EVENTS.register
@dataclass(frozen=True)
class DeckReshuffled:
    cards: int

    def describe(self) -> str:
        return f"The draw pile ran out: {self.cards} discards were shuffled into a new draw pile."


@EVENTS.register
@dataclass(frozen=True)
class CarFinished:
    car: str
    finished: int

    def describe(self) -> str:
        return f"{self.car} is in the finish ({self.finished} of 5)."


@EVENTS.register
@dataclass(frozen=True)
class GameWon:
    player: str

    def describe(self) -> str:
        return f"{self.player} has all five cars in the finish and wins!"


@EVENTS.register
@dataclass(frozen=True)
class WonByResignation:
    player: str

    def describe(self) -> str:
        return f"{self.player} wins: the other player resigned."


@EVENTS.register
@dataclass(frozen=True)
class GameDrawn:
    rounds: int

    def describe(self) -> str:
        return f"The round limit ({self.rounds}) was reached: the game is a draw."



def hit_size(event: dict) -> tuple[int, str] | None:
    """A logged event's hit, for the end-of-game summary: the holes a car sent back to the pits had come."""
    holes = event.get("holes")
    if type(holes) is not int or holes <= 0:
        return None
    if event.get("type") == "CarBumped":
        return holes, f"{event.get('by')} sent {event.get('car')} back to the pits from {holes} holes along"
    if event.get("type") == "CarsSwapped":
        return holes, f"{event.get('car')}'s Joker sent {event.get('target')} back to the pits from {holes} holes along"
    return None
