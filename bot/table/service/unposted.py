"""After a crash: the moves a game carried out whose message never reached the channel, announced on start.

A move is stored, then its turn message is posted and the turn key it shows remembered
(bot.chat.views.publish). A process killed between the two leaves the game in a later turn than its turn
message shows, and nobody pinged: on start, each such game posts its turn anew, pinging whom it waits on.
A game no message has shown yet (a rematch made, a game moved in) and a rollback are marked unposted in the
write that made them (Store.unposted_tx), so they count as moved on too; so does a game that ended lately
whose end was never posted. A kill within one turn (its turn key unchanged) loses only that move's words,
which the log keeps; a kill after the message was posted but before its turn key was remembered pings once
more (harmless).

A game found waiting on computer seats alone stopped half-way through their moves (the database stayed busy:
Acting.play_computers); a computer's turn has no deadline, so the first scheduler round plays on
(Table.stalled) and posts the turn then.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from bot.storage.store import GameRecord
from bot.table.protocol.replies import Notice
from bot.table.service.pictures import Pictures
from bot.table.service.shared import Table, waits_on_computers_alone
from bot.table.trust.seen import is_public, logged
from rules.registry import get_ruleset

UNPOSTED = "Back after a restart: the last move was carried out, but its message never reached the channel."

log = logging.getLogger("pitboss.unposted")


class Unposted:
    """The running games whose turn moved on since their turn message was posted."""

    def __init__(self, table: Table, pictures: Pictures):
        self._table, self._pictures = table, pictures

    async def notices(self) -> list[Notice]:
        """A notice for each such game: its turn now, pinging the people it waits on. One game that cannot
        be read is logged and spoils no other."""
        notices = []
        for game, shown in await self._table.store.shown_turns():
            try:
                notice = await self._notice(game, shown)
            except Exception:
                log.exception("could not look at game %s after a restart", game.id)
                continue
            if notice is not None:
                notices.append(notice)
        return notices

    async def _notice(self, game: GameRecord, shown: str) -> Notice | None:
        """The game's turn, if it moved on since its turn message; None too when the channel may not learn
        of its last move (a GM's private ruling tells nobody else)."""
        ruleset = get_ruleset(game.ruleset)
        state = self._table.snapshots.load(ruleset, game.state)
        if waits_on_computers_alone(ruleset, state):   # the scheduler plays on, if they stopped half-way
            await self._table.mark_if_computers_play_on(ruleset, game, state)
            return None
        if ruleset.turn_key(state) == shown:
            return None
        last = await self._table.store.recent_actions(game.id, 1)
        if not last or not is_public(ruleset, state, last[0].actor, logged(ruleset, last)[0].action):
            return None
        reply = await self._pictures.with_map(ruleset, game, state, "applied", UNPOSTED)
        waiting = ruleset.people_waited_on(state)
        return Notice(game.channel, replace(reply, mentions=waiting) if waiting else reply)
