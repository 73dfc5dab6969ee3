"""What every part of the service shares: the store, the write transaction that claims a delivery,
the channels' locks, decoded snapshots and the work kept off the loop."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Any

from bot.storage.store import GameRecord, Store
from bot.table.jobs.drawing import Drawing
from bot.table.jobs.heavy import HeavyWork
from bot.table.protocol.refusals import NoGame
from bot.table.service.recent import RecentEvents
from bot.table.service.snapshots import DecodedSnapshots
from bot.table.trust.seen import hides_whole_actions, seen_log
from rules.engine import Ruleset
from rules.registry import get_ruleset

# The delivery (interaction id) the running command came with, claimed by its first write.
DELIVERY: contextvars.ContextVar[str | None] = contextvars.ContextVar("pitboss_delivery", default=None)


class Table:
    """The service's shared parts, handed to each part that needs them."""

    def __init__(self, store: Store, render: Callable[[str, Any, tuple, tuple], bytes] | None, drawing: Drawing,
                 clock: Callable[[], float], heavy: HeavyWork):
        self.store = store
        self.render = render   # None: no pictures (benchmarks of the rules, some tests)
        self.drawing = drawing  # pictures are drawn off the event loop
        self.clock = clock
        self.heavy = heavy  # log re-runs, GIFs, imports and exports: a thread, or a process for the bot
        self.snapshots = DecodedSnapshots()
        self.recent = RecentEvents()
        # Weak values: a channel's lock lives only while some command holds or awaits it.
        self._channel_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def lock_for(self, channel: str) -> asyncio.Lock:
        """The lock every command of one channel takes, so a channel's commands run one at a time."""
        lock = self._channel_locks.get(channel)
        if lock is None:
            lock = self._channel_locks[channel] = asyncio.Lock()
        return lock

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[None]:
        """A write transaction that also claims the command's delivery, so a delivery is carried out once.

        Only a command's first committed write claims it: later steps of a plan are the same delivery.
        """
        async with self.store.transaction():
            key = DELIVERY.get()
            if key is not None:
                await self.store.claim_delivery_tx(key)
            yield
        DELIVERY.set(None)

    async def load(self, channel: str, any_status: bool = False) -> tuple[Ruleset, GameRecord, Any]:
        """The channel's running game (or, with any_status, its latest one), its ruleset and state."""
        game = await self.store.active_game(channel)
        if game is None and any_status:
            game = await self.store.latest_game(channel)
        if game is None:
            raise NoGame()
        ruleset = get_ruleset(game.ruleset)
        return ruleset, game, self.snapshots.load(ruleset, game.state)

    async def seen_count(self, ruleset: Ruleset, game: GameRecord, state: Any, viewer: str | None = None) -> int:
        """How many actions the game has, as `viewer` counts them (the channel's count: None), those they may
        not know of left out (bot.table.trust.seen)."""
        if hides_whole_actions(ruleset, state):
            return len(seen_log(ruleset, state, await self.store.actions(game.id), viewer))
        return await self.store.action_count(game.id)


def ended_here(ruleset: Ruleset, game: GameRecord, state: Any) -> bool:
    """Whether the game really ended in this record: only then is its seed revealed. A record
    retired by a move (marked, or from before moves were marked: stopped, not over) never is."""
    return game.status == "finished" and not game.moved and ruleset.is_finished(state)


def elsewhere(game: GameRecord) -> str:
    """Where a retired record's game went."""
    if game.moved_to:
        return f"This game moved to {channel_mention(game.moved_to)} and goes on there."
    return "This game was moved to another channel and goes on there."


def channel_mention(channel: str) -> str:
    """How a message names a channel: a link on Discord (numeric ids), the name elsewhere."""
    return f"<#{channel}>" if channel.isdigit() else channel


def channel_link(guild: str, channel: str) -> str:
    """A channel named from outside it (a direct message): a link that opens it on Discord (numeric ids),
    else its mention."""
    if guild.isdigit() and channel.isdigit():
        return f"https://discord.com/channels/{guild}/{channel}"
    return channel_mention(channel)
