"""A computer driver: picks one of the legal commands for a seat, from what any player can see.

It never peeks at the dice stream: maneuvers are scored from geometry and published odds only.
Preferences (issue 3): positions with targets in arc, fire when the odds are fair, resist skids
when the roll is likely, keep away from walls, obstacles and hazards.
"""

from __future__ import annotations

from dataclasses import replace

from rules.engine import parse_command
from rules.hexgrid import distance, step
from rules.speedway import combat, data
from rules.speedway.driving import counter_hexes, maneuver_pose, parse_maneuver, skids_at
from rules.speedway.geometry import in_arc
from rules.speedway.odds import driver_chance, resist_chance
from rules.speedway.phases import SpeedwayPhase
from rules.speedway.state import Car, SpeedwayState

FIRE_WHILE_MOVING = 0.5   # take a shot mid-turn at these odds or better
FIRE_LAST_CHANCE = 0.25   # with no Moves left, a longer shot is still worth the dice
RESIST_AT = 0.5           # resist a skid when the Driver Roll is at least this likely
CRUISE_SPEED = 4


def _enemies(state: SpeedwayState, car: Car) -> list[Car]:
    return [c for c in state.cars if c.owner != car.owner and not c.out and c.front is not None]


def _open(state: SpeedwayState, car: Car, h) -> bool:
    arena = data.arena(state.arena)
    return arena.is_open(h) and not any(h in c.hexes for c in state.cars if c.id != car.id)


def _clearance(state: SpeedwayState, car: Car, front, facing, look: int) -> int:
    """How many hexes straight ahead are open, up to `look`."""
    h = front
    for n in range(look):
        h = step(h, facing)
        if not _open(state, car, h):
            return n
    return look


def _speed(state: SpeedwayState, car: Car, legal: list[str]) -> str:
    wanted = CRUISE_SPEED - (1 if car.inertia >= 3 else 0)
    room = _clearance(state, car, car.front, car.facing, 6)
    if room < 3:
        wanted = min(wanted, 2)
    speeds = sorted(int(c.split(":")[1]) for c in legal)
    best = min(speeds, key=lambda v: (abs(v - wanted), v))
    return f"/speed value:{best}"


def _maneuver_score(state: SpeedwayState, car: Car, name: str) -> float:
    spec, side = parse_maneuver(name)
    front, facing = maneuver_pose(car, spec, side)
    hexes = counter_hexes(front, facing)
    if not all(_open(state, car, h) for h in hexes):
        return -100.0
    score = 0.0
    hazard_hexes = {hz.hex for hz in state.hazards if hz.owner != car.id or hz.owner_clear}
    score -= 8.0 * sum(1 for h in hexes if h in hazard_hexes)
    score -= 4.0 * sum(1 for hz in state.hazards if hz.kind == "mine" and hz.owner != car.id
                       and min(distance(h, hz.hex) for h in hexes) <= 1)
    if skids_at(spec, car.speed):
        target = car.speed + car.inertia + spec.inertia
        score -= 6.0 * (1.0 - driver_chance(car.systems.rating("driver"), target))
    score -= spec.inertia * 0.5
    room = _clearance(state, car, front, facing, max(3, car.speed))
    score -= 3.0 * max(0, 3 - room)
    moved = replace(car, front=front, facing=facing)
    enemies = _enemies(state, car)
    if enemies:
        nearest = min(enemies, key=lambda e: min(distance(front, h) for h in e.hexes))
        gap = min(distance(front, h) for h in nearest.hexes)
        score -= 0.4 * abs(gap - 4)
        for weapon in car.weapons:
            if weapon.offensive and weapon.working and weapon.mount not in car.fired \
                    and any(in_arc(moved, weapon.mount, e) for e in enemies):
                score += 2.5
    return score


def _skid(state: SpeedwayState, car: Car, legal: list[str]) -> str:
    answers = [parse_command(c)[1] for c in legal]
    choices = {answer["choice"] for answer in answers}
    pending = state.open_skid
    for command, answer in zip(legal, answers):   # a swipe of each car in a skid hex, the first first
        if answer["choice"] == "swipe":
            target = state.car(answer.get("target") or pending.swipe_targets[0])
            if target.owner != car.owner and car.systems.rating("armor") >= target.systems.rating("armor"):
                return command
    if "continue" in choices:
        return "/skid choice:continue"
    slid_open = all(_open(state, car, step(h, pending.vector)) for h in car.hexes)
    if resist_chance(car) >= RESIST_AT or not slid_open:
        return "/skid choice:resist"
    return "/skid choice:accept"


def _best_shot(state: SpeedwayState, car: Car, threshold: float) -> str | None:
    plans = [p for p in combat.legal_shots(state, car) if p.chance >= threshold]
    if not plans:
        return None
    best = max(plans, key=lambda p: (p.chance * (len(p.damage_dice) + 1), -p.range_hexes, p.weapon.mount))
    return f"/fire weapon:{best.weapon.mount.lower()} target:{combat.target_value(state, best.target)}"


def _drop(state: SpeedwayState, car: Car, legal: list[str]) -> str | None:
    drops = [c for c in legal if c.startswith("/drop")]
    if not drops:
        return None
    behind = [e for e in _enemies(state, car) if in_arc(car, "Back", e)
              and min(distance(car.back_hex, h) for h in e.hexes) <= 5]
    return drops[0] if behind else None


def obliged_turn(state: SpeedwayState, car: Car) -> str:
    """The Turn a car that must Turn (a ram's outcome A) takes when its driver is away: the safer side."""
    return max(("turn-left", "turn-right"), key=lambda name: (_maneuver_score(state, car, name), name))


def choose_command(state: SpeedwayState, player: str, legal: list[str]) -> str:
    """The command this computer driver plays now; `legal` are the commands it may use."""
    if not legal:
        raise ValueError("no legal command to choose from")
    if state.phase == SpeedwayPhase.RAM:
        mine = state.car(state.open_ram.attacker).owner == player
        return "/ram outcome:B" if mine else "/ram outcome:A"
    car = state.current_car
    if state.phase == SpeedwayPhase.UPKEEP:
        return _speed(state, car, legal)
    if state.phase == SpeedwayPhase.SKID:
        return _skid(state, car, legal)
    moves = [c for c in legal if c.startswith("/move")]
    shot = _best_shot(state, car, FIRE_WHILE_MOVING if moves else FIRE_LAST_CHANCE)
    if shot:
        return shot
    drop = _drop(state, car, legal)
    if drop:
        return drop
    if moves:
        if len(moves) == 1:
            return moves[0]
        return max(moves, key=lambda c: (_maneuver_score(state, car, c.split(":")[1]), c))
    return "/end"
