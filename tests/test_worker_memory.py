"""Issue 39, item 8: worker processes give their memory back. An idle one is stopped (and a job that then
finds none starts another), one past its size bound is replaced, the bot's own drawing is refreshed once
pictures stop, and the pictures stay right."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import images
from bot.table.jobs import drawing
from bot.table.jobs.drawing import RenderProcesses, refresh_drawing
from bot.table.jobs.memory import trim_memory
from bot.table.jobs.workers import ProcessWorkers
from tests.conftest import process_gone
from tests.render_frames import game_frames

pytestmark = pytest.mark.slow  # worker processes


def _no_warm() -> None:
    """A warm-up that makes nothing ready: these tests are about the processes, not the drawing."""


async def _until(condition, within: float = 20.0) -> bool:
    """Wait (polling) until `condition()` holds; whether it did within `within` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + within
    while not condition() and loop.time() < end:
        await asyncio.sleep(0.05)
    return bool(condition())


@pytest.fixture(scope="module")
def frame():
    return game_frames(every=50)[3]


async def test_an_idle_render_process_is_stopped_and_pictures_are_drawn_after(frame):
    ruleset, view, last = frame
    expected = images.render(ruleset, view, last, ())
    pool = RenderProcesses(1, start=1, warm=_no_warm, idle_seconds=0.2)
    try:
        await pool.warm()
        (pid,) = pool.pids()
        assert await pool.draw(images.render, ruleset, view, last, ()) == expected
        assert await _until(lambda: pool.started == 0 and process_gone(pid))
        assert pool.retired == 1
        assert await pool.draw(images.render, ruleset, view, last, ()) == expected   # drawn here meanwhile
        await asyncio.gather(*(pool.draw(images.render, ruleset, view, last, ()) for _ in range(3)))
        assert pool.started == 1   # overlapping pictures start one again
    finally:
        pool.close()


async def test_a_job_after_the_idle_worker_stopped_starts_another():
    """The long-job process (HeavyWork's pool) is stopped when idle and started again by the next job."""
    pool = ProcessWorkers(1, _no_warm, "test-worker", start=0, idle_seconds=0.2)
    try:
        first = await pool.call(os.getpid, deadline=30)
        assert await _until(lambda: pool.started == 0 and process_gone(first))
        second = await pool.call(os.getpid, deadline=30)
        assert second not in (first, os.getpid())
    finally:
        pool.close()


async def test_a_render_process_past_its_size_is_replaced_and_the_picture_still_right(frame):
    ruleset, view, last = frame
    expected = images.render(ruleset, view, last, ())
    pool = RenderProcesses(1, start=1, warm=_no_warm, max_mb=1.0)   # every process is past 1 MB
    try:
        await pool.warm()
        (pid,) = pool.pids()
        assert await pool.draw(images.render, ruleset, view, last, ()) == expected
        assert await _until(lambda: process_gone(pid) and len(pool.pids()) == 1 and pool.pids() != [pid])
        await pool.warm()
        assert await pool.draw(images.render, ruleset, view, last, ()) == expected   # from the fresh one
        assert pool.retired >= 1
    finally:
        pool.close()


def test_trimming_memory_runs_where_there_is_no_glibc_too():
    trim_memory()
    trim_memory(collect=False)


def test_refreshing_the_drawing_empties_what_pictures_added_and_draws_the_same(frame):
    from images.draw import _text_mask
    from images.speedway.counters import counter_piece

    frames = game_frames(every=25)
    refresh_drawing()
    warm = _text_mask.cache_info().currsize
    drawn = [images.render(ruleset, view, last, ()) for ruleset, view, last in frames]
    assert _text_mask.cache_info().currsize > warm
    refresh_drawing()
    assert _text_mask.cache_info().currsize == warm and counter_piece.cache_info().currsize >= 216   # warm again
    assert [images.render(ruleset, view, last, ()) for ruleset, view, last in frames] == drawn


async def test_the_bot_refreshes_its_own_drawing_once_pictures_stop(frame, monkeypatch):
    """Pictures drawn in the bot's own process (no render process running) grow its caches: after the
    workers' idle time without a picture, the drawing is refreshed, once."""
    ruleset, view, last = frame
    refreshed = []
    monkeypatch.setattr(drawing, "LULL_SECONDS", 0.05)
    monkeypatch.setattr(drawing, "refresh_drawing", lambda: refreshed.append(True))
    pool = RenderProcesses(1, start=0, idle_seconds=0.2)
    try:
        await pool.draw(images.render, ruleset, view, last, ())
        assert await _until(lambda: refreshed == [True])
        await asyncio.sleep(0.5)
        assert refreshed == [True]   # nothing drawn since: not again
    finally:
        pool.close()


async def test_a_bot_that_warmed_its_own_drawing_keeps_it_warm_while_no_picture_is_drawn(monkeypatch):
    """Issue 39, item 6: a bot that warmed its own drawing (warm_here, as `pitboss run` starts) draws each game's
    opening again every KEEP_WARM_SECONDS of a lull, never while a picture is drawn; a pool that never warmed
    (a one-shot process's) does not. What a game's warm-up lets go (warm_drawing) goes again after each, unless
    a picture was drawn here since the last refresh: a game in play keeps its board."""
    from bot.table.jobs import zygote_warm

    drawn: list[float] = []
    let_go: list[float] = []
    monkeypatch.setattr(drawing, "LULL_SECONDS", 0.03)
    monkeypatch.setattr(drawing, "KEEP_WARM_SECONDS", 0.1)
    monkeypatch.setattr(drawing, "warm_settled", lambda: None)
    monkeypatch.setattr(drawing, "warm_drawing", lambda: let_go.append(time.monotonic()))
    monkeypatch.setattr(zygote_warm, "draw_openings", lambda: drawn.append(time.monotonic()) or 0)
    cold = RenderProcesses(1, start=0)
    try:
        await cold.draw(time.sleep, 0.01)
        await asyncio.sleep(0.5)
        assert drawn == []
    finally:
        cold.close()
    pool = RenderProcesses(1, start=0)
    try:
        await pool.warm_here()
        assert await _until(lambda: len(drawn) >= 3)
        started = time.monotonic()
        await pool.draw(time.sleep, 0.5)
        ended = time.monotonic()
        assert await _until(lambda: drawn[-1] > ended)   # warm again once the lull is back
        assert not [at for at in drawn if started < at < ended]
        assert let_go and max(let_go) < started   # a picture drawn here: its game's pieces kept
    finally:
        pool.close()


def test_a_refresh_leaves_no_full_collection_of_the_heap_to_the_next_picture():
    """Issue 39, item 6: the refresh makes many new objects; it collects the heap in full and freezes what
    lives (on its thread, in the lull), so the next full collection walks only what came after, not a bot's
    whole heap on the first picture after the lull (40-100 ms of CPU measured after a load)."""
    import gc

    heap = [[{"seat": i}, (i, str(i))] for i in range(100_000)]   # a bot's state after a load, long-lived
    gc.collect()
    try:
        refresh_drawing()
        walked = sum(len(gc.get_objects(generation)) for generation in range(3))
        assert walked < 0.02 * gc.get_freeze_count() and len(heap) == 100_000
    finally:
        gc.unfreeze()


def _nothing() -> None:
    """A spawned process's whole work."""


def test_the_resource_tracker_stops_once_no_worker_runs_and_starts_again_with_the_next():
    """Issue 39, item 8: `spawn` keeps multiprocessing's resource tracker (a whole interpreter, 7 MB) for the
    bot's life; an idle bot stops it once it is its only child, and the next worker starts it again. Told in a
    fresh interpreter: a test process's other children (another test's workers) would keep the tracker."""
    done = subprocess.run([sys.executable, "-c", "import tests.test_worker_memory as t; t.tracker_story()"],
                          cwd=Path(__file__).resolve().parent.parent, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def tracker_story() -> None:
    """The resource tracker's life in a process with no other children (run by the test above)."""
    import multiprocessing
    from multiprocessing import resource_tracker

    from bot.table.jobs.memory import stop_idle_tracker

    spawn = multiprocessing.get_context("spawn")
    child = spawn.Process(target=_nothing)
    child.start()
    tracker = resource_tracker._resource_tracker._pid
    assert tracker is not None and not stop_idle_tracker()   # a worker still runs
    child.join()
    assert stop_idle_tracker() and resource_tracker._resource_tracker._pid is None
    for _ in range(100):   # it reads to the pipe's end and exits; a later call reaps it
        if stop_idle_tracker() or process_gone(tracker):
            break
        time.sleep(0.05)
    assert process_gone(tracker)
    again = spawn.Process(target=_nothing)
    again.start()
    again.join()
    assert again.exitcode == 0 and resource_tracker._resource_tracker._pid not in (None, tracker)
