"""Several actions in one command (a game's plans, such as a whole turn), and their private preview
with Confirm and Cancel.

A plan is played through the service's usual one-action-at-a-time path (Acting.run_steps).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import images
from bot.storage.store import GameRecord
from bot.table.clock.settings import DamagedSettings, TableSettings
from bot.table.protocol.commands import Command
from bot.table.protocol.refusals import NotThisGame, StaleButton
from bot.table.protocol.replies import ALT_TEXT_LIMIT, CANCEL_ID, Actor, Button, Reply, clip, parse_plan_id, plan_id
from bot.table.service.pictures import wanted_view
from bot.table.service.shared import Table
from images.registry import renderer
from rules.engine import Ruleset, TurnPlans
from rules.errors import GameError


class Plans:
    """A game's plans (`Ruleset.plans`) and their previews."""

    def __init__(self, table: Table, run_steps: Callable[..., Awaitable[Reply]]):
        self._table, self._run_steps = table, run_steps

    async def plan(self, channel: str, actor: Actor, command: Command) -> Reply:
        """Each step through the normal path, one logged action each, stopping wherever the game
        needs a decision; or, when asked, a private preview first."""
        ruleset, game, state = await self._table.load(channel)
        options = dict(NotThisGame.fitted(ruleset, command).options)
        view = options.pop("view", None)   # how a preview is drawn, not part of the plan
        if ruleset.plans is None or not ruleset.plans.is_plan(command.name, options):
            return await self._run_steps(channel, actor, [Command(command.name, options)])
        if ruleset.plans.wants_preview(options):
            return await self._preview(ruleset, game, state, actor, options, view)
        return await self._play_plan(channel, actor, ruleset, state, options)

    async def _play_plan(self, channel: str, actor: Actor, ruleset: Ruleset, state: Any, options: dict[str, Any],
                         expected_version: int | None = None) -> Reply:
        plans = _plans_of(ruleset)
        planned = plans.steps(state, actor.id, options)
        steps = [Command(s.name, s.options) for s in planned if s.why_not is None]
        floating = [s for s in planned if s.why_not is not None]
        return await self._run_steps(channel, actor, steps, expected_version,
                                     summarize=plans.summarize if len(planned) > 1 else None,
                                     floating=floating, state=state)

    async def _preview(self, ruleset: Ruleset, game: GameRecord, state: Any, actor: Actor,
                       options: dict[str, Any], view: str | None = None) -> Reply:
        """The plan worked out without dice, privately, with Confirm and Cancel: nothing is applied yet.
        Its picture is the whole map, or a close-up for a phone (view:closeup, or the player's /me
        settings view:), drawn from the same view."""
        plans = _plans_of(ruleset)
        preview = plans.preview(state, actor.id, options)
        seen = ruleset.view(state, actor.id)
        image = None
        if self._table.render:
            closeup = renderer(ruleset.id).preview_closeup is not None and \
                await wanted_view(self._table, game, actor.id, view) == "closeup"
            image = await self._table.drawing.preview_closeup(ruleset.id, seen, preview, actor.id) if closeup \
                else await asyncio.to_thread(images.render_preview, ruleset.id, seen, preview)
        encoded = plans.encode(options, preview)
        await self._keep_preview(ruleset, game, state, actor.id, encoded)
        confirm = Button("Confirm", plan_id(game.id, game.version, encoded), "confirm")
        cancel = Button("Cancel", CANCEL_ID, "cancel")
        words = plans.describe(state, options, preview)
        return Reply("shown", words, image, clip(f"A preview of the plan on the map. {words}", ALT_TEXT_LIMIT),
                     ephemeral=True, buttons=(confirm, cancel), game_id=game.id, version=game.version)

    async def _keep_preview(self, ruleset: Ruleset, game: GameRecord, state: Any, player: str, encoded: str) -> None:
        """Keep the plan a player previewed on their turn: played at their deadline if they neither confirm
        it nor act first (bot.table.service.deadlines). Not kept over damaged settings, or once the game moved."""
        if player not in ruleset.acting_players(state):
            return
        async with self._table.store.transaction():
            fresh = await self._table.store.active_game_tx(game.channel)
            if fresh is None or fresh.id != game.id or fresh.version != game.version:
                return
            try:
                settings = TableSettings.from_json(fresh.settings)
            except DamagedSettings:
                return
            await self._table.store.set_settings_tx(
                fresh, settings.with_preview(player, (ruleset.turn_key(state), encoded)).to_json())

    async def confirm(self, channel: str, actor: Actor, custom_id: str) -> Reply:
        """Play a previewed plan, if the game has not moved on since the preview."""
        ruleset, game, state = await self._table.load(channel)
        try:
            game_id, version, encoded = parse_plan_id(custom_id)
            options = ruleset.plans.decode(encoded) if ruleset.plans else None
        except ValueError:
            options = None
        if options is None:
            raise GameError("That button is not one of mine.")
        if game.id != game_id or game.version != version:
            raise StaleButton("The game has moved on since this preview; plan again.")
        return await self._play_plan(channel, actor, ruleset, state, options, expected_version=version)


def _plans_of(ruleset: Ruleset) -> TurnPlans:
    """The game's plans; a game without any takes no plan."""
    if ruleset.plans is None:
        raise GameError(f"{ruleset.title} takes no plans.")
    return ruleset.plans
