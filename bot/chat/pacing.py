"""A global pace for the bot's own REST requests, so that Discord's global rate limit is never met.

Discord allows a bot 50 requests a second across all its servers (interaction callbacks and the
interaction's webhook are exempt), and answers one more with a global 429; discord.py only slows down
after that 429, and every 429 counts toward Discord's temporary ban (10,000 invalid requests in 10
minutes). Every request of discord.py's HTTPClient (channel messages, threads, thread members, the
scheduler's notices) waits here for a place among at most GLOBAL_RATE starts in any second, under the
limit with a margin; the interaction routes (discord.py's webhook adapter) do not pass through it.
"""

from __future__ import annotations

import asyncio
import collections
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

import discord

DISCORD_GLOBAL_LIMIT = 50   # requests a second, across every server of the bot
GLOBAL_RATE = 45            # ours: a margin for the clocks and for requests discord.py retries


def global_rate() -> int:
    """Requests a second the bot allows itself (env PITBOSS_GLOBAL_RATE, default GLOBAL_RATE)."""
    return int(os.environ.get("PITBOSS_GLOBAL_RATE", GLOBAL_RATE))


class GlobalPacer:
    """At most `rate` requests start in any `window` seconds (a sliding log of the last starts)."""

    def __init__(self, rate: int = GLOBAL_RATE, window: float = 1.0, *,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep):
        if rate < 1:
            raise ValueError("a pace needs at least one request a window")
        self.rate = rate
        self.window = window
        self.clock = clock
        self.sleep = sleep
        self.waited = 0          # how many requests had to wait for a place (for the logs and tests)
        self._starts: collections.deque[float] = collections.deque()
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        """Return when one more request may start; requests start in the order they asked."""
        async with self._lock:
            now = self.clock()
            if len(self._starts) >= self.rate and self._starts[0] + self.window > now:
                self.waited += 1
            while True:
                while self._starts and self._starts[0] + self.window <= now:
                    self._starts.popleft()
                if len(self._starts) < self.rate:
                    break
                await self.sleep(self._starts[0] + self.window - now)
                now = self.clock()
            self._starts.append(now)


def pace(http: discord.http.HTTPClient, pacer: GlobalPacer) -> None:
    """Make every request of discord.py's HTTPClient `http` wait for `pacer` first."""
    send = http.request

    async def request(route: discord.http.Route, **kwargs: Any) -> Any:
        await pacer.wait()
        return await send(route, **kwargs)

    http.request = request  # type: ignore[method-assign]
