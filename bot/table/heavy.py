"""Work too long for the event loop (re-running a log, GIFs): on its own worker thread, with a bound.

A verify, undo, replay or import re-runs a whole game log: up to a few seconds of CPU for the
longest games allowed. It runs here, one job at a time, so the event loop keeps answering other
channels; at most MAX_WAITING jobs queue, and any more are refused at once instead of piling up.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from typing import Any

from rules.errors import GameError

MAX_WAITING = 4


class TooBusy(GameError):
    """Too many long jobs are already queued."""

    def __init__(self) -> None:
        super().__init__("I am busy with other long jobs (replays, verifications, imports); "
                         "please try again in a minute.")


class HeavyWork:
    """A single worker thread for long jobs, with a bounded queue."""

    def __init__(self, max_waiting: int = MAX_WAITING):
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="pitboss-heavy")
        self._max_waiting = max_waiting
        self._pending = 0

    async def run(self, job: Callable[..., Any], *args: Any) -> Any:
        """Run `job(*args)` on the worker; TooBusy when the queue is full."""
        if self._pending > self._max_waiting:
            raise TooBusy()
        self._pending += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, job, *args)
        finally:
            self._pending -= 1


HEAVY = HeavyWork()
