"""A game the league pairs (a tournament's table, a season's): opened in a new thread of the league's channel with
every member seated in order, a turn deadline at which the autopilot plays, and started at once.

Rulings:
- The first member hosts; the game rolls secret dice and is never listed as an open table (public:no).
- The deadline is set before the start, so no paired game waits on an absent member for ever nor runs untimed.
- The thread gets two messages: who plays (and the dice's commitment), then the start's table pinging whom the
  first turn waits on; the league's channel gets one line naming the thread (the caller gathers them).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bot.table.protocol.commands import Command
from bot.table.protocol.replies import MESSAGE_LIMIT, Actor, Notice, Reply, clip
from bot.table.service.acting import Acting
from bot.table.service.queue import ThreadOpener, ThreadRefused
from bot.table.service.seating import Seating
from bot.table.service.shared import Table, channel_mention
from bot.table.service.timers import Timers
from rules.table import born_computer


@dataclass(frozen=True)
class Pairing:
    """What to open: where, under which title and number, which game and setup, who plays, and the words."""

    parent: str                   # the league's channel: the thread opens off it
    title: str                    # the thread's title
    number: int                   # names the thread where there are no threads (the command line)
    guild: str
    ruleset: str
    setup: dict[str, Any]
    deadline_hours: int
    members: Sequence[Actor]      # in seat order: the first hosts
    label: str                    # "Tournament 3, round 2", "Season 1": how the thread's first message opens
    by: str                       # "the tournament", "the season": who seated them


@dataclass(frozen=True)
class Opened:
    """A paired game: its stored id (None when it could not open), its line for the league's channel, and its
    thread's messages."""

    game_id: int | None
    line: str
    notices: list[Notice] = field(default_factory=list)


class PairedGames:
    """Opens the games a league pairs."""

    def __init__(self, table: Table, seating: Seating, acting: Acting, timers: Timers):
        self._table, self._seating, self._acting, self._timers = table, seating, acting, timers

    async def open(self, pairing: Pairing, opener: ThreadOpener,
                   made: Callable[[int], Awaitable[None]]) -> Opened:
        """Open one paired game; `made(game_id)` records it as the league's before anyone is seated."""
        names = " v ".join(a.name for a in pairing.members)
        try:
            thread = await opener(pairing.parent, pairing.title, pairing.number)
        except ThreadRefused as exc:
            return Opened(None, f"{names} could not open: {exc}")
        host = pairing.members[0]
        created = await self._seating.new_game(thread, host, {"ruleset": pairing.ruleset, **pairing.setup,
                                                              "public": "no"}, pairing.guild)
        game = await self._table.store.active_game(thread)
        if created.outcome == "refused" or game is None:
            return Opened(None, f"{names} could not open: {created.text}")
        await made(game.id)
        refused = []
        for member in pairing.members:
            joined = await self._acting.act(thread, member, Command("game join", {}))
            if joined.outcome == "refused":
                refused.append(f"{member.name}: {joined.text}")
        clock = await self._timers.settings(thread, host, {"deadline_hours": pairing.deadline_hours,
                                                           "deadline_action": "autopilot"})
        started = await self._acting.act(thread, host, Command("game start", {}))
        commitment = [line for line in created.text.splitlines() if "commitment" in line]
        words = "\n".join([f"{pairing.label}: {names}, seated by {pairing.by} ({host.name} hosts). A turn's deadline "
                           f"is {pairing.deadline_hours} h; then the autopilot plays it.", *commitment, *refused,
                           *([clock.text] if clock.outcome == "refused" else [])])
        # the start is the host's own action, which pings nobody: whom the first turn waits on is pinged
        waiting = tuple(p for p in started.waiting_on if not born_computer(p))
        started = replace(started, ephemeral=False, mentions=waiting)
        return Opened(game.id, f"{names} play in {channel_mention(thread)}",
                      [Notice(thread, Reply("shown", clip(words, MESSAGE_LIMIT))), Notice(thread, started)])
