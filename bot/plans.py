"""Whole turns in one command: plans, and a private preview of a plan with Confirm and Cancel.

A mixin of GameService: a plan is driven through the service's usual one-action-at-a-time path.
"""

from __future__ import annotations

import asyncio
from typing import Any

import images
from bot.commands import Command, foreign_to, lookup
from bot.refusals import NotThisGame, StaleButton
from bot.replies import CANCEL_ID, Actor, Button, Reply, parse_plan_id, plan_id
from bot.store import GameRecord
from rules.engine import Ruleset
from rules.errors import GameError


def maneuver_names() -> tuple[str, ...]:
    """Every maneuver name /move accepts (a plan button names its maneuvers by these)."""
    return next(o for o in lookup("move").options if o.name == "maneuver").choices


def move_steps(maneuvers: list[str], skid: str) -> list[Command]:
    """One /move per maneuver, each carrying the advance skid answer if one was given."""
    return [Command("move", {"maneuver": m, **({"skid": skid} if skid else {})}) for m in maneuvers]


class TurnPlans:
    """`/move plan:...` and its preview."""

    async def _plan(self, channel: str, actor: Actor, options: dict) -> Reply:
        """A whole turn in one command: each Move (and a final shot) through the normal path, one
        logged action each, stopping wherever the game needs a decision."""
        maneuvers = [m.strip() for m in options.get("plan", options.get("maneuver", "")).split(",") if m.strip()]
        ruleset, game, state = await self._load(channel)
        NotThisGame.check(foreign_to(ruleset, Command("move", options)))
        if options.get("preview") == "yes":
            return await self._preview(ruleset, game, state, actor, maneuvers, options.get("skid", ""))
        steps = move_steps(maneuvers, options.get("skid", ""))
        if options.get("fire"):
            mount, _, target = options["fire"].partition("@")
            if not target:
                raise GameError("fire: write MOUNT@TARGET, e.g. front@bob.")
            steps.append(Command("fire", {"weapon": mount.strip().lower(), "target": target.strip()}))
        if not steps:
            raise GameError("The plan is empty: list maneuvers separated by commas, e.g. normal,turn-left.")
        return await self._run_steps(channel, actor, steps)

    async def _preview(self, ruleset: Ruleset, game: GameRecord, state: Any, actor: Actor,
                       maneuvers: list[str], skid: str) -> Reply:
        """The planned path, privately, with Confirm and Cancel: nothing is applied yet."""
        preview = ruleset.plan_preview(state, actor.id, maneuvers)
        image = await asyncio.to_thread(images.render_preview, ruleset.id, ruleset.view(state, None), preview) \
            if self._render else None
        skid_note = f" Skids will be answered with {skid}." if skid else " A skid on the way will stop the plan to ask."
        confirm = Button("Confirm", plan_id(game.id, game.version, skid, maneuvers), "confirm")
        cancel = Button("Cancel", CANCEL_ID, "cancel")
        return Reply("shown", f"Your plan: {', '.join(maneuvers)}.{skid_note} Confirm to drive it.", image,
                     "A preview of the planned path on the map.", ephemeral=True, buttons=(confirm, cancel),
                     game_id=game.id, version=game.version)

    async def confirm_plan(self, channel: str, actor: Actor, custom_id: str, *, delivery: str | None = None) -> Reply:
        """Drive a previewed plan, if the game has not moved on since the preview."""
        return await self._guarded(channel, self._confirm_plan(channel, actor, custom_id), delivery)

    async def _confirm_plan(self, channel: str, actor: Actor, custom_id: str) -> Reply:
        try:
            game_id, version, skid, maneuvers = parse_plan_id(custom_id, maneuver_names())
        except (ValueError, KeyError):
            raise GameError("That button is not one of mine.") from None
        _ruleset, game, _state = await self._load(channel)
        if game.id != game_id or game.version != version:
            raise StaleButton("The game has moved on since this preview; plan again.")
        return await self._run_steps(channel, actor, move_steps(maneuvers, skid), expected_version=version)
