"""Pings held in a player's away hours: a message posted while a player is inside their own away hours
(`/me settings away:`) or paused (`/me away`, `/game pause`) does not ping them, and a game still waiting
on them pings them once when that ends (their reminder moves to that moment). The pings that go out go
where each player wants them (`/me settings notify:`): in the channel, by direct message (the channel's
message then mentions nobody for them), or not at all for a player who takes one digest a day."""

from __future__ import annotations

import json
import logging
from dataclasses import replace

from bot.storage import queues
from bot.storage.store import GameRecord, StoreBusy
from bot.table.clock.personal import PlayerSettings, out_of_away
from bot.table.clock.settings import DamagedSettings, TableSettings, back_from_away
from bot.table.protocol.replies import MESSAGE_LIMIT, QUEUE_PREFIX, TURN, Direct, Reply, clip
from bot.table.service.shared import Table, channel_link, reads
from rules.registry import get_ruleset

log = logging.getLogger("pitboss.away")


class AwayPings:
    """Takes the pings to away players out of what the service sends, and moves their reminder to when
    they are back; sends each other ping where its player wants it."""

    def __init__(self, table: Table):
        self._table = table

    async def held(self, channel: str, reply: Reply) -> Reply:
        """`reply` and its notices to other channels, each pinging only players not away now."""
        reply = await self._one(channel, reply)
        if reply.notices:
            notices = tuple([replace(n, reply=await self._one(n.channel, n.reply)) for n in reply.notices])
            reply = replace(reply, notices=notices)
        return reply

    async def _one(self, channel: str, reply: Reply) -> Reply:
        """One channel's reply without its pings to away players (as it was when the database is busy:
        what the command did is done, and a ping too many beats a move reported as refused)."""
        if not reply.mentions:
            return reply
        muster = next((b.custom_id for b in reply.buttons if b.custom_id.startswith(f"{QUEUE_PREFIX}:")), None)
        try:
            if muster is not None:
                return await self._mustered(channel, reply, int(muster.split(":")[1]))
            return await self._held(channel, reply)
        except StoreBusy:
            log.warning("could not read who is away in %s; the pings go out", channel)
            return reply

    async def _mustered(self, channel: str, reply: Reply, muster_id: int) -> Reply:
        """A queued game's muster pings in its thread at once (its own 24 h limit moves for nobody), each member
        where they want it: a digest member too by direct message, as a seat offered to them cannot wait a day."""
        muster = await queues.muster(self._table.store, muster_id)
        if muster is None:
            return reply
        stored = await self._table.player_settings(muster.guild, reply.mentions)
        by_dm = tuple(p for p in reply.mentions
                      if p in stored and PlayerSettings.from_json(stored[p]).notify != "channel")
        if not by_dm:
            return reply
        title = get_ruleset(str(json.loads(muster.queue)["ruleset"])).title
        words = reply.ping_words or TURN
        text = clip(f"**{title}** in {channel_link(muster.guild, channel)}: {words}\n{reply.text}", MESSAGE_LIMIT)
        return replace(reply, mentions=tuple(p for p in reply.mentions if p not in by_dm),
                       direct=reply.direct + tuple(Direct(p, text, muster.guild, channel, words) for p in by_dm))

    async def _held(self, channel: str, reply: Reply) -> Reply:
        # the reply's own game: one that just ended (its end pings the seated) is no longer active, and its
        # end (and a rematch's question) pings by direct message too, or not at all for a digest or an away player
        game = reads().known_game(reply.game_id, reply.version)   # as this command's move wrote it, else read
        if game is None and reply.game_id is not None:
            game = await self._table.store.game(reply.game_id)
        if game is None:
            game = await self._table.store.active_game(channel) or await self._table.store.latest_game(channel)
        if game is None:
            return reply
        stored = await self._table.player_settings(game.guild, reply.mentions)
        own = {player: PlayerSettings.from_json(stored[player]) for player in reply.mentions if player in stored}
        # a digest tells its members of their turns and ends; what others did to their seat, or a seat offered
        # to them, cannot wait for it and comes by direct message
        quiet = {player for player, personal in own.items()
                 if personal.notify == "digest" and player not in reply.seat_news}
        back = await self._away(game, reply, own, quiet)
        pinged = tuple(p for p in reply.mentions if p not in back and p not in quiet)
        by_dm = tuple(p for p in pinged if p in own and own[p].notify != "channel")
        if back:
            await self._ping_when_back(game, back)
        if pinged == reply.mentions and not by_dm:   # everyone pinged in the channel, as the reply has it
            return reply
        return replace(reply, mentions=tuple(p for p in pinged if p not in by_dm),
                       direct=reply.direct + tuple(self._direct(game, channel, reply, p) for p in by_dm))

    async def _away(self, game: GameRecord, reply: Reply, own: dict[str, PlayerSettings],
                    quiet: set[str]) -> dict[str, float]:
        """Each pinged player away now (out of their away hours or paused): when they are back."""
        try:
            table = TableSettings.from_json(game.settings)
        except DamagedSettings:
            table = TableSettings()
        now = self._table.clock()
        back = {}
        for player in reply.mentions:
            personal = own.get(player)
            paused = table.paused_until.get(player, 0.0)
            if player not in quiet and (paused > now or out_of_away(personal, now) > now):
                back[player] = back_from_away(table, personal, max(now, paused))
        return back

    def _direct(self, game: GameRecord, channel: str, reply: Reply, player: str) -> Direct:
        """One player's ping as a direct message: the game and where it is, what the ping tells, the public
        turn's closing lines (for any ping but their turn's, the channel's message it points to), and, in a game
        whose choices show hidden things, that player's own choices (a direct message is theirs alone)."""
        ruleset = get_ruleset(game.ruleset)
        state = self._table.snapshots.load(ruleset, game.state)
        words = dict(reply.own_ping_words).get(player, reply.ping_words)
        # a turn's ping carries what the game waits on; any other (a seat offered or acted on, a standing order
        # answered, the end) the channel's words it points to, which a direct message has no "below" to show
        body = "" if reply.ephemeral else reply.next_line if words == TURN and reply.next_line else reply.text
        own = ""
        if ruleset.private_actions and not ruleset.is_finished(state) and player in ruleset.acting_players(state):
            labels = [action.label for action in ruleset.legal_actions(state, player)]
            own = clip(f"\nYour choices (only you see this): {' | '.join(labels)}", MESSAGE_LIMIT // 3) * bool(labels)
        text = clip(f"**{ruleset.title}** in {channel_link(game.guild, channel)}: {words}\n{body}",
                    MESSAGE_LIMIT - len(own)) + own
        return Direct(player, text, game.guild, channel, words)

    async def _ping_when_back(self, game: GameRecord, back: dict[str, float]) -> None:
        """Each held player the game waits on is reminded when they are back, unless a reminder comes
        sooner (the timer runs on otherwise: same token, same deadline)."""
        reads().timers = None   # moved on here: not as the command's move wrote them any more
        async with self._table.store.transaction():
            for timer in await self._table.store.timers_tx(game.id):
                when = back.get(timer.player)
                if when is not None and (timer.reminder_due is None or timer.reminder_due > when):
                    await self._table.store.set_timer_tx(replace(timer, reminder_due=when))
