"""Protections around the service: a per-user rate limit, and log records with secrets removed."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable

from rules.names import NAME_LIMIT as NAME_LIMIT  # the shell's doors clean names with the rules' function
from rules.names import plain_name as plain_name
from rules.table import COMPUTER_ID_PREFIX as COMPUTER_ID_PREFIX  # the table's, for the doors

FORGOTTEN_PREFIX = "forgotten-"   # a forgotten member's id in the logs (bot.table.trust.renaming.pseudonym)

RATE_BURST = 30        # commands a person may send at once...
RATE_PER_SECOND = 2.0  # ...and then this many per second, for as long as they like
# Commands that post a new table (or end one): a few at once, then one a minute.
TABLE_BURST = 5
TABLE_PER_SECOND = 1 / 60


class RateLimit:
    """Token buckets per user: a burst, then a steady rate. Refuses instead of queueing.

    The "play" budget counts every command; the service refunds those that moved a running game on,
    so a player answering their turns as fast as they like is never held back. The "table" budget
    counts commands that create, end, import or fill a table; they are never refunded.
    """

    def __init__(self, burst: int = RATE_BURST, per_second: float = RATE_PER_SECOND,
                 clock: Callable[[], float] = time.monotonic, table_burst: int = TABLE_BURST,
                 table_per_second: float = TABLE_PER_SECOND):
        self._limits = {"play": (float(burst), per_second), "table": (float(table_burst), table_per_second)}
        self._clock = clock
        self._buckets: dict[tuple[str, str], tuple[float, float]] = {}  # (user, budget) -> (tokens, when)

    def wait_needed(self, user: str, budget: str = "play") -> float:
        """Take one command from `user`'s bucket: 0 when allowed, else the seconds until it would be."""
        burst, rate = self._limits[budget]
        now = self._clock()
        tokens, then = self._buckets.get((user, budget), (burst, now))
        tokens = min(burst, tokens + (now - then) * rate)
        if tokens < 1:
            self._buckets[(user, budget)] = (tokens, now)
            return (1 - tokens) / rate
        self._buckets[(user, budget)] = (tokens - 1, now)
        if len(self._buckets) > 10_000:  # forget users whose buckets are full again
            self._buckets = {key: b for key, b in self._buckets.items()
                             if b[0] + (now - b[1]) * self._limits[key[1]][1] < self._limits[key[1]][0]}
        return 0.0

    def forget(self, user: str) -> None:
        """Drop every count kept for `user` (a member forgotten: /me forget, `pitboss forget`)."""
        self._buckets = {key: bucket for key, bucket in self._buckets.items() if key[0] != user}

    def refund(self, user: str) -> None:
        """Give back the play command just taken: it moved the game on, which is playing, not flooding."""
        burst, _rate = self._limits["play"]
        tokens, then = self._buckets.get((user, "play"), (burst, self._clock()))
        self._buckets[(user, "play")] = (min(burst, tokens + 1), then)


class Redactor(logging.Filter):
    """Replaces secrets (the bot token) in every record a handler writes: message, arguments, traceback."""

    def __init__(self, secrets: Iterable[str]):
        super().__init__()
        self._secrets = [s for s in secrets if s and len(s) >= 8]

    def _clean(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "[redacted]")
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if self._secrets:
            record.msg, record.args = self._clean(record.getMessage()), None
            if record.exc_info and not record.exc_text:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
            if record.exc_text:
                record.exc_text = self._clean(record.exc_text)
        return True


def redacting_handler(*secrets: str, handler: logging.Handler | None = None) -> logging.Handler:
    """`handler` (a stderr stream by default) with every secret removed from what it writes."""
    handler = handler or logging.StreamHandler()
    handler.addFilter(Redactor(secrets))
    return handler


# Player ids: Discord snowflakes, command-line names, computer seats (ai-N).
_ACTOR_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def valid_actor_id(actor_id: str) -> bool:
    """Whether a player id is well formed: letters, digits and . _ -, at most 64, starting with a letter
    or digit (a Discord id, a command-line name, a computer seat's ai-N)."""
    return bool(_ACTOR_ID.fullmatch(actor_id))   # fullmatch: `$` would let a final newline through


_CHANNEL_MENTION = re.compile(r"<#(\d{1,20})>")


def channel_of(typed: str) -> str | None:
    """The channel a typed text names: a mention <#id> (as Discord copies it), an id, or a name (the command
    line's); None when it names none (nothing, or more than one word)."""
    text = typed.strip()
    found = _CHANNEL_MENTION.fullmatch(text)
    channel = found.group(1) if found else text.lstrip("#")
    if not channel or len(channel) > 100 or any(c.isspace() or not c.isprintable() for c in channel):
        return None
    return channel


def is_person_id(actor_id: str) -> bool:
    """Whether an id may be a person's at a live door: well formed, and none of the ids the table makes itself
    (a computer seat's ai-N, a forgotten member's forgotten-…)."""
    return valid_actor_id(actor_id) and not actor_id.startswith((COMPUTER_ID_PREFIX, FORGOTTEN_PREFIX))
