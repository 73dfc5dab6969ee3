"""The one service every transport calls: lock the channel, load, authorise, apply, store, render, reply."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import re
import secrets
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import images
from bot.storage.store import AlreadyDelivered, ChannelTaken, GameRecord, NotMovable, Store, StoreBusy, VersionConflict
from bot.table.clock.settings import MAX_COMPUTER_ACTIONS
from bot.table.clock.timers import TableClock
from bot.table.jobs import heavy_jobs
from bot.table.jobs.drawing import Drawing, RenderProcesses
from bot.table.jobs.heavy import HEAVY, HeavyWork
from bot.table.jobs.heavy_jobs import log_rows, seat_ids
from bot.table.protocol.commands import QUERIES, Command, foreign_to, parse
from bot.table.protocol.refusals import NoGame, NotThisGame, StaleButton
from bot.table.protocol.replies import (
    ALT_TEXT_LIMIT,
    BUTTON_PREFIX,
    CHOICES_PREFIX,
    MENU_PREFIX,
    MESSAGE_LIMIT,
    PRIVATE_MENU_PREFIX,
    PRIVATE_PREFIX,
    Actor,
    Attachment,
    Reply,
    Scope,
    buttons_for,
    choices_button,
    clip,
    group_buttons,
    private_scope,
    public_scope,
    refusal,
)
from bot.table.service import queries
from bot.table.service.plans import PlannedTurns
from bot.table.service.recent import RECENT_ACTIONS, RecentEvents
from bot.table.service.report import report
from bot.table.service.snapshots import DecodedSnapshots
from bot.table.trust.commitment import MAX_SEED, announce, commitment, reveal
from bot.table.trust.guards import COMPUTER_ID_PREFIX, RateLimit, plain_name, valid_actor_id
from bot.table.trust.importer import IMPORT_BYTES_PER_ACTION, MAX_REPLAY_ACTIONS, BadImport, ImportedLog
from bot.table.trust.seen import hides_whole_actions, is_public, logged, seen_log
from images.registry import renderer
from rules.codec import dumps, encode_state, encode_tagged
from rules.engine import PlanStep, Ruleset, describe_events
from rules.errors import GameError
from rules.registry import get_ruleset, ruleset_ids, rulesets
from rules.table import TurnBegan

__all__ = ["Actor", "GameService", "Reply"]

log = logging.getLogger("pitboss.service")

WRITE_ATTEMPTS = 5
MAX_SUGGESTIONS = 25  # Discord's limit for autocomplete results
# The delivery (interaction id) the running command came with, claimed by its first write.
_DELIVERY: contextvars.ContextVar[str | None] = contextvars.ContextVar("pitboss_delivery", default=None)
# Commands that post a new table or end one: they never earn a refund, and share a small budget.
_TABLE_BUDGET = frozenset({"game new", "game end", "game import", "game add-ai", "game takeover"})
_NOT_REFUNDED = _TABLE_BUDGET | {"undo"}
_BUTTON_ID = re.compile(
    rf"^({BUTTON_PREFIX}|{MENU_PREFIX}|{CHOICES_PREFIX}|{PRIVATE_PREFIX}|{PRIVATE_MENU_PREFIX}):(\d+):(\d+):(\d+)$")


@dataclass(frozen=True)
class Applied:
    """One stored change: the game row after it, the new state and its events."""

    ruleset: Ruleset
    game: GameRecord
    state: Any
    events: tuple
    waiting_before: tuple[str, ...] = ()  # who the game waited on before this change
    public: bool = True  # whether the channel may learn of it (bot.table.trust.seen: a GM's private ruling may not)


class GameService(TableClock, PlannedTurns):
    """Executes commands for (channel, actor) against the store, whatever the transport."""

    def __init__(self, store: Store, render: Callable[[str, Any, tuple, tuple], bytes] | None = images.render,
                 clock: Callable[[], float] = time.time, rate_limit: RateLimit | None = None,
                 render_processes: RenderProcesses | None = None, heavy: HeavyWork = HEAVY):
        self._store = store
        self._heavy = heavy  # log re-runs, GIFs, imports and exports: a thread, or a process for the bot
        self._render = render
        self._drawing = Drawing(render, render_processes)  # pictures are drawn off the event loop
        self._snapshots = DecodedSnapshots()
        self._clock = clock
        self._rate_limit = rate_limit  # the Discord bot sets one; scripts and tests drive many commands
        # Weak values: a channel's lock lives only while some command holds or awaits it.
        self._channel_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._seats_indexed = False
        self._recent = RecentEvents()

    def _lock_for(self, channel: str) -> asyncio.Lock:
        lock = self._channel_locks.get(channel)
        if lock is None:
            lock = self._channel_locks[channel] = asyncio.Lock()
        return lock

    async def execute(self, channel: str, actor: Actor, command: Command, *, guild: str = "",
                      delivery: str | None = None) -> Reply:
        """Run one command; game refusals and a busy database come back as private refusals.

        `delivery` names this delivery of the command (a Discord interaction id): a second delivery
        of it is refused instead of being carried out again.
        """
        if (refused := self._at_the_door(actor, command.name)) is not None:
            return refused
        reply = await self._guarded(channel, self._dispatch(channel, actor, command, guild), delivery)
        return self._counted(actor, reply, refundable=command.name not in _NOT_REFUNDED)

    async def press(self, channel: str, actor: Actor, custom_id: str, *, delivery: str | None = None) -> Reply:
        """Run the action behind a button, if the button still matches the game it was drawn for."""
        if (refused := self._at_the_door(actor, "")) is not None:
            return refused
        return self._counted(actor, await self._guarded(channel, self._press(channel, actor, custom_id), delivery))

    def _at_the_door(self, actor: Actor, command: str) -> Reply | None:
        """A private refusal for a malformed player id, or for a player over the rate limit (table
        commands that post a new game or end one have a budget of their own)."""
        if not valid_actor_id(actor.id) or actor.id.startswith(COMPUTER_ID_PREFIX):
            return refusal("That player id cannot play: ids are letters, digits and . _ - (and ai-… is kept "
                           "for computer seats).")
        if self._rate_limit is None:
            return None
        seconds = self._rate_limit.wait_needed(actor.id)
        if seconds <= 0 and command in _TABLE_BUDGET:
            seconds = self._rate_limit.wait_needed(actor.id, budget="table")
            if seconds > 0:
                self._rate_limit.refund(actor.id)
        if seconds <= 0:
            return None
        return refusal(f"You are sending commands faster than I take them; try again in {max(1, round(seconds))} s.")

    def _counted(self, actor: Actor, reply: Reply, refundable: bool = True) -> Reply:
        """Moves that change the game are play, not flooding: they do not use up the rate limit
        (an undo does, so move-and-undo cannot loop for free)."""
        if self._rate_limit and refundable and reply.outcome == "applied":
            self._rate_limit.refund(actor.id)
        return reply

    async def suggest(self, channel: str, actor: Actor, command: str, option: str, typed: str,
                      chosen: dict[str, Any]) -> list[tuple[str, str]]:
        """Autocomplete: what is legal now for this option, with odds, filtered by what was typed."""
        game = await self._store.active_game(channel)
        if game is None:
            return []
        ruleset = get_ruleset(game.ruleset)
        if ruleset.suggest is None or foreign_to(ruleset, Command(command, chosen)):
            return []
        state = self._snapshots.load(ruleset, game.state)
        offers = ruleset.suggest(state, actor.id, command, option, chosen)
        typed = typed.strip().lower()
        return [(clip(label, 100), value) for label, value in offers
                if not typed or value.lower().startswith(typed) or typed in label.lower()][:MAX_SUGGESTIONS]

    async def _guarded(self, channel: str, work, delivery: str | None = None) -> Reply:
        async with self._lock_for(channel):
            token = _DELIVERY.set(delivery)
            try:
                return await work
            except NoGame as exc:
                return refusal(await self._why_no_game(channel) or exc.message)
            except NotThisGame as exc:
                return refusal(exc.message, exc.malformed)
            except GameError as exc:
                return refusal(exc.message)
            except StoreBusy:
                return refusal("The table is busy right now; please try again in a moment.")
            except AlreadyDelivered:
                return refusal("That command was already carried out (it reached me twice); nothing more changed.")
            finally:
                _DELIVERY.reset(token)

    async def _why_no_game(self, channel: str) -> str | None:
        """For a channel whose last game is over (here, not moved away): say so, and how it ended."""
        game = await self._store.latest_game(channel)
        if game is None or game.status != "finished" or game.moved:
            return None
        ruleset = get_ruleset(game.ruleset)
        state = ruleset.load_state(game.state)
        if not ruleset.is_finished(state):
            return None
        return (f"This game is over. {ruleset.prompt(state)} Start another with /game new, or look back with "
                f"/game status, /game log or /game replay.")

    @contextlib.asynccontextmanager
    async def _write(self):
        """A write transaction that also claims the command's delivery, so a delivery is carried out once.

        Only a command's first committed write claims it: later steps of a plan are the same delivery.
        """
        async with self._store.transaction():
            key = _DELIVERY.get()
            if key is not None:
                await self._store.claim_delivery_tx(key)
            yield
        _DELIVERY.set(None)

    async def _dispatch(self, channel: str, actor: Actor, command: Command, guild: str) -> Reply:
        if command.name == "game new":
            return await self._new_game(channel, actor, command.options, guild)
        if command.name == "games":
            await self._index_seats()
            games = await self._store.active_games_of(guild, actor.id)
            # up to 50 snapshots to decode: ~17 ms, off the loop
            return await asyncio.to_thread(queries.games_of, actor.id, games,
                                           {r: get_ruleset(r) for r in ruleset_ids()})
        if command.name in QUERIES:
            return await self._query(channel, actor, command)
        if command.name == "undo":
            return await self._undo(channel, actor)
        if command.name == "game import":
            return await self._import(channel, actor, command.options["file"], guild)
        if command.name == "game settings":
            return await self._settings(channel, actor, command.options)
        if command.name == "game pause":
            return await self._pause(channel, actor, command.options["hours"])
        return await self._act(channel, actor, command)

    async def _new_game(self, channel: str, actor: Actor, options: dict, guild: str) -> Reply:
        ruleset = get_ruleset(options["ruleset"])
        options = NotThisGame.fitted(ruleset, Command("game new", options)).options
        # 63 random bits: the published commitment cannot be brute-forced back to the seed (and the deck).
        seed = options["seed"] if "seed" in options else secrets.randbelow(MAX_SEED)
        setup_options = {k: v for k, v in options.items() if k not in ("ruleset", "seed")}
        if ruleset.revision > 1:  # old games, without it, keep the rules they began under
            setup_options["revision"] = ruleset.revision
        state = ruleset.setup(setup_options, seed, actor.id)
        try:
            async with self._write():
                game = await self._store.create_game_tx(channel, ruleset.id, actor.id, seed,
                                                        dumps(setup_options), encode_state(state), guild)
        except ChannelTaken:
            return refusal("This channel already has a game. Finish it with /game end, or play in "
                           "another channel or thread.")
        text = (f"New {ruleset.title} game created by {actor.name}. Join with /game join; "
                f"the host starts it with /game start.\n{announce(seed)}")
        if "seed" in options and ruleset.private_actions:
            text += ("\nThe host chose the seed, so whoever knows it can work out what is hidden: leave "
                     "seed: out for a game with secrets.")
        return await self._with_map(ruleset, game, state, "applied", text)

    async def _load(self, channel: str, any_status: bool = False) -> tuple[Ruleset, GameRecord, Any]:
        game = await self._store.active_game(channel)
        if game is None and any_status:
            game = await self._store.latest_game(channel)
        if game is None:
            raise NoGame()
        ruleset = get_ruleset(game.ruleset)
        return ruleset, game, self._snapshots.load(ruleset, game.state)

    async def _query(self, channel: str, actor: Actor, command: Command) -> Reply:
        ruleset, game, state = await self._load(channel, any_status=True)
        command = NotThisGame.fitted(ruleset, command)
        ended = self._ended_here(ruleset, game, state)
        if game.status == "finished" and not ended and command.name != "game status":
            raise GameError(self._elsewhere(game) + " Use this command there.")
        if command.name == "game status":
            last = await self._last_events(ruleset, game)
            text = ruleset.describe(state) + (f"\nLast: {describe_events(last)}" if last else "")
            if game.status == "finished" and not ended:  # the table as it left: no buttons, no turn here
                reply = await self._with_map(ruleset, game, state, "shown", f"{self._elsewhere(game)}\n{text}", last)
                return replace(reply, legal=(), buttons=(), waiting_on=(), turn_key="")
            return await self._with_map(ruleset, game, state, "shown", text, last)
        if command.name == "game log":
            before, count = command.options.get("before"), command.options.get("count")
            if hides_whole_actions(ruleset, state):   # the viewer's numbers are made from the whole log
                page = queries.log_page(seen_log(ruleset, state, await self._store.actions(game.id), actor.id),
                                        count, before)
            else:
                records = await self._store.recent_actions(game.id, count or queries.DEFAULT_LOG_COUNT, before)
                page = seen_log(ruleset, state, records, actor.id)
            return queries.game_log(ruleset, page, before)
        if command.name == "game export":
            records = await self._store.actions(game.id)
            return await self._heavy.run(heavy_jobs.export_file, ruleset.id, game, log_rows(records), actor.id,
                                         items=len(records))
        if command.name == "game verify":
            return queries.verification(game, await self.replay_matches(game), ended,
                                        await self._seen_count(ruleset, game, state, actor.id))
        if command.name == "game replay":
            game, records = await self._store.game_and_actions(game.id)
            try:
                data = await self._heavy.run(heavy_jobs.replay_gif, ruleset.id, game, log_rows(records),
                                             items=len(records))
            except ValueError as exc:  # no renderer for this game, or too big even at its smallest
                raise GameError(f"No replay of this game can be made: {exc}.") from None
            count = len(seen_log(ruleset, state, records, None)) if hides_whole_actions(ruleset, state) \
                else len(records)
            about = (f"An animation of {ruleset.title} game {game.id}, one frame per turn over {count} "
                     f"actions, ending: {ruleset.prompt(state)}")
            return Reply("shown", f"Game {game.id} so far: {count} actions, one frame per turn.",
                         files=(Attachment(f"pitboss-game-{game.id}.gif", data, clip(about, 1000)),))
        if command.name == "game sheet":
            return await self._sheets(ruleset, state, command.options)
        if game.status == "finished":
            raise NoGame()
        text = ruleset.queries[command.name](state, actor.id, command.options)
        # A private reply may carry the buttons a public one cannot (what only this player may see).
        private = ruleset.legal_actions(state, actor.id) if actor.id in ruleset.acting_players(state) else ()
        return Reply("shown", clip(text, MESSAGE_LIMIT), ephemeral=True,
                     buttons=buttons_for(private, game.id, private_scope(ruleset.turn_key(state), private)))

    async def _seen_count(self, ruleset: Ruleset, game: GameRecord, state: Any, viewer: str) -> int:
        """How many actions the game has, as `viewer` counts them (those they may not know of left out)."""
        if hides_whole_actions(ruleset, state):
            return len(seen_log(ruleset, state, await self._store.actions(game.id), viewer))
        return await self._store.action_count(game.id)

    async def _final_sheets(self, ruleset: Ruleset, public: Any) -> tuple[Attachment, ...]:
        """Every car's sheet as the game ended, for the final results (games that draw sheets)."""
        if not self._render or renderer(ruleset.id).render_sheets is None:
            return ()
        try:
            data = await self._drawing.sheets(ruleset.id, public)
        except ValueError:  # ended before anyone sat down
            return ()
        return (Attachment("pitboss-final-sheets.png", data, "Every car's sheet at the end of the game"),)

    async def _sheets(self, ruleset: Ruleset, state: Any, options: dict) -> Reply:
        """The full car sheets, drawn off the loop: privately, or to the channel with public:true."""
        if renderer(ruleset.id).render_sheets is None:
            raise GameError(f"{ruleset.title} has no car sheets.")
        which = options.get("car") or ""
        try:
            data = await self._drawing.sheets(ruleset.id, ruleset.view(state, None), which)
        except ValueError as exc:  # nothing to draw (nobody seated yet)
            raise GameError(f"No sheets to show: {exc}.") from None
        public = options.get("public") == "true"
        what = f"The sheet of {which.strip()}" if which.strip() else "Every car's sheet"
        return Reply("shown", f"{what}.", ephemeral=not public,
                     files=(Attachment("pitboss-sheets.png", data, f"{what}: systems, weapons and damage boxes"),))

    @staticmethod
    def _ended_here(ruleset: Ruleset, game: GameRecord, state: Any) -> bool:
        """Whether the game really ended in this record: only then is its seed revealed. A record
        retired by a move (marked, or from before moves were marked: stopped, not over) never is."""
        return game.status == "finished" and not game.moved and ruleset.is_finished(state)

    @staticmethod
    def _elsewhere(game: GameRecord) -> str:
        """Where a retired record's game went."""
        if game.moved_to:
            return f"This game moved to {channel_mention(game.moved_to)} and goes on there."
        return "This game was moved to another channel and goes on there."

    async def _apply(self, channel: str, actor_id: str, command: Command | None,
                     expected_version: int | None = None, action: Any = None) -> Applied:
        """Apply one command (or an action value the game itself offered) as one transaction,
        retrying only when nothing was written."""
        for attempt in range(WRITE_ATTEMPTS):
            try:
                async with self._write():
                    game = await self._store.active_game_tx(channel)
                    if game is None:
                        raise NoGame()
                    if expected_version is not None and game.version != expected_version:
                        raise StaleButton("That button is out of date: the game has moved on. "
                                          "Use the buttons on the latest message.")
                    ruleset = get_ruleset(game.ruleset)
                    if command is not None:
                        command = NotThisGame.fitted(ruleset, command)
                        action = ruleset.command_to_action(command.name, command.options)
                    state = self._snapshots.load(ruleset, game.state)
                    new_state, events = ruleset.apply(state, actor_id, action)
                    status = "finished" if ruleset.is_finished(new_state) else "active"
                    snapshot = encode_state(new_state)
                    game = await self._store.append_action_tx(
                        game, actor_id, dumps(encode_tagged(action)),
                        dumps([encode_tagged(e) for e in events]), snapshot, status)
                    self._snapshots.remember(ruleset, snapshot, new_state)
                    before, after = self._turn_of(ruleset, state), self._turn_of(ruleset, new_state)
                    if before != after:
                        await self._sync_timer_tx(ruleset, game, new_state, acted=actor_id)
                    elif actor_id in after[0] and not ruleset.is_computer(new_state, actor_id):
                        await self._restart_timer_tx(ruleset, game, new_state, actor_id)   # they acted: anew
                    if len(new_state.players) != len(state.players):
                        await self._store.add_seats_tx(game.id, seat_ids(new_state))
                public = is_public(ruleset, new_state, actor_id, action)
                self._recent.add(game.id, game.version, events, public)   # committed: the trails' window moves on
                return Applied(ruleset, game, new_state, events, before[0], public)
            except (VersionConflict, StoreBusy):
                if attempt == WRITE_ATTEMPTS - 1:
                    raise StoreBusy() from None
                await asyncio.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    async def _import(self, channel: str, actor: Actor, data: bytes, guild: str) -> Reply:
        """Continue an exported game here. A running game moves: the stored game, log and settings are
        copied and its old channel stops, so it never forks. A finished one, whose export reveals the
        seed, is re-played from the file as a new, finished record."""
        log_ = await self._heavy.run(heavy_jobs.read_import, data, items=len(data) // IMPORT_BYTES_PER_ACTION)
        if log_.seed is None:
            return await self._move(channel, actor, log_, guild)
        return await self._replay_import(channel, log_, data, guild)

    async def _move(self, channel: str, actor: Actor, log_: ImportedLog, guild: str) -> Reply:
        source = await self._store.game(log_.source_game)
        if source is None or commitment(source.seed) != log_.seed_commitment or source.ruleset != log_.ruleset.id:
            raise BadImport("That log is of a running game this bot does not hold; only finished games "
                            "(whose export includes the seed) can be imported elsewhere.")
        if source.moved:
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
        ruleset = log_.ruleset
        try:
            async with self._write():
                game = await self._store.move_game_tx(source.id, channel, guild)
                state = ruleset.load_state(game.state)
                await self._sync_timer_tx(ruleset, game, state, force=True)
        except ChannelTaken:
            return refusal("This channel already has a game; import into another channel or thread.")
        except NotMovable:
            raise BadImport("That game stopped running where it was (it moved or ended meanwhile); "
                            "nothing was moved.") from None
        count = await self._store.action_count(game.id)
        return await self._with_map(ruleset, game, state, "applied",
                                    f"Game {source.id} moved here from {channel_mention(source.channel)} "
                                    f"with its {count} actions and table settings; it stopped there.")

    async def _replay_import(self, channel: str, log_: ImportedLog, data: bytes, guild: str) -> Reply:
        source = await self._store.game(log_.source_game)
        if source is not None and source.seed == log_.seed and source.ruleset == log_.ruleset.id:
            return await self._copy_finished(channel, source, guild)
        if log_.action_count > MAX_REPLAY_ACTIONS:
            raise BadImport(f"That game log is too long to re-play here ({log_.action_count} actions; "
                            f"the limit is {MAX_REPLAY_ACTIONS}).")
        first, final, entries, finished = await self._heavy.run(heavy_jobs.replay_import, data,
                                                                 items=log_.action_count)
        if not finished:
            raise BadImport(_ONLY_FINISHED)
        ruleset = log_.ruleset
        state = ruleset.load_state(final)
        try:
            async with self._write():
                game = await self._store.create_game_tx(channel, ruleset.id, log_.host, log_.seed,
                                                        dumps(log_.options), first, guild)
                game = await self._store.append_log_tx(game, entries, final, "finished")
                await self._store.add_seats_tx(game.id, seat_ids(state))
        except ChannelTaken:
            return refusal("This channel already has a game; import into another channel or thread.")
        return await self._with_map(ruleset, game, state, "applied",
                                    f"Game {log_.source_game} re-played here from its log: "
                                    f"{len(entries)} actions (finished).")

    async def _copy_finished(self, channel: str, source: GameRecord, guild: str) -> Reply:
        """A finished game this bot holds, imported again: a finished copy of the stored game and log
        (however long), never a running one."""
        ruleset = get_ruleset(source.ruleset)
        state = ruleset.load_state(source.state)
        if not self._ended_here(ruleset, source, state):
            raise BadImport(_ONLY_FINISHED)
        try:
            async with self._write():
                game = await self._store.copy_game_tx(source.id, channel, guild, "finished")
        except ChannelTaken:
            return refusal("This channel already has a game; import into another channel or thread.")
        return await self._with_map(ruleset, game, state, "applied",
                                    f"Game {source.id} re-played here from its log: {game.version} changes "
                                    f"(finished).")

    async def _run_steps(self, channel: str, actor: Actor, steps: list, expected_version: int | None = None,
                         summarize: Callable[[tuple], str] | None = None, floating: list[PlanStep] = (),
                         state: Any = None) -> Reply:
        """Apply steps in order (commands, or action values the game offered) while the game still
        waits on `actor`; a step the game refuses (a decision it needs first) ends the run and says why.
        A floating step (a plan's shot) is played at the first point where it can be, from `state` on."""
        waiting_before = None
        done = None
        events: list = []
        stopped = ""
        public = False   # whether the channel may learn of any step
        queue, pending, index = list(steps), list(floating), 0
        while queue or pending:
            step = _ready(pending, done.state if done is not None else state)
            if step is None and not queue:
                break
            step = step or queue.pop(0)
            if done is not None and actor.id not in done.ruleset.acting_players(done.state):
                stopped = f"The plan ended after step {index}: the turn passed."
                break
            try:
                version = expected_version if index == 0 else None
                done = await (self._apply(channel, actor.id, step, version) if isinstance(step, Command)
                              else self._apply(channel, actor.id, None, version, action=step))
                waiting_before = done.waiting_before if waiting_before is None else waiting_before
            except GameError as exc:
                if done is None:
                    raise
                stopped = f"The plan paused before step {index + 1}: {exc.message}"
                break
            events.extend(done.events)
            public = public or done.public
            index += 1
        if done is None:   # only a floating step, never ready
            raise GameError(f"/{pending[0].name} cannot be played now: {pending[0].why_not(state).rstrip('.')}.")
        unplayed = [f"/{s.name} was not played: {'the plan stopped first' if stopped else s.why_not(done.state)}"
                    for s in pending]
        done, others = await self._play_computers(channel, done)
        own = [e.describe() for e in events]
        if not public and not others:
            return self._told_privately(done, actor, own)
        if summarize is not None and (summary := summarize(tuple(events))):
            own.append(summary)
        if stopped:
            own.append(stopped)
        own += [line.rstrip(".") + "." for line in unplayed]
        reply = await self._with_map(done.ruleset, done.game, done.state, "applied",
                                     self._reported(done, own, others), done.events)
        newly = [p for p in reply.waiting_on if p not in waiting_before and p != actor.id
                 and not done.ruleset.is_computer(done.state, p)]
        return replace(reply, mentions=tuple(newly)) if newly else reply

    async def _press(self, channel: str, actor: Actor, custom_id: str) -> Reply:
        match = _BUTTON_ID.match(custom_id)
        if not match:
            raise GameError("That button is not one of mine.")
        kind = match.group(1)
        game_id, drawn_for, index = (int(g) for g in match.groups()[1:])
        ruleset, game, state = await self._load(channel)
        if game.id != game_id:
            raise StaleButton("That button belongs to a game that is no longer running here.")
        if kind in (BUTTON_PREFIX, MENU_PREFIX) and game.version != drawn_for:
            raise StaleButton("That button is out of date: the game has moved on. "
                              "Use the buttons on the latest message.")
        waiting = ruleset.acting_players(state)
        if actor.id not in waiting:
            if state.player(actor.id) is None:
                raise GameError("You are not playing in this game; you can watch, but not press.")
            names = ", ".join(state.player(p).name for p in waiting) or "nobody"
            raise GameError(f"It is {names}'s turn, not yours.")
        legal = ruleset.legal_actions(state, actor.id)
        mine = private_scope(ruleset.turn_key(state), legal)
        if kind in (PRIVATE_PREFIX, PRIVATE_MENU_PREFIX) and drawn_for != mine.value:
            raise StaleButton("Those choices are out of date: your turn has moved on. Open your move again.")
        if kind == CHOICES_PREFIX:  # only opens a menu: any version of the public message will do
            return Reply("shown", f"Your move, {actor.name} (only you see this): {ruleset.prompt(state)}",
                         ephemeral=True, buttons=buttons_for(legal, game.id, mine), game_id=game.id,
                         version=game.version)
        if index >= len(legal):
            raise StaleButton("That button no longer matches the game.")
        if kind in (MENU_PREFIX, PRIVATE_MENU_PREFIX):
            return self._group_menu(legal, game, index, mine)
        chosen = legal[index]
        if chosen.action is not None:
            return await self._run_steps(channel, actor, [chosen.action], expected_version=game.version)
        return await self._act(channel, actor, parse(chosen.command), expected_version=game.version)

    @staticmethod
    def _told_privately(done: Applied, actor: Actor, own: list[str]) -> Reply:
        """An action the channel may not learn of (a GM's private ruling), told to its actor alone with
        their next choices; the channel's message stays as it was."""
        ruleset, state = done.ruleset, done.state
        legal = ruleset.legal_actions(state, actor.id) if actor.id in ruleset.acting_players(state) else ()
        text = "\n".join(own + [f"Only you see this. Next: {ruleset.prompt(state)}"])
        return Reply("applied", clip(text, MESSAGE_LIMIT), ephemeral=True,
                     buttons=buttons_for(legal, done.game.id, private_scope(ruleset.turn_key(state), legal)),
                     game_id=done.game.id, version=done.game.version)

    @staticmethod
    def _group_menu(legal, game: GameRecord, first: int, scope: Scope) -> Reply:
        """A private menu of the legal actions of one group (as many as Discord shows as buttons)."""
        buttons, total = group_buttons(legal, game.id, scope, first)
        group = legal[first].group
        text = f"{group}: {total} ways. Pick one."
        if total > len(buttons):
            command = " ".join(legal[first].command.split()[:2])  # the command and its first option
            text += (f" The buttons show the first {len(buttons)}; for the others type {command} with the "
                     f"other options (autocomplete lists only legal values).")
        return Reply("shown", text, ephemeral=True, buttons=buttons, game_id=game.id, version=game.version)

    async def _act(self, channel: str, actor: Actor, command: Command,
                   expected_version: int | None = None) -> Reply:
        options = dict(command.options)
        if command.name in ("game end", "game takeover"):
            options["by_admin"] = actor.is_admin
        if command.name == "game join":
            options["name"] = plain_name(actor.name)
        # Decided from the command alone (no read on every move); _plan fits it to the channel's game.
        if any(r.plans is not None and r.plans.is_plan(command.name, options) for r in rulesets()):
            return await self._plan(channel, actor, Command(command.name, options))
        return await self._run_steps(channel, actor, [Command(command.name, options)], expected_version)

    @staticmethod
    def _turn_of(ruleset: Ruleset, state: Any) -> tuple:
        """Who the game waits on, in which turn: the timer only changes when this does."""
        return ruleset.acting_players(state), ruleset.turn_key(state), ruleset.is_finished(state)

    async def _undo(self, channel: str, actor: Actor) -> Reply:
        """Take back the actor's own last action, if nothing was rolled or revealed since. The state
        before it is rebuilt off the loop and outside any write; the write then checks that the game
        has not moved on meanwhile."""
        game = await self._store.active_game(channel)
        if game is None:
            raise NoGame()
        game, records = await self._store.game_and_actions(game.id)
        ruleset = get_ruleset(game.ruleset)
        if ruleset.undo_blocker is None:
            raise GameError(f"{ruleset.title} takes no action back.")
        if not records:
            raise GameError("There is nothing to undo.")
        last = records[-1]
        if last.actor != actor.id:
            raise GameError("You can only undo your own last action, and someone has acted since.")
        previous = ruleset.load_state(await self._heavy.run(heavy_jobs.rebuilt_snapshot, ruleset.id, game,
                                                             log_rows(records[:-1]), items=len(records)))
        blocker = ruleset.undo_blocker(previous, ruleset.load_state(game.state))
        if blocker:
            raise GameError(f"That cannot be undone: {blocker}.")
        try:
            async with self._write():
                game = await self._store.undo_last_tx(game, last.seq, encode_state(previous))
        except VersionConflict:
            raise GameError("The game moved on while I was undoing; nothing was undone.") from None
        undone = describe_events(queries.events_of(ruleset, last))
        if not is_public(ruleset, previous, last.actor, logged(ruleset, [last])[0].action):
            return Reply("applied", clip(f"Undone: {undone or 'the last action'} Only you see this.", MESSAGE_LIMIT),
                         ephemeral=True, game_id=game.id, version=game.version)
        return await self._with_map(ruleset, game, previous, "applied", f"Undone: {undone or 'the last action'}")

    @staticmethod
    def _reported(done: Applied, own: list[str], others: list) -> str:
        """The reply's words: the actor's own events whole, the other seats' turns in the room left, and
        the revealed seed at the end of a game."""
        ending = reveal(done.game.seed) if done.ruleset.is_finished(done.state) else ""
        text = report(done.ruleset, done.state, own, others, MESSAGE_LIMIT - 300 - len(ending) - 1)
        return f"{text}\n{ending}" if ending else text

    async def _play_computers(self, channel: str, done: Applied) -> tuple[Applied, list[tuple[str, tuple]]]:
        """Let every waiting computer seat play, each action through the same path as a person's; the
        seats' (player, events) in order."""
        played: list[tuple[str, tuple]] = []
        computer = done.ruleset.computer
        for _ in range(MAX_COMPUTER_ACTIONS):
            if computer is None or done.ruleset.is_finished(done.state):
                break
            moves = ((p, computer.choose(done.state, p)) for p in done.ruleset.acting_players(done.state)
                     if computer.is_computer(done.state, p))
            player, action = next(((p, a) for p, a in moves if a is not None), (None, None))
            if player is None:
                break
            try:
                done = await self._apply(channel, player, None, action=action)
            except GameError as exc:  # a computer choosing an illegal action is a bug: stop, keep the game
                log.error("computer %s chose a refused action %r: %s", player, action, exc.message)
                break
            played.append((player, done.events))
        return done, played

    async def _recent_window(self, ruleset: Ruleset, game: GameRecord) -> list[tuple]:
        """The events of the game's last RECENT_ACTIONS actions the channel may know of, one tuple per
        action: kept in memory, read from the log only when this process has not followed the game to its
        current version."""
        window = self._recent.get(game.id, game.version)
        if window is None:
            records = await self._store.recent_actions(game.id, RECENT_ACTIONS)
            state = self._snapshots.load(ruleset, game.state)
            window = [queries.events_of(ruleset, s.record) for s in seen_log(ruleset, state, records, None)]
            self._recent.put(game.id, game.version, window)
        return window

    async def _last_events(self, ruleset: Ruleset, game: GameRecord) -> tuple:
        """The events of the game's last logged action (none before the first)."""
        window = await self._recent_window(ruleset, game)
        return window[-1] if window else ()

    async def _recent_turns(self, ruleset: Ruleset, game: GameRecord) -> tuple:
        """The last turn of every player and the turn now under way (what the picture's trails show):
        a round back, within the last RECENT_ACTIONS actions."""
        events = [e for action in await self._recent_window(ruleset, game) for e in action]
        starts = [i for i, e in enumerate(events) if isinstance(e, TurnBegan)]
        latest = {events[i].player: i for i in starts[:-1]}   # each player's last turn before this one
        return tuple(events[min(latest.values()):] if latest else events)

    async def _with_map(self, ruleset: Ruleset, game: GameRecord, state: Any, outcome: str,
                        text: str, last: tuple | None = None) -> Reply:
        """The reply with the table's picture. `last` is the last logged action's events (read from the
        log when not given): the picture's caption, dice and shot are drawn from them."""
        if last is None:
            last = await self._last_events(ruleset, game)
        public = ruleset.view(state, None)
        image = None
        if self._render:
            turn = await self._recent_turns(ruleset, game)
            image = await self._drawing.picture(ruleset.id, public, last, turn)
        waiting = ruleset.acting_players(state)
        humans = [p for p in waiting if not ruleset.is_computer(state, p)]
        # One player's legal actions are public buttons; when several wait (secret declarations), or
        # the actions show what only their player may see, one button opens each presser's own, privately.
        legal = ruleset.legal_actions(state, waiting[0]) if len(waiting) == 1 and not ruleset.private_actions else ()
        buttons = buttons_for(legal, game.id, public_scope(game.version)) if legal else \
            (choices_button(game.id),) if humans and not ruleset.is_finished(state) else ()
        if outcome == "applied":
            text = f"{text}\nNext: {ruleset.prompt(state)}"
        alt = ruleset.describe(public)
        if last:  # the news first, as the picture's caption has it, in the room the table leaves
            room = max(ALT_TEXT_LIMIT // 8, ALT_TEXT_LIMIT - len(alt) - 1)
            alt = f"{clip('Last: ' + describe_events(last), room)} {alt}"
        files = await self._final_sheets(ruleset, public) if outcome == "applied" and ruleset.is_finished(state) else ()
        return Reply(outcome, clip(text, MESSAGE_LIMIT), image, clip(alt, ALT_TEXT_LIMIT), files=files,
                     legal=legal, waiting_on=waiting,
                     game_id=game.id, version=game.version, buttons=buttons, turn_key=ruleset.turn_key(state))

    async def turn_message(self, game_id: int) -> tuple[str, str] | None:
        """(turn key, message id) of the message a transport uses to show the current turn."""
        return await self._store.turn_message(game_id)

    async def remember_turn_message(self, game_id: int, turn_key: str, message_id: str) -> None:
        """Record the message that now shows the game's current turn."""
        await self._store.set_turn_message(game_id, turn_key, message_id)

    async def replay_matches(self, game: GameRecord) -> bool:
        """True when replaying the game's log from its seed rebuilds its stored snapshot exactly (both
        read as of one moment, so a game being played elsewhere is checked as it stood). A snapshot
        written under an earlier schema is compared as it would be written today."""
        game, records = await self._store.game_and_actions(game.id)
        return await self._heavy.run(heavy_jobs.snapshot_matches, game.ruleset, game, log_rows(records),
                                     items=len(records))

    async def _index_seats(self) -> None:
        """Record the seats of games stored before the seats index existed (once per database)."""
        if self._seats_indexed or await self._store.get_meta(_SEATS_INDEXED) == "1":
            self._seats_indexed = True
            return
        after = 0
        while page := await self._store.active_games_after(after, 500):
            seated = await self._heavy.run(heavy_jobs.seats_of, page, items=len(page))
            async with self._store.transaction():
                for game_id, players in seated:
                    await self._store.add_seats_tx(game_id, players)
            after = page[-1].id
        await self._store.set_meta(_SEATS_INDEXED, "1")
        self._seats_indexed = True


_SEATS_INDEXED = "seats_indexed"
_ONLY_FINISHED = ("Only a finished game can be re-played from its log (its export has the seed). "
                  "A running game is moved by its host's or a server admin's export.")


def _ready(floating: list[PlanStep], state: Any) -> Command | None:
    """The first floating step that can be played in `state` (taken off the list), or None."""
    for step in floating if state is not None else ():
        if step.why_not(state) is None:
            floating.remove(step)
            return Command(step.name, step.options)
    return None


def channel_mention(channel: str) -> str:
    """How a message names a channel: a link on Discord (numeric ids), the name elsewhere."""
    return f"<#{channel}>" if channel.isdigit() else channel
