"""A game the league pairs (a tournament's table, a season's): opened in a new thread of the league's channel with
every member seated in order, a turn deadline at which the autopilot plays, and started at once.

Rulings:
- The first member hosts; the game rolls secret dice and is never listed as an open table (public:no).
- The deadline is set before the start, so no paired game waits on an absent member for ever nor runs untimed.
- The thread gets two messages: who plays (and the dice's commitment), then the start's table pinging whom the
  first turn waits on (a seat given to the computer at the start, below, adds its own, which pings instead); the
  league's channel gets one line naming the thread (the caller gathers them).
- The game is recorded as the league's as soon as it is made, before the seats, the deadline and the start: a
  crash in between leaves it in its lobby, and the league's next round finishes it (`finish`), never making a
  second game or thread for the table.
- A member the operator blocked (`pitboss block`) is seated, and their seat given to the computer at once: they
  may not play, and the game never waits on them. Unblocked, they take it back with /game seat take.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bot.storage import privacy as controls
from bot.table.protocol.commands import Command
from bot.table.protocol.replies import MESSAGE_LIMIT, Actor, Notice, Reply, clip
from bot.table.service.acting import Acting
from bot.table.service.queue import ThreadOpener, ThreadRefused
from bot.table.service.seating import Seating
from bot.table.service.shared import Table, channel_mention
from bot.table.service.timers import Timers
from bot.table.trust.commitment import announce
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.table import TablePhase, born_computer


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
        """Open one paired game; `made(game_id)` records it as the league's before anyone is seated (then `finish`)."""
        try:
            thread = await opener(pairing.parent, pairing.title, pairing.number)
        except ThreadRefused as exc:
            return Opened(None, f"{_names(pairing)} could not open: {exc}")
        created = await self._seating.new_game(thread, pairing.members[0], {"ruleset": pairing.ruleset,
                                                                             **pairing.setup, "public": "no"},
                                               pairing.guild)
        game = await self._table.store.active_game(thread)
        if created.outcome == "refused" or game is None:
            return Opened(None, f"{_names(pairing)} could not open: {created.text}")
        await made(game.id)
        return await self.finish(pairing, game.id)

    async def finish(self, pairing: Pairing, game_id: int) -> Opened:
        """Seat, time and start a paired game the league made and recorded: the rest of `open`, also for a game a
        crash left in its lobby (the league's next round finishes it; those seated already are not joined again).
        Nothing is done, nor said, for a game past its lobby."""
        game = await self._table.store.game(game_id)
        if game is None or game.status != "active" or game.moved:
            return Opened(game_id, "")
        state = get_ruleset(game.ruleset).load_state(game.state)
        if state.phase != TablePhase.LOBBY:
            return Opened(game_id, "")
        thread, host = game.channel, pairing.members[0]
        seated = {p.id for p in state.players}
        refused = []
        for member in pairing.members:
            if member.id not in seated:
                joined = await self._acting.act(thread, member, Command("game join", {}))
                if joined.outcome == "refused":
                    refused.append(f"{member.name}: {joined.text}")
        clock = await self._timers.settings(thread, host, {"deadline_hours": pairing.deadline_hours,
                                                           "deadline_action": "autopilot"})
        started = await self._acting.act(thread, host, Command("game start", {}))
        given, absent = await self._to_computer(thread, pairing)
        words = "\n".join([f"{pairing.label}: {_names(pairing)}, seated by {pairing.by} ({host.name} hosts). A turn's "
                           f"deadline is {pairing.deadline_hours} h; then the autopilot plays it.", announce(game.seed),
                           *refused, *([clock.text] if clock.outcome == "refused" else []),
                           *(f"The computer plays {m.name}'s seat: they may not play now." for m in absent)])
        # the start is the host's own action, which pings nobody: whom the game then waits on is pinged, once
        told = [replace(reply, ephemeral=False, mentions=()) for reply in (started, *given)]
        gone = {m.id for m in absent}
        told[-1] = replace(told[-1], mentions=tuple(p for p in told[-1].waiting_on
                                                    if not born_computer(p) and p not in gone))
        return Opened(game.id, f"{_names(pairing)} play in {channel_mention(thread)}",
                      [Notice(thread, Reply("shown", clip(words, MESSAGE_LIMIT))),
                       *(Notice(thread, reply) for reply in told)])

    async def _to_computer(self, thread: str, pairing: Pairing) -> tuple[list[Reply], list[Actor]]:
        """The seats of the members the operator blocked, given to the computer each by its own member's action (as
        their joins were): they may not play, and the game never waits on them. The replies, and whose seats."""
        blocked = await controls.blocked_members(self._table.store, pairing.guild) or set()
        given, absent = [], []
        for member in pairing.members:
            if member.id in blocked:
                with contextlib.suppress(GameError):   # a game whose seats never change hands: its deadlines play
                    given.append(await self._acting.act(thread, member, Command("game seat computer", {})))
                    absent.append(member)
        return given, absent


def _names(pairing: Pairing) -> str:
    """Who plays a paired game, as its lines name them: "ann v bob"."""
    return " v ".join(a.name for a in pairing.members)
