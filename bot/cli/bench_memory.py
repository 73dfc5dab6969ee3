"""The bench's memory figures: proportional set size (PSS) of the bot's process and all its children.

PSS shares each page among the processes that map it, so a sum over processes counts shared libraries
once; where /proc/PID/smaps_rollup is missing (old kernels, other systems) resident size stands in.
Linux's /proc is read directly (no psutil), by bot.table.jobs.memory, whose readings the bot's own workers use.
"""

from __future__ import annotations

import asyncio
import os

from bot.table.jobs.memory import children, pss_mb

__all__ = ["PeakMemory", "children", "pss_mb", "tree_mb"]


def tree_mb(pid: int | None = None, resident: bool = False) -> tuple[float, int]:
    """(MB, processes): the PSS (or, `resident`, the resident size: shared pages counted in every process
    that maps them, an upper bound) summed over `pid` (this process by default) and all its descendants."""
    root = os.getpid() if pid is None else pid
    pids = [root, *children(root)]
    keys = (("status", "VmRSS:"),) if resident else (("smaps_rollup", "Pss:"), ("status", "VmRSS:"))
    return sum(pss_mb(p, keys) for p in pids), len(pids)


class PeakMemory:
    """Samples tree_mb() every `every` seconds while running (async with), keeping the largest sum (and
    the largest resident sum, `peak_resident`)."""

    def __init__(self, every: float = 0.25):
        self.every = every
        self.peak: tuple[float, int] = (0.0, 0)
        self.peak_resident = 0.0
        self._task: asyncio.Task | None = None

    async def _sample(self) -> None:
        while True:
            self.peak = max(self.peak, await asyncio.to_thread(tree_mb))
            self.peak_resident = max(self.peak_resident, (await asyncio.to_thread(tree_mb, None, True))[0])
            await asyncio.sleep(self.every)

    async def __aenter__(self) -> PeakMemory:
        self._task = asyncio.ensure_future(self._sample())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
        self.peak = max(self.peak, tree_mb())
