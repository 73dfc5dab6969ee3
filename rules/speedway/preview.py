"""A planned turn, worked out without rolling: the path, the skid odds on the way, the plan's shot or
the shots at the end.

It reads only what every player can see (positions, ratings, published odds) and assumes each
skid is resisted successfully, so it shows the intended path, not a prediction of the dice; a plan
that accepts its skids (skid:accept) slides where they slide, which takes no dice.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.hexgrid import DIRECTION_NAMES, Hex, distance, label
from rules.hexgrid import step as hex_step
from rules.speedway import combat, data, hazards
from rules.speedway.driving import counter_hexes, maneuver_pose, parse_maneuver, skid_vector, skids_at
from rules.speedway.errors import IllegalManeuver, IllegalShot
from rules.speedway.movement import what_blocks
from rules.speedway.odds import driver_chance
from rules.speedway.state import Car, SpeedwayState, Weapon
from rules.table import plural


@dataclass(frozen=True)
class PlannedStep:
    """One Move of the plan: where the counter ends up, and the chance to resist its skid (if any)."""

    maneuver: str
    front: Hex
    facing: int
    resist_chance: float | None
    blocked: bool
    slid: str = ""   # the skid accepted: the direction the counter slid (front and facing are after the slide)
    skids_into: Hex | None = None   # the accepted skid's slide would enter this hex, held by a car, wall or obstacle


@dataclass(frozen=True)
class PlannedShot:
    """A shot the car could take from the end of the path, or the plan's own shot (`after` set)."""

    weapon: str
    target: str
    chance: float
    after: int | None = None  # the plan's shot: how many Moves come before it


@dataclass(frozen=True)
class TurnPreview:
    """The whole plan: steps in order, the car at the end, and the shots from there."""

    car: str
    steps: tuple[PlannedStep, ...]
    end: Car
    shots: tuple[PlannedShot, ...]  # from the end, when the plan has no shot of its own
    fire: PlannedShot | None = None  # the plan's shot, at the first point of the path where it is legal
    fire_option: str = ""  # that shot as a plan option naming the target as a button would ('front@c2')

    def pose_after(self, moves: int) -> tuple[Hex, int] | None:
        """The counter's front hex and facing after `moves` Moves of the plan; None before the first."""
        moved = [s for s in self.steps if not s.blocked]
        return (moved[moves - 1].front, moved[moves - 1].facing) if moves else None

    @property
    def swept(self) -> tuple[Hex, ...]:
        """Every hex the counter covers along the way (start excluded), in order, without repeats."""
        seen: list[Hex] = []
        for step in self.steps:
            for h in counter_hexes(step.front, step.facing):
                if h not in seen:
                    seen.append(h)
        return tuple(seen)


def preview_turn(state: SpeedwayState, car: Car, maneuvers: list[str],
                 fire: tuple[Weapon, Car] | None = None, accept: bool = False) -> TurnPreview:
    """Walk `maneuvers` from the car's position; stop at the first blocked step (or, when the plan
    accepts its skids, at the first slide into something: a collision). With `fire` (a weapon
    and its target), find the first point of the path where that shot is legal, or refuse the plan."""
    arena = data.arena(state.arena)
    occupied = {h for c in state.cars if c.id != car.id for h in c.hexes}

    def is_blocked(hexes: tuple[Hex, ...]) -> bool:
        return any(not arena.is_open(h) or h in occupied for h in hexes)

    current, inertia = car, car.inertia
    steps, poses = [], [car]
    boards = [state]   # the table as it stands at each pose: smoke the path drives through is gone (as in play)
    for name in maneuvers:
        spec, side = parse_maneuver(name)
        front, facing = maneuver_pose(current, spec, side)
        blocked = is_blocked(counter_hexes(front, facing))
        entered = tuple(h for h in counter_hexes(front, facing) if h not in current.hexes)
        # the counters entered (oil, debris, water) add their inertia before the skid check, as in play
        inertia += spec.inertia + (0 if blocked else sum(hazards.inertia_entered(state, current, entered).values()))
        chance, slid, into = None, "", None
        vector = skid_vector(current.facing, spec, side) if skids_at(spec, current.speed) else None
        if vector is not None and accept and not blocked:   # accepted: a slide one hex along the skid, no dice
            landed = replace(current, front=front, facing=facing, inertia=inertia)
            slid_front = hex_step(front, vector)
            into = next((h for h in counter_hexes(slid_front, facing) if is_blocked((h,))), None)
            if into is None:
                slid_over = tuple(h for h in counter_hexes(slid_front, facing) if h not in landed.hexes)
                inertia += sum(hazards.inertia_entered(state, landed, slid_over).values())
                entered += slid_over
                front, slid = slid_front, DIRECTION_NAMES[vector]
        elif vector is not None:
            chance = driver_chance(current.systems.rating("driver"), current.speed + inertia)
        steps.append(PlannedStep(name, front, facing, chance, blocked, slid, into))
        if blocked:
            break
        current = replace(current, front=front, facing=facing, inertia=inertia)
        poses.append(current)
        boards.append(replace(boards[-1], hazards=tuple(hz for hz in boards[-1].hazards
                                                        if not (hz.kind == "smoke" and hz.hex in entered))))
        if into is not None:   # the slide collides: where the car ends up is the dice's to say
            break
    if fire is not None:
        weapon, target = fire
        shot = first_shot(boards, poses, weapon, target)
        option = f"{weapon.mount.lower()}@{combat.target_value(state, target)}"
        return TurnPreview(car.id, tuple(steps), current, (), shot, option)
    shots = tuple(PlannedShot(p.weapon.label, p.target.name, p.chance)
                  for p in combat.legal_shots(boards[-1].with_car(current), current))
    return TurnPreview(car.id, tuple(steps), current, shots)


def first_shot(boards: list[SpeedwayState], poses: list[Car], weapon: Weapon, target: Car) -> PlannedShot:
    """The shot from the first of `poses` (the car before each Move, then at the end; `boards`, the table at
    each) where it is legal; IllegalShot, with the reason at the end of the path, when it is legal nowhere."""
    reason = ""
    for moves, (board, pose) in enumerate(zip(boards, poses, strict=True)):
        try:
            plan = combat.plan_shot(board.with_car(pose), pose, weapon, target)
        except IllegalShot as exc:
            reason = exc.message
            continue
        return PlannedShot(plan.weapon.label, target.name, plan.chance, after=moves)
    raise IllegalShot(f"{weapon.label} cannot fire at {target.name} anywhere on the plan's path "
                      f"(at its end: {reason.rstrip('.')}).")


def when(shot: PlannedShot) -> str:
    """Where on the path the plan's shot is taken, in words."""
    return "before the first Move" if not shot.after else f"after Move #{shot.after}"


def check_plan(car: Car, moves_left: int, maneuvers: list[str]) -> None:
    """Refuse a plan longer than the Moves left or naming an unknown maneuver."""
    if not maneuvers:
        raise IllegalManeuver("The plan is empty: list maneuvers separated by commas.")
    if len(maneuvers) > moves_left:
        raise IllegalManeuver(f"{car.name} has {plural(moves_left, 'Move', 'Moves')} left; "
                              f"the plan has {len(maneuvers)}.")
    for name in maneuvers:
        parse_maneuver(name)


def blocker_of(state: SpeedwayState, car: Car, step: PlannedStep) -> str:
    """What a blocked step (or its accepted skid) runs into, in words."""
    for h in (step.skids_into,) if step.skids_into is not None else counter_hexes(step.front, step.facing):
        found = what_blocks(state, car.id, h)
        if found is None:
            continue
        kind, other = found
        if kind == "car":
            return next((c.name for c in state.cars if c.id == other), other or "a car")
        return "the arena wall" if kind == "wall" else f"the obstacle at {label(h)}"
    return "something"


def hazards_on(state: SpeedwayState, preview: TurnPreview) -> list[str]:
    """The counters the path drives into (mines also when it passes next to one), in words."""
    path = set(preview.swept)
    found = []
    for hazard in state.hazards:
        near = hazard.kind == "mine" and any(distance(h, hazard.hex) <= 1 for h in path)
        if hazard.hex in path or near:
            found.append(f"{hazard.kind} at {label(hazard.hex)}")
    return list(dict.fromkeys(found))


def preview_text(state: SpeedwayState, preview: TurnPreview) -> str:
    """The planned turn in words (the preview's text and alt text): where it ends, the skid odds, a
    block, the counters on the way, and the shots from the end."""
    car = state.car(preview.car)
    end = preview.end
    moved = [s for s in preview.steps if not s.blocked]
    lines = [f"Ends at {label(end.front_hex)} facing {DIRECTION_NAMES[end.facing]}, inertia {end.inertia}."]
    skids = [f"#{n} {s.maneuver} {s.resist_chance:.0%}" for n, s in enumerate(moved, 1) if s.resist_chance is not None]
    accepted = [f"#{n} {s.maneuver} slides {s.slid}" for n, s in enumerate(moved, 1) if s.slid]
    collided = next(((n, s) for n, s in enumerate(moved, 1) if s.skids_into is not None), None)
    if skids or not (accepted or collided):
        lines.append("Skid checks, chance to resist: " + ", ".join(skids) + "." if skids else "No skid checks.")
    if accepted:
        lines.append("Skids accepted: " + ", ".join(accepted) + ".")
    blocked = next((s for s in preview.steps if s.blocked), None)
    if blocked is not None:
        lines.append(f"Move #{len(moved) + 1} ({blocked.maneuver}) is blocked by {blocker_of(state, car, blocked)}.")
    if collided is not None:
        n, into = collided
        lines.append(f"Move #{n} ({into.maneuver}) skids into {blocker_of(state, car, into)}: a collision, the plan's "
                     f"path ends there.")
    hazards = hazards_on(state, preview)
    if hazards:
        lines.append("On the way: " + ", ".join(hazards) + ".")
    if preview.fire is not None:
        shot = preview.fire
        lines.append(f"Fires {shot.weapon} at {shot.target} {when(shot)}: {shot.chance:.0%} to hit.")
        return "\n".join(lines)
    shots = [f"{s.weapon} at {s.target} {s.chance:.0%}" for s in preview.shots]
    lines.append("Shots from the end: " + ", ".join(shots) + "." if shots else "No shots from the end.")
    return "\n".join(lines)
