"""Issue 39, item 8: render processes forked from a warm zygote. They draw the bytes drawn here, start warm
(the warm-up ran once, in their parent), hold little of their own, and an idle pool stops its zygote too;
the next picture that needs a process starts a zygote again and forks it warm."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

import images
from bot.cli.bench_memory import children
from bot.table.jobs import zygote
from bot.table.jobs.drawing import RenderProcesses
from bot.table.jobs.memory import resident_mb
from tests.conftest import process_gone
from tests.render_frames import game_frames
from tests.test_worker_memory import _until

pytestmark = [pytest.mark.slow,   # worker processes
              pytest.mark.skipif(not zygote.available(), reason="a zygote needs Linux's fork and pidfd")]

WARMED_IN = 0   # the process the warm-up below ran in


def _mark_warm() -> None:
    """A warm-up that notes where it ran (the drawing itself warms lazily: these tests are about processes)."""
    global WARMED_IN
    WARMED_IN = os.getpid()


SHARED: bytes = b""   # what the warm-up below leaves in the zygote, shared with every process it forks


def _warm_with_a_shared_block() -> None:
    """A warm-up that leaves 64 MB of written pages in the zygote (its children share them until written)."""
    global SHARED
    _mark_warm()
    SHARED = b"\x01" * (64 << 20)


def _where() -> tuple[int, int, int]:
    """Run in a render process: its id, its parent's, and where its warm-up ran."""
    return os.getpid(), os.getppid(), WARMED_IN


def _private_mb() -> float:
    """Run in a render process: the memory only it maps (private pages, clean and dirty), in MB."""
    total = 0
    with open("/proc/self/smaps_rollup") as rollup:
        for line in rollup:
            if line.startswith(("Private_Clean:", "Private_Dirty:")):
                total += int(line.split()[1])
    return total / 1024


@pytest.fixture(scope="module")
def frames():
    return game_frames(every=40)


async def test_forked_render_processes_start_warm_and_draw_the_bytes_drawn_here(frames):
    pool = RenderProcesses(2, start=2, warm=_mark_warm, zygote=True)
    try:
        await pool.warm()
        parent = pool._workers.zygote.pid
        seen = set(await asyncio.gather(*(pool._workers.call(_where, deadline=30) for _ in range(2))))
        # each is a child of the zygote, whose warm-up it inherited: none ran its own
        assert {pid for pid, _, _ in seen} == set(pool.pids()) and len(pool.pids()) == 2
        assert {(ppid, warmed) for _, ppid, warmed in seen} == {(parent, parent)}
        for ruleset, view, last in frames:
            assert await pool.draw(images.render, ruleset, view, last, ()) == images.render(ruleset, view, last, ())
    finally:
        pool.close()


async def test_an_idle_pool_stops_its_zygote_and_the_next_process_is_forked_warm_again(frames):
    ruleset, view, last = frames[0]
    pool = RenderProcesses(1, start=1, warm=_mark_warm, idle_seconds=0.3, zygote=True)
    try:
        await pool.warm()
        first_zygote, (first,) = pool._workers.zygote.pid, pool.pids()
        assert await _until(lambda: pool.started == 0 and process_gone(first) and process_gone(first_zygote))
        assert not children(os.getpid()) or all(process_gone(pid) or pid not in (first, first_zygote)
                                                for pid in children(os.getpid()))
        assert await pool.draw(images.render, ruleset, view, last, ()) == images.render(ruleset, view, last, ())
        await asyncio.gather(*(pool.draw(images.render, ruleset, view, last, ()) for _ in range(3)))
        await pool.warm()   # overlapping pictures started one again: from a new zygote, warm
        pid, ppid, warmed = await pool._workers.call(_where, deadline=30)
        assert ppid == warmed == pool._workers.zygote.pid != first_zygote
        assert pool._workers.zygote.starts == 2
    finally:
        pool.close()


async def test_a_render_process_past_its_size_is_replaced_by_a_fork_of_the_same_zygote(frames):
    ruleset, view, last = frames[0]
    pool = RenderProcesses(1, start=1, warm=_mark_warm, max_mb=1.0, zygote=True)   # every process is past 1 MB
    try:
        await pool.warm()
        parent, (first,) = pool._workers.zygote.pid, pool.pids()
        assert await pool.draw(images.render, ruleset, view, last, ()) == images.render(ruleset, view, last, ())
        assert await _until(lambda: process_gone(first) and len(pool.pids()) == 1 and pool.pids() != [first])
        await pool.warm()
        assert (await pool._workers.call(_where, deadline=30))[1:] == (parent, parent)
        assert pool._workers.zygote.starts == 1
    finally:
        pool.close()


async def test_a_render_process_is_bounded_by_its_share_of_the_zygotes_pages_not_by_their_whole(frames):
    """The size bound counts a forked process's proportional set size (its share of the pages it shares with
    its zygote), as it measures itself: a process that maps the zygote's 64 MB block whole is not replaced
    for it under a bound between that share and the whole."""
    ruleset, view, last = frames[0]
    pool = RenderProcesses(1, start=1, warm=_warm_with_a_shared_block, zygote=True)
    try:
        await pool.warm()
        (pid,) = pool.pids()
        (worker,) = pool._workers._workers
        resident = resident_mb(pid)
        assert resident - worker.size > 20   # the block is counted whole in its resident size, halved in its PSS
        pool._workers.max_mb = (resident + worker.size) / 2
        assert await pool.draw(images.render, ruleset, view, last, ()) == images.render(ruleset, view, last, ())
        assert pool.pids() == [pid] and pool.retired == 0
    finally:
        pool.close()


async def test_a_killed_zygote_is_started_again_by_the_next_process(frames):
    pool = RenderProcesses(2, start=1, warm=_mark_warm, zygote=True)
    try:
        await pool._workers.warm()   # the one process started
        os.kill(pool._workers.zygote.pid, signal.SIGKILL)
        assert await _until(lambda: pool._workers.zygote.pid is None)   # gone (its child runs on, orphaned)
        await pool.warm()   # every process the pool may run: the second forked by a new zygote
        seen = await asyncio.gather(*(pool._workers.call(_where, deadline=30) for _ in range(2)))
        assert pool._workers.zygote.starts == 2
        assert (pool._workers.zygote.pid,) * 2 in {(ppid, warmed) for _, ppid, warmed in seen}
    finally:
        pool.close()


async def test_a_forked_render_process_holds_a_small_share_of_the_warm_drawing():
    """The production warm-up (the drawing and a few pictures of every game) runs in the zygote; a child that
    has drawn nothing maps little of its own, where a spawned render process holds all of its warm drawing
    by itself (60 MB and more)."""
    pool = RenderProcesses(1, start=1, zygote=True)
    try:
        await pool.warm()
        assert await pool._workers.call(_private_mb, deadline=30) < 25
        assert os.listdir(f"/proc/{pool.zygote_pid}/task") == [str(pool.zygote_pid)]   # it forks with one thread
    finally:
        pool.close()


def _hang() -> None:
    """A warm-up that never ends (a zygote wedged before it forks anything)."""
    import time

    time.sleep(3600)


async def test_a_zygote_that_forks_nothing_in_time_is_replaced():
    from bot.table.jobs.workers import NoneWarm, ProcessWorkers

    pool = ProcessWorkers(1, _hang, "test-render", warm_seconds=0.5, start=1, zygote=True)
    try:
        with pytest.raises(NoneWarm):   # its one process waits for the zygote's warm-up
            await pool.call(os.getpid, deadline=1.0, only_warm=True)
        assert pool.zygote is not None
        first = pool.zygote.pid
        assert await _until(lambda: pool.zygote.starts >= 2)   # the start failed: the zygote was replaced
        assert await _until(lambda: process_gone(first))   # and the wedged one ended (killed)
    finally:
        pool.close()
