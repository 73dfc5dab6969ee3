"""How `pitboss run` logs: plain lines unless standard error is a terminal, no secret in any line, a
first line naming the release and the database, and a lost connection to Discord in one line a retry."""

from __future__ import annotations

import logging
import sys
from typing import TextIO

import discord

from bot.storage.store import is_postgres
from bot.storage.target import masked, split_password
from bot.table.trust.guards import redacting_handler
from bot.version import VERSION

PLAIN = logging.Formatter("[{asctime}] [{levelname:<8}] {name}: {message}", "%Y-%m-%d %H:%M:%S", style="{")
# discord.py's own lines for a gateway it cannot reach, logged with a traceback on every retry
_RETRYING = ("Attempting a reconnect",)


class RetryInOneLine(logging.Filter):
    """A reconnect attempt (discord.py logs each with its traceback) as one line naming what failed."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and str(record.msg).startswith(_RETRYING):
            error = record.exc_info[1]
            record.msg = f"{record.msg} ({type(error).__name__}: {error})"
            record.exc_info = record.exc_text = None
        return True


def set_up(token: str, db_target: str, stream: TextIO | None = None) -> None:
    """Log to `stream` (standard error) at INFO, the token and the database password redacted; in colour
    only on a terminal (discord.py would colour any stream inside Docker, and `docker logs` is none)."""
    stream = stream or sys.stderr
    _url, db_password = split_password(db_target)
    handler = redacting_handler(token, db_password or "", handler=logging.StreamHandler(stream))
    handler.addFilter(RetryInOneLine())
    colour = hasattr(stream, "isatty") and stream.isatty()
    discord.utils.setup_logging(handler=handler, formatter=discord.utils.MISSING if colour else PLAIN,
                                level=logging.INFO, root=True)


def start_line(db_target: str) -> str:
    """The first line a start logs: the release and where its games are kept (never the password)."""
    kind = "PostgreSQL" if is_postgres(db_target) else "SQLite"
    return f"Pitboss {VERSION} starting: {kind} database {masked(db_target)}"
