"""The one service every transport calls: lock the channel, load, authorise, apply, store, render, reply."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable

import images
from bot.commands import QUERIES, Command, parse
from bot.store import ChannelTaken, GameRecord, Store, StoreBusy, VersionConflict
from rules.codec import decode_state, decode_tagged, dumps, encode_state, encode_tagged
from rules.engine import LegalAction, Ruleset, get_ruleset, replay
from rules.errors import GameError

log = logging.getLogger("pitboss.service")

MESSAGE_LIMIT = 2000
ALT_TEXT_LIMIT = 1024
WRITE_ATTEMPTS = 5
# A computer seat plays on until a person must act; this bounds one command's work.
MAX_COMPUTER_ACTIONS = 20_000


@dataclass(frozen=True)
class Actor:
    """Who sent a command: a stable id, a display name, and whether they manage the server."""

    id: str
    name: str
    is_admin: bool = False


@dataclass(frozen=True)
class Reply:
    """What a transport shows: text, an optional PNG with alt text, and whether it is private.

    `outcome` is "applied" (the game changed), "shown" (read only) or "refused" (nothing changed).
    """

    outcome: str
    text: str
    image: bytes | None = None
    alt_text: str = ""
    ephemeral: bool = False
    legal: tuple[LegalAction, ...] = ()
    waiting_on: tuple[str, ...] = field(default_factory=tuple)
    game_id: int | None = None
    version: int | None = None


@dataclass(frozen=True)
class Applied:
    """One stored action: the game row after it, the new state and its events."""

    ruleset: Ruleset
    game: GameRecord
    state: Any
    events: tuple


def _refusal(message: str) -> Reply:
    return Reply("refused", message, ephemeral=True)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _latest(lines: list[str], limit: int) -> str:
    """The last lines that fit in `limit` characters, saying how many earlier ones were left out."""
    kept: list[str] = []
    size = 0
    for line in reversed(lines):
        if size + len(line) + 1 > limit - 40:
            break
        kept.append(line)
        size += len(line) + 1
    skipped = len(lines) - len(kept)
    head = [f"… {skipped} earlier events"] if skipped else []
    return "\n".join(head + kept[::-1])


class NoGame(GameError):
    """The channel has no running game."""

    def __init__(self) -> None:
        super().__init__("No game is running in this channel. Create one with /game new ruleset:speedway.")


class GameService:
    """Executes commands for (channel, actor) against the store, whatever the transport."""

    def __init__(self, store: Store, render: Callable[[str, Any], bytes] | None = images.render):
        self._store = store
        self._render = render
        # Weak values: a channel's lock lives only while some command holds or awaits it.
        self._channel_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def _lock_for(self, channel: str) -> asyncio.Lock:
        lock = self._channel_locks.get(channel)
        if lock is None:
            lock = self._channel_locks[channel] = asyncio.Lock()
        return lock

    async def execute(self, channel: str, actor: Actor, command: Command) -> Reply:
        """Run one command; game refusals and a busy database come back as private refusals."""
        async with self._lock_for(channel):
            try:
                return await self._dispatch(channel, actor, command)
            except GameError as exc:
                return _refusal(exc.message)
            except StoreBusy:
                return _refusal("The table is busy right now; please try again in a moment.")

    async def _dispatch(self, channel: str, actor: Actor, command: Command) -> Reply:
        if command.name == "game new":
            return await self._new_game(channel, actor, command.options)
        if command.name in QUERIES:
            return await self._query(channel, actor, command)
        return await self._act(channel, actor, command)

    async def _new_game(self, channel: str, actor: Actor, options: dict) -> Reply:
        ruleset = get_ruleset(options["ruleset"])
        seed = options["seed"] if "seed" in options else secrets.randbelow(2**53)
        setup_options = {k: v for k, v in options.items() if k not in ("ruleset", "seed")}
        state = ruleset.setup(setup_options, seed, actor.id)
        try:
            async with self._store.transaction():
                game = await self._store.create_game_tx(channel, ruleset.id, actor.id, seed,
                                                        dumps(setup_options), encode_state(state))
        except ChannelTaken:
            return _refusal("This channel already has a game. Finish it with /game end, or play in "
                            "another channel or thread.")
        text = (f"New {ruleset.title} game created by {actor.name}. Join with /game join; "
                f"the host starts it with /game start.")
        return await self._with_map(ruleset, game, state, "applied", text)

    async def _query(self, channel: str, actor: Actor, command: Command) -> Reply:
        game = await self._store.active_game(channel)
        if command.name == "game status":
            game = game or await self._store.latest_game(channel)
            if game is None:
                return _refusal("No game in this channel yet. Create one with /game new ruleset:speedway.")
        elif game is None:
            raise NoGame()
        ruleset = get_ruleset(game.ruleset)
        state = decode_state(ruleset.state_type, game.state)
        if command.name == "game status":
            return await self._with_map(ruleset, game, state, "shown", ruleset.describe(state))
        return Reply("shown", ruleset.query(state, actor.id, command.options), ephemeral=True)

    async def _apply(self, channel: str, actor_id: str, command: Command) -> Applied:
        """Apply one command as one transaction, retrying only when nothing was written."""
        for attempt in range(WRITE_ATTEMPTS):
            try:
                async with self._store.transaction():
                    game = await self._store.active_game_tx(channel)
                    if game is None:
                        raise NoGame()
                    ruleset = get_ruleset(game.ruleset)
                    action = ruleset.command_to_action(command.name, command.options)
                    state = decode_state(ruleset.state_type, game.state)
                    new_state, events = ruleset.apply(state, actor_id, action)
                    status = "finished" if ruleset.is_finished(new_state) else "active"
                    game = await self._store.append_action_tx(
                        game, actor_id, dumps(encode_tagged(action)),
                        dumps([encode_tagged(e) for e in events]), encode_state(new_state), status)
                return Applied(ruleset, game, new_state, events)
            except (VersionConflict, StoreBusy):
                if attempt == WRITE_ATTEMPTS - 1:
                    raise StoreBusy() from None
                await asyncio.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    async def _act(self, channel: str, actor: Actor, command: Command) -> Reply:
        options = dict(command.options)
        if command.name == "game end":
            options["by_admin"] = actor.is_admin
        if command.name == "game join":
            options["name"] = actor.name
        done = await self._apply(channel, actor.id, Command(command.name, options))
        events = list(done.events)
        done, computer_events = await self._play_computers(channel, done)
        text = _latest([e.describe() for e in events + computer_events], MESSAGE_LIMIT - 300)
        return await self._with_map(done.ruleset, done.game, done.state, "applied", text)

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
        image = await asyncio.to_thread(self._render, ruleset.id, public) if self._render else None
        waiting = ruleset.acting_players(state)
        legal = ruleset.legal_actions(state, waiting[0]) if waiting else ()
        if outcome == "applied":
            text = f"{text}\nNext: {ruleset.prompt(state)}"
        return Reply(outcome, _clip(text, MESSAGE_LIMIT), image,
                     _clip(ruleset.describe(public), ALT_TEXT_LIMIT), legal=legal, waiting_on=waiting,
                     game_id=game.id, version=game.version)

    async def replay_matches(self, game: GameRecord) -> bool:
        """True when replaying the game's log from its seed rebuilds the stored snapshot exactly."""
        return encode_state(await self.replay(game)) == game.state

    async def replay(self, game: GameRecord) -> Any:
        """Rebuild a game's state from its setup and action log."""
        ruleset = get_ruleset(game.ruleset)
        log_entries = [(record.actor, decode_tagged(ruleset.actions, json.loads(record.action)))
                       for record in await self._store.actions(game.id)]
        return replay(ruleset, json.loads(game.options), game.seed, game.host, log_entries)
