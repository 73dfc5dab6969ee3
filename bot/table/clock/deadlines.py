"""What a due timer sends: a reminder, or at a deadline the autopilot playing the missed turn by the
rules, if the claim still stands."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.storage.store import GameRecord, Timer
from bot.table.clock.moments import moment
from bot.table.clock.settings import MAX_COMPUTER_ACTIONS, TableSettings
from bot.table.protocol.refusals import StaleButton
from bot.table.protocol.replies import Reply
from bot.table.service.acting import Acting
from bot.table.service.pictures import Pictures
from bot.table.service.table import Table
from rules.engine import Ruleset
from rules.errors import GameError
from rules.table import PlayedByAutopilot

CLAIM_ATTEMPTS = 3   # a due turn whose game is written meanwhile is looked at again this many times


class Deadlines:
    """Reminders and the deadline autopilot, for timers the store has claimed."""

    def __init__(self, table: Table, acting: Acting, pictures: Pictures):
        self._table, self._acting, self._pictures = table, acting, pictures

    async def _autopilot_step(self, ruleset: Ruleset, game: GameRecord, state: Any, timer: Timer,
                              passive: bool) -> Any:
        """One action the autopilot plays for the player, applied only if the game is still as it was
        read (StaleButton otherwise); None when it has nothing to play."""
        if ruleset.autopilot is None:
            return None
        action = ruleset.autopilot.play(state, timer.player, passive)
        if action is None:
            return None
        seat = state.player(timer.player)
        return await self._acting.apply(timer.channel, timer.player, None, game.version, action=action,
                                        told=(PlayedByAutopilot(seat.name if seat else timer.player),))

    async def _still_due(self, timer: Timer) -> tuple[Ruleset, GameRecord, Any]:
        """The game a claimed timer is for, if the claim still stands: the game still waits on the
        player in that turn and nothing restarted their clock since it was claimed (they acted, paused,
        or the settings changed). Otherwise a GameError: nothing is sent."""
        ruleset, game, state = await self._table.load(timer.channel)
        now = {t.player: t for t in await self._table.store.timers(game.id)}.get(timer.player)
        if game.id != timer.game_id or timer.player not in ruleset.acting_players(state) \
                or ruleset.turn_key(state) != timer.turn_key or now is None or now.token != timer.token:
            raise GameError("stale timer")  # the game moved on for this player; nothing to send
        return ruleset, game, state

    async def due(self, kind: str, timer: Timer) -> Reply:
        """What a claimed reminder or deadline sends: the reminder, or the turn the autopilot played."""
        ruleset, game, state = await self._still_due(timer)
        name = state.player(timer.player).name
        if kind == "reminder":
            deadline = f" Your deadline: {moment(timer.deadline_due)}." if timer.deadline_due is not None else ""
            return Reply("shown", f"Reminder: the game is waiting for {name}. {ruleset.prompt(state)}{deadline}",
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
        done, others = await self._acting.play_computers(timer.channel, done)
        text = self._acting.reported(done, lines, own + others)
        reply = await self._pictures.with_map(done.ruleset, done.game, done.state, "applied", text, done.events)
        waiting = tuple(p for p in reply.waiting_on if not done.ruleset.is_computer(done.state, p))
        if waiting:
            reply = replace(reply, mentions=waiting)
        return reply
