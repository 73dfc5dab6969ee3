"""What every part of the service shares: the store, the write transaction that claims a delivery,
the channels' locks, decoded snapshots and the work kept off the loop."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from bot.storage.store import GameRecord, Store, Timer
from bot.table.jobs.drawing import Drawing
from bot.table.jobs.heavy import HeavyWork
from bot.table.protocol.refusals import NoGame
from bot.table.protocol.replies import Scope, private_scope
from bot.table.service.recent import RecentEvents
from bot.table.service.snapshots import DecodedSnapshots
from bot.table.trust.seen import hides_whole_actions, seen_log
from rules.engine import LegalAction, Ruleset
from rules.registry import get_ruleset

# A meta key (and a game's id): the game's version when its computer seats alone played a command's whole bound.
BOUNDED_KEY = "computers-bounded:"

# The delivery (interaction id) the running command came with, claimed by its first write.
DELIVERY: contextvars.ContextVar[str | None] = contextvars.ContextVar("pitboss_delivery", default=None)


@dataclass
class CommandReads:
    """What the running command has read or written already, so the parts of one move read nothing twice:
    the game's row as its last move wrote it (with whether it had an open vote and followers then), its
    timers as written, and the players' own settings. Forgotten at every new write transaction (bot.table.
    service.shared.Table.write), which may change them; a command that writes a player's own settings reads
    them from the store."""

    game: GameRecord | None = None
    voting: bool = True      # the game had an open vote when its move was written (True: unknown, read it)
    followed: bool = True    # someone followed it then
    # (game id, version, timers by player, whether they are all its timers or only those the command wrote)
    timers: tuple[int, int, dict[str, Timer], bool] | None = None
    settings: dict[tuple[str, str], str | None] = field(default_factory=dict)   # (guild, player): stored or None

    def forget(self) -> None:
        """Forget everything read so far (a write begins)."""
        self.game, self.voting, self.followed, self.timers = None, True, True, None
        self.settings.clear()

    def known_game(self, game_id: int | None, version: int | None = None) -> GameRecord | None:
        """The game's row as this command's move left it, if it is that game (at that version)."""
        game = self.game
        return game if game is not None and game.id == game_id and version in (None, game.version) else None

    def known_timers(self, game: GameRecord, players: tuple[str, ...]) -> list[Timer] | None:
        """These players' timers as this command wrote them at the game's version (each one it knows); None
        when it does not know them all."""
        kept = self.timers
        if kept is None or kept[:2] != (game.id, game.version) or not kept[3] and not set(players) <= set(kept[2]):
            return None
        return list(kept[2].values())


# The running command's reads (None outside a command: everything is read from the store).
_READS: contextvars.ContextVar[CommandReads | None] = contextvars.ContextVar("pitboss_reads", default=None)


@contextlib.contextmanager
def command_reads() -> Iterator[CommandReads]:
    """One command's memory of what it read (CommandReads), for the parts it runs."""
    reads = CommandReads()
    token = _READS.set(reads)
    try:
        yield reads
    finally:
        _READS.reset(token)


def reads() -> CommandReads:
    """The running command's reads (a throwaway one outside a command)."""
    return _READS.get() or CommandReads()


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
        self.lobbies_changed: set[str] = set()   # servers a lobby of which changed: their boards are looked at
        # channels whose computer seats stopped half-way (the database stayed busy): the scheduler plays on
        self.stalled: set[str] = set()
        # called with each finished game the rating took in and what its log gave (a tournament keeps its result)
        self.when_rated: list[Callable[[GameRecord, Any], Awaitable[None]]] = []
        # Weak values: a channel's lock lives only while some command holds or awaits it.
        self._channel_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def lobby_changed(self, guild: str) -> None:
        """A lobby of server `guild` opened, filled, started, ended, moved or became an open table, by whatever did
        it (a command, a button, the scheduler): its board of open tables is looked at (coalesced)."""
        self.lobbies_changed.add(guild)

    async def mark_bounded(self, game: GameRecord) -> None:
        """Remember that the game's computer seats alone played one command's whole bound without an end, at the
        game's version now (a person's move, a rollback or a setting changes it)."""
        await self.store.set_meta(f"{BOUNDED_KEY}{game.id}", str(game.version))

    async def _bounded(self, game: GameRecord) -> bool:
        return await self.store.get_meta(f"{BOUNDED_KEY}{game.id}") == str(game.version)

    async def mark_if_computers_play_on(self, ruleset: Ruleset, game: GameRecord, state: Any,
                                        moved_from: GameRecord | None = None) -> None:
        """Mark the game's channel for the scheduler (`stalled`) when its game waits on computer seats alone
        that stopped short of one command's bound (a busy database, a restart). Seats that
        played the whole bound without an end (mark_bounded) and nothing since wait as the channel was told:
        for a person to take a seat back or the host to end it (each restart played another 20,000 actions).
        `moved_from`: the record the game was moved from, whose mark it carries."""
        if moved_from is not None and await self._bounded(moved_from):
            await self.mark_bounded(game)
        if waits_on_computers_alone(ruleset, state) and not await self._bounded(game):
            self.stalled.add(game.channel)

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
        if (known := _READS.get()) is not None:   # what it writes may change what the command read
            known.forget()
        try:
            async with self.store.transaction():
                key = DELIVERY.get()
                if key is not None:
                    await self.store.claim_delivery_tx(key)
                yield
        except BaseException:
            if known is not None:   # nothing read inside a write undone stays
                known.forget()
            raise
        DELIVERY.set(None)

    async def player_settings(self, guild: str, players: tuple[str, ...]) -> dict[str, str]:
        """The stored /me settings of these players on a server (those who keep any), each read once a command."""
        known = _READS.get()
        if known is None:
            return await self.store.player_settings_tx(guild, players)
        missing = tuple(p for p in dict.fromkeys(players) if (guild, p) not in known.settings)
        if missing:
            stored = await self.store.player_settings_tx(guild, missing)
            known.settings.update(((guild, p), stored.get(p)) for p in missing)
        return {p: text for p in players if (text := known.settings[(guild, p)]) is not None}

    def unread_settings(self, guild: str, players: tuple[str, ...]) -> tuple[str, ...]:
        """Those of `players` whose /me settings on `guild` the running command has not read (outside a command:
        none, as there is nowhere to keep them)."""
        known = _READS.get()
        return () if known is None else tuple(p for p in dict.fromkeys(players) if (guild, p) not in known.settings)

    def knows_settings(self, guild: str, player: str, stored: str | None) -> None:
        """The running command read `player`'s stored /me settings on `guild` (None: they keep none)."""
        if (known := _READS.get()) is not None:
            known.settings[(guild, player)] = stored

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


def own_scope(ruleset: Ruleset, state: Any, own_last: int, legal: tuple[LegalAction, ...]) -> Scope:
    """The scope of a player's private menu of `legal` (replies.private_scope), with `own_last`, the number of
    their last logged action (Store.last_seq_by): their own press spoils the menu, so a double click plays once
    (a move's next step often offers the same choices); another's action does not (a GM's note, a declaration
    in a step played together)."""
    return private_scope(ruleset.turn_key(state), legal, own_last)


def waits_on_computers_alone(ruleset: Ruleset, state: Any) -> bool:
    """Whether the running game waits on computer seats and nobody else: nothing but the table moves it."""
    waiting = ruleset.acting_players(state)
    return bool(waiting) and not ruleset.is_finished(state) and all(ruleset.is_computer(state, p) for p in waiting)


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
