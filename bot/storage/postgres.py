"""The PostgreSQL driver (asyncpg): a connection pool shared by many processes' worth of writers.

Several `pitboss run` processes (Discord shards) and `pitboss exec` calls may write at once. Each
write transaction that touches a channel's game first takes a transaction-scoped advisory lock on
the channel, so the commands of one channel run one after another across processes; the version
compare-and-swap stays as a second guard. Due reminders are claimed with FOR UPDATE SKIP LOCKED.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import os
import re
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from functools import lru_cache

import asyncpg

from bot.storage.errors import BackupFailed, Duplicate, StoreBusy, StoreUnavailable
from bot.storage.target import split_password

LOCK_TIMEOUT = "15s"
_BUSY = (asyncpg.exceptions.LockNotAvailableError, asyncpg.exceptions.DeadlockDetectedError,
         asyncpg.exceptions.SerializationError, asyncpg.exceptions.TooManyConnectionsError)
# The server out of reach: refused or lost connections (OSError, SQLSTATE class 08), or shutting down (57P0x).
_UNREACHABLE = (OSError, asyncpg.exceptions.PostgresConnectionError, asyncpg.exceptions.AdminShutdownError,
                asyncpg.exceptions.CrashShutdownError, asyncpg.exceptions.CannotConnectNowError)

log = logging.getLogger("pitboss.storage")


class _PoolFloorRetries(logging.Filter):
    """asyncpg's pool logs a traceback each time it fails to reconnect its idle connection (at 1, 2, 4 … 60 s
    through an outage); the driver says the outage once itself (_Outage), so those are left out."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Failed to restore the pool connection floor")


logging.getLogger("asyncpg.pool").addFilter(_PoolFloorRetries())


def _broken(conn: asyncpg.Connection) -> bool:
    """Whether the server closed `conn` (the pool then detaches its proxy, which says so by refusing every call)."""
    try:
        return conn.is_closed()
    except asyncpg.exceptions.InterfaceError:
        return True


class _Outage:
    """Whether the server is out of reach: one line when an outage begins, one when the server answers again."""

    def __init__(self) -> None:
        self.since: float | None = None

    def lost(self, error: BaseException) -> StoreUnavailable:
        """The error to raise for `error`, the outage logged if it begins here."""
        if self.since is None:
            self.since = time.monotonic()
            log.error("PostgreSQL is out of reach (%s: %s): commands are answered with an apology until it is "
                      "back", type(error).__name__, error)
        return StoreUnavailable(f"PostgreSQL is out of reach ({type(error).__name__}: {error})")

    def answered(self) -> None:
        if self.since is not None:
            log.warning("PostgreSQL answers again, after %.0f s out of reach", time.monotonic() - self.since)
            self.since = None

# The connection of the transaction the running task is in, if any.
_CONNECTION: contextvars.ContextVar[asyncpg.Connection | None] = contextvars.ContextVar("pitboss_pg_conn",
                                                                                         default=None)


@lru_cache(maxsize=512)
def _numbered(sql: str) -> str:
    """The store writes `?` placeholders; PostgreSQL numbers them ($1, $2, ...)."""
    count = iter(range(1, 1000))
    return re.sub(r"\?", lambda _m: f"${next(count)}", sql)


async def _kept_as_is(conn: asyncpg.Connection) -> None:
    """What a connection needs on its way back to the pool beyond the rollback asyncpg always does: nothing.
    The store leaves no session state (its advisory locks are the transaction's, no LISTEN, SET or cursor),
    and the default's RESET ALL and friends cost a round trip to the server on each statement's release."""


class PostgresDriver:
    """Runs the store's SQL on PostgreSQL."""

    dialect = "postgres"
    skip_locked = " FOR UPDATE SKIP LOCKED"

    def __init__(self, pool: asyncpg.Pool, url: str):
        self._pool = pool
        self._url = url
        self._outage = _Outage()

    @classmethod
    async def open(cls, url: str) -> PostgresDriver:
        try:
            pool = await asyncpg.create_pool(url, min_size=1, max_size=8, reset=_kept_as_is,
                                             server_settings={"lock_timeout": LOCK_TIMEOUT})
        except _UNREACHABLE as exc:
            raise StoreUnavailable(f"PostgreSQL is out of reach ({type(exc).__name__}: {exc})") from exc
        return cls(pool, url)

    async def close(self) -> None:
        await self._pool.close()

    @contextlib.asynccontextmanager
    async def _reached(self, conn: asyncpg.Connection | None = None) -> AsyncIterator[None]:
        """The server's answer, or StoreUnavailable when it is out of reach (the outage logged once); `conn`:
        the connection used, whose closing by the server asyncpg reports as an InterfaceError."""
        try:
            yield
        except _UNREACHABLE as exc:
            raise self._outage.lost(exc) from exc
        except asyncpg.exceptions.InterfaceError as exc:
            if conn is None or not _broken(conn):
                raise
            raise self._outage.lost(ConnectionResetError("the server closed the connection")) from exc
        self._outage.answered()

    @contextlib.asynccontextmanager
    async def _acquired(self) -> AsyncIterator[asyncpg.Connection]:
        """A connection of the pool (StoreUnavailable when none can be made), released after the block."""
        async with self._reached():
            conn = await self._pool.acquire()
        try:
            yield conn
        finally:
            with contextlib.suppress(*_UNREACHABLE):   # a connection the outage broke is dropped, not returned
                await self._pool.release(conn)

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[asyncpg.Connection]:
        current = _CONNECTION.get()
        if current is not None:
            yield current
        else:
            async with self._acquired() as conn:
                yield conn

    @contextlib.asynccontextmanager
    async def _transaction(self, **options) -> AsyncIterator[None]:
        async with self._acquired() as conn:
            transaction = conn.transaction(**options)
            try:
                async with self._reached(conn):
                    await transaction.start()
            except _BUSY as exc:
                raise StoreBusy() from exc
            token = _CONNECTION.set(conn)
            try:
                yield
            except BaseException:
                try:
                    await transaction.rollback()
                except (asyncpg.exceptions.InterfaceError, *_UNREACHABLE):
                    if not _broken(conn):
                        raise
                    # a connection the outage broke: the server rolled back, and the error is the body's
                raise
            finally:
                _CONNECTION.reset(token)
            try:
                async with self._reached(conn):
                    await transaction.commit()
            except _BUSY as exc:
                raise StoreBusy() from exc

    def transaction(self) -> AbstractAsyncContextManager[None]:
        """One write transaction (READ COMMITTED, with the channel lock taken by the store)."""
        return self._transaction()

    def snapshot(self) -> AbstractAsyncContextManager[None]:
        """A read-only transaction that sees the database as of one moment."""
        return self._transaction(isolation="repeatable_read", readonly=True)

    async def fetchone(self, sql: str, params: tuple = ()) -> tuple | None:
        async with self._connection() as conn:
            row = await self._call(conn.fetchrow, sql, params)
        return tuple(row) if row is not None else None

    async def fetchall(self, sql: str, params: tuple = ()) -> list[tuple]:
        async with self._connection() as conn:
            return [tuple(row) for row in await self._call(conn.fetch, sql, params)]

    async def execute(self, sql: str, params: tuple = ()) -> int:
        """Run one statement; the number of rows it changed. Duplicate on a unique key."""
        async with self._connection() as conn:
            status = await self._call(conn.execute, sql, params)
        last = status.rsplit(" ", 1)[-1]
        return int(last) if last.isdigit() else 0

    async def _call(self, method, sql: str, params: tuple):
        try:
            async with self._reached(method.__self__):
                return await method(_numbered(sql), *params)
        except asyncpg.exceptions.UniqueViolationError as exc:
            raise Duplicate(str(exc)) from None
        except _BUSY as exc:
            raise StoreBusy() from exc

    async def fetchall_together(self, queries: list[tuple[str, tuple]]) -> list[list[tuple]]:
        """Each query's rows (one after another: a round trip each here)."""
        return [await self.fetchall(sql, params) for sql, params in queries]

    async def execute_later(self, sql: str, params: tuple = (), conflict: Exception | None = None) -> None:
        """A write whose row count nobody reads: run now (each statement is a round trip here anyway); with
        `conflict`, raised when it changed no row but one."""
        if await self.execute(sql, params) != 1 and conflict is not None:
            raise conflict

    async def executemany(self, sql: str, rows: list[tuple]) -> None:
        """Run one statement for each row, in one round trip."""
        if not rows:
            return
        async with self._connection() as conn:
            await self._call(conn.executemany, sql, (rows,))

    async def lock_channel(self, channel: str) -> None:
        """Serialise one channel's writers across processes until this transaction ends."""
        await self.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", (channel,))

    async def integrity_problems(self) -> list[str]:
        """PostgreSQL checks its own pages; here: every logged action belongs to a stored game."""
        orphans = await self.fetchone("SELECT COUNT(*) FROM actions a LEFT JOIN games g ON g.id = a.game_id"
                                      " WHERE g.id IS NULL")
        return [f"{orphans[0]} actions without a game"] if orphans and orphans[0] else []

    async def backup(self, path: str) -> None:
        """pg_dump (custom format) into a side file renamed into place: one consistent snapshot,
        taken while others keep writing."""
        partial = f"{path}.partial"
        # The password goes in the child's environment (private to its user), never on its command
        # line, which every user of the machine can read in `ps`.
        url, password = split_password(self._url)
        env = {**os.environ, "PGPASSWORD": password} if password is not None else None
        try:
            proc = await asyncio.create_subprocess_exec(
                "pg_dump", "--format=custom", f"--file={partial}", f"--dbname={url}", env=env,
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        except FileNotFoundError:
            raise BackupFailed("pg_dump is not installed; it comes with the PostgreSQL client tools") from None
        _out, err = await proc.communicate()
        if proc.returncode != 0:
            with contextlib.suppress(FileNotFoundError):
                os.remove(partial)
            raise BackupFailed(f"pg_dump failed: {err.decode(errors='replace').strip()[:300]}")
        os.replace(partial, path)

    async def executescript(self, script: str) -> None:
        async with self._connection() as conn:
            await conn.execute(script)
