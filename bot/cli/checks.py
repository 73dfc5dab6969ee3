"""Checks around `pitboss run`: may it write its database folder (before start), is it healthy (after)."""

from __future__ import annotations

import asyncio
import os
import sys

from bot.heartbeat import HEARTBEAT_ENV, heartbeat_path, heartbeat_problem
from bot.storage.store import Store, is_postgres
from bot.storage.target import masked

DATABASE_SECONDS = 10.0  # how long `pitboss health` waits for the database to answer


def who() -> str:
    """This process's user and group ids, as `chown` takes them."""
    return f"{os.getuid()}:{os.getgid()}"


def unwritable_database(target: str) -> str | None:
    """Why `pitboss run` could not write a SQLite database at `target` (None: it can, or it is PostgreSQL).

    SQLite writes the file and its -wal and -shm files beside it, so the folder must be writable too. A
    bind mount (`docker run -v ./data:/data`) keeps the host folder's owner: the message names the user
    id that needs it."""
    if is_postgres(target):
        return None
    from bot.storage.sqlite import writable

    folder = os.path.dirname(os.path.abspath(target))
    fix = f"give it to user {who()} (this process), e.g. on the host of a bind mount: chown -R {who()} <that folder>"
    if not os.path.isdir(folder):
        return f"the database's folder {folder} does not exist: create it and {fix}"
    if os.path.exists(target):
        if writable(target):
            return None
        return (f"{target} is read-only here for user {who()}; the bot must write its games (verify, backup and "
                f"/game status through exec can read it as it is): {fix}")
    if os.access(folder, os.W_OK | os.X_OK):
        return None
    return f"user {who()} cannot write the folder {folder}, where the bot keeps its database: {fix}"


async def _database_problem(target: str) -> str | None:
    """Why the database cannot be read now (None: it answers); a SQLite file that is missing is a problem,
    never created here."""
    if not is_postgres(target) and not os.path.exists(target):
        return f"no database at {target}"
    try:
        store = await asyncio.wait_for(Store.open(target), DATABASE_SECONDS)
    except Exception as exc:  # unreachable, refused, timed out: all unhealthy
        return f"the database {masked(target)} cannot be opened: {type(exc).__name__}: {exc}"
    try:
        await asyncio.wait_for(store.schema_version(), DATABASE_SECONDS)
    except Exception as exc:
        return f"the database {masked(target)} does not answer: {type(exc).__name__}: {exc}"
    finally:
        await store.close()
    return None


def health(target: str) -> int:
    """`pitboss health`: 0 when the running bot is connected to Discord (its heartbeat is fresh and says
    so) and its database answers; else 1 with the reason on stderr (Docker's HEALTHCHECK reads 1 as
    unhealthy)."""
    path = heartbeat_path()
    if path is None:
        print(f"unhealthy: set {HEARTBEAT_ENV} to the file `pitboss run` writes its heartbeat to", file=sys.stderr)
        return 1
    problem = heartbeat_problem(path) or asyncio.run(_database_problem(target))
    if problem is not None:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    print(f"healthy: connected to Discord; database {masked(target)} answers")
    return 0
