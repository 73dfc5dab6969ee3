"""Where the table pictures are drawn: on threads, or on warmed worker processes for a busy bot.

Drawing a picture is mostly Python and Pillow calls that hold the GIL, so with many channels moving at
once the render threads take turns on one core (issue 16 measured 1.4 of 2 cores busy). A long-running
bot (`pitboss run`, the bench) therefore draws in worker processes (bot.table.jobs.workers) when it is
busy: every game's fonts, palettes and sprites are made once in each. The public view and the last
events travel to the worker pickled, the PNG comes back as bytes.

Render processes are forked warm from a zygote that warmed the drawing once (bot.table.jobs.zygote;
$PITBOSS_RENDER_ZYGOTE=0 spawns each to warm itself), sharing its pages: 45 MB each warm, where one
warmed alone is 60 MB (proportional set size). Still, by default none runs at start
(issue 28): the bot draws on its own thread, at once, and starts a process only when pictures overlap
(more at once than its processes and its own thread can draw), one at a time, up to one per CPU it may
use (bot.table.jobs.cpus). An idle bot with a game thus stays one process; a busy one grows.
$PITBOSS_RENDER_PROCESSES=N instead starts N at once (0: threads only). Until a process is warm, its
pictures are drawn here: the first command after a start never waits for a warm-up, and the bot warms
its own drawing on a thread as it starts (`warm_here`: fonts, palettes, sprites, and each game's opening
picture drawn once), so that first picture is drawn warm too (issue 39, item 6). After the workers' idle
time without a picture, what pictures drawn here added to the caches is emptied and the drawing warmed
again (`refresh_drawing`); and while no picture is drawn, a bot that warmed its own drawing draws each
game's opening again every KEEP_WARM_SECONDS, as the host takes back what a lull leaves untouched.

A busy bot gives its memory back once it is quiet (issue 39, item 8): a render process with no picture
for $PITBOSS_WORKER_IDLE_SECONDS (300) is stopped, the pictures then drawn here (warm) until they
overlap again; one whose proportional set size passed $PITBOSS_RENDER_MAX_MB (100) after a picture is
replaced by a fresh one (its private pages and its share of the zygote's: resident size would count the
zygote's pages whole in each); every process returns its free heap to the system in a lull.

One-shot processes (`pitboss exec`, scripts, most tests) keep the threads: starting two interpreters
would cost them more than every picture they draw. Plug-in games, whose renderers are registered at
run time, are drawn on the threads too. When a worker dies, it is replaced and the picture drawn on a
thread, so a move never fails for want of a process.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import gc
import logging
import os
import sys
from collections.abc import Callable
from typing import Any

import images
from bot.table.jobs.cpus import usable_cpus
from bot.table.jobs.workers import NoneWarm, ProcessWorkers, WorkerDied, idle_seconds, setting
from bot.table.jobs.zygote import available as zygote_available
from images.registry import is_built_in
from rules.registry import GAMES

log = logging.getLogger("pitboss.drawing")

ENV = "PITBOSS_RENDER_PROCESSES"
MAX_MB_ENV = "PITBOSS_RENDER_MAX_MB"
MAX_MB = 100.0         # a render process past this proportional set size (MB) after a picture is replaced
LULL_SECONDS = 30.0    # this long without a picture, the bot's own process returns its free heap
# In a lull, a bot that warmed its own drawing draws each game's opening again this often (cached: a few ms of
# CPU, no memory kept). This machine's host takes back what a guest leaves untouched for about 60 s, and the
# first picture after a 240 s lull then took 3.5x a warm one's CPU, with no page fault the guest could see
# (docs/performance.md, issue 39 item 6); kept warm, 1.7-1.9x (keep_warm).
KEEP_WARM_SECONDS = 45.0
ZYGOTE_ENV = "PITBOSS_RENDER_ZYGOTE"   # "0": each render process is spawned and warms itself (no zygote)
# "0": neither the bot nor its render zygote warms the drawing as it starts (a test suite's many bots)
WARM_ENV = "PITBOSS_WARM_START"
# A picture takes 10-100 ms, and a few times that on a busy machine: a render process that has not
# answered in this long hangs. Past it the picture is drawn on a thread (and the process replaced), so
# a channel waits at most this long plus one picture drawn here.
PICTURE_SECONDS = 4.0
# More threads than cores only adds switching (and each page in flight holds ~7 MB).
THREADS = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="pitboss-render")


def process_count() -> tuple[int, int]:
    """(most, at start): how many render processes a long-running bot may run, and how many it starts at
    once. $PITBOSS_RENDER_PROCESSES=N: N from the start (0 draws on threads); unset (or "auto"): none at
    start, growing on demand. Never more than the CPUs the process may run on (its affinity and cgroup
    quota): one CPU gives one render process."""
    most = usable_cpus()
    raw = os.environ.get(ENV, "").strip()
    if raw.isdigit():
        return min(int(raw), most), min(int(raw), most)
    return most, 0


def warm_drawing() -> None:
    """Every built-in game's drawing made ready (fonts, palettes, sprites: each game's `warm`)."""
    images.warm_up(GAMES)


def refresh_drawing() -> None:
    """Every cache of the drawing (each functools cache in the images package, each images.bounded one)
    emptied, then warmed again (warm_settled), and the freed heap returned: what a busy spell of pictures
    drawn here added goes, what the first picture needs stays (issue 39, item 8)."""
    from bot.table.jobs.memory import trim_memory

    for cache in drawing_caches():
        cache.cache_clear()
    warm_settled()
    trim_memory(collect=False)


def drawing_caches() -> list[Any]:
    """Every cache of the drawing: each images.bounded one and each functools cache in the images package
    (each has cache_info and cache_clear)."""
    from images.bounded import CACHES

    found: list[Any] = list(CACHES)
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").split(".")[0] == "images":
            found.extend(value for value in list(vars(module).values())
                         if isinstance(value, functools._lru_cache_wrapper))
    return found


def keep_warm(let_go: bool = True) -> None:
    """Each game's opening drawn again (its pieces cached: read, none made), then, if `let_go`, what a game's
    warm-up lets go for memory let go again (its opening built it again), and the heap freed given back
    (0.6 ms; else 6 MB stay with the process)."""
    from bot.table.jobs import zygote_warm
    from bot.table.jobs.memory import trim_memory

    zygote_warm.draw_openings()
    if let_go:
        warm_drawing()
    trim_memory(collect=False)


def warm_settled() -> None:
    """warm_drawing and each game's opening picture drawn (zygote_warm.draw_openings), then the heap
    collected in full and frozen (bot.table.jobs.memory.settle_memory; what an earlier freeze kept is
    collected again first). Else the full collection due soon after so many new objects walks the whole
    heap (40-100 ms of CPU in a bot after a load) on whichever command comes next: after a lull, the first
    picture (issue 39, item 6). Here it runs on a render thread, in a lull or as the bot starts."""
    from bot.table.jobs.memory import settle_memory
    from bot.table.jobs.zygote_warm import draw_openings

    draw_openings()
    warm_drawing()   # after the openings: what a game's warm lets go for memory (a 13 MB bare board) goes again
    gc.unfreeze()
    settle_memory()


def _warm_first() -> None:
    """This process's first warm-up: each game's opening through the rules' codec (zygote_warm.warm_rules: the
    decoders it builds are kept for the process's life, so a lull need not do it again), then warm_settled."""
    from bot.table.jobs.zygote_warm import warm_rules

    warm_rules()
    warm_settled()


def _warm_worker() -> None:
    """A worker's start: every built-in game's drawing made ready, then its memory settled."""
    from bot.table.jobs.memory import settle_memory

    warm_drawing()
    settle_memory()


def _warm_zygote() -> None:
    """The render zygote's start: every built-in game's drawing made ready, what each draws once for all its
    processes (images.prepare_shared), then a few pictures and close-ups of each drawn,
    so the layers, fonts and word masks every picture of a game uses are built once and shared by every
    render process forked from it (issue 39, item 8)."""
    from bot.table.jobs.zygote_warm import warm_pictures

    if os.environ.get(WARM_ENV, "").strip() == "0":   # a test suite's bots: each picture draws what it needs
        return
    warm_drawing()
    images.prepare_shared(GAMES)
    warm_pictures()


class RenderProcesses:
    """Warmed render processes (bot.table.jobs.workers), `start` of them at once and more while pictures
    overlap, up to `processes`; a picture no warm process can take is drawn on a thread."""

    def __init__(self, processes: int, start: int | None = None, warm: Callable[[], None] | None = None,
                 idle_seconds: float | None = None, max_mb: float | None = None, zygote: bool = False):
        self.processes = processes
        self._workers = ProcessWorkers(processes, warm or (_warm_zygote if zygote else _warm_worker), "pitboss-render",
                                       start=start, idle_seconds=idle_seconds, max_mb=max_mb, zygote=zygote)
        self._drawing = 0   # pictures being drawn now, here or on a process
        self._last_picture = 0.0   # loop time the last picture ended
        self._drawn_here = 0       # pictures drawn on this process's threads since its drawing was refreshed
        self._idle_seconds = idle_seconds
        self._lull: asyncio.Task | None = None
        self._keep_warm = False   # draw the openings again in a lull (warm_here)

    @classmethod
    def configured(cls) -> RenderProcesses | None:
        """The render processes a long-running bot may use (process_count), or None to draw on threads;
        idle and size limits from the environment (workers.IDLE_ENV, MAX_MB_ENV)."""
        most, start = process_count()
        if not most:
            return None
        forked = zygote_available() and os.environ.get(ZYGOTE_ENV, "").strip() != "0"
        return cls(most, start, idle_seconds=idle_seconds(), max_mb=setting(MAX_MB_ENV, MAX_MB), zygote=forked)

    @property
    def retired(self) -> int:
        """How many render processes were stopped so far for idling or for their size."""
        return self._workers.retired

    def warm_here(self) -> asyncio.Future:
        """Warm this process's own drawing on a render thread (it draws until a process is warm, and again
        once idle ones are stopped), and keep it warm through lulls (KEEP_WARM_SECONDS); the loop runs on
        meanwhile."""
        self._keep_warm = True
        self._last_picture = asyncio.get_running_loop().time()   # a lull counts from the start, not from boot
        self._watch_lulls()
        return asyncio.get_running_loop().run_in_executor(THREADS, _warm_first)

    def warm_at_start(self) -> asyncio.Future | None:
        """warm_here, as a bot starts, unless $PITBOSS_WARM_START is "0" (then None)."""
        return None if os.environ.get(WARM_ENV, "").strip() == "0" else self.warm_here()

    def _watch_lulls(self) -> None:
        """Start the task that acts in lulls (_give_back_in_lulls), once."""
        if self._lull is None:
            self._lull = asyncio.ensure_future(self._give_back_in_lulls())

    async def _give_back_in_lulls(self) -> None:
        """Once no picture has been drawn for LULL_SECONDS, return this process's free heap, once per lull;
        while none is drawn, draw each game's opening every KEEP_WARM_SECONDS if this process keeps warm;
        once none has been drawn for the workers' idle time, empty what pictures drawn here added to the
        drawing's caches (refresh_drawing), and stop the resource tracker once no worker runs. All on a
        thread: the loop runs on."""
        from bot.table.jobs.memory import stop_idle_tracker, trim_memory

        loop = asyncio.get_running_loop()
        trimmed, warmed = True, loop.time()
        while True:
            await asyncio.sleep(LULL_SECONDS / 3)
            quiet = 0.0 if self._drawing else loop.time() - self._last_picture
            if quiet >= LULL_SECONDS and not trimmed:
                await loop.run_in_executor(THREADS, trim_memory, False)
            trimmed = quiet >= LULL_SECONDS
            if self._keep_warm and min(quiet, loop.time() - warmed) >= KEEP_WARM_SECONDS:
                # a game drawn here since the last refresh keeps what a warm-up would let go (its board)
                await loop.run_in_executor(THREADS, keep_warm, not self._drawn_here)
                warmed = loop.time()
            if self._idle_seconds is not None and quiet >= self._idle_seconds and self._drawn_here:
                self._drawn_here = 0
                await loop.run_in_executor(THREADS, refresh_drawing)
            if self._idle_seconds is not None and quiet >= self._idle_seconds:
                await loop.run_in_executor(THREADS, stop_idle_tracker)

    @property
    def started(self) -> int:
        """How many render processes run now (warm or warming)."""
        return self._workers.started

    async def warm(self) -> None:
        """Start every render process not started yet, and wait until all are warm (a bench's steady state)."""
        await self._workers.warm(every=True)

    def draw(self, job: Callable[..., Any], *args: Any) -> asyncio.Future:
        """`job(*args)` (images.render or images.render_sheets of a built-in game) on a worker, or on a
        thread when none is warm yet, or none answers within PICTURE_SECONDS (it died, or hangs and is
        replaced). A picture that overlaps more than the processes and one thread can draw starts another.
        Started at once: when a warm process is idle, the job is written to it before this returns
        (workers.call_now), so it draws while the caller goes on to its own work."""
        self._drawing += 1
        try:
            self._watch_lulls()
            if self._drawing > self._workers.started + 1:
                self._grow()
            sent = None
            if self._workers.started:
                with contextlib.suppress(Exception):   # a job that cannot travel: call() raises it below
                    sent = self._workers.call_now(job, *args, deadline=PICTURE_SECONDS)
            drawn = asyncio.ensure_future(self._drawn(job, args, sent))
        except BaseException:
            self._drawing -= 1
            raise
        # counted down when it ends, however it ends: cancelled before it ever ran too
        drawn.add_done_callback(self._one_drawn)
        if sent is not None:   # its outcome is read, and it goes when the picture is no longer wanted
            sent.add_done_callback(lambda done: done.cancelled() or done.exception())
            drawn.add_done_callback(lambda done: done.cancelled() and sent.cancel())
        return drawn

    def _grow(self) -> None:
        """Start one more render process for overlapping pictures; one that cannot start (no memory, no
        process left) is logged, and the pictures go on as they are drawn now."""
        try:
            self._workers.grow()
        except OSError as why:
            log.warning("no more render processes could start (%s); drawing with those there are", why)

    def _one_drawn(self, _drawn: asyncio.Future) -> None:
        self._drawing -= 1
        self._last_picture = asyncio.get_running_loop().time()

    async def _drawn(self, job: Callable[..., Any], args: tuple, sent: asyncio.Future | None) -> Any:
        """The end of draw: the answer of the job `sent` to a worker, else the job on a worker or a thread."""
        if sent is not None or self._workers.started:
            try:
                return await (sent if sent is not None else
                              self._workers.call(job, *args, deadline=PICTURE_SECONDS, only_warm=True))
            except NoneWarm:
                pass   # starting (or starting again): the thread draws meanwhile
            except WorkerDied as why:
                log.warning("no render process drew this picture (%s); drawing it on a thread", why)
        self._drawn_here += 1
        return await asyncio.get_running_loop().run_in_executor(THREADS, job, *args)

    def pids(self) -> list[int]:
        """The render processes' ids."""
        return self._workers.pids()

    @property
    def zygote_pid(self) -> int | None:
        """The id of the zygote the render processes are forked from, while it runs (None without one)."""
        return self._workers.zygote.pid if self._workers.zygote is not None else None

    def close(self) -> None:
        """Stop the workers (pictures in flight are abandoned)."""
        if self._lull is not None:
            self._lull.cancel()
        self._workers.close()


def _done(value: Any) -> asyncio.Future:
    """A future that has `value` already."""
    done: asyncio.Future = asyncio.get_running_loop().create_future()
    done.set_result(value)
    return done


class Drawing:
    """How one service draws its pictures: `render` on the threads, or built-in games' pictures on
    `processes` when it has them and `render` is the standard one."""

    def __init__(self, render: Callable[[str, Any, tuple, tuple], bytes] | None,
                 processes: RenderProcesses | None = None):
        self.render = render
        self.processes = processes if render is images.render else None

    def picture(self, ruleset_id: str, view: Any, last: tuple, turn: tuple) -> asyncio.Future:
        """The channel picture (None when this service draws none), started at once: on its way to a render
        process or a thread before this returns (RenderProcesses.draw)."""
        if self.render is None:
            return _done(None)
        return self._started(images.render, self.render, ruleset_id, view, last, turn)

    def final(self, ruleset_id: str, view: Any, last: tuple, turn: tuple) -> asyncio.Future:
        """A finished game's last picture and final sheets, drawn together (images.render_final), started at
        once as `picture` is; (None, None) when this service draws no pictures."""
        if self.render is None:
            return _done((None, None))
        return self._started(images.render_final, functools.partial(images.render_final, picture_of=self.render),
                             ruleset_id, view, last, turn)

    def _started(self, job: Callable[..., Any], here: Callable[..., Any], ruleset_id: str,
                 *args: Any) -> asyncio.Future:
        """`job(ruleset_id, *args)` on the render processes (a built-in game's, when this service draws with
        images.render), else `here(ruleset_id, *args)` on a thread, started before this returns."""
        if self.processes is not None and is_built_in(ruleset_id):
            return self.processes.draw(job, ruleset_id, *args)
        return asyncio.get_running_loop().run_in_executor(THREADS, here, ruleset_id, *args)

    async def closeup(self, ruleset_id: str, view: Any, last: tuple, turn: tuple, focus: str | None) -> bytes | None:
        """The close-up for a phone (images.render_closeup), centred on `focus`'s vehicle when they have one;
        None when this service draws no pictures."""
        if self.render is None:
            return None
        return await self._draw(images.render_closeup, ruleset_id, view, last, turn, focus)

    async def preview_closeup(self, ruleset_id: str, view: Any, preview: Any, focus: str | None) -> bytes | None:
        """The close-up of a plan's preview (images.render_preview_closeup); None when this service draws
        no pictures."""
        if self.render is None:
            return None
        return await self._draw(images.render_preview_closeup, ruleset_id, view, preview, focus)

    async def _draw(self, job: Callable[..., bytes], ruleset_id: str, *args: Any) -> bytes:
        """`job(ruleset_id, *args)` on the render processes (a built-in game's, when there are some), else
        on a thread."""
        return await self._started(job, job, ruleset_id, *args)

    async def sheets(self, ruleset_id: str, view: Any, which: str = "") -> bytes:
        """The full car sheets (images.render_sheets): ValueError when there are none to draw."""
        return await self._draw(images.render_sheets, ruleset_id, view, which)
