"""The table's clock: reminders and deadlines for the player a game waits on, settings and pauses.

A mixin of GameService: it uses the service's store, lock, clock and apply path.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.commands import parse
from bot.replies import MESSAGE_LIMIT, Actor, Notice, Reply, latest_lines
from bot.refusals import NoGame
from bot.settings import HOUR, MAX_COMPUTER_ACTIONS, TableSettings, timer_for, updated
from bot.store import GameRecord, Timer
from rules.codec import decode_state
from rules.engine import Ruleset, get_ruleset
from rules.errors import GameError


class TableClock:
    """Reminders, deadlines with the autopilot, table settings and pauses."""

    async def _sync_timer_tx(self, ruleset: Ruleset, game: GameRecord, state: Any, force: bool = False) -> None:
        """Start the reminder and deadline clock when the game starts waiting on someone new."""
        waiting = ruleset.acting_players(state)
        if ruleset.is_finished(state) or not waiting or ruleset.is_computer(state, waiting[0]):
            await self._store.clear_timer_tx(game.id)
            return
        key = ruleset.turn_key(state)
        current = await self._store.timer_tx(game.id)
        if not force and current is not None and (current.player, current.turn_key) == (waiting[0], key):
            return
        await self._store.set_timer_tx(
            timer_for(TableSettings.from_json(game.settings), game.id, game.channel, waiting[0], key, self._clock()))

    async def _settings(self, channel: str, actor: Actor, options: dict) -> Reply:
        """Show the table settings, or change them (the host or a server admin)."""
        async with self._write():
            game = await self._store.active_game_tx(channel)
            if game is None:
                raise NoGame()
            settings = TableSettings.from_json(game.settings)
            if not options:
                return Reply("shown", settings.describe(), ephemeral=True)
            if actor.id != game.host and not actor.is_admin:
                raise GameError("Only the host or a server admin can change the table settings.")
            settings = updated(settings, options)
            game = await self._store.set_settings_tx(game, settings.to_json())
            ruleset = get_ruleset(game.ruleset)
            await self._sync_timer_tx(ruleset, game, decode_state(ruleset.state_type, game.state), force=True)
        return Reply("shown", f"Table settings changed by {actor.name}. {settings.describe()}")

    async def _pause(self, channel: str, actor: Actor, hours: int) -> Reply:
        """A player's vacation: their reminders and deadlines wait, up to the host's limit."""
        async with self._write():
            game = await self._store.active_game_tx(channel)
            if game is None:
                raise NoGame()
            ruleset = get_ruleset(game.ruleset)
            state = decode_state(ruleset.state_type, game.state)
            if state.player(actor.id) is None:
                raise GameError("Only a player in this game can pause.")
            settings = TableSettings.from_json(game.settings)
            if hours > settings.pause_limit_hours:
                raise GameError(f"The host allows pauses of up to {settings.pause_limit_hours:g} hours.")
            paused = dict(settings.paused_until)
            paused.pop(actor.id, None)
            if hours:
                paused[actor.id] = self._clock() + hours * HOUR
            game = await self._store.set_settings_tx(game, replace(settings, paused_until=paused).to_json())
            await self._sync_timer_tx(ruleset, game, state, force=True)
        if hours:
            return Reply("shown", f"{actor.name} is away for {hours} h: their reminders and deadlines wait.")
        return Reply("shown", f"{actor.name} is back: reminders and deadlines run again.")

    async def run_due(self) -> list[Notice]:
        """Send what is due: reminders, and the autopilot for turns past their deadline.

        Each timer is claimed (cleared) in a transaction before it is acted on, so a restart or a
        second process never sends it twice.
        """
        notices = []
        for kind, timer in await self._store.claim_due(self._clock()):
            reply = await self._guarded(timer.channel, self._due(kind, timer))
            if reply.outcome != "refused":
                notices.append(Notice(timer.channel, reply))
        return notices

    async def _due(self, kind: str, timer: Timer) -> Reply:
        ruleset, game, state = await self._load(timer.channel)
        waiting = ruleset.acting_players(state)
        if game.id != timer.game_id or not waiting or waiting[0] != timer.player \
                or ruleset.turn_key(state) != timer.turn_key:
            raise GameError("stale timer")  # the game moved on; nothing to send
        name = state.player(timer.player).name
        if kind == "reminder":
            return Reply("shown", f"Reminder: the game is waiting for {name}. {ruleset.prompt(state)}",
                         mention=timer.player)
        settings = TableSettings.from_json(game.settings)
        brake = settings.deadline_action == "skip"
        lines = [f"{name}'s deadline passed: the autopilot drives this turn "
                 f"({'braking hard' if brake else 'keeping speed'}, straight ahead, no fire)."]
        done = None
        for _ in range(MAX_COMPUTER_ACTIONS):
            line = ruleset.autopilot_command(state, timer.player, brake=brake)
            if line is None:
                break
            done = await self._apply(timer.channel, timer.player, parse(line))
            lines += [e.describe() for e in done.events]
            state = done.state
        if done is None:
            raise GameError("nothing to play")
        done, computer_events = await self._play_computers(timer.channel, done)
        lines += [e.describe() for e in computer_events]
        reply = await self._with_map(done.ruleset, done.game, done.state, "applied",
                                     latest_lines(lines, MESSAGE_LIMIT - 300))
        waiting = reply.waiting_on
        if waiting and not self._is_computer(done, waiting[0]):
            reply = replace(reply, mention=waiting[0])
        return reply
