"""Protections around the service: a per-user rate limit, and log records with secrets removed."""

from __future__ import annotations

import logging
import time
from typing import Callable, Iterable

RATE_BURST = 30        # commands a person may send at once...
RATE_PER_SECOND = 2.0  # ...and then this many per second, for as long as they like


class RateLimit:
    """A token bucket per user: a burst, then a steady rate. Refuses instead of queueing.

    The service refunds commands that moved the game on, so a player answering their turns as
    fast as they like is never held back; looks, refusals and stale presses are what it counts.
    """

    def __init__(self, burst: int = RATE_BURST, per_second: float = RATE_PER_SECOND,
                 clock: Callable[[], float] = time.monotonic):
        self._burst = burst
        self._rate = per_second
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # user -> (tokens, when counted)

    def wait_needed(self, user: str) -> float:
        """Take one command from `user`'s bucket: 0 when allowed, else the seconds until it would be."""
        now = self._clock()
        tokens, then = self._buckets.get(user, (float(self._burst), now))
        tokens = min(float(self._burst), tokens + (now - then) * self._rate)
        if tokens < 1:
            self._buckets[user] = (tokens, now)
            return (1 - tokens) / self._rate
        self._buckets[user] = (tokens - 1, now)
        if len(self._buckets) > 10_000:  # forget users whose buckets are full again
            self._buckets = {u: b for u, b in self._buckets.items()
                             if b[0] + (now - b[1]) * self._rate < self._burst}
        return 0.0

    def refund(self, user: str) -> None:
        """Give back the command just taken: it moved the game on, which is playing, not flooding."""
        tokens, then = self._buckets.get(user, (float(self._burst), self._clock()))
        self._buckets[user] = (min(float(self._burst), tokens + 1), then)


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


NAME_LIMIT = 32
# Markdown, mention and link syntax: a display name is shown as plain words, never as markup.
_MARKUP = set("@#<>*_~`|\\[](){}:")


def plain_name(name: str, fallback: str = "player") -> str:
    """A display name made safe to show: no control characters, markup or mention syntax, one line,
    at most NAME_LIMIT characters (names reach messages, alt text and pictures)."""
    kept = "".join(" " if ch.isspace() else ch for ch in name if ch.isprintable() or ch.isspace())
    kept = "".join(ch for ch in kept if ch not in _MARKUP)
    kept = " ".join(kept.split())[:NAME_LIMIT].strip()
    return kept or fallback
