"""Moving a running game to another channel by its export, and re-playing a finished one from its log."""

from __future__ import annotations

import contextlib
from dataclasses import replace

from bot.storage import ratings as rated_stored
from bot.storage.league import carry_listing_tx
from bot.storage.store import ActionRecord, ChannelTaken, GameRecord, NotMovable, VoteChanged
from bot.table.jobs import heavy_jobs
from bot.table.jobs.heavy_jobs import seat_ids
from bot.table.protocol.replies import Actor, Notice, Reply, refusal
from bot.table.service import league_moves
from bot.table.service.following import watching
from bot.table.service.pictures import Pictures
from bot.table.service.rollback import ended_by_move
from bot.table.service.shared import Table, channel_mention, ended_here
from bot.table.service.timers import Timers
from bot.table.trust.commitment import commitment
from bot.table.trust.importer import IMPORT_BYTES_PER_ACTION, MAX_REPLAY_ACTIONS, BadImport, ImportedLog
from rules.codec import dumps
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.table import plural

_ONLY_FINISHED = ("Only a finished game can be re-played from its log (its export has the seed). "
                  "A running game is moved by its host's or a server admin's export.")


class Moving:
    """`/game import`: a running game moves (it never forks), a finished one is re-played read-only."""

    def __init__(self, table: Table, timers: Timers, pictures: Pictures):
        self._table, self._timers, self._pictures = table, timers, pictures

    async def import_game(self, channel: str, actor: Actor, data: bytes, guild: str,
                          private_thread: bool = False) -> Reply:
        """Continue an exported game here. A running game moves: the stored game, log and settings are
        copied and its old channel stops, so it never forks; an open table stays listed, but where nobody
        else can open the channel (`private_thread`). A finished one, whose export reveals the seed, is
        re-played from the file as a new, finished record."""
        log_ = await self._table.heavy.run(heavy_jobs.read_import, data, items=len(data) // IMPORT_BYTES_PER_ACTION)
        if log_.seed is None:
            return await self._move(channel, actor, log_, guild, private_thread)
        return await self._replay_import(channel, log_, log_.seed, data, guild)

    async def _move(self, channel: str, actor: Actor, log_: ImportedLog, guild: str, private_thread: bool) -> Reply:
        source = await self._table.store.game(log_.source_game)
        if source is None or commitment(source.seed) != log_.seed_commitment or source.ruleset != log_.ruleset.id:
            raise BadImport("That log is of a running game this bot does not hold; only finished games "
                            "(whose export includes the seed) can be imported elsewhere.")
        if source.moved_to is not None:
            raise BadImport(f"That game already moved to {channel_mention(source.moved_to)}; to move it again, "
                            f"export it there.")
        if source.status != "active":
            raise BadImport("That game is over. Export it again where it ended: that file has the seed and "
                            "can be re-played anywhere.")
        if source.channel == channel:
            raise BadImport("That game is already running in this channel.")
        if actor.id != source.host and not (actor.is_admin and guild == source.guild):
            raise GameError("Only the game's host, or an admin of the server it is played on, can move a "
                            "running game.")
        guild = guild or source.guild   # the command line names no server: the game stays on its own
        if guild != source.guild and (league := await league_moves.paired_by(self._table.store, source.id)):
            raise GameError(f"This is a game of {league}, which is played on its own server: it moves only to "
                            f"another channel there.")
        ruleset = log_.ruleset
        vote = await self._table.store.rollback_vote(source.id)   # not carried: it ends where it was asked
        try:
            async with self._table.write():
                game = await self._table.store.move_game_tx(source.id, channel, guild)
                if vote is not None:
                    with contextlib.suppress(VoteChanged):   # answered or closed meanwhile: gone all the same
                        await self._table.store.close_rollback_vote_tx(vote)
                await league_moves.game_moved_tx(self._table.store, source.id, game.id)   # a league game is followed
                await carry_listing_tx(self._table.store, source.id, game.id, listed=not private_thread)
                state = ruleset.load_state(game.state)
                await self._timers.sync_tx(ruleset, game, state)   # the clocks moved with it, and run on
        except ChannelTaken:
            return refusal("This channel already has a game; import into another channel or thread.")
        except NotMovable:
            raise BadImport("That game stopped running where it was (it moved or ended meanwhile); "
                            "nothing was moved.") from None
        self._table.stalled.discard(source.channel)
        await self._table.mark_if_computers_play_on(ruleset, game, state, moved_from=source)   # played on here
        count = await self._table.seen_count(ruleset, game, state)
        reply = await self._pictures.with_map(ruleset, game, state, "applied",
                                              f"The {ruleset.title} game moved here from "
                                              f"{channel_mention(source.channel)} with its "
                                              f"{plural(count, 'action', 'actions')}, table settings, standing "
                                              f"orders and followers; it stopped there.")
        # whoever it waits on is pinged where it went; its old channel is told where it went, its followers pinged
        waiting = ruleset.people_waited_on(state)
        reply = replace(reply, mentions=waiting, ping_words="the game moved here and waits on you.")
        followers = watching(await self._table.store.followers(game.id), state, ("round",))   # as a new round would
        said, closed = ended_by_move(vote, channel_mention(channel)) if vote is not None else ("", ())
        told = Reply("shown", f"The {ruleset.title} game here moved to {channel_mention(channel)}; it goes on "
                              f"there{', and you still follow it' if followers else ''}.{' ' if said else ''}{said}",
                     mentions=followers, edits=closed,
                     ping_words="(you follow this game; /game unfollow in its new channel stops it)")
        return replace(reply, notices=reply.notices + (Notice(source.channel, told),))

    async def _replay_import(self, channel: str, log_: ImportedLog, seed: int, data: bytes, guild: str) -> Reply:
        source = await self._table.store.game(log_.source_game)
        if source is not None and source.seed == seed and source.ruleset == log_.ruleset.id:
            return await self._copy_finished(channel, source, guild or source.guild)
        if log_.action_count > MAX_REPLAY_ACTIONS:
            raise BadImport(f"That game log is too long to re-play here ({log_.action_count} actions; "
                            f"the limit is {MAX_REPLAY_ACTIONS}).")
        first, final, entries, finished = await self._table.heavy.run(heavy_jobs.replay_import, data,
                                                                      items=log_.action_count)
        if not finished:
            raise BadImport(_ONLY_FINISHED)
        set_aside, line_ends = await self._table.heavy.run(heavy_jobs.replay_set_aside, data,
                                                           items=log_.action_count) if log_.set_aside else ({}, {})
        ruleset = log_.ruleset
        state = ruleset.load_state(final)
        try:
            async with self._table.write():
                game = await self._table.store.create_game_tx(channel, ruleset.id, log_.host, seed,
                                                              dumps(log_.options), first, guild)
                game = await self._table.store.append_log_tx(game, entries, final, "finished")
                await rated_stored.mark_imported_tx(self._table.store, game)   # played elsewhere: never rated
                await self._table.store.store_set_aside_tx(
                    game.id, {k: [ActionRecord(*row) for row in rows] for k, rows in set_aside.items()}, line_ends)
                await self._table.store.add_seats_tx(game.id, seat_ids(state))
        except ChannelTaken:
            return refusal("This channel already has a game; import into another channel or thread.")
        return await self._pictures.with_map(ruleset, game, state, "applied",
                                             _replayed(log_.source_game, len(entries)))

    async def _copy_finished(self, channel: str, source: GameRecord, guild: str) -> Reply:
        """A finished game this bot holds, imported again: a finished copy of the stored game and log
        (however long), never a running one."""
        ruleset = get_ruleset(source.ruleset)
        state = ruleset.load_state(source.state)
        if not ended_here(ruleset, source, state):
            raise BadImport(_ONLY_FINISHED)
        try:
            async with self._table.write():
                game = await self._table.store.copy_game_tx(source.id, channel, guild, "finished")
                await rated_stored.mark_imported_tx(self._table.store, game)   # a copy: its game is rated once
        except ChannelTaken:
            return refusal("This channel already has a game; import into another channel or thread.")
        return await self._pictures.with_map(ruleset, game, state, "applied", _replayed(
            source.id, await self._table.seen_count(ruleset, game, state)))


def _replayed(source: int, count: int) -> str:
    """The words of a finished game re-played from its log, however it was (a copy of one this bot holds, or a
    re-run of the file): its count of actions as the channel counts them."""
    return f"Game {source} re-played here from its log: {plural(count, 'action', 'actions')} (finished)."
