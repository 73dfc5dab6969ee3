"""A planned turn, worked out without rolling: the path, the skid odds on the way, the shots at the end.

It reads only what every player can see (positions, ratings, published odds) and assumes each
skid is resisted successfully, so it shows the intended path, not a prediction of the dice.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.hexgrid import Hex
from rules.speedway import combat, data
from rules.speedway.driving import counter_hexes, maneuver_pose, parse_maneuver, skids_at
from rules.speedway.errors import IllegalManeuver
from rules.speedway.odds import driver_chance
from rules.speedway.state import Car, SpeedwayState
from rules.table import plural


@dataclass(frozen=True)
class PlannedStep:
    """One Move of the plan: where the counter ends up, and the chance to resist its skid (if any)."""

    maneuver: str
    front: Hex
    facing: int
    resist_chance: float | None
    blocked: bool


@dataclass(frozen=True)
class PlannedShot:
    """A shot the car could take from the end of the path."""

    weapon: str
    target: str
    chance: float


@dataclass(frozen=True)
class TurnPreview:
    """The whole plan: steps in order, the car at the end, and the shots from there."""

    car: str
    steps: tuple[PlannedStep, ...]
    end: Car
    shots: tuple[PlannedShot, ...]

    @property
    def swept(self) -> tuple[Hex, ...]:
        """Every hex the counter covers along the way (start excluded), in order, without repeats."""
        seen: list[Hex] = []
        for step in self.steps:
            for h in counter_hexes(step.front, step.facing):
                if h not in seen:
                    seen.append(h)
        return tuple(seen)


def preview_turn(state: SpeedwayState, car: Car, maneuvers: list[str]) -> TurnPreview:
    """Walk `maneuvers` from the car's position; stop at the first blocked step."""
    arena = data.arena(state.arena)
    occupied = {h for c in state.cars if c.id != car.id for h in c.hexes}
    current, inertia = car, car.inertia
    steps = []
    for name in maneuvers:
        spec, side = parse_maneuver(name)
        front, facing = maneuver_pose(current, spec, side)
        blocked = any(not arena.is_open(h) or h in occupied for h in counter_hexes(front, facing))
        inertia += spec.inertia
        chance = None
        if skids_at(spec, current.speed):
            chance = driver_chance(current.systems.rating("driver"), current.speed + inertia)
        steps.append(PlannedStep(name, front, facing, chance, blocked))
        if blocked:
            break
        current = replace(current, front=front, facing=facing, inertia=inertia)
    shots = tuple(PlannedShot(p.weapon.label, p.target.name, p.chance)
                  for p in combat.legal_shots(state.with_car(current), current))
    return TurnPreview(car.id, tuple(steps), current, shots)


def check_plan(car: Car, moves_left: int, maneuvers: list[str]) -> None:
    """Refuse a plan longer than the Moves left or naming an unknown maneuver."""
    if not maneuvers:
        raise IllegalManeuver("The plan is empty: list maneuvers separated by commas.")
    if len(maneuvers) > moves_left:
        raise IllegalManeuver(f"{car.name} has {plural(moves_left, 'Move', 'Moves')} left; "
                              f"the plan has {len(maneuvers)}.")
    for name in maneuvers:
        parse_maneuver(name)
