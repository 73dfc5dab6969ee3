"""SQLite storage through aiosqlite: games, their action logs and snapshots, schema migrations.

Every write runs in a BEGIN IMMEDIATE transaction on the process's single connection, so writers in
other processes queue on SQLite's lock (busy_timeout) instead of failing, and a version column
guards each snapshot replacement (compare-and-swap) against a writer that slipped in between.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import AsyncIterator

import aiosqlite

BUSY_TIMEOUT_MS = 15_000

MIGRATIONS: tuple[str, ...] = (
    # 1: games with one snapshot each, and the append-only action log.
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        channel TEXT NOT NULL,
        ruleset TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'finished')),
        host TEXT NOT NULL,
        seed INTEGER NOT NULL,
        options TEXT NOT NULL,
        version INTEGER NOT NULL,
        state TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE UNIQUE INDEX one_active_game_per_channel ON games (channel) WHERE status = 'active';
    CREATE TABLE actions (
        game_id INTEGER NOT NULL REFERENCES games (id),
        seq INTEGER NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        events TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    """,
    # 2: small key-value settings of the installation (e.g. the hash of the synced commands).
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # 3: the server a game belongs to (for /games), per-game table settings, and the message that
    # shows the current turn (edited as the turn goes on).
    """
    ALTER TABLE games ADD COLUMN guild TEXT NOT NULL DEFAULT '';
    ALTER TABLE games ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
    CREATE INDEX games_by_guild ON games (guild, status);
    CREATE TABLE turn_messages (
        game_id INTEGER PRIMARY KEY REFERENCES games (id),
        turn_key TEXT NOT NULL,
        message_id TEXT NOT NULL
    );
    """,
    # 4: one timer per running game: when to remind the player the game waits on, and when their
    # deadline falls. Claimed (cleared) in a transaction before anything is sent.
    """
    CREATE TABLE timers (
        game_id INTEGER PRIMARY KEY REFERENCES games (id),
        channel TEXT NOT NULL,
        player TEXT NOT NULL,
        turn_key TEXT NOT NULL,
        reminder_due REAL,
        deadline_due REAL
    );
    CREATE INDEX timers_reminder ON timers (reminder_due);
    CREATE INDEX timers_deadline ON timers (deadline_due);
    """,
    # 5: the deliveries (Discord interaction ids) already carried out, so one delivered twice (a
    # gateway replay, two processes on one token) changes the game once.
    """
    CREATE TABLE deliveries (key TEXT PRIMARY KEY, created_at TEXT NOT NULL);
    """,
)


class StoreBusy(Exception):
    """The database stayed locked by another process for longer than the busy timeout."""


class VersionConflict(Exception):
    """The snapshot changed since it was read: the caller must reload and retry."""


class ChannelTaken(Exception):
    """The channel already has an active game."""


class AlreadyDelivered(Exception):
    """This delivery (an interaction id) was carried out before."""


@dataclass(frozen=True)
class GameRecord:
    """A stored game: identity, setup (for replay), version and the JSON snapshot."""

    id: int
    channel: str
    ruleset: str
    status: str
    host: str
    seed: int
    options: str
    version: int
    state: str
    guild: str = ""
    settings: str = "{}"


@dataclass(frozen=True)
class Timer:
    """When to remind the player a game waits on, and when their deadline falls (epoch seconds)."""

    game_id: int
    channel: str
    player: str
    turn_key: str
    reminder_due: float | None
    deadline_due: float | None


_TIMER_COLUMNS = "game_id, channel, player, turn_key, reminder_due, deadline_due"


@dataclass(frozen=True)
class ActionRecord:
    """One accepted action in a game's log."""

    seq: int
    actor: str
    action: str
    events: str


_GAME_COLUMNS = "id, channel, ruleset, status, host, seed, options, version, state, guild, settings"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _is_locked(exc: sqlite3.OperationalError) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


class Store:
    """The game database. Open with `await Store.open(path)`; close with `await store.close()`."""

    def __init__(self, connection: aiosqlite.Connection):
        self._db = connection
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str) -> "Store":
        """Connect, switch to WAL, and apply pending migrations."""
        pending = aiosqlite.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
        # A store left open by a crash must not keep the process alive at exit: SQLite's own
        # transactions keep the file sound, so the worker thread may die with the process.
        worker = getattr(pending, "_thread", None)
        if worker is not None:
            worker.daemon = True
        db = await pending
        await db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        await db.execute("PRAGMA journal_mode = WAL")
        await db.execute("PRAGMA synchronous = NORMAL")
        await db.execute("PRAGMA foreign_keys = ON")
        store = cls(db)
        await store._migrate()
        return store

    async def close(self) -> None:
        await self._db.close()

    async def integrity_problems(self) -> list[str]:
        """SQLite's own integrity and foreign-key checks: an empty list when the file is sound."""
        async with self._lock:
            async with self._db.execute("PRAGMA integrity_check") as cur:
                problems = [row[0] for row in await cur.fetchall() if row[0] != "ok"]
            async with self._db.execute("PRAGMA foreign_key_check") as cur:
                problems += [f"foreign key: {tuple(row)}" for row in await cur.fetchall()]
        return problems

    async def backup(self, path: str) -> None:
        """A consistent copy of the whole database at `path`, made while others keep writing.

        SQLite's online backup copies one snapshot of the file; the copy is written beside its target
        and renamed into place, so `path` never holds half a database.
        """
        partial = f"{path}.partial"
        with contextlib.suppress(FileNotFoundError):
            os.remove(partial)
        target = sqlite3.connect(partial)
        try:
            async with self._lock:
                await self._db.backup(target)
            target.execute("PRAGMA journal_mode = DELETE")  # one self-contained file, no WAL beside it
        finally:
            target.close()
        os.replace(partial, path)

    async def _migrate(self) -> None:
        async with self.transaction():
            await self._db.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
            async with self._db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") as cur:
                (current,) = await cur.fetchone()
            for version, script in enumerate(MIGRATIONS, start=1):
                if version <= current:
                    continue
                for statement in filter(str.strip, script.split(";")):
                    await self._db.execute(statement)
                await self._db.execute("INSERT INTO schema_migrations VALUES (?, ?)", (version, _now()))

    async def schema_version(self) -> int:
        async with self._lock, self._db.execute("SELECT MAX(version) FROM schema_migrations") as cur:
            return (await cur.fetchone())[0]

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        """One write transaction (BEGIN IMMEDIATE), committed on success, rolled back on any error."""
        async with self._lock:
            try:
                await self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if _is_locked(exc):
                    raise StoreBusy() from exc
                raise
            try:
                yield
            except BaseException:
                await self._db.execute("ROLLBACK")
                raise
            try:
                await self._db.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                await self._db.execute("ROLLBACK")
                if _is_locked(exc):
                    raise StoreBusy() from exc
                raise

    async def _fetch_game(self, where: str, params: tuple) -> GameRecord | None:
        async with self._db.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE {where}", params) as cur:
            row = await cur.fetchone()
        return GameRecord(*row) if row else None

    # The methods below that end in _tx run inside `transaction()`.

    async def active_game_tx(self, channel: str) -> GameRecord | None:
        """The channel's active game, read inside the current transaction."""
        return await self._fetch_game("channel = ? AND status = 'active'", (channel,))

    async def create_game_tx(self, channel: str, ruleset: str, host: str, seed: int, options: str,
                             state: str, guild: str = "") -> GameRecord:
        """Insert a new active game at version 0; ChannelTaken if the channel has one."""
        now = _now()
        try:
            cur = await self._db.execute(
                "INSERT INTO games (channel, ruleset, status, host, seed, options, version, state,"
                " created_at, updated_at, guild) VALUES (?, ?, 'active', ?, ?, ?, 0, ?, ?, ?, ?)",
                (channel, ruleset, host, seed, options, state, now, now, guild))
        except sqlite3.IntegrityError:
            raise ChannelTaken(channel) from None
        return GameRecord(cur.lastrowid, channel, ruleset, "active", host, seed, options, 0, state, guild)

    async def claim_delivery_tx(self, key: str) -> None:
        """Record that delivery `key` is being carried out; AlreadyDelivered if it was before."""
        try:
            await self._db.execute("INSERT INTO deliveries (key, created_at) VALUES (?, ?)", (key, _now()))
        except sqlite3.IntegrityError:
            raise AlreadyDelivered(key) from None

    async def append_action_tx(self, game: GameRecord, actor: str, action: str, events: str,
                               new_state: str, status: str) -> GameRecord:
        """Log one action and replace the snapshot, if the game is still at `game.version`."""
        now = _now()
        cur = await self._db.execute(
            "UPDATE games SET state = ?, status = ?, version = version + 1, updated_at = ?"
            " WHERE id = ? AND version = ?",
            (new_state, status, now, game.id, game.version))
        if cur.rowcount != 1:
            raise VersionConflict(game.id)
        # seq counts log entries; version counts every change (an undo removes an entry but still
        # moves the version on, so buttons drawn before it go stale).
        await self._db.execute(
            "INSERT INTO actions (game_id, seq, actor, action, events, created_at)"
            " SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ? FROM actions WHERE game_id = ?",
            (game.id, actor, action, events, now, game.id))
        return replace(game, status=status, version=game.version + 1, state=new_state)

    async def undo_last_tx(self, game: GameRecord, seq: int, previous_state: str) -> GameRecord:
        """Remove the log entry `seq` (the last one) and restore the snapshot before it."""
        cur = await self._db.execute(
            "UPDATE games SET state = ?, version = version + 1, updated_at = ? WHERE id = ? AND version = ?",
            (previous_state, _now(), game.id, game.version))
        if cur.rowcount != 1:
            raise VersionConflict(game.id)
        await self._db.execute("DELETE FROM actions WHERE game_id = ? AND seq = ?", (game.id, seq))
        return replace(game, version=game.version + 1, state=previous_state)

    async def retire_game_tx(self, game_id: int) -> None:
        """A game moved to another channel: the old record stops taking actions (it is kept)."""
        await self._db.execute("UPDATE games SET status = 'finished' WHERE id = ?", (game_id,))
        await self.clear_timer_tx(game_id)

    async def set_settings_tx(self, game: GameRecord, settings: str) -> GameRecord:
        """Replace a game's table settings (not part of the rules state)."""
        await self._db.execute("UPDATE games SET settings = ? WHERE id = ?", (settings, game.id))
        return replace(game, settings=settings)

    async def timer_tx(self, game_id: int) -> Timer | None:
        """A game's timer, read inside the current transaction."""
        async with self._db.execute(f"SELECT {_TIMER_COLUMNS} FROM timers WHERE game_id = ?", (game_id,)) as cur:
            row = await cur.fetchone()
        return Timer(*row) if row else None

    async def set_timer_tx(self, timer: Timer) -> None:
        """Start (or replace) a game's timer."""
        await self._db.execute(
            f"INSERT OR REPLACE INTO timers ({_TIMER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
            (timer.game_id, timer.channel, timer.player, timer.turn_key, timer.reminder_due, timer.deadline_due))

    async def clear_timer_tx(self, game_id: int) -> None:
        """The game waits on nobody (or is over): no timer."""
        await self._db.execute("DELETE FROM timers WHERE game_id = ?", (game_id,))

    async def claim_due(self, now: float) -> list[tuple[str, Timer]]:
        """Take every reminder and deadline due by `now`, clearing each in the same transaction, so
        another process (or this one after a restart) never sends it again."""
        claimed: list[tuple[str, Timer]] = []
        async with self.transaction():
            for kind in ("reminder", "deadline"):
                async with self._db.execute(
                        f"SELECT {_TIMER_COLUMNS} FROM timers WHERE {kind}_due IS NOT NULL AND {kind}_due <= ?"
                        " ORDER BY game_id", (now,)) as cur:
                    rows = [Timer(*row) for row in await cur.fetchall()]
                for timer in rows:
                    await self._db.execute(f"UPDATE timers SET {kind}_due = NULL WHERE game_id = ?", (timer.game_id,))
                    claimed.append((kind, timer))
        return claimed

    async def timer(self, game_id: int) -> Timer | None:
        """A game's timer."""
        async with self._lock:
            return await self.timer_tx(game_id)

    # Plain reads and small writes (each its own short statement).

    async def get_meta(self, key: str) -> str | None:
        """A stored installation setting."""
        async with self._lock, self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)) as cur:
            row = await cur.fetchone()
        return row[0] if row else None

    async def set_meta(self, key: str, value: str) -> None:
        """Store an installation setting."""
        async with self.transaction():
            await self._db.execute("INSERT INTO meta (key, value) VALUES (?, ?)"
                                   " ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))

    async def active_game(self, channel: str) -> GameRecord | None:
        """The channel's active game, if any."""
        async with self._lock:
            return await self.active_game_tx(channel)

    async def game(self, game_id: int) -> GameRecord | None:
        """A game by id, whatever its status."""
        async with self._lock:
            return await self._fetch_game("id = ?", (game_id,))

    async def latest_game(self, channel: str) -> GameRecord | None:
        """The channel's most recent game (active or finished)."""
        async with self._lock:
            return await self._fetch_game("channel = ? ORDER BY id DESC LIMIT 1", (channel,))

    async def active_games_in(self, guild: str) -> list[GameRecord]:
        """Every running game on a server, oldest first."""
        async with self._lock, self._db.execute(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE guild = ? AND status = 'active' ORDER BY id",
                (guild,)) as cur:
            return [GameRecord(*row) for row in await cur.fetchall()]

    async def turn_message(self, game_id: int) -> tuple[str, str] | None:
        """(turn key, message id) of the message showing a game's current turn."""
        async with self._lock, self._db.execute(
                "SELECT turn_key, message_id FROM turn_messages WHERE game_id = ?", (game_id,)) as cur:
            row = await cur.fetchone()
        return (row[0], row[1]) if row else None

    async def set_turn_message(self, game_id: int, turn_key: str, message_id: str) -> None:
        """Remember which message shows the current turn."""
        async with self.transaction():
            await self._db.execute(
                "INSERT INTO turn_messages (game_id, turn_key, message_id) VALUES (?, ?, ?)"
                " ON CONFLICT (game_id) DO UPDATE SET turn_key = excluded.turn_key,"
                " message_id = excluded.message_id", (game_id, turn_key, message_id))

    async def all_games(self) -> list[GameRecord]:
        """Every stored game, oldest first."""
        async with self._lock, self._db.execute(f"SELECT {_GAME_COLUMNS} FROM games ORDER BY id") as cur:
            return [GameRecord(*row) for row in await cur.fetchall()]

    async def game_and_actions(self, game_id: int) -> tuple[GameRecord | None, list[ActionRecord]]:
        """A game and its whole log as of one moment: one read transaction, so a writer in another
        process cannot slip an action in between the two reads."""
        async with self._lock:
            await self._db.execute("BEGIN")
            try:
                return await self._fetch_game("id = ?", (game_id,)), await self.actions_tx(game_id)
            finally:
                await self._db.execute("COMMIT")

    async def actions(self, game_id: int) -> list[ActionRecord]:
        """A game's action log in order."""
        async with self._lock:
            return await self.actions_tx(game_id)

    async def actions_tx(self, game_id: int) -> list[ActionRecord]:
        """A game's action log, read inside the current transaction."""
        async with self._db.execute(
                "SELECT seq, actor, action, events FROM actions WHERE game_id = ? ORDER BY seq",
                (game_id,)) as cur:
            return [ActionRecord(*row) for row in await cur.fetchall()]
