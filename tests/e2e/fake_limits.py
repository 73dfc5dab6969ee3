"""Discord's rate limits for the fake Discord: per-route buckets, the global limit, and their 429s.

As Discord does (discord.com/developers/docs/topics/rate-limits):

- every answer carries its route bucket's `X-RateLimit-Limit`, `-Remaining`, `-Reset`, `-Reset-After`
  and `-Bucket`; a request to an exhausted bucket is answered 429 with `retry_after` and
  `X-RateLimit-Scope: user`;
- a bot may make GLOBAL_LIMIT requests a second across all routes but the interaction routes (the
  callback and the interaction's webhook); one more is answered 429 `{"global": true, "retry_after"}`
  with `X-RateLimit-Global: true` and `X-RateLimit-Scope: global`;
- every 429 carries `Via` (discord.py takes a 429 without it for a Cloudflare ban).

Every request is counted by its route kind, and every 429 by its scope, for the tests; `Spent` tells a
run of requests per move by kind (the route, the credential it carried, global-bound or not).
"""

from __future__ import annotations

import collections
import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

GLOBAL_LIMIT = 50          # requests a second, outside the interaction routes
GLOBAL_WINDOW = 1.0
ROUTE_LIMIT = 5            # requests to one route bucket (a route and its channel, webhook or interaction)
ROUTE_WINDOW = 1.0         # ... per this many seconds (Discord's vary by route; bots read them from headers)
INTERACTION_KINDS = frozenset({"callback", "followup", "get_original", "edit_original", "delete_original",
                               "get_followup", "edit_followup", "delete_followup"})
VIA = "1.1 google"


def is_global_bound(kind: str) -> bool:
    """Whether a request of this route kind counts toward the global limit."""
    return kind not in INTERACTION_KINDS


def credential(record: Any) -> str:
    """Whose credential a request (an HttpRecord) carried: the bot's token in its Authorization header, or
    an interaction's token in its path (a callback, or the interaction's webhook)."""
    if str(record.headers.get("Authorization", "")).startswith("Bot "):
        return "bot token"
    return "interaction callback" if record.kind == "callback" else "interaction webhook"


@dataclass(frozen=True)
class Spent:
    """Requests a move made, on average over `moves`: by route kind, by credential, global-bound or not,
    and how many Discord refused (a dead token's 401, say)."""

    moves: int
    by_kind: dict[str, float]
    by_credential: dict[str, float]
    global_bound: float
    refused: float

    @classmethod
    def of(cls, records: Iterable[Any], moves: int) -> Spent:
        records = list(records)

        def each(counter: collections.Counter[str]) -> dict[str, float]:
            return {key: round(count / moves, 2) for key, count in sorted(counter.items())}

        return cls(moves, each(collections.Counter(r.kind for r in records)),
                   each(collections.Counter(credential(r) for r in records)),
                   round(sum(is_global_bound(r.kind) for r in records) / moves, 2),
                   round(sum(r.status >= 400 for r in records) / moves, 2))

    def __str__(self) -> str:
        return (f"{self.global_bound} global-bound a move over {self.moves} moves; by credential "
                f"{self.by_credential}; by route {self.by_kind}; refused {self.refused}")


@dataclass
class Bucket:
    remaining: int
    resets_at: float


@dataclass(frozen=True)
class Limited:
    """A request refused with 429: its body and headers."""

    body: dict
    headers: dict[str, str]


class RateLimits:
    """The fake's rate limiter; `admit` is called once for each request, on the fake's loop."""

    def __init__(self, global_limit: int = GLOBAL_LIMIT, route_limit: int = ROUTE_LIMIT,
                 route_window: float = ROUTE_WINDOW, clock: Callable[[], float] = time.monotonic):
        self.global_limit = global_limit
        self.route_limit = route_limit
        self.route_window = route_window
        self.clock = clock
        self.counts: collections.Counter[str] = collections.Counter()   # route kind -> requests
        self.limited: collections.Counter[str] = collections.Counter()  # scope (global, user) -> 429s
        self._global: collections.deque[float] = collections.deque()
        self._buckets: dict[tuple[str, str], Bucket] = {}

    def admit(self, kind: str, major: str) -> tuple[dict[str, str], Limited | None]:
        """Count a request of route `kind` on `major` (its channel, webhook or interaction) and decide:
        the headers of its answer, and a 429 when it is over a limit (then nothing else happens)."""
        now = self.clock()
        self.counts[kind] += 1
        if is_global_bound(kind):
            while self._global and self._global[0] + GLOBAL_WINDOW <= now:
                self._global.popleft()
            if len(self._global) >= self.global_limit:
                retry = round(self._global[0] + GLOBAL_WINDOW - now, 3)
                self.limited["global"] += 1
                return {}, Limited({"message": "You are being rate limited.", "retry_after": retry, "global": True},
                                   {"X-RateLimit-Global": "true", "X-RateLimit-Scope": "global",
                                    "Retry-After": str(max(1, round(retry))), "Via": VIA})
            self._global.append(now)
        bucket = self._buckets.get((kind, major))
        if bucket is None or bucket.resets_at <= now:
            bucket = self._buckets[(kind, major)] = Bucket(self.route_limit, now + self.route_window)
        headers = {"X-RateLimit-Limit": str(self.route_limit),
                   "X-RateLimit-Reset": f"{time.time() + bucket.resets_at - now:.3f}",
                   "X-RateLimit-Reset-After": f"{bucket.resets_at - now:.3f}",
                   "X-RateLimit-Bucket": hashlib.sha1(kind.encode()).hexdigest()[:16], "Via": VIA}
        if bucket.remaining <= 0:
            if is_global_bound(kind):
                self._global.pop()   # refused: it spent nothing of the global limit
            self.limited["user"] += 1
            retry = round(bucket.resets_at - now, 3)
            return headers, Limited({"message": "You are being rate limited.", "retry_after": retry,
                                     "global": False},
                                    {**headers, "X-RateLimit-Remaining": "0", "X-RateLimit-Scope": "user",
                                     "Retry-After": str(max(1, round(retry)))})
        bucket.remaining -= 1
        return {**headers, "X-RateLimit-Remaining": str(bucket.remaining)}, None
