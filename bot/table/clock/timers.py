"""The table's clock: reminders and deadlines for the player a game waits on, settings and pauses.

A mixin of GameService: it uses the service's store, lock, clock and apply path.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.storage.store import GameRecord, Timer
from bot.table.clock.settings import HOUR, MAX_COMPUTER_ACTIONS, DamagedSettings, TableSettings, timer_for, updated
from bot.table.protocol.refusals import NoGame, StaleButton
from bot.table.protocol.replies import Actor, Notice, Reply
from rules.engine import Ruleset
from rules.errors import GameError
from rules.registry import get_ruleset

CLAIM_ATTEMPTS = 3   # a due turn whose game is written meanwhile is looked at again this many times


class TableClock:
    """Reminders, deadlines with the autopilot, table settings and pauses."""

    async def _sync_timer_tx(self, ruleset: Ruleset, game: GameRecord, state: Any, force: bool = False,
                             acted: str | None = None) -> None:
        """A reminder and deadline clock for each person the game waits on: started when it starts
        waiting on them, kept while it still does in the same turn, dropped when it no longer does.
        A deadline measures how long the game has waited on a player without an action from them, so
        the clock of `acted`, who just acted and is still waited on, starts again."""
        waiting = () if ruleset.is_finished(state) else \
            tuple(p for p in ruleset.acting_players(state) if not ruleset.is_computer(state, p))
        key = ruleset.turn_key(state)
        current = {t.player: t for t in await self._store.timers_tx(game.id)}
        for player in set(current) - set(waiting):
            await self._store.clear_timer_tx(game.id, player)
        settings = TableSettings.from_json(game.settings)
        for player in waiting:
            if force or player == acted or player not in current or current[player].turn_key != key:
                await self._store.set_timer_tx(timer_for(settings, game.id, game.channel, player, key, self._clock()))

    async def _restart_timer_tx(self, ruleset: Ruleset, game: GameRecord, state: Any, player: str) -> None:
        """The clock of a player who just acted and is still waited on in the same turn starts again (one
        write; the other players' clocks run on)."""
        settings = TableSettings.from_json(game.settings)
        await self._store.set_timer_tx(timer_for(settings, game.id, game.channel, player, ruleset.turn_key(state),
                                                 self._clock()))

    async def _settings(self, channel: str, actor: Actor, options: dict) -> Reply:
        """Show the table settings, or change them (the host or a server admin)."""
        async with self._write():
            game = await self._store.active_game_tx(channel)
            if game is None:
                raise NoGame()
            if not options:
                return Reply("shown", TableSettings.from_json(game.settings).describe(), ephemeral=True)
            if actor.id != game.host and not actor.is_admin:
                raise GameError("Only the host or a server admin can change the table settings.")
            try:
                settings = TableSettings.from_json(game.settings)
            except DamagedSettings:
                settings = TableSettings()  # damaged settings are set again over the defaults
            settings = updated(settings, options)
            game = await self._store.set_settings_tx(game, settings.to_json())
            ruleset = get_ruleset(game.ruleset)
            await self._sync_timer_tx(ruleset, game, ruleset.load_state(game.state), force=True)
        return Reply("shown", f"Table settings changed by {actor.name}. {settings.describe()}")

    async def _pause(self, channel: str, actor: Actor, hours: int) -> Reply:
        """A player's vacation: their reminders and deadlines wait, up to the host's limit."""
        async with self._write():
            game = await self._store.active_game_tx(channel)
            if game is None:
                raise NoGame()
            ruleset = get_ruleset(game.ruleset)
            state = ruleset.load_state(game.state)
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

    async def _autopilot_step(self, ruleset: Ruleset, game: GameRecord, state: Any, timer: Timer,
                              passive: bool) -> Any:
        """One action the autopilot plays for the player, applied only if the game is still as it was
        read (StaleButton otherwise); None when it has nothing to play."""
        action = ruleset.autopilot.play(state, timer.player, passive)
        if action is None:
            return None
        return await self._apply(timer.channel, timer.player, None, game.version, action=action)

    async def run_due(self) -> list[Notice]:
        """Send what is due: reminders, and the autopilot for turns past their deadline.

        Each timer is claimed (cleared) in a transaction before it is acted on, so a restart or a
        second process never sends it twice.
        """
        return await self.send_claimed(await self._store.claim_due(self._clock()))

    async def send_claimed(self, claimed: list[tuple[str, Timer]]) -> list[Notice]:
        """The notices of reminders and deadlines claimed (bot.storage.store.Store.claim_due): a claim
        whose game moved on for its player since it was taken sends nothing."""
        notices = []
        for kind, timer in claimed:
            reply = await self._guarded(timer.channel, self._due(kind, timer))
            if reply.outcome != "refused":
                notices.append(Notice(timer.channel, reply))
        return notices

    async def _still_due(self, timer: Timer) -> tuple[Ruleset, GameRecord, Any]:
        """The game a claimed timer is for, if the claim still stands: the game still waits on the
        player in that turn and nothing restarted their clock since it was claimed (they acted, paused,
        or the settings changed). Otherwise a GameError: nothing is sent."""
        ruleset, game, state = await self._load(timer.channel)
        now = {t.player: t for t in await self._store.timers(game.id)}.get(timer.player)
        if game.id != timer.game_id or timer.player not in ruleset.acting_players(state) \
                or ruleset.turn_key(state) != timer.turn_key or now is None or now.token != timer.token:
            raise GameError("stale timer")  # the game moved on for this player; nothing to send
        return ruleset, game, state

    async def _due(self, kind: str, timer: Timer) -> Reply:
        ruleset, game, state = await self._still_due(timer)
        name = state.player(timer.player).name
        if kind == "reminder":
            return Reply("shown", f"Reminder: the game is waiting for {name}. {ruleset.prompt(state)}",
                         mentions=(timer.player,))
        if ruleset.autopilot is None:
            raise GameError("no autopilot")  # the game has none: the deadline only reminds
        passive = TableSettings.from_json(game.settings).deadline_action == "skip"
        lines = [f"{name}'s deadline passed: the autopilot plays for them ({ruleset.autopilot.describe(passive)})."]
        own: list = []
        done = None
        for attempt in range(CLAIM_ATTEMPTS):
            try:
                done = await self._autopilot_step(ruleset, game, state, timer, passive)
                break
            except StaleButton:   # written meanwhile (another process): is the claim still good?
                if attempt == CLAIM_ATTEMPTS - 1:
                    raise
                ruleset, game, state = await self._still_due(timer)
        if done is None:
            raise GameError("nothing to play")
        own.append((timer.player, done.events))
        state = done.state
        for _ in range(MAX_COMPUTER_ACTIONS):
            if done.ruleset.turn_key(state) != timer.turn_key:
                break   # the missed turn is played; a later one has its own deadline
            try:
                step = await self._autopilot_step(ruleset, done.game, state, timer, passive)
            except StaleButton:
                break   # the player (or someone) acted meanwhile: the rest of the turn is theirs
            if step is None:
                break
            done = step
            own.append((timer.player, done.events))
            state = done.state
        done, others = await self._play_computers(timer.channel, done)
        text = self._reported(done, lines, own + others)
        reply = await self._with_map(done.ruleset, done.game, done.state, "applied", text, done.events)
        waiting = tuple(p for p in reply.waiting_on if not done.ruleset.is_computer(done.state, p))
        if waiting:
            reply = replace(reply, mentions=waiting)
        return reply
