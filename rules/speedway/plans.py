"""Speedway's whole-turn plans: `/move plan:normal,turn-left [fire:front@c2] [skid:resist] [preview:yes]`.

A plan stands for one /move per maneuver (each carrying the advance skid answer) and a shot, taken at
the first point of the path where it is legal (before the first Move, or after any); the shell plays
them one logged action at a time and stops wherever the game needs a decision. The preview works the
path out without dice; its Confirm button carries the plan in short codes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.engine import PlanStep, TurnPlans
from rules.errors import BadOption
from rules.speedway.events import CarManeuvered, CarSlid
from rules.speedway.maneuver_words import maneuver_choices
from rules.speedway.preview import TurnPreview
from rules.table import plan_shot_option

_PLAN_OPTIONS = frozenset({"plan", "fire", "preview"})
_SKIDS = {"accept": "a", "resist": "r", "": "-"}


def _skid(options: dict[str, Any]) -> str:
    """How the plan answers its skids: accept, resist, or "" (it stops to ask); swipe and continue answer a skid
    as it comes, so a plan refuses them."""
    skid = str(options.get("skid", "") or "").strip().lower()
    if skid not in _SKIDS:
        raise BadOption("A plan answers its skids with skid:accept or skid:resist; swipe and continue answer a "
                        "skid as it comes (/skid), so leave skid: out to be asked.")
    return skid


def _maneuvers(options: dict[str, Any]) -> list[str]:
    return [m.strip().lower() for m in str(options.get("plan", options.get("maneuver", ""))).split(",") if m.strip()]


def is_plan(command: str, options: dict[str, Any]) -> bool:
    """A /move with a plan, a shot or a preview is a plan; a plain /move is one action."""
    return command == "move" and bool(_PLAN_OPTIONS & set(options))


def _fire(options: dict[str, Any]) -> tuple[str, str] | None:
    """The plan's shot as (mount, target), or None; BadOption when it is not written MOUNT@TARGET."""
    fire = plan_shot_option(options, "MOUNT@TARGET, e.g. front@bob")
    return None if fire is None else (fire[0].lower(), fire[1])


def steps_checked(check: Callable[[Any, str, list[str], tuple[str, str] | None, bool], None],
                  fire_ready: Callable[[Any, str, tuple[str, str]], Callable[[Any], str | None]]):
    """`steps`, after `check(state, player, maneuvers, fire, accept)` has refused a plan that cannot be played as
    written (an unknown maneuver, more maneuvers than Moves left, a shot no point of the path allows):
    refused before its first Move. The shot waits for the first point where `fire_ready` allows it."""
    def checked(state: Any, player: str, options: dict[str, Any]) -> list[PlanStep]:
        maneuvers, fire = _maneuvers(options), _fire(options)
        if not maneuvers and fire is None:
            raise BadOption("The plan is empty: list maneuvers separated by commas, e.g. normal,turn-left.")
        skid = _skid(options)
        check(state, player, maneuvers, fire, skid == "accept")
        planned = [PlanStep("move", {"maneuver": m, **({"skid": skid} if skid else {})}) for m in maneuvers]
        if fire is not None:
            planned.append(PlanStep("fire", {"weapon": fire[0], "target": fire[1]},
                                    why_not=fire_ready(state, player, fire)))
        return planned
    return checked


def describe(options: dict[str, Any], worked_out: str) -> str:
    """The plan in words, for its private preview: the maneuvers, how it was worked out (`worked_out`:
    the end, skids, blocks, counters and shots), and how skids will be answered."""
    skid = _skid(options)
    note = f"Skids will be answered with {skid}." if skid else "A skid on the way will stop the plan to ask."
    return f"Your plan: {', '.join(_maneuvers(options))}.\n{worked_out}\n{note} Confirm to drive it."


def _code(name: str) -> str:
    return "".join(part[0] for part in name.split("-"))


def encode(options: dict[str, Any], preview: TurnPreview) -> str:
    """The previewed plan in a few characters: the skid answer, each maneuver's initials (tl), then
    the shot with its target by id as the preview resolved it ('s:n.tl:front@c2')."""
    text = f"{_SKIDS[_skid(options)]}:" + ".".join(_code(m) for m in _maneuvers(options))
    return f"{text}:{preview.fire_option}" if preview.fire_option else text


def decode(text: str) -> dict[str, Any]:
    """Inverse of `encode`; ValueError when `text` is not one."""
    skid_code, _, rest = text.partition(":")
    codes, _, fire = rest.partition(":")
    skids = {code: name for name, code in _SKIDS.items()}
    by_code = {_code(m): m for m in maneuver_choices()}
    try:
        maneuvers = [by_code[c] for c in codes.split(".")] if codes else []
        skid = skids[skid_code]
    except KeyError:
        raise ValueError(f"not a plan: {text!r}") from None
    if not maneuvers and not fire:
        raise ValueError(f"not a plan: {text!r}")
    return {**({"plan": ",".join(maneuvers)} if maneuvers else {}), **({"skid": skid} if skid else {}),
            **({"fire": fire} if fire else {})}


def path_of(events: tuple) -> str:
    """Where a played plan took the car, from where it stood: 'Path: C3 → C4 → D4'."""
    steps = [e for e in events if isinstance(e, (CarManeuvered, CarSlid))]
    if not steps:
        return ""
    start = [steps[0].from_hex] if isinstance(steps[0], CarManeuvered) else []
    return "Path: " + " → ".join(start + [e.to_hex for e in steps])


def turn_plans(preview, check, fire_ready, words) -> TurnPlans:
    """The capability, given the ruleset's preview and plan check (state, player, maneuvers, fire, whether
    skids are accepted), when
    the plan's shot is ready (state, player, fire) -> why_not, and a worked-out preview's words (state, preview)."""
    return TurnPlans(is_plan=is_plan, steps=steps_checked(check, fire_ready),
                     wants_preview=lambda o: o.get("preview") == "yes",
                     preview=lambda state, player, options: preview(state, player, _maneuvers(options), _fire(options),
                                                                    _skid(options) == "accept"),
                     describe=lambda state, options, worked: describe(options, words(state, worked)),
                     encode=encode, decode=decode, summarize=path_of)
