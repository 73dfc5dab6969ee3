"""The SQLite driver (aiosqlite): one connection per process, WAL, BEGIN IMMEDIATE writes.

Writers in other processes queue on SQLite's lock (busy_timeout) instead of failing. Inside this
process an asyncio lock gives the connection to one transaction (or one plain statement) at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import sqlite3
import urllib.parse
from collections.abc import AsyncIterator
from typing import Any

import aiosqlite

from bot.storage.errors import Duplicate, StoreBusy

BUSY_TIMEOUT_MS = 15_000

# True while the running task is inside a transaction (it then holds the connection already).
_IN_TRANSACTION: contextvars.ContextVar[bool] = contextvars.ContextVar("pitboss_sqlite_tx", default=False)


def _is_locked(exc: sqlite3.OperationalError) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


def writable(path: str) -> bool:
    """Whether this process may write the file and create its -wal and -shm files beside it."""
    return os.access(path, os.W_OK) and os.access(os.path.dirname(os.path.abspath(path)), os.W_OK)


async def _connect(target: str, uri: bool = False) -> aiosqlite.Connection:
    pending = aiosqlite.connect(target, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, uri=uri)
    # A store left open by a crash must not keep the process alive at exit: SQLite's own
    # transactions keep the file sound, so the worker thread may die with the process.
    worker = getattr(pending, "_thread", None)
    if worker is not None:
        worker.daemon = True
    try:
        return await pending
    except BaseException:
        # The worker thread still has to hand back its stop signal; let it finish while the event
        # loop is open, or it prints a traceback at exit.
        if worker is not None:
            worker.join(timeout=5)
        raise


async def _open_read_only(path: str) -> aiosqlite.Connection:
    """A read-only connection (for verify, backup and status on a file this process may not write).

    Reading a WAL database needs its -shm index, which SQLite creates beside the file. In a folder
    that cannot take it, the file is read as immutable, which is sound only while no -wal file
    exists: then no connection has the database open, and everything committed is in the file.
    """
    base = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    db = await _connect(base, uri=True)
    try:
        await db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        await db.execute_fetchall("SELECT COUNT(*) FROM sqlite_master")
        return db
    except sqlite3.OperationalError:
        await db.close()
        if os.path.exists(f"{path}-wal"):
            raise sqlite3.OperationalError(
                f"{path} can only be read with its write-ahead log, and the folder it is in is "
                f"read-only: open it once where it may be written (or check it with its owner)") from None
    return await _connect(base + "&immutable=1", uri=True)


class SqliteDriver:
    """Runs the store's SQL on a SQLite file."""

    dialect = "sqlite"
    skip_locked = ""  # SQLite has one writer at a time: nothing to skip

    def __init__(self, connection: aiosqlite.Connection):
        self._db = connection
        self._lock = asyncio.Lock()
        # The write transaction under way: its BEGIN IMMEDIATE not sent yet (it goes with its first statement),
        # and the writes that wait to go with the next statement or the COMMIT (execute_later). Each trip to
        # the connection's thread costs a switch of threads both ways: a move made three fewer.
        self._writing = self._begin = False
        self._later: list[tuple[str, tuple, Exception | None]] = []

    @classmethod
    async def open(cls, path: str) -> SqliteDriver:
        """Connect and switch to WAL; a file this process may not write is opened read-only."""
        if os.path.exists(path) and not writable(path):
            return cls(await _open_read_only(path))
        db = await _connect(path)
        await db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        await db.execute("PRAGMA journal_mode = WAL")
        await db.execute("PRAGMA synchronous = NORMAL")
        await db.execute("PRAGMA foreign_keys = ON")
        return cls(db)

    async def close(self) -> None:
        await self._db.close()

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[aiosqlite.Connection]:
        if _IN_TRANSACTION.get():
            yield self._db
        else:
            async with self._lock:
                yield self._db

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        """One write transaction (BEGIN IMMEDIATE), committed on success, rolled back on any error."""
        async with self._lock:
            self._writing, self._begin, self._later = True, True, []
            token = _IN_TRANSACTION.set(True)
            try:
                yield
            except BaseException:
                self._writing, self._begin, self._later = False, False, []
                await self._rollback()
                raise
            finally:
                _IN_TRANSACTION.reset(token)
            self._writing = False
            if self._begin and not self._later:   # nothing was read or written: nothing to commit
                self._begin = False
                return
            try:
                await self._trip([("COMMIT", (), 0)])
            except BaseException:
                await self._rollback()
                raise

    async def _rollback(self) -> None:
        """Undo the open transaction, if SQLite has not undone (or committed) it already.

        After some errors (a full disk, an I/O error) SQLite rolls the whole transaction back itself;
        a ROLLBACK then fails with "no transaction is active" and would hide the error that matters.
        The look is made in the connection's thread, after whatever is queued there: a statement whose
        wait was cancelled (a stop cancelling a task in its COMMIT) still runs, and may end the
        transaction itself.
        """
        conn = self._db._conn

        def undo() -> None:
            if conn.in_transaction:
                conn.execute("ROLLBACK")

        await self._db._execute(undo)

    @contextlib.asynccontextmanager
    async def snapshot(self) -> AsyncIterator[None]:
        """A read transaction: every read inside sees the database as of one moment."""
        async with self._lock:
            await self._db.execute("BEGIN")
            token = _IN_TRANSACTION.set(True)
            try:
                yield
            finally:
                _IN_TRANSACTION.reset(token)
                await self._db.execute("COMMIT")

    async def fetchone(self, sql: str, params: tuple = ()) -> tuple | None:
        rows = await self._run(sql, params, fetch=1)
        return rows[0] if rows else None

    async def fetchall(self, sql: str, params: tuple = ()) -> list[tuple]:
        return await self._run(sql, params, fetch=-1)

    async def execute(self, sql: str, params: tuple = ()) -> int:
        """Run one statement; the number of rows it changed."""
        return await self._run(sql, params, fetch=0)

    async def execute_later(self, sql: str, params: tuple = (), conflict: Exception | None = None) -> None:
        """Run a write whose row count nobody reads; inside a transaction it goes with the next statement or
        the COMMIT (in order: nothing reads past it). With `conflict`, the write must change one row, else
        `conflict` is raised (then, or by the statement or COMMIT it goes with: the transaction is undone)."""
        if _IN_TRANSACTION.get() and self._writing:
            self._later.append((sql, params, conflict))
            return
        if await self.execute(sql, params) != 1 and conflict is not None:
            raise conflict

    async def fetchall_together(self, queries: list[tuple[str, tuple]]) -> list[list[tuple]]:
        """Each query's rows, all read in one trip to the connection's thread."""
        if _IN_TRANSACTION.get():
            return await self._trip([(sql, params, -1) for sql, params in queries], every=True)
        async with self._lock:
            return await self._trip([(sql, params, -1) for sql, params in queries], every=True)

    async def _trip(self, steps: list[tuple[str, tuple, int]], every: bool = False) -> Any:
        """Run the waiting writes (and the BEGIN not sent yet), then `steps`, in one trip to the connection's
        thread; the last step's rows (`fetch` 1: the first, -1: all) or row count (0). Duplicate on a unique key;
        StoreBusy when the BEGIN or the COMMIT found the database locked."""
        begin, later = self._begin, self._later
        self._begin, self._later = False, []
        conn = self._db._conn

        def run() -> Any:
            if begin:
                conn.execute("BEGIN IMMEDIATE")
            for sql, params, conflict in later:
                if conn.execute(sql, params).rowcount != 1 and conflict is not None:
                    raise conflict
            results: list = []
            for sql, params, fetch in steps:
                cursor = conn.execute(sql, params)
                results.append(cursor.rowcount if fetch == 0 else cursor.fetchall())
                cursor.close()
            return results

        try:
            results = await self._db._execute(run)   # aiosqlite's own door to its thread: one trip for all
        except sqlite3.IntegrityError as exc:
            if "UNIQUE" in str(exc) or "PRIMARY KEY" in str(exc):
                raise Duplicate(str(exc)) from None
            raise
        except sqlite3.OperationalError as exc:
            if _is_locked(exc) and (begin or steps and steps[-1][0] == "COMMIT"):
                raise StoreBusy() from exc
            raise
        if every:
            return [[tuple(row) for row in rows] for rows in results]
        if not steps or steps[-1][2] == 0:
            return results[-1] if results else None
        return [tuple(row) for row in (results[-1][:1] if steps[-1][2] == 1 else results[-1])]

    async def _run(self, sql: str, params: tuple, fetch: int) -> Any:
        """Execute; rows (`fetch` 1: the first, -1: all) or the row count (0). Duplicate on a unique key."""
        if _IN_TRANSACTION.get() and (self._begin or self._later):
            return await self._trip([(sql, params, fetch)])
        async with self._connection() as db:
            try:
                # One hop to the connection's thread per statement (a cursor used as a context
                # manager costs three: execute, fetch, close).
                if fetch == 0:
                    return (await db.execute(sql, params)).rowcount
                rows = list(await db.execute_fetchall(sql, params))
                return [tuple(row) for row in (rows[:1] if fetch == 1 else rows)]
            except sqlite3.IntegrityError as exc:
                if "UNIQUE" in str(exc) or "PRIMARY KEY" in str(exc):
                    raise Duplicate(str(exc)) from None
                raise

    async def executemany(self, sql: str, rows: list[tuple]) -> None:
        """Run one statement for each row, in one hop to the connection's thread."""
        if not rows:
            return
        if _IN_TRANSACTION.get() and (self._begin or self._later):
            self._later += [(sql, row, None) for row in rows]
            await self._trip([])
            return
        async with self._connection() as db:
            try:
                await db.executemany(sql, rows)
            except sqlite3.IntegrityError as exc:
                if "UNIQUE" in str(exc) or "PRIMARY KEY" in str(exc):
                    raise Duplicate(str(exc)) from None
                raise

    async def lock_channel(self, channel: str) -> None:
        """Nothing to do: BEGIN IMMEDIATE already serialises every writer of the file."""

    async def integrity_problems(self) -> list[str]:
        problems = [row[0] for row in await self.fetchall("PRAGMA integrity_check") if row[0] != "ok"]
        problems += [f"foreign key: {row}" for row in await self.fetchall("PRAGMA foreign_key_check")]
        return problems

    async def backup(self, path: str) -> None:
        """SQLite's online backup into a side file, renamed into place, so `path` is never half written."""
        partial = f"{path}.partial"
        with contextlib.suppress(FileNotFoundError):
            os.remove(partial)
        try:
            target = sqlite3.connect(partial)
            try:
                async with self._lock:
                    await self._db.backup(target)
                target.execute("PRAGMA journal_mode = DELETE")  # one self-contained file, no WAL beside it
            finally:
                target.close()
            os.replace(partial, path)
        except BaseException:
            with contextlib.suppress(OSError):   # no whole copy of the members' data left outside any rotation
                os.remove(partial)
            raise

    async def executescript(self, script: str) -> None:
        for statement in filter(str.strip, script.split(";")):
            await self.execute(statement)

