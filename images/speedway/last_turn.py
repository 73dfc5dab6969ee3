"""What the last action shows on the picture, read from its logged events: the roll for the dice strip
and the shot for the map. Nothing of it is stored in the state (rewording an event changes no snapshot)."""

from __future__ import annotations

from dataclasses import dataclass

from rules.hexgrid import Hex
from rules.speedway.events import DiceRolled, WeaponFired
from rules.speedway.state import Car, SpeedwayState


@dataclass(frozen=True)
class Shot:
    """A shot to draw: from the firer's front hex to the target's, a hit or a miss."""

    firer: Car
    from_hex: Hex
    to_hex: Hex
    hit: bool


def car_in(state: SpeedwayState, car_id: str, name: str) -> Car | None:
    """The car an event means: by its id, or by its name in events logged before they carried ids."""
    if car_id:
        return next((c for c in state.cars if c.id == car_id), None)
    return next((c for c in state.cars if c.name == name), None)


def last_roll(events: tuple) -> DiceRolled | None:
    """The action's last roll of dice (what the caption's dice strip shows), if it rolled any."""
    return next((e for e in reversed(events) if isinstance(e, DiceRolled)), None)


def last_shot(state: SpeedwayState, events: tuple) -> Shot | None:
    """The action's shot, with its to-hit roll's verdict, if it fired one. Firing moves no car, so the
    cars stand where they fired from and at."""
    for index, event in enumerate(events):
        if not isinstance(event, WeaponFired):
            continue
        firer = car_in(state, event.car_id, event.car)
        target = car_in(state, event.target_id, event.target)
        roll = next((e for e in events[index + 1:] if isinstance(e, DiceRolled)), None)
        if firer is None or target is None or firer.front is None or target.front is None or roll is None:
            return None
        return Shot(firer, firer.front, target.front, roll.success)
    return None
