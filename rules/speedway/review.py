"""Speedway's review: its turning points (to-hit rolls and Driver Rolls, each against the target its event
names) and each seat's damage boxes left through the game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rules.review import Check, GameReview, ReviewStep, TurningPoint, chance_of_check, checked_rolls
from rules.speedway import data
from rules.speedway.events import (
    CarSlid,
    CarWrecked,
    Collided,
    ControlLost,
    DamageTaken,
    DiceRolled,
    GameWon,
    MineExploded,
    WeaponFired,
)
from rules.speedway.state import Car, SpeedwayState

WRECKED = 6   # a car out weighs as much as six damage effects
LOST_CONTROL = 3
WON = 3


def _faces(dice: str) -> tuple[int, ...] | None:
    """The faces of a die the event names."""
    return {"d6": (1, 2, 3, 4, 5, 6), "white driver dice": data.driver_die()}.get(dice)


def _roller(state: SpeedwayState, roll: DiceRolled) -> str:
    """Who rolled, by their seat's name (and the car's, where it has another)."""
    car = next((c for c in state.cars if c.id == roll.car_id or not roll.car_id and c.name == roll.car), None)
    seat = state.player(car.owner) if car is not None else None
    if seat is None or seat.name == roll.car:
        return roll.car
    return f"{seat.name}'s {roll.car}"


def _what(event: object) -> tuple[int, str] | None:
    """What one event that followed a roll did, with its size in the review's measure; None: nothing."""
    if isinstance(event, DamageTaken) and event.effects:
        return len(event.effects), f"{event.car} took {', '.join(event.effects)}"
    if isinstance(event, CarWrecked):
        return WRECKED, f"{event.car} was out"
    if isinstance(event, ControlLost):
        return LOST_CONTROL, f"{event.car} lost control"
    if isinstance(event, CarSlid):
        return 1, f"{event.car} slid {event.direction}"
    if isinstance(event, Collided):
        return 2, f"{event.car} and {event.other} collided ({event.kind})"
    if isinstance(event, MineExploded):
        return 1, f"the mine at {event.at_hex} exploded"
    if isinstance(event, GameWon):
        return WON, event.describe().rstrip(".")
    return None


def _check(roll: object, step: ReviewStep) -> Check | None:
    """A to-hit roll or Driver Roll, with its exact chance from its dice, modifier and target."""
    if not isinstance(roll, DiceRolled) or (faces := _faces(roll.dice)) is None:
        return None
    chance = chance_of_check(faces, roll.faces, roll.modifier, roll.target, roll.success)
    if chance is None:
        return None
    plus = f" + {roll.modifier}" if roll.modifier else ""
    dice = f"{len(roll.faces)}{roll.dice}" if roll.dice == "d6" else f"{len(roll.faces)} {roll.dice}"
    return Check(_roller(step.state, roll), f"{roll.purpose} ({dice}{plus} >= {roll.target})", chance, roll.verdict)


def turning_points(steps: Sequence[ReviewStep]) -> list[TurningPoint]:
    """Every roll a check proves, and what the events after it in its action did (up to the next roll or shot)."""
    return checked_rolls(steps, "round", _check, lambda _roll, later: isinstance(later, DiceRolled | WeaponFired),
                         _what)


def boxes_left(car: Car) -> int:
    """The damage boxes a car has left on its sheet (systems and weapons); none once it is out."""
    if car.out:
        return 0
    systems = car.systems
    rows = [systems.engine, systems.brakes, systems.suspension, systems.driver, systems.targeting, systems.armor]
    rows += [weapon.track for weapon in car.weapons]
    return sum(len(row.boxes) - row.crossed for row in rows)


def standing(state: SpeedwayState) -> Mapping[str, int]:
    """Each seat's damage boxes left, over its cars."""
    return {seat.id: sum(boxes_left(car) for car in state.cars_of(seat.id)) for seat in state.players}


REVIEW = GameReview(turning_points, standing, lambda state: state.round + 1, "damage boxes left")
