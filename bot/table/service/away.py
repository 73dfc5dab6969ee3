"""Pings held in a player's away hours: a message posted while a player is inside their own away hours
(`/me settings away:`) or paused (`/me away`, `/game pause`) does not ping them, and a game still waiting
on them pings them once when that ends (their reminder moves to that moment)."""

from __future__ import annotations

import logging
from dataclasses import replace

from bot.storage.store import GameRecord, StoreBusy
from bot.table.clock.personal import PlayerSettings, out_of_away
from bot.table.clock.settings import DamagedSettings, TableSettings, back_from_away
from bot.table.protocol.replies import Notice, Reply
from bot.table.service.shared import Table

log = logging.getLogger("pitboss.away")


class AwayPings:
    """Takes the pings to away players out of what the service sends, and moves their reminder to when
    they are back."""

    def __init__(self, table: Table):
        self._table = table

    async def held(self, channel: str, reply: Reply) -> Reply:
        """`reply` and its notices to other channels, each pinging only players not away now."""
        reply = await self._one(channel, reply)
        if reply.notices:
            notices = tuple([Notice(n.channel, await self._one(n.channel, n.reply)) for n in reply.notices])
            reply = replace(reply, notices=notices)
        return reply

    async def _one(self, channel: str, reply: Reply) -> Reply:
        """One channel's reply without its pings to away players (as it was when the database is busy:
        what the command did is done, and a ping too many beats a move reported as refused)."""
        if not reply.mentions:
            return reply
        try:
            return await self._held(channel, reply)
        except StoreBusy:
            log.warning("could not read who is away in %s; the pings go out", channel)
            return reply

    async def _held(self, channel: str, reply: Reply) -> Reply:
        # the channel's game, or the one that ended here (its final message, a rematch's question)
        game = await self._table.store.active_game(channel) or await self._table.store.latest_game(channel)
        if game is None:
            return reply
        try:
            table = TableSettings.from_json(game.settings)
        except DamagedSettings:
            table = TableSettings()
        stored = await self._table.store.player_settings_tx(game.guild, reply.mentions)
        now = self._table.clock()
        back = {}   # each away player: when they are back (out of their away hours and any pause)
        for player in reply.mentions:
            personal = PlayerSettings.from_json(stored.get(player)) if player in stored else None
            paused = table.paused_until.get(player, 0.0)
            if paused > now or out_of_away(personal, now) > now:
                back[player] = back_from_away(table, personal, max(now, paused))
        if not back:
            return reply
        await self._ping_when_back(game, back)
        return replace(reply, mentions=tuple(p for p in reply.mentions if p not in back))

    async def _ping_when_back(self, game: GameRecord, back: dict[str, float]) -> None:
        """Each held player the game waits on is reminded when they are back, unless a reminder comes
        sooner (the timer runs on otherwise: same token, same deadline)."""
        async with self._table.store.transaction():
            for timer in await self._table.store.timers_tx(game.id):
                when = back.get(timer.player)
                if when is not None and (timer.reminder_due is None or timer.reminder_due > when):
                    await self._table.store.set_timer_tx(replace(timer, reminder_due=when))
