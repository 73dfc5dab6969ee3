"""Battlecars' whole-turn plans: `/move plan:ahead,left-45,ahead [fire:A@v2] [preview:yes]`.

A plan stands for one /move per point, played one logged action at a time; it stops wherever the game
needs a decision (a skid's drift, a crash, a ram, a hit's section, a chance to return fire). Its shot
is taken at the first point of the path where it is legal (before the first point or after any; from
rules revision 6 only before the move starts or once it is complete, the seed's "all movement must be
completed once started"); a shot no point of the path allows is refused before anything is driven. The
preview works the path out without dice (every skid test passed) and is shown privately first.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from rules.battlecars.combat import IllegalShot, ShotPlan, find_target, plan_shot
from rules.battlecars.events import VehicleMoved
from rules.battlecars.grid import FACING_NAMES, TURN_STEPS, label, step, turn_between
from rules.battlecars.movement import blocked_for, cornering_limit, left_to_move
from rules.battlecars.state import THREE_POINT, BattlecarsState, Phase, Vehicle, point_of
from rules.engine import PlanStep, TurnPlans
from rules.errors import BadOption, GameError, WrongPhase
from rules.table import plan_shot_option

_CODES = {name: str(i) for i, name in enumerate(TURN_STEPS)}


@dataclass(frozen=True)
class PathPreview:
    """A plan worked out without dice: each point driven, as the map draws a move, and the skid tests."""

    vehicle: str
    moves: tuple[VehicleMoved, ...]
    skid_tests: tuple[str, ...]
    blocked: str = ""
    fire: str = ""          # where the plan's shot is taken, in words
    fire_option: str = ""   # the shot as a plan option, its target by id ('A@v2')


def _turns(options: dict[str, Any]) -> list[str]:
    return [t.strip().lower() for t in str(options.get("plan", "")).split(",") if t.strip()]


def _fire(options: dict[str, Any]) -> tuple[str, str] | None:
    """The plan's shot as (weapon, target), or None; BadOption when it is not written WEAPON@TARGET."""
    return plan_shot_option(options, "WEAPON@TARGET, e.g. A@v2")


def _shot_from(state: BattlecarsState, pose: Vehicle, fire: tuple[str, str]) -> ShotPlan:
    """The shot `fire` names, checked from the vehicle as `pose` stands; GameError saying why not."""
    weapon = pose.weapon(fire[0])
    if weapon is None:
        raise BadOption(f"{pose.name} has no weapon '{fire[0]}'. Weapons: {', '.join(w.id for w in pose.weapons())}.")
    target = find_target(state, fire[1], pose.id)
    return plan_shot(state.with_vehicle(pose), pose, weapon, target)


def is_plan(command: str, options: dict[str, Any]) -> bool:
    """A /move with a plan, a shot or a preview is a plan; a plain /move is one point."""
    return command == "move" and bool({"plan", "fire", "preview"} & set(options))


def work_out(state: BattlecarsState, player: str, options: dict[str, Any]) -> PathPreview:
    """The plan's path from where the moving vehicle stands; BadOption or WrongPhase when it cannot be
    driven as written (not the player's move, a bad turn, more points than the speed leaves)."""
    turns = _turns(options)
    if not turns and _fire(options) is None:
        raise BadOption("The plan is empty: list turns separated by commas, e.g. ahead,left-45,ahead.")
    unknown = [t for t in turns if t not in TURN_STEPS]
    if unknown:
        raise BadOption(f"'{unknown[0]}' is not a turn. Turns: {', '.join(TURN_STEPS)}.")
    if state.phase != Phase.MOVE or state.active != player or state.pedestrian_of(player) is not None:
        raise WrongPhase("A plan drives your vehicle in your own move.")
    vehicle = state.vehicle_for(player)
    if vehicle.speed == THREE_POINT:
        raise BadOption(f"{vehicle.name} is on 3PT: /move facing:N..NW turns it on the spot.")
    if len(turns) > left_to_move(vehicle):
        raise BadOption(f"{vehicle.name} has {left_to_move(vehicle)} points to drive; the plan has {len(turns)}.")
    moves, tests, poses = [], [], [vehicle]
    blocked = ""
    current = vehicle
    for number, turn in enumerate(turns, 1):
        facing = (current.facing + TURN_STEPS[turn]) % 8
        here = point_of(current)
        why = blocked_for(state, current, here, facing)
        if why:
            blocked = f"point #{number} runs into {why}"
            break
        angle = turn_between(current.facing, facing)
        limit = cornering_limit(current, state.the_board.terrain(here), angle)
        if limit is not None and current.speed > limit:
            tests.append(f"#{number} {turn}: a skid on a d6 of {2 * (current.speed - limit)} or less")
        to = step(here, facing)
        moves.append(VehicleMoved(vehicle.name, label(here), label(to), FACING_NAMES[facing], angle))
        current = replace(current, point=to, facing=facing, moved=current.moved + 1)
        poses.append(current)
    fire, option = "", ""
    shot = _fire(options)
    if shot is not None:
        fire, option = _first_shot(state, poses, shot)
    return PathPreview(vehicle.id, tuple(moves), tuple(tests), blocked, fire, option)


def _first_shot(state: BattlecarsState, poses: list[Vehicle], fire: tuple[str, str]) -> tuple[str, str]:
    """Where on the path the plan's shot is first legal, in words, and the shot as an option; GameError
    with the reason at the path's end when no point allows it."""
    reason = ""
    for moved, pose in enumerate(poses):
        try:
            plan = _shot_from(state, pose, fire)
        except IllegalShot as exc:
            reason = exc.message
            continue
        where = "before the first point" if not moved else \
            f"after point #{moved}{', the last' if left_to_move(pose) == 0 else ''}"
        return (f"Fires {plan.weapon.label} at {plan.target.name} {where}: {plan.chance:.0%} to hit.",
                f"{plan.weapon.id}@{plan.target.id}")
    raise IllegalShot(f"That shot is possible nowhere on the plan's path (at its end: {reason.rstrip('.')}).")


def steps(state: BattlecarsState, player: str, options: dict[str, Any]) -> list[PlanStep]:
    """One /move per point, and the shot at the first point it can be taken, after the plan has been
    checked as a whole (nothing is driven otherwise)."""
    work_out(state, player, options)
    planned = [PlanStep("move", {"turn": t}) for t in _turns(options)]
    fire = _fire(options)
    if fire is not None:
        planned.append(PlanStep("fire", {"weapon": fire[0], "target": fire[1]},
                                why_not=_ready(state.vehicle_for(player).id, player, fire)))
    return planned


def _ready(vehicle_id: str, player: str, fire: tuple[str, str]):
    """When the plan's shot can be taken: in the player's own move, from where the vehicle stands."""
    def why_not(state: BattlecarsState) -> str | None:
        if state.phase != Phase.MOVE or state.active != player:
            return "the move was over first"
        try:
            _shot_from(state, state.vehicle(vehicle_id), fire)
        except GameError as exc:
            return exc.message
        return None
    return why_not


def words(state: BattlecarsState, options: dict[str, Any], preview: PathPreview) -> str:
    """The plan in words, for its private preview."""
    end = preview.moves[-1] if preview.moves else None
    lines = [f"Your plan: {', '.join(_turns(options))}."]
    if end:
        lines.append(f"Ends at {end.to_point} facing {end.facing}.")
    lines.append("Skid tests: " + "; ".join(preview.skid_tests) + "." if preview.skid_tests else "No skid tests.")
    if preview.blocked:
        lines.append(f"Blocked: {preview.blocked}; the plan stops there.")
    if preview.fire:
        lines.append(preview.fire)
    lines.append("Confirm to drive it.")
    return "\n".join(lines)


def encode(options: dict[str, Any], preview: PathPreview) -> str:
    """The previewed plan in a few characters: each turn's code, then the shot ('0.1.0:A@v2')."""
    text = ".".join(_CODES[t] for t in _turns(options))
    return f"{text}:{preview.fire_option}" if preview.fire_option else text


def decode(text: str) -> dict[str, Any]:
    """Inverse of `encode`; ValueError when `text` is not one."""
    codes, _, fire = text.partition(":")
    names = {code: name for name, code in _CODES.items()}
    try:
        turns = [names[c] for c in codes.split(".")] if codes else []
    except KeyError:
        raise ValueError(f"not a plan: {text!r}") from None
    if not turns and not fire:
        raise ValueError(f"not a plan: {text!r}")
    return {**({"plan": ",".join(turns)} if turns else {}), **({"fire": fire} if fire else {})}


def path_of(events: tuple) -> str:
    """Where a played plan took the vehicle, from where it stood: 'Path: A4 → B5 → C6'."""
    moves = [e for e in events if isinstance(e, VehicleMoved)]
    return "Path: " + " → ".join([moves[0].from_point] + [e.to_point for e in moves]) if moves else ""


PLANS = TurnPlans(is_plan=is_plan, steps=steps, wants_preview=lambda o: o.get("preview") == "yes",
                  preview=work_out, describe=words, encode=encode, decode=decode, summarize=path_of)
