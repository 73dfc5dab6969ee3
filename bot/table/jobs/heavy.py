"""Work too long for the event loop (re-running a log, GIFs, imports, exports), with a bound.

A verify, undo, replay, import or export handles a whole game log: up to a few seconds of CPU for the
longest games allowed. It runs here, one job at a time, so the event loop keeps answering other
channels; at most MAX_WAITING jobs queue, and any more are refused at once instead of piling up.

The jobs (bot.table.jobs.heavy_jobs) take and return plain data, so they run on a worker thread or in a
worker process alike. A thread still shares the GIL with the loop, and some steps hold it for tens
of milliseconds at a time (json of a whole log, a GIF's frames): issue 16 measured 40-75 ms stalls.
A long-running bot therefore runs them in one warmed worker process (`HeavyWork(process=True)`),
started by the first long job, where nothing they do can hold the loop; one-shot commands keep the
thread, which starts for free.
In the process each job has a deadline grown with the log it handles: one that hangs past it is
refused, its worker replaced, and the channel that asked is free again.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
from collections.abc import Callable
from typing import Any

from bot.table.jobs.kept import KeptAnswers, digest
from bot.table.jobs.workers import NoWorkerFree, ProcessWorkers, WorkerDied, WorkerHung, idle_seconds
from rules.errors import GameError

MAX_WAITING = 4
WORKER_NICENESS = 10   # added to the worker process's nice value: the bot's own process goes first
# A long job's deadline, in a worker process: a base, and a share per action (or game) it handles. The
# heaviest allowed (the GIF of a 10,000-action log, ~2.2 s of a free core) took 35 s and more with
# two busy processes a core, the worker being at nice +10; a worker that gives no answer by its
# deadline hangs, and is killed and replaced.
LONG_JOB_SECONDS = 5.0
LONG_JOB_SECONDS_PER_ITEM = 0.01
LONG_JOB_SECONDS_MOST = 180.0
# A long job waits this long at most for the worker to be free (behind at most MAX_WAITING others, each
# watched by its own deadline); its deadline counts from when the worker takes it.
LINE_SECONDS = LONG_JOB_SECONDS_MOST


def long_job_deadline(items: int) -> float:
    """How long a long job over `items` actions (or games) may take before its worker counts as hung."""
    return min(LONG_JOB_SECONDS_MOST, LONG_JOB_SECONDS + items * LONG_JOB_SECONDS_PER_ITEM)


class TooBusy(GameError):
    """Too many long jobs are already queued."""

    def __init__(self, message: str = "") -> None:
        super().__init__(message or "I am busy with other long jobs (replays, verifications, imports); "
                                    "please try again in a minute.")


def _warm_worker() -> None:
    """A worker process's start: a lower CPU priority, the games (plug-ins too) and the jobs loaded,
    memory settled. On a machine of two cores the job's process would otherwise take CPU time from
    the bot's own process as often as not, and the loop would wake late though no GIL is shared. The
    priority comes first: the imports after it are most of a start's 0.4 s of CPU, which a game's end
    pays (the first long job after a lull starts the process) while the next moves draw their pictures."""
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    import bot.table.jobs.heavy_jobs  # noqa: F401 - imported now rather than in the first job
    from bot.table.jobs.memory import settle_memory
    from bot.table.plugins import load_plugins
    from rules.registry import rulesets

    load_plugins()
    rulesets()   # every game's rules imported now: a job's deadline counts its own work, not imports
    settle_memory()


class HeavyWork:
    """One worker (a thread, or a process) for long jobs, with a bounded queue."""

    def __init__(self, max_waiting: int = MAX_WAITING, process: bool = False):
        self._max_waiting = max_waiting
        self._pending = 0
        self.process = process
        self._thread = None if process else concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="pitboss-heavy")
        # started by the first long job (whose wait for it counts against no deadline): an idle bot
        # keeps no process it does not use
        self._worker = ProcessWorkers(1, _warm_worker, "pitboss-heavy", start=0,
                                      idle_seconds=idle_seconds()) if process else None
        self.kept = KeptAnswers()

    async def warm(self) -> None:
        """Start the worker process and wait until it has warmed up (nothing to do for a thread)."""
        if self._worker is not None:
            await self._worker.warm(every=True)

    def pids(self) -> list[int]:
        """The worker process's id, when it runs."""
        return self._worker.pids() if self._worker is not None else []

    async def run(self, job: Callable[..., Any], *args: Any, items: int = 0, keep: bool = False) -> Any:
        """Run `job(*args)` on the worker, a job over `items` actions (or games); TooBusy at once when
        one job runs and MAX_WAITING wait. In a process, the job waits in line for the worker (LINE_SECONDS
        at most, then TooBusy), and has long_job_deadline(items) from when the worker takes it: a worker
        that died (killed, out of memory) or hangs past it is replaced, and the job refused with TooBusy:
        nothing was changed. `keep`: the job is a pure function of its arguments, and its answer is kept
        for the same arguments (bot.table.jobs.kept)."""
        if keep:
            return await self.kept.get(digest(job, args), lambda: self.run(job, *args, items=items))
        if self._pending > self._max_waiting:
            raise TooBusy()
        self._pending += 1
        try:
            if self._worker is None:
                return await asyncio.get_running_loop().run_in_executor(self._thread, job, *args)
            return await self._worker.call(job, *args, deadline=long_job_deadline(items), line=LINE_SECONDS)
        except NoWorkerFree:
            raise TooBusy() from None
        except WorkerHung:
            raise TooBusy("That job did not finish in time on my side; nothing was changed. "
                          "Please try again in a minute.") from None
        except WorkerDied:
            raise TooBusy("That job stopped half-way on my side; nothing was changed. Please try again.") from None
        finally:
            self._pending -= 1

    def close(self) -> None:
        """Stop the worker (a job in flight is abandoned)."""
        if self._worker is not None:
            self._worker.close()
        if self._thread is not None:
            self._thread.shutdown(wait=False, cancel_futures=True)


HEAVY = HeavyWork()
