"""Battlecars' whole-turn plans: `/move plan:ahead,left-45,ahead [preview:yes]`.

A plan stands for one /move per point, played one logged action at a time; it stops wherever the game
needs a decision (a skid's drift, a crash, a ram, a hit's section, a chance to return fire). The
preview works the path out without dice (every skid test passed) and is shown privately first.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from rules.battlecars.actions import TURN_STEPS
from rules.battlecars.events import VehicleMoved
from rules.battlecars.grid import FACING_NAMES, label, step, turn_between
from rules.battlecars.movement import blocked_for, cornering_limit, left_to_move
from rules.battlecars.state import THREE_POINT, BattlecarsState, Phase
from rules.engine import PlanStep, TurnPlans
from rules.errors import BadOption, WrongPhase

_CODES = {name: str(i) for i, name in enumerate(TURN_STEPS)}


@dataclass(frozen=True)
class PathPreview:
    """A plan worked out without dice: each point driven, as the map draws a move, and the skid tests."""

    vehicle: str
    moves: tuple[VehicleMoved, ...]
    skid_tests: tuple[str, ...]
    blocked: str = ""


def _turns(options: dict[str, Any]) -> list[str]:
    return [t.strip().lower() for t in str(options.get("plan", "")).split(",") if t.strip()]


def is_plan(command: str, options: dict[str, Any]) -> bool:
    """A /move with a plan is a plan; a plain /move is one point."""
    return command == "move" and "plan" in options


def work_out(state: BattlecarsState, player: str, options: dict[str, Any]) -> PathPreview:
    """The plan's path from where the moving vehicle stands; BadOption or WrongPhase when it cannot be
    driven as written (not the player's move, a bad turn, more points than the speed leaves)."""
    turns = _turns(options)
    if not turns:
        raise BadOption("The plan is empty: list turns separated by commas, e.g. ahead,left-45,ahead.")
    unknown = [t for t in turns if t not in TURN_STEPS]
    if unknown:
        raise BadOption(f"'{unknown[0]}' is not a turn. Turns: {', '.join(TURN_STEPS)}.")
    if state.phase != Phase.MOVE or state.active != player or state.pedestrian_of(player) is not None:
        raise WrongPhase("A plan drives your vehicle in your own move.")
    vehicle = state.vehicle_of(player)
    if vehicle.speed == THREE_POINT:
        raise BadOption(f"{vehicle.name} is on 3PT: /move facing:N..NW turns it on the spot.")
    if len(turns) > left_to_move(vehicle):
        raise BadOption(f"{vehicle.name} has {left_to_move(vehicle)} points to drive; the plan has {len(turns)}.")
    moves, tests = [], []
    current = vehicle
    for number, turn in enumerate(turns, 1):
        facing = (current.facing + TURN_STEPS[turn]) % 8
        why = blocked_for(state, current, current.point, facing)
        if why:
            return PathPreview(vehicle.id, tuple(moves), tuple(tests), f"point #{number} runs into {why}")
        angle = turn_between(current.facing, facing)
        limit = cornering_limit(current, state.the_board.terrain(current.point), angle)
        if limit is not None and current.speed > limit:
            tests.append(f"#{number} {turn}: a skid on a d6 of {2 * (current.speed - limit)} or less")
        to = step(current.point, facing)
        moves.append(VehicleMoved(vehicle.name, label(current.point), label(to), FACING_NAMES[facing], angle))
        current = replace(current, point=to, facing=facing)
    return PathPreview(vehicle.id, tuple(moves), tuple(tests))


def steps(state: BattlecarsState, player: str, options: dict[str, Any]) -> list[PlanStep]:
    """One /move per point, after the plan has been checked as a whole (nothing is driven otherwise)."""
    work_out(state, player, options)
    return [PlanStep("move", {"turn": t}) for t in _turns(options)]


def words(state: BattlecarsState, options: dict[str, Any], preview: PathPreview) -> str:
    """The plan in words, for its private preview."""
    end = preview.moves[-1] if preview.moves else None
    lines = [f"Your plan: {', '.join(_turns(options))}."]
    if end:
        lines.append(f"Ends at {end.to_point} facing {end.facing}.")
    lines.append("Skid tests: " + "; ".join(preview.skid_tests) + "." if preview.skid_tests else "No skid tests.")
    if preview.blocked:
        lines.append(f"Blocked: {preview.blocked}; the plan stops there.")
    lines.append("Confirm to drive it.")
    return "\n".join(lines)


def encode(options: dict[str, Any], _preview: PathPreview) -> str:
    return ".".join(_CODES[t] for t in _turns(options))


def decode(text: str) -> dict[str, Any]:
    names = {code: name for name, code in _CODES.items()}
    try:
        turns = [names[c] for c in text.split(".")]
    except KeyError:
        raise ValueError(f"not a plan: {text!r}") from None
    return {"plan": ",".join(turns)}


def path_of(events: tuple) -> str:
    """Where a played plan took the vehicle: 'Path: B5 → C6'."""
    points = [e.to_point for e in events if isinstance(e, VehicleMoved)]
    return "Path: " + " → ".join(points) if points else ""


PLANS = TurnPlans(is_plan=is_plan, steps=steps, wants_preview=lambda o: o.get("preview") == "yes",
                  preview=work_out, describe=words, encode=encode, decode=decode, summarize=path_of)
