"""Speedway's whole-turn plans: `/move plan:normal,turn-left [fire:front@c2] [skid:resist] [preview:yes]`.

A plan stands for one /move per maneuver (each carrying the advance skid answer) and a final shot; the
shell plays them one logged action at a time and stops wherever the game needs a decision. The
preview works the path out without dice; its Confirm button carries the plan in short codes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.engine import TurnPlans
from rules.errors import BadOption
from rules.speedway.driving import maneuver_choices
from rules.speedway.events import CarManeuvered, CarSlid

_PLAN_OPTIONS = frozenset({"plan", "fire", "preview"})
_SKIDS = {"accept": "a", "resist": "r", "": "-"}


def _maneuvers(options: dict[str, Any]) -> list[str]:
    return [m.strip().lower() for m in str(options.get("plan", options.get("maneuver", ""))).split(",") if m.strip()]


def is_plan(command: str, options: dict[str, Any]) -> bool:
    """A /move with a plan, a shot or a preview is a plan; a plain /move is one action."""
    return command == "move" and bool(_PLAN_OPTIONS & set(options))


def steps_checked(check: Callable[[Any, str, list[str]], None]):
    """`steps`, after `check(state, player, maneuvers)` has refused a plan that cannot be played as
    written (an unknown maneuver, more maneuvers than Moves left): refused before its first Move."""
    def checked(state: Any, player: str, options: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        planned = steps(options)
        if _maneuvers(options):
            check(state, player, _maneuvers(options))
        return planned
    return checked


def steps(options: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """One /move per maneuver (with the skid answer given in advance), then the shot, if any."""
    skid = options.get("skid", "")
    planned: list[tuple[str, dict[str, Any]]] = [
        ("move", {"maneuver": m, **({"skid": skid} if skid else {})}) for m in _maneuvers(options)]
    if options.get("fire"):
        mount, _, target = str(options["fire"]).partition("@")
        if not target:
            raise BadOption("fire: write MOUNT@TARGET, e.g. front@bob.")
        planned.append(("fire", {"weapon": mount.strip().lower(), "target": target.strip()}))
    if not planned:
        raise BadOption("The plan is empty: list maneuvers separated by commas, e.g. normal,turn-left.")
    return planned


def describe(options: dict[str, Any], worked_out: str) -> str:
    """The plan in words, for its private preview: the maneuvers, how it was worked out (`worked_out`:
    the end, skids, blocks, counters and shots), and how skids will be answered."""
    skid = options.get("skid", "")
    note = f"Skids will be answered with {skid}." if skid else "A skid on the way will stop the plan to ask."
    return f"Your plan: {', '.join(_maneuvers(options))}.\n{worked_out}\n{note} Confirm to drive it."


def _code(name: str) -> str:
    return "".join(part[0] for part in name.split("-"))


def encode(options: dict[str, Any]) -> str:
    """The previewed plan in a few characters: the skid answer, then each maneuver's initials (tl)."""
    return f"{_SKIDS[options.get('skid', '')]}:" + ".".join(_code(m) for m in _maneuvers(options))


def decode(text: str) -> dict[str, Any]:
    """Inverse of `encode`; ValueError when `text` is not one."""
    skid_code, _, codes = text.partition(":")
    skids = {code: name for name, code in _SKIDS.items()}
    by_code = {_code(m): m for m in maneuver_choices()}
    try:
        maneuvers = [by_code[c] for c in codes.split(".")]
        skid = skids[skid_code]
    except KeyError:
        raise ValueError(f"not a plan: {text!r}") from None
    return {"plan": ",".join(maneuvers), **({"skid": skid} if skid else {})}


def path_of(events: tuple) -> str:
    """Where a played plan took the car: 'Path: C3 → C4 → D4'."""
    hexes = [e.to_hex for e in events if isinstance(e, (CarManeuvered, CarSlid))]
    return "Path: " + " → ".join(hexes) if hexes else ""


def turn_plans(preview, check, words) -> TurnPlans:
    """The capability, given the ruleset's preview function and its plan check (state, player, maneuvers),
    and the words for a worked-out preview (state, preview)."""
    return TurnPlans(is_plan=is_plan, steps=steps_checked(check), wants_preview=lambda o: o.get("preview") == "yes",
                     preview=lambda state, player, options: preview(state, player, _maneuvers(options)),
                     describe=lambda state, options, worked: describe(options, words(state, worked)),
                     encode=encode, decode=decode, summarize=path_of)
