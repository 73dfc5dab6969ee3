"""The one service every transport calls: lock the channel, load, authorise, apply, store, render, reply."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import json
import logging
import re
import secrets
import time
import weakref
from dataclasses import dataclass, replace
from typing import Any, Callable

import images
from bot import queries
from bot.commands import QUERIES, Command, foreign_to, parse
from bot.commitment import MAX_SEED, announce, commitment, reveal
from bot.guards import RateLimit
from bot.importer import BadImport, read_export
from bot.replies import (ALT_TEXT_LIMIT, BUTTON_PREFIX, MENU_PREFIX, MESSAGE_LIMIT, Actor, Attachment, Reply,
                         buttons_for, clip, group_buttons, latest_lines, refusal)
from images.replay import render_replay
from bot.clock import TableClock
from bot.plans import TurnPlans
from bot.refusals import NoGame, NotThisGame, StaleButton
from bot.settings import MAX_COMPUTER_ACTIONS
from bot.store import AlreadyDelivered, ChannelTaken, GameRecord, Store, StoreBusy, VersionConflict
from rules.codec import decode_state, decode_tagged, dumps, encode_state, encode_tagged
from rules.engine import Ruleset, get_ruleset, replay_states, ruleset_ids
from rules.errors import GameError

__all__ = ["Actor", "GameService", "Reply"]

log = logging.getLogger("pitboss.service")

WRITE_ATTEMPTS = 5
# Pictures are drawn off the event loop, at most two at once: more threads than cores only adds
# switching (and each page in flight holds ~7 MB) without drawing any faster.
_RENDERERS = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="pitboss-render")
MAX_SUGGESTIONS = 25  # Discord's limit for autocomplete results
# The delivery (interaction id) the running command came with, claimed by its first write.
_DELIVERY: contextvars.ContextVar[str | None] = contextvars.ContextVar("pitboss_delivery", default=None)
_BUTTON_ID = re.compile(rf"^({BUTTON_PREFIX}|{MENU_PREFIX}):(\d+):(\d+):(\d+)$")


@dataclass(frozen=True)
class Applied:
    """One stored change: the game row after it, the new state and its events."""

    ruleset: Ruleset
    game: GameRecord
    state: Any
    events: tuple
    waiting_before: tuple[str, ...] = ()  # who the game waited on before this change


class GameService(TableClock, TurnPlans):
    """Executes commands for (channel, actor) against the store, whatever the transport."""

    def __init__(self, store: Store, render: Callable[[str, Any], bytes] | None = images.render,
                 clock: Callable[[], float] = time.time, rate_limit: RateLimit | None = None):
        self._store = store
        self._render = render
        self._clock = clock
        self._rate_limit = rate_limit  # the Discord bot sets one; scripts and tests drive many commands
        # Weak values: a channel's lock lives only while some command holds or awaits it.
        self._channel_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

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
        if (wait := self._too_fast(actor)) is not None:
            return wait
        reply = await self._guarded(channel, self._dispatch(channel, actor, command, guild), delivery)
        return self._counted(actor, reply, refundable=command.name != "undo")

    async def press(self, channel: str, actor: Actor, custom_id: str, *, delivery: str | None = None) -> Reply:
        """Run the action behind a button, if the button still matches the game it was drawn for."""
        if (wait := self._too_fast(actor)) is not None:
            return wait
        return self._counted(actor, await self._guarded(channel, self._press(channel, actor, custom_id), delivery))

    def _too_fast(self, actor: Actor) -> Reply | None:
        """A private refusal when `actor` has sent more commands than the rate limit allows."""
        seconds = self._rate_limit.wait_needed(actor.id) if self._rate_limit else 0.0
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
        if foreign_to(ruleset, Command(command, chosen)):
            return []
        state = decode_state(ruleset.state_type, game.state)
        offers = ruleset.suggest(state, actor.id, command, option, chosen)
        typed = typed.strip().lower()
        return [(clip(label, 100), value) for label, value in offers
                if not typed or value.lower().startswith(typed) or typed in label.lower()][:MAX_SUGGESTIONS]

    async def _guarded(self, channel: str, work, delivery: str | None = None) -> Reply:
        async with self._lock_for(channel):
            token = _DELIVERY.set(delivery)
            try:
                return await work
            except GameError as exc:
                return refusal(exc.message)
            except StoreBusy:
                return refusal("The table is busy right now; please try again in a moment.")
            except AlreadyDelivered:
                return refusal("That command was already carried out (it reached me twice); nothing more changed.")
            finally:
                _DELIVERY.reset(token)

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
            games = await self._store.active_games_in(guild)
            return queries.games_of(actor.id, games, {r: get_ruleset(r) for r in ruleset_ids()})
        if command.name in QUERIES:
            return await self._query(channel, actor, command)
        if command.name == "undo":
            return await self._undo(channel, actor)
        if command.name == "move" and set(command.options) & {"plan", "fire", "preview"}:
            return await self._plan(channel, actor, command.options)
        if command.name == "game import":
            return await self._import(channel, actor, command.options["file"], guild)
        if command.name == "game settings":
            return await self._settings(channel, actor, command.options)
        if command.name == "game pause":
            return await self._pause(channel, actor, command.options["hours"])
        return await self._act(channel, actor, command)

    async def _new_game(self, channel: str, actor: Actor, options: dict, guild: str) -> Reply:
        ruleset = get_ruleset(options["ruleset"])
        NotThisGame.check(foreign_to(ruleset, Command("game new", options)))
        # 63 random bits: the published commitment cannot be brute-forced back to the seed (and the deck).
        seed = options["seed"] if "seed" in options else secrets.randbelow(MAX_SEED)
        setup_options = {k: v for k, v in options.items() if k not in ("ruleset", "seed")}
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
        if "seed" in options and ruleset.private_hands:
            text += ("\nThe host chose the seed, so whoever knows it can work out every hand: leave seed: "
                     "out for a game with secret cards.")
        return await self._with_map(ruleset, game, state, "applied", text)

    async def _load(self, channel: str, any_status: bool = False) -> tuple[Ruleset, GameRecord, Any]:
        game = await self._store.active_game(channel)
        if game is None and any_status:
            game = await self._store.latest_game(channel)
        if game is None:
            raise NoGame()
        ruleset = get_ruleset(game.ruleset)
        return ruleset, game, decode_state(ruleset.state_type, game.state)

    async def _query(self, channel: str, actor: Actor, command: Command) -> Reply:
        ruleset, game, state = await self._load(channel, any_status=True)
        NotThisGame.check(foreign_to(ruleset, command))
        finished = game.status == "finished"
        if command.name == "game status":
            return await self._with_map(ruleset, game, state, "shown", ruleset.describe(state))
        if command.name == "game log":
            return queries.game_log(ruleset, await self._store.actions(game.id), command.options.get("count"))
        if command.name == "game export":
            return queries.export(ruleset, game, await self._store.actions(game.id), finished)
        if command.name == "game verify":
            return queries.verification(game, await self.replay_matches(game), finished)
        if command.name == "game replay":
            states = self._rebuild_all(ruleset, game, await self._store.actions(game.id))
            try:
                data, _kind = await asyncio.to_thread(render_replay, ruleset.id,
                                                      [ruleset.view(s, None) for s in states])
            except ValueError as exc:  # no renderer for this game, or too big even at its smallest
                raise GameError(f"No replay of this game can be made: {exc}.") from None
            return Reply("shown", f"Game {game.id} so far: {len(states) - 1} actions.",
                         files=(Attachment(f"pitboss-game-{game.id}.gif", data, "An animation of the game so far"),))
        if finished:
            raise NoGame()
        text = ruleset.query(state, actor.id, command.options)
        # A private reply may carry the buttons a public one cannot (the cards in a hand).
        private = ruleset.legal_actions(state, actor.id) if actor.id in ruleset.acting_players(state) else ()
        return Reply("shown", clip(text, MESSAGE_LIMIT), ephemeral=True,
                     buttons=buttons_for(private, game.id, game.version))

    async def _apply(self, channel: str, actor_id: str, command: Command,
                     expected_version: int | None = None) -> Applied:
        """Apply one command as one transaction, retrying only when nothing was written."""
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
                    NotThisGame.check(foreign_to(ruleset, command))
                    action = ruleset.command_to_action(command.name, command.options)
                    state = decode_state(ruleset.state_type, game.state)
                    new_state, events = ruleset.apply(state, actor_id, action)
                    status = "finished" if ruleset.is_finished(new_state) else "active"
                    game = await self._store.append_action_tx(
                        game, actor_id, dumps(encode_tagged(action)),
                        dumps([encode_tagged(e) for e in events]), encode_state(new_state), status)
                    before = self._turn_of(ruleset, state)
                    if before != self._turn_of(ruleset, new_state):
                        await self._sync_timer_tx(ruleset, game, new_state)
                return Applied(ruleset, game, new_state, events, before[0])
            except (VersionConflict, StoreBusy):
                if attempt == WRITE_ATTEMPTS - 1:
                    raise StoreBusy() from None
                await asyncio.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    async def _import(self, channel: str, actor: Actor, data: bytes, guild: str) -> Reply:
        """Continue an exported game here. A running game moves (its old channel stops, so it never
        forks); a finished one, whose seed the export reveals, is re-played as a new record."""
        log_ = read_export(data)
        seed = log_.seed
        source = await self._store.game(log_.source_game)
        moving = seed is None
        if moving:
            if source is None or commitment(source.seed) != log_.seed_commitment or source.status != "active":
                raise BadImport("That log is of a running game this bot does not hold; only finished games "
                                "(whose export includes the seed) can be imported elsewhere.")
            if actor.id != source.host and not actor.is_admin:
                raise GameError("Only the game's host or a server admin can move a running game.")
            seed = source.seed
        try:
            states = replay_states(log_.ruleset, log_.options, seed, log_.host, log_.actions)
        except GameError as exc:
            raise BadImport(f"The game log does not replay: {exc.message}") from None
        state = states[-1]
        status = "finished" if log_.ruleset.is_finished(state) else "active"
        try:
            async with self._write():
                game = await self._store.create_game_tx(channel, log_.ruleset.id, log_.host, seed,
                                                        dumps(log_.options), encode_state(states[0]), guild)
                for (actor_id, action), after in zip(log_.actions, states[1:]):
                    game = await self._store.append_action_tx(
                        game, actor_id, dumps(encode_tagged(action)), "[]", encode_state(after),
                        "finished" if log_.ruleset.is_finished(after) else "active")
                if moving and source.channel != channel:
                    await self._store.retire_game_tx(source.id)
                await self._sync_timer_tx(log_.ruleset, game, state)
        except ChannelTaken:
            return refusal("This channel already has a game; import into another channel or thread.")
        what = "moved here" if moving else "re-played here from its log"
        return await self._with_map(log_.ruleset, game, state, "applied",
                                    f"Game {log_.source_game} {what}: {len(log_.actions)} actions ({status}).")

    async def _run_steps(self, channel: str, actor: Actor, steps: list[Command],
                         expected_version: int | None = None) -> Reply:
        """Apply steps in order while the game still waits on `actor`; a step the game refuses
        (a skid to answer, a ram to settle) ends the run and says why."""
        waiting_before = None
        done = None
        events: list = []
        stopped = ""
        for index, step in enumerate(steps):
            if done is not None and actor.id not in done.ruleset.acting_players(done.state):
                stopped = f"The plan ended after step {index}: the turn passed."
                break
            try:
                done = await self._apply(channel, actor.id, step, expected_version if index == 0 else None)
                waiting_before = done.waiting_before if waiting_before is None else waiting_before
            except GameError as exc:
                if done is None:
                    raise
                stopped = f"The plan paused before step {index + 1}: {exc.message}"
                break
            events.extend(done.events)
        path = [e.to_hex for e in events if hasattr(e, "to_hex")]
        done, computer_events = await self._play_computers(channel, done)
        lines = [e.describe() for e in events + computer_events]
        if len(steps) > 1 and path:
            lines.append("Path: " + " → ".join(path))
        if stopped:
            lines.append(stopped)
        if done.ruleset.is_finished(done.state):
            lines.append(reveal(done.game.seed))
        reply = await self._with_map(done.ruleset, done.game, done.state, "applied",
                                     latest_lines(lines, MESSAGE_LIMIT - 300))
        waiting = reply.waiting_on
        if waiting and waiting != waiting_before and waiting[0] != actor.id and not self._is_computer(done, waiting[0]):
            reply = replace(reply, mention=waiting[0])
        return reply

    async def _press(self, channel: str, actor: Actor, custom_id: str) -> Reply:
        match = _BUTTON_ID.match(custom_id)
        if not match:
            raise GameError("That button is not one of mine.")
        kind = match.group(1)
        game_id, version, index = (int(g) for g in match.groups()[1:])
        ruleset, game, state = await self._load(channel)
        if game.id != game_id:
            raise StaleButton("That button belongs to a game that is no longer running here.")
        if game.version != version:
            raise StaleButton("That button is out of date: the game has moved on. "
                              "Use the buttons on the latest message.")
        waiting = ruleset.acting_players(state)
        if actor.id not in waiting:
            if state.player(actor.id) is None:
                raise GameError("You are not playing in this game; you can watch, but not press.")
            names = ", ".join(state.player(p).name for p in waiting) or "nobody"
            raise GameError(f"It is {names}'s turn, not yours.")
        legal = ruleset.legal_actions(state, actor.id)
        if index >= len(legal):
            raise StaleButton("That button no longer matches the game.")
        if kind == MENU_PREFIX:
            return self._group_menu(legal, game, index)
        return await self._act(channel, actor, parse(legal[index].command), expected_version=version)

    @staticmethod
    def _group_menu(legal, game: GameRecord, first: int) -> Reply:
        """A private menu of the ways to play one card (as many as Discord shows as buttons)."""
        buttons, total = group_buttons(legal, game.id, game.version, first)
        group = legal[first].group
        text = f"{group}: {total} ways. Pick one."
        if total > len(buttons):
            command = " ".join(legal[first].command.split()[:2])  # "/play card:7H"
            text += (f" The buttons show the first {len(buttons)}; for the others type {command} with the "
                     f"car or split option (autocomplete lists only legal values).")
        return Reply("shown", text, ephemeral=True, buttons=buttons, game_id=game.id, version=game.version)

    async def _act(self, channel: str, actor: Actor, command: Command,
                   expected_version: int | None = None) -> Reply:
        options = dict(command.options)
        if command.name in ("game end", "game takeover"):
            options["by_admin"] = actor.is_admin
        if command.name == "game join":
            options["name"] = actor.name
        return await self._run_steps(channel, actor, [Command(command.name, options)], expected_version)

    @staticmethod
    def _turn_of(ruleset: Ruleset, state: Any) -> tuple:
        """Who the game waits on, in which turn: the timer only changes when this does."""
        return ruleset.acting_players(state), ruleset.turn_key(state), ruleset.is_finished(state)

    @staticmethod
    def _is_computer(done: Applied, player: str) -> bool:
        return done.ruleset.is_computer(done.state, player)

    async def _undo(self, channel: str, actor: Actor) -> Reply:
        """Take back the actor's own last action, if nothing was rolled or revealed since."""
        async with self._write():
            game = await self._store.active_game_tx(channel)
            if game is None:
                raise NoGame()
            ruleset = get_ruleset(game.ruleset)
            records = await self._store.actions_tx(game.id)
            if not records:
                raise GameError("There is nothing to undo.")
            last = records[-1]
            if last.actor != actor.id:
                raise GameError("You can only undo your own last action, and someone has acted since.")
            previous = self._rebuild(ruleset, game, records[:-1])
            current = decode_state(ruleset.state_type, game.state)
            blocker = ruleset.undo_blocker(previous, current)
            if blocker:
                raise GameError(f"That cannot be undone: {blocker}.")
            game = await self._store.undo_last_tx(game, last.seq, encode_state(previous))
        undone = " ".join(decode_tagged(ruleset.events, e).describe() for e in json.loads(last.events))
        return await self._with_map(ruleset, game, previous, "applied", f"Undone: {undone}")

    async def _play_computers(self, channel: str, done: Applied) -> tuple[Applied, list]:
        """Let computer seats play, each command through the same path as a person's."""
        events: list = []
        for _ in range(MAX_COMPUTER_ACTIONS):
            if done.ruleset.is_finished(done.state):
                break
            waiting = done.ruleset.acting_players(done.state)
            line = done.ruleset.computer_command(done.state, waiting[0]) if waiting else None
            if line is None:
                break
            try:
                done = await self._apply(channel, waiting[0], parse(line))
            except GameError as exc:  # a computer choosing an illegal command is a bug: stop, keep the game
                log.error("computer %s chose a refused command %r: %s", waiting[0], line, exc.message)
                break
            events.extend(done.events)
        return done, events

    async def _with_map(self, ruleset: Ruleset, game: GameRecord, state: Any, outcome: str,
                        text: str) -> Reply:
        public = ruleset.view(state, None)
        image = await asyncio.get_running_loop().run_in_executor(_RENDERERS, self._render, ruleset.id, public) \
            if self._render else None
        waiting = ruleset.acting_players(state)
        # Where legal actions name hidden cards, public replies offer none (the hand is private).
        legal = ruleset.legal_actions(state, waiting[0]) if waiting and not ruleset.private_hands else ()
        if outcome == "applied":
            text = f"{text}\nNext: {ruleset.prompt(state)}"
        return Reply(outcome, clip(text, MESSAGE_LIMIT), image,
                     clip(ruleset.describe(public), ALT_TEXT_LIMIT), legal=legal, waiting_on=waiting,
                     game_id=game.id, version=game.version, buttons=buttons_for(legal, game.id, game.version),
                     turn_key=ruleset.turn_key(state))

    @staticmethod
    def _rebuild_all(ruleset: Ruleset, game: GameRecord, records) -> list[Any]:
        entries = [(r.actor, decode_tagged(ruleset.actions, json.loads(r.action))) for r in records]
        return replay_states(ruleset, json.loads(game.options), game.seed, game.host, entries)

    @classmethod
    def _rebuild(cls, ruleset: Ruleset, game: GameRecord, records) -> Any:
        return cls._rebuild_all(ruleset, game, records)[-1]

    async def turn_message(self, game_id: int) -> tuple[str, str] | None:
        """(turn key, message id) of the message a transport uses to show the current turn."""
        return await self._store.turn_message(game_id)

    async def remember_turn_message(self, game_id: int, turn_key: str, message_id: str) -> None:
        """Record the message that now shows the game's current turn."""
        await self._store.set_turn_message(game_id, turn_key, message_id)

    async def replay_matches(self, game: GameRecord) -> bool:
        """True when replaying the game's log from its seed rebuilds its stored snapshot exactly (both
        read as of one moment, so a game being played elsewhere is checked as it stood)."""
        game, records = await self._store.game_and_actions(game.id)
        return encode_state(self._rebuild(get_ruleset(game.ruleset), game, records)) == game.state
