"""Asking about a game without changing it: its status, log, export, verification, replay, sheets and
the game's own queries, and the games a player is in."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from bot.storage.store import GameRecord
from bot.table.clock.personal import PlayerSettings
from bot.table.jobs import heavy_jobs
from bot.table.jobs.heavy_jobs import log_rows, packed_log
from bot.table.protocol import compiled as typed
from bot.table.protocol.commands import Command, setup_line
from bot.table.protocol.refusals import NoGame, NotThisGame
from bot.table.protocol.replies import MESSAGE_LIMIT, Actor, Attachment, Reply, buttons_for, clip
from bot.table.service import answers, helping, rulebook
from bot.table.service.catchup import CATCH_UP_ACTIONS, catch_up, notes_since
from bot.table.service.pictures import Pictures, wanted_view
from bot.table.service.privacy import Controls
from bot.table.service.review import review
from bot.table.service.shared import Table, elsewhere, ended_here, own_scope
from bot.table.trust.export import events_of
from bot.table.trust.seen import hides_whole_actions, logged, seen_log
from images.captions import seat_name
from rules.engine import Ruleset, describe_events
from rules.errors import GameError
from rules.registry import get_ruleset, ruleset_ids
from rules.seats import seats_line

_SEATS_INDEXED = "seats_indexed"


@dataclass(frozen=True)
class Asked:
    """A query's game, read once: its rules, its record and state, who asks, and whether it ended here."""

    ruleset: Ruleset
    game: GameRecord
    state: Any
    actor: Actor
    ended: bool


class Asking:
    """The read-only commands: each reads the game once and answers as its reader may see it."""

    def __init__(self, table: Table, pictures: Pictures, controls: Controls):
        self._table, self._pictures, self._controls = table, pictures, controls
        self._seats_indexed = False
        # Each query's answer (bot.table.protocol.compiled): a new query is one entry.
        self._answers: dict[type[typed.TableCommand], Callable[[Asked, Any], Awaitable[Reply]]] = {
            typed.GameStatus: self._status, typed.GameLog: self._log,
            typed.Catchup: lambda at, _q: self._catch_up(at.ruleset, at.game, at.state, at.actor),
            typed.Export: self._export, typed.Verify: self._verify, typed.Replay: self._replay,
            typed.Review: lambda at, _q: review(self._table, at.ruleset, at.game, at.state, at.ended),
            typed.Sheet: lambda at, q: self._pictures.sheets(at.ruleset, at.state, q.options),
            typed.GameQuery: self._own,
        }

    async def games(self, actor: Actor, guild: str) -> Reply:
        """The running games a player sits in on this server."""
        await self._index_seats()
        games = await self._table.store.active_games_of(guild, actor.id)
        timers = await self._table.store.timers_of_games([game.id for game in games])
        stored = await self._table.store.player_settings_tx(guild, (actor.id,))
        reader = PlayerSettings.from_json(stored.get(actor.id))
        # up to 50 snapshots to decode: ~17 ms, off the loop
        return await asyncio.to_thread(answers.games_of, actor.id, games, {r: get_ruleset(r) for r in ruleset_ids()},
                                       timers, self._table.clock(), reader)

    async def help(self, channel: str, actor: Actor, typed: str | None) -> Reply:
        """`/help`, or `/help command:NAME`, for this channel's running game (or for no game)."""
        game = await self._table.store.active_game(channel)
        ruleset, state = None, None
        if game is not None:
            ruleset = get_ruleset(game.ruleset)
            state = self._table.snapshots.load(ruleset, game.state)
        off = await self._controls.turned_off()
        if typed:
            return helping.command_help(ruleset, state, actor.id, typed, off)
        return helping.general_help(ruleset, state, actor.id, off)

    async def rules(self, channel: str, topic: str | None, page: int = 1) -> Reply:
        """`/rules`: this channel's game's topics, one topic, or every rule naming a word, privately."""
        game = await self._table.store.active_game(channel) or await self._table.store.latest_game(channel)
        if game is None:
            games = ", ".join(setup_line(r) for r in ruleset_ids())
            raise GameError(f"/rules answers for the game of this channel, and none is here yet ({games}).")
        # a game's first answer reads its RULES.md into topics (15 ms of CPU): off the loop
        said = await asyncio.to_thread(rulebook.answer, get_ruleset(game.ruleset), topic, page)
        return Reply("shown", said, ephemeral=True)

    async def query(self, channel: str, actor: Actor, command: Command) -> Reply:
        """A command that only reads the channel's game, checked against that game, answered by its type's
        answer (`_answers`)."""
        ruleset, game, state = await self._earlier(channel, command.options["game"]) if "game" in command.options \
            else await self._table.load(channel, any_status=True)
        query = typed.compiled(NotThisGame.fitted(ruleset, command))
        ended = ended_here(ruleset, game, state)
        if game.status == "finished" and not ended and not isinstance(query, typed.GameStatus):
            raise GameError(elsewhere(game) + " Use this command there.")
        return await typed.handler_of(self._answers, query)(Asked(ruleset, game, state, actor, ended), query)

    async def _earlier(self, channel: str, game_id: int) -> tuple[Ruleset, GameRecord, Any]:
        """`game:N`: a game that ended in this channel (another may run here now: a rematch), read as it ended."""
        game = await self._table.store.game(game_id)
        if game is not None and game.channel == channel and game.status == "finished":
            ruleset = get_ruleset(game.ruleset)
            state = self._table.snapshots.load(ruleset, game.state)
            if ended_here(ruleset, game, state):
                return ruleset, game, state
        raise GameError(f"game: no game {game_id} ended in this channel.")

    async def _status(self, at: Asked, query: typed.GameStatus) -> Reply:
        """`/game status`: the table, its seats and the last events; a close-up for who asks for one."""
        ruleset, game, state = at.ruleset, at.game, at.state
        last = await self._pictures.last_events(ruleset, game)
        seats = seats_line(state)
        text = ruleset.describe(state) + (f"\n{seats}" if seats else "") + \
            (f"\nLast: {describe_events(last)}" if last else "")
        if game.status == "finished" and not at.ended:  # the table as it left: no buttons, no turn here
            text = f"{elsewhere(game)}\n{text}"
        if await wanted_view(self._table, game, at.actor.id, query.view) == "closeup":
            return await self._pictures.closeup(ruleset, game, state, text, last, at.actor.id)
        reply = await self._pictures.with_map(ruleset, game, state, "shown", text, last)
        if game.status == "finished" and not at.ended:
            return replace(reply, legal=(), buttons=(), waiting_on=(), turn_key="")
        return reply

    async def _log(self, at: Asked, query: typed.GameLog) -> Reply:
        """`/game log`: the recent actions as the asker may see them (or those a rollback set aside)."""
        ruleset, game, state, actor = at.ruleset, at.game, at.state, at.actor
        if "set_aside" in query.options:
            return await self._set_aside_log(ruleset, game, state, actor, query.options)
        before, count = query.options.get("before"), query.options.get("count")
        channels: dict[int, int] | None = None
        if hides_whole_actions(ruleset, state):   # the viewer's numbers are made from the whole log
            records = await self._table.store.actions(game.id)
            seen = seen_log(ruleset, state, records, actor.id)
            page = answers.log_page(seen, count, before)
            public = seen_log(ruleset, state, records, None)
            if len(public) < len(seen):   # they know of actions the channel does not: both numberings
                channels = {s.record.seq: s.number for s in public}
        else:
            records = await self._table.store.recent_actions(game.id, count or answers.DEFAULT_LOG_COUNT, before)
            page = seen_log(ruleset, state, records, actor.id)
        return answers.game_log(ruleset, page, before, channel=channels)

    async def _export(self, at: Asked, _query: typed.Export) -> Reply:
        """`/game export`: the action log (and what rollbacks set aside) as a file, as the asker may see it."""
        records = await self._table.store.actions(at.game.id)
        aside = {k: log_rows(v) for k, v in (await self._table.store.set_aside(at.game.id)).items()}
        return await self._table.heavy.run(heavy_jobs.export_file, at.ruleset.id, at.game, await packed_log(records),
                                           at.actor.id, aside, items=len(records) + sum(map(len, aside.values())))

    async def _verify(self, at: Asked, _query: typed.Verify) -> Reply:
        """`/game verify`: every roll re-run."""
        return answers.verification(at.game, await self.replay_matches(at.game), at.ended,
                                    await self._table.seen_count(at.ruleset, at.game, at.state, at.actor.id),
                                    await self._table.store.rollbacks(at.game.id))

    async def _replay(self, at: Asked, _query: typed.Replay) -> Reply:
        """`/game replay`: an animated GIF of the game so far."""
        ruleset, state = at.ruleset, at.state
        game, records = await self._table.store.game_and_actions(at.game.id)
        try:
            data = await self._table.heavy.run(heavy_jobs.replay_gif, ruleset.id, game, await packed_log(records),
                                               items=len(records), keep=True)
        except ValueError as exc:  # no renderer for this game, or too big even at its smallest
            raise GameError(f"No replay of this game can be made: {exc}.") from None
        count = len(seen_log(ruleset, state, records, None)) if hides_whole_actions(ruleset, state) \
            else len(records)
        about = (f"An animation of {ruleset.title} game {game.id}, one frame per turn over {count} "
                 f"actions, ending: {ruleset.prompt(state)}")
        return Reply("shown", f"Game {game.id} so far: {count} actions, one frame per turn.",
                     files=(Attachment(f"pitboss-game-{game.id}.gif", data, clip(about, 1000)),))

    async def _own(self, at: Asked, query: typed.GameQuery) -> Reply:
        """One of the game's own queries (/hand...), answered by its rules, privately."""
        ruleset, game, state, actor = at.ruleset, at.game, at.state, at.actor
        if game.status == "finished":
            raise NoGame()
        text = ruleset.queries[query.sent.name](state, actor.id, query.sent.options)
        # A private reply may carry the buttons a public one cannot (what only this player may see).
        private = ruleset.legal_actions(state, actor.id) if actor.id in ruleset.acting_players(state) else ()
        return Reply("shown", clip(text, MESSAGE_LIMIT), ephemeral=True,
                     buttons=buttons_for(private, game.id, own_scope(
                         ruleset, state, await self._table.store.last_seq_by(game.id, actor.id), private)))

    async def why_no_game(self, channel: str) -> str | None:
        """For a channel whose last game is over here, or moved away (a button or a move left in the channel
        it moved from): say so, and how it ended or where it went."""
        game = await self._table.store.latest_game(channel)
        if game is not None and game.moved:
            return elsewhere(game)
        if game is None or game.status != "finished":
            return None
        ruleset = get_ruleset(game.ruleset)
        state = ruleset.load_state(game.state)
        if not ruleset.is_finished(state):
            return None
        # a finished game's prompt says so and how it ended ("Game over: alice wins.")
        return (f"{ruleset.prompt(state)} No game runs here now: start another with "
                f"{setup_line(ruleset.id)}, or look back "
                f"with /game status, /game log or /game replay.")

    async def _set_aside_log(self, ruleset: Ruleset, game: GameRecord, state: Any, actor: Actor,
                             options: dict[str, Any]) -> Reply:
        """`/game log set_aside:N`: the actions rollback N set aside, as the asker may see them, numbered as
        they were when the table played them."""
        rollback = options["set_aside"]
        branches = await self._table.store.set_aside(game.id)
        if rollback not in branches:
            done = f"rollbacks 1 to {len(branches)}" if len(branches) > 1 else "rollback 1" if branches else "none"
            raise GameError(f"set_aside: this game has no rollback {rollback} (it has {done}).")
        records = await self._table.store.actions(game.id)
        aside = {k: [(r.seq, r.actor, r.action, r.events) for r in v] for k, v in branches.items()}   # read whole
        every = await self._table.heavy.run(heavy_jobs.set_aside_page, ruleset.id, game, await packed_log(records),
                                            aside, actor.id, rollback, items=len(records) * (len(aside) + 1))
        seen = answers.log_page(every, options.get("count"), options.get("before"))
        reply = answers.game_log(ruleset, seen, options.get("before"), every[0].number if every else 1,
                                 f"/game log set_aside:{rollback}")
        return replace(reply, text=clip(f"Set aside by rollback {rollback}:\n{reply.text}", MESSAGE_LIMIT))

    async def seen_since(self, ruleset: Ruleset, game: GameRecord, state: Any, reader: str) -> list:
        """The log as `reader` may see it, as far back as a catch-up looks (CATCH_UP_ACTIONS)."""
        if hides_whole_actions(ruleset, state):   # the viewer's numbers are made from the whole log
            return seen_log(ruleset, state, await self._table.store.actions(game.id), reader)[-CATCH_UP_ACTIONS:]
        return seen_log(ruleset, state, await self._table.store.recent_actions(game.id, CATCH_UP_ACTIONS), reader)

    async def _catch_up(self, ruleset: Ruleset, game: GameRecord, state: Any, actor: Actor) -> Reply:
        """`/game catchup`: what happened since the asker's own last action, privately (a spectator gets the
        channel's view of the last few actions)."""
        seat = state.player(actor.id)
        seen = await self.seen_since(ruleset, game, state, actor.id)
        master = ruleset.game_master
        notes = notes_since(seen, actor.id, lambda s: events_of(ruleset, s.record),
                            lambda s: master.note(logged(ruleset, [s.record])[0].action), seat) if master else ""
        text = catch_up(seen, actor.id, seat.name if seat is not None else None,
                        lambda s: events_of(ruleset, s.record), lambda p: seat_name(state, p),
                        MESSAGE_LIMIT - len(notes) - 1, seat)
        return Reply("shown", f"{notes}\n{text}" if notes else text, ephemeral=True)

    async def replay_matches(self, game: GameRecord) -> bool:
        """True when replaying the game's log from its seed rebuilds its stored snapshot exactly (both
        read as of one moment, so a game being played elsewhere is checked as it stood). A snapshot
        written under an earlier schema is compared as it would be written today."""
        game, records = await self._table.store.game_and_actions(game.id)
        set_aside = await self._table.store.set_aside(game.id)
        if not await self._table.heavy.run(heavy_jobs.snapshot_matches, game.ruleset, game, await packed_log(records),
                                           items=len(records), keep=True):
            return False
        if not set_aside:
            return True
        aside = {k: log_rows(v) for k, v in set_aside.items()}
        return await self._table.heavy.run(heavy_jobs.set_aside_replays, game.ruleset, game,
                                           await packed_log(records), aside, await self._table.store.line_ends(game.id),
                                           items=len(records) * (len(aside) + 1))


    async def _index_seats(self) -> None:
        """Record the seats of games stored before the seats index existed (once per database)."""
        if self._seats_indexed or await self._table.store.get_meta(_SEATS_INDEXED) == "1":
            self._seats_indexed = True
            return
        after = 0
        while page := await self._table.store.active_games_after(after, 500):
            seated = await self._table.heavy.run(heavy_jobs.seats_of, page, items=len(page))
            async with self._table.store.transaction():
                for game_id, players in seated:
                    await self._table.store.add_seats_tx(game_id, players)
            after = page[-1].id
        await self._table.store.set_meta(_SEATS_INDEXED, "1")
        self._seats_indexed = True
