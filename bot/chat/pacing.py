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
import logging
import math
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

import discord

log = logging.getLogger("pitboss.discord")

DISCORD_GLOBAL_LIMIT = 50   # requests a second, across every server of the bot
GLOBAL_RATE = 45            # ours: a margin for the clocks and for requests discord.py retries
MOST_RATE = 10_000          # PITBOSS_GLOBAL_RATE's bound: a large bot may be granted a higher limit than 50
IN_FLIGHT_POLL = 0.05       # seconds between looks while every place is held by a request in flight


def global_rate(share: float = 1.0) -> int:
    """Requests a second this process allows itself: PITBOSS_GLOBAL_RATE when set, else its `share` of
    GLOBAL_RATE. Discord's limit is one budget for the bot token, so a process running some of the bot's
    shards takes their part of it (shards 0-1 of 4: half), and the processes together stay under it."""
    given = os.environ.get("PITBOSS_GLOBAL_RATE", "").strip()
    if not given:
        return max(1, math.floor(GLOBAL_RATE * share))
    if not given.isdigit() or not 1 <= int(given) <= MOST_RATE:
        raise ValueError(f"PITBOSS_GLOBAL_RATE must be a whole number of requests a second from 1 to "
                         f"{MOST_RATE}, not {given!r}")
    return int(given)


class GlobalPacer:
    """At most `rate` requests arrive in any `window` seconds: a request holds its place from its start
    until `window` after its answer (it arrived somewhere in between), so a stalled loop that sends
    late, or a slow answer, never crowds more than `rate` into one window at Discord."""

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
        self._places: list[list[float]] = []   # each: [when its request was answered]; inf while in flight
        self._lock = asyncio.Lock()

    async def wait(self) -> list[float]:
        """Return, in the order asked, when one more request may start: its place, for `done`."""
        async with self._lock:
            waited = False
            while True:
                now = self.clock()
                self._places = [p for p in self._places if p[0] + self.window > now]
                if len(self._places) < self.rate:
                    break
                waited = True
                earliest = min(p[0] for p in self._places)
                await self.sleep(earliest + self.window - now if earliest < math.inf else IN_FLIGHT_POLL)
            self.waited += waited
            place = [math.inf]
            self._places.append(place)
            return place

    def done(self, place: list[float]) -> None:
        """The request holding `place` was answered: it counts for one more window from now."""
        place[0] = self.clock()


def pace(http: discord.http.HTTPClient, pacer: GlobalPacer) -> None:
    """Make every request of discord.py's HTTPClient `http` wait for `pacer` first."""
    send = http.request

    async def request(route: discord.http.Route, **kwargs: Any) -> Any:
        place = await pacer.wait()
        try:
            return await send(route, **kwargs)
        finally:
            pacer.done(place)

    http.request = request  # type: ignore[method-assign]


class PacedLooks:
    """Looks at one thing a server keeps (its board, its rank roles) no sooner than `seconds` after the last look
    that made a request: touches meanwhile coalesce into one look, at the latest state. `look(guild)` says whether
    it made a request; one that fails is logged (`what`) and counts as one."""

    def __init__(self, seconds: float, look: Callable[[str], Awaitable[bool]], what: str):
        self._seconds, self._look, self._what = seconds, look, what
        self._due: set[str] = set()
        self._last: dict[str, float] = {}
        self._tasks: dict[str, asyncio.Task] = {}

    def touch(self, guild: str) -> None:
        """The server's thing is to be looked at once its pause since the last look is over."""
        self._due.add(guild)
        task = self._tasks.get(guild)
        if task is None or task.done():
            self._tasks[guild] = asyncio.ensure_future(self._keep(guild))

    async def _keep(self, guild: str) -> None:
        while guild in self._due:
            wait = self._last.get(guild, -self._seconds) + self._seconds - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self._due.discard(guild)   # a change from here on is looked at after this look
            try:
                if await self._look(guild):
                    self._last[guild] = time.monotonic()
            except Exception:
                log.exception("could not update %s of server %s", self._what, guild)
                self._last[guild] = time.monotonic()
