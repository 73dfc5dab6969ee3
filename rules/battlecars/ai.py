"""Computer drivers and the deadline's autopilot: simple, legal, deterministic choices.

A computer driver cruises near speed 4, fires its best shot whenever it has one (the game offers none in
the middle of a move from rules revision 6), drives toward the nearest running enemy without skid tests
where it can, and puts a hit (or a ram's damage) on its thickest armour. The
autopilot (a driver who missed the deadline) keeps its speed (or, passive, brakes as hard as it may),
drives straight on where it can, never fires, and also guards its armour.
"""

from __future__ import annotations

from typing import Any

from rules.battlecars import combat, movement, passive, pedestrians, speed
from rules.battlecars.actions import (
    Board,
    ChooseSection,
    Drop,
    EndMove,
    Fire,
    HoldFire,
    Move,
    SetSpeed,
    ThreePointTurn,
    Walk,
)
from rules.battlecars.damage import is_running
from rules.battlecars.grid import FACING_NAMES, TURN_STEPS, distance, step
from rules.battlecars.state import THREE_POINT, BattlecarsState, Pedestrian, Phase, Vehicle, point_of
from rules.battlecars.turns import acting_players
from rules.errors import GameError

CRUISE = 4
DROP_RANGE = 4   # a computer drops its passive rounds once an enemy is this close


def _enemies(state: BattlecarsState, player: str) -> list[Vehicle | Pedestrian]:
    """Every other driver still in the game: their running vehicle, or them on foot."""
    return [v for v in state.vehicles if v.owner != player and is_running(v)] + \
        [p for p in state.pedestrians if p.owner != player]


def _acting(state: BattlecarsState, player: str) -> bool:
    return player in acting_players(state)


def _drive_choice(state: BattlecarsState, player: str, straight: bool) -> Any:
    """The next move-phase action: a turn toward the nearest enemy (or straight on), or the end."""
    vehicle = state.vehicle_for(player)
    here = point_of(vehicle)
    if vehicle.speed == THREE_POINT and not vehicle.moved:
        enemies = _enemies(state, vehicle.owner)
        if enemies:
            nearest = min(enemies, key=lambda v: distance(point_of(v), here))
            best = min(range(8), key=lambda f: distance(step(here, f, 2), point_of(nearest)))
            return ThreePointTurn(FACING_NAMES[best])
        return EndMove()
    if movement.left_to_move(vehicle) <= 0:
        return EndMove()
    turns = movement.open_turns(state, vehicle)
    if straight:
        return Move("ahead" if "ahead" in turns else turns[0])
    terrain = state.the_board.terrain(here)
    enemies = _enemies(state, vehicle.owner)

    def score(turn: str) -> tuple:
        facing = (vehicle.facing + TURN_STEPS[turn]) % 8
        limit = movement.cornering_limit(vehicle, terrain, abs(TURN_STEPS[turn]) * 45 if turn != "about" else 180)
        risky = limit is not None and vehicle.speed > limit
        there = step(here, facing)
        wreck = any(v.point == there and not is_running(v) for v in state.vehicles)
        near = min((distance(there, point_of(e)) for e in enemies), default=0)
        return wreck, risky, near, abs(TURN_STEPS[turn])
    return Move(min(turns, key=score))


def computer_action(state: BattlecarsState, player: str) -> Any:
    """What a computer driver does now, or None when it is not waited on."""
    if not _acting(state, player):
        return None
    if state.phase == Phase.SPEED:
        vehicle = state.vehicle_for(player)
        options = [p for p in speed.choices(state, vehicle) if p >= 0] or list(speed.choices(state, vehicle))
        return SetSpeed(min(options, key=lambda p: (abs(p - min(CRUISE, vehicle.top_speed(state.revision))), -p)))
    if state.phase == Phase.SECTION:
        return ChooseSection(combat.best_section(state))
    if state.phase == Phase.RETURN:
        pending = state.open_return
        shots = combat.return_shots(state, state.vehicle(pending.defender), state.target(pending.attacker))
        best = max(shots, key=lambda s: (s.chance, s.weapon.id))
        return Fire(best.weapon.id, best.target.id)
    walker = state.pedestrian_of(player)
    if walker is not None:
        return _on_foot(state, walker)
    vehicle = state.vehicle_for(player)
    shots = combat.legal_shots(state, vehicle)
    if shots:
        best = max(shots, key=lambda s: (s.chance, s.weapon.id))
        return Fire(best.weapon.id, best.target.id)
    near = any(distance(point_of(v), point_of(vehicle)) <= DROP_RANGE for v in state.vehicles
               if v.id != vehicle.id and is_running(v))
    for pod in vehicle.pods if near and vehicle.moved else ():
        try:
            passive.check_drop(state, vehicle, pod.id)
        except GameError:
            continue
        return Drop(pod.id)
    return _drive_choice(state, player, straight=False)


def _on_foot(state: BattlecarsState, walker: Pedestrian) -> Any:
    """A computer's driver on foot: back aboard its vehicle if it can, else a pistol shot, else a point
    toward its vehicle, away from the nearest enemy vehicle, or (only drivers on foot left) toward the
    nearest of them to get a line; then the end of its move."""
    vehicle = state.vehicle_of(walker.owner)
    home = point_of(vehicle) if vehicle is not None and not vehicle.destroyed else None   # its vehicle, if not a wreck
    if home is not None and distance(home, walker.point) == 1:
        return Board()
    for target in combat.targets(state):
        try:
            combat.check_pistol(state, walker, target)
        except GameError:
            continue
        if target.owner != walker.owner:
            return Fire("pistol", target.id)
    free = [way for way in range(8) if pedestrians.is_free(state, step(walker.point, way))]
    if walker.walked or not free:
        return EndMove()
    if home is not None:
        return Walk(FACING_NAMES[min(free, key=lambda w: distance(step(walker.point, w), home))])
    enemies = [v for v in state.vehicles if v.owner != walker.owner and is_running(v)]
    if enemies:
        return Walk(FACING_NAMES[max(free, key=lambda w: min(distance(step(walker.point, w), point_of(e))
                                                              for e in enemies))])
    others = [p for p in state.pedestrians if p.owner != walker.owner]
    if not others:
        return EndMove()
    return Walk(FACING_NAMES[min(free, key=lambda w: min(distance(step(walker.point, w), p.point) for p in others))])


def autopilot_action(state: BattlecarsState, player: str, passive: bool = False) -> Any:
    """What a deadline plays for an absent driver, or None when they are not waited on."""
    if not _acting(state, player):
        return None
    if state.phase == Phase.SPEED:
        vehicle = state.vehicle_for(player)
        options = speed.choices(state, vehicle)
        forward = [p for p in options if p >= 0]
        if passive and forward:
            return SetSpeed(min(forward))
        return SetSpeed(vehicle.speed if vehicle.speed in options else (forward or list(options))[0])
    if state.phase == Phase.SECTION:
        return ChooseSection(combat.best_section(state))
    if state.phase == Phase.RETURN:
        return HoldFire()
    if state.pedestrian_of(player) is not None:
        return EndMove()
    return _drive_choice(state, player, straight=True)


def autopilot_manner(passive: bool) -> str:
    """How the autopilot plays, for the deadline notice."""
    return "braking as hard as it may, straight on, no fire" if passive else "keeping its speed, straight on, no fire"
