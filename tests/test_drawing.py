"""Render worker processes: warmed at start, the same bytes as drawing here, replaced when one dies, and
a service that plays on through them."""

from __future__ import annotations

import os
import signal

import pytest

import images
from bot.table.jobs import drawing
from bot.table.jobs.drawing import Drawing, RenderProcesses
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from images.registry import is_built_in
from rules.speedway.data import arena_ids
from tests.conftest import process_gone
from tests.render_frames import game_frames

pytestmark = pytest.mark.slow  # render worker processes


@pytest.fixture(autouse=True)
def patient(monkeypatch):
    """A render process's answer is waited for a minute, not PICTURE_SECONDS: these tests judge which process
    draws, and on a busy machine (load 10-13) a warm one answered past 4 s and was taken for hung, its picture
    drawn here. The tests of a hung process set their own deadline."""
    monkeypatch.setattr(drawing, "PICTURE_SECONDS", 60.0)


@pytest.fixture(scope="module")
def frames():
    return game_frames(every=25)


@pytest.fixture
async def workers():
    pool = RenderProcesses(2)
    await pool.warm()
    yield pool
    pool.close()


async def test_workers_draw_every_game_to_the_bytes_drawn_here(workers, frames):
    """Each game's views and events cross to a worker pickled; the PNG that comes back is the one this
    process draws (other interpreter, other hash seed, same bytes)."""
    assert {ruleset for ruleset, _, _ in frames} == {"speedway", "track", "battlecars", "race"}
    for ruleset, view, last in frames:
        assert await workers.draw(images.render, ruleset, view, last, ()) == images.render(ruleset, view, last, ())


def _warmth() -> tuple[int, int, int]:
    """Run in a worker: its process id, the car counters and the arena palettes it already holds."""
    from images.speedway import palette_for
    from images.speedway.counters import counter_piece

    return os.getpid(), counter_piece.cache_info().currsize, palette_for.cache_info().currsize


async def test_workers_are_other_processes_that_start_warm(workers):
    seen = [await workers.draw(_warmth) for _ in range(6)]
    assert os.getpid() not in {pid for pid, _, _ in seen}
    assert all(counters >= 216 and palettes == len(arena_ids()) for _, counters, palettes in seen)


async def test_a_dead_worker_is_replaced_and_the_picture_still_drawn(workers, frames):
    ruleset, view, last = frames[3]
    pids = {await workers.draw(os.getpid) for _ in range(4)}
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    expected = images.render(ruleset, view, last, ())
    for _ in range(2):   # each dead worker's picture is drawn on a thread, and the worker replaced
        assert await workers.draw(images.render, ruleset, view, last, ()) == expected
    assert await workers.draw(images.render, ruleset, view, last, ()) == expected    # on the new workers
    assert not pids & {await workers.draw(os.getpid) for _ in range(4)}


async def test_a_service_plays_on_through_the_workers(store, workers):
    """Moves through a service with render processes reply with the pictures a threaded one draws, and the
    game's end with the same final sheets (drawn with its last picture, in one job: images.render_final)."""
    threaded, pooled = GameService(store), GameService(store, render_processes=workers)
    lines = [("ann", "/game new ruleset:speedway seed:4"), ("ann", "/game join car:brawler"),
             ("ben", "/game join car:torch"), ("ann", "/game start"), ("ben", "/speed value:2"),
             ("ann", "/game end")]
    for service, channel in ((threaded, "c-thread"), (pooled, "c-pool")):
        replies = [await service.execute(channel, Actor(user, user), parse(line)) for user, line in lines]
        assert all(r.outcome == "applied" for r in replies), [r.text for r in replies]
        if service is threaded:
            pictures = [r.image for r in replies]
            sheets = [f.data for f in replies[-1].files]
    assert [r.image for r in replies] == pictures and pictures[-1] is not None
    assert [f.data for f in replies[-1].files] == sheets and len(sheets) == 1


def test_plug_in_games_and_custom_renderers_draw_on_threads():
    workers = RenderProcesses(2, start=0)   # which pool a Drawing uses: no process need start (~2.5 s of CPU)
    try:
        assert Drawing(images.render, workers).processes is workers
        assert Drawing(lambda *args: b"", workers).processes is None      # a test's or a tool's own renderer
    finally:
        workers.close()
    assert not is_built_in("toy") and is_built_in("speedway")


def _slow_warm() -> None:
    """A render process's warm-up made artificially slow: no picture can come from it for a minute."""
    import time

    time.sleep(60)


async def test_the_first_picture_does_not_wait_for_a_warm_up(frames):
    """Issue 28, item 4: while the render process is still warming up (here for a minute), the first
    picture is drawn on a thread at once, the same bytes; the process is left to warm meanwhile."""
    import asyncio

    ruleset, view, last = frames[3]
    pool = RenderProcesses(1, warm=_slow_warm)
    try:
        assert pool.started == 1
        drawn = await asyncio.wait_for(pool.draw(images.render, ruleset, view, last, ()), 30)
        assert drawn == images.render(ruleset, view, last, ())
        assert await pool.draw(os.getpid) == os.getpid()   # still drawn here: the process is not warm
    finally:
        pool.close()


async def test_render_processes_start_only_while_pictures_overlap():
    """On demand (none at start): one picture at a time starts no process; pictures that overlap start
    one, and it takes pictures once warm; never more than the most allowed."""
    import asyncio

    pool = RenderProcesses(2, start=0)
    try:
        for _ in range(5):
            assert await pool.draw(os.getpid) == os.getpid()
        assert pool.started == 0
        await asyncio.gather(*(pool.draw(_nap, 0.2) for _ in range(3)))
        assert pool.started == 1
        await pool.warm()
        assert pool.started == 2 and os.getpid() not in {await pool.draw(os.getpid) for _ in range(3)}
    finally:
        pool.close()


def _unsendable():
    """Run in a worker: an answer pickle cannot carry."""
    return lambda: None


def _refuses():
    raise ValueError("no car is seated yet")


async def test_a_worker_sends_back_errors_and_answers_it_cannot_carry(workers):
    with pytest.raises(ValueError, match="no car is seated"):
        await workers.draw(_refuses)
    with pytest.raises(RuntimeError, match="could not be sent back"):
        await workers.draw(_unsendable)
    assert await workers.draw(os.getpid) != os.getpid()   # the worker lives on


def _touch(path: str) -> int:
    """Run in a worker: make the file `path`, then say which process it was."""
    with open(path, "w", encoding="ascii") as made:
        made.write("drawn")
    return os.getpid()


def _appears(path, within: float = 60.0) -> bool:
    """Whether `path` exists within `within` seconds, waited for without giving the event loop a turn."""
    import time

    end = time.monotonic() + within
    while not path.exists() and time.monotonic() < end:
        time.sleep(0.01)
    return path.exists()


async def test_a_picture_is_on_its_way_before_the_loop_turns(workers, tmp_path):
    """A picture is sent to an idle render process as it is asked for, not at the loop's next turn: the
    process draws while the move that asked goes on with its own work (issue 39, items 1 and 3). The
    loop is held here until the process has done the job; a job sent at the next turn never would be."""
    await workers.draw(os.getpid)   # each worker's socket open, as after its first picture
    await workers.draw(os.getpid)
    marker = tmp_path / "drawn"
    drawing_now = workers.draw(_touch, str(marker))
    assert _appears(marker)
    assert await drawing_now != os.getpid()


# --- a worker that hangs instead of dying (issue 23, item 4) ------------------------------------------

def _nap(seconds: float) -> int:
    """Run in a worker: sleep, then say which process it was."""
    import time

    time.sleep(seconds)
    return os.getpid()


async def test_a_stopped_render_process_costs_one_late_picture_drawn_here(monkeypatch, frames):
    """SIGSTOP the only render process: the next picture still comes (on a thread, past the deadline),
    the stopped process is killed, and a new one draws the pictures after it."""
    import asyncio

    monkeypatch.setattr(drawing, "PICTURE_SECONDS", 1.0)
    pool = RenderProcesses(1)
    try:
        await pool.warm()
        ruleset, view, last = frames[3]
        stopped = await pool.draw(os.getpid)
        os.kill(stopped, signal.SIGSTOP)
        expected = images.render(ruleset, view, last, ())
        assert await asyncio.wait_for(pool.draw(images.render, ruleset, view, last, ()), 60) == expected
        assert process_gone(stopped)
        await pool.warm()
        assert await pool.draw(os.getpid) not in (stopped, os.getpid())   # a new process again
    finally:
        pool.close()


async def test_every_call_ends_within_its_deadline_though_every_worker_hangs():
    """Two workers, both stopped, and five calls at once: each call ends (WorkerHung) by its deadline,
    whether it took a stopped worker or waited for a free one; the workers are replaced and answer."""
    import asyncio

    from bot.table.jobs.workers import ProcessWorkers, WorkerHung

    pool = ProcessWorkers(2, name="pitboss-test")
    try:
        await pool.warm()
        for pid in pool.pids():
            os.kill(pid, signal.SIGSTOP)
        stopped = set(pool.pids())
        calls = [pool.call(_nap, 0, deadline=1.0) for _ in range(5)]
        ended = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 60)
        assert all(isinstance(e, WorkerHung) for e in ended), ended
        assert all(process_gone(pid) for pid in stopped)
        await pool.warm()
        assert await pool.call(_nap, 0, deadline=30.0) not in stopped
        with pytest.raises(WorkerHung):   # a job that runs past its deadline is cut off the same way
            await pool.call(_nap, 30, deadline=1.0)
        assert await pool.call(_nap, 0, deadline=30.0) not in stopped
    finally:
        pool.close()


async def test_a_picture_given_up_before_it_ran_is_counted_as_drawn_and_its_process_freed(workers):
    """A picture cancelled in the same turn of the loop it was asked for (a reply that failed, a picture
    ahead dropped) is no longer counted as being drawn, so lulls are seen again; the job already sent to
    a render process is given up too, and that process takes the next picture."""
    import asyncio

    await workers.draw(os.getpid)   # the sockets open
    await workers.draw(os.getpid)
    for _ in range(3):
        workers.draw(_nap, 0.2).cancel()
    for _ in range(50):   # a few turns of the loop: the cancelled pictures end, their jobs are given up
        await asyncio.sleep(0.01)
    assert workers._drawing == 0
    assert await asyncio.wait_for(workers.draw(os.getpid), 60) != os.getpid()


async def test_a_job_that_cannot_travel_is_refused_and_loses_no_process(monkeypatch):
    """A job pickle cannot carry raises to its caller, and no render process is taken for it: the only one
    draws the next picture (a process lost would leave it to a thread, once the deadline passed)."""
    import pickle

    monkeypatch.setattr(drawing, "PICTURE_SECONDS", 30.0)
    pool = RenderProcesses(1)
    try:
        await pool.warm()
        with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
            await pool.draw(lambda: 1)
        assert pool._drawing == 0
        assert await pool.draw(os.getpid) != os.getpid()
    finally:
        pool.close()


async def test_a_render_process_that_cannot_start_does_not_stop_the_picture(monkeypatch, frames):
    """Pictures that overlap ask for one more render process; one that cannot start (no memory, no process
    left) is logged, and the pictures are drawn by those there are, or here."""
    import asyncio

    pool = RenderProcesses(2, start=0)
    try:
        def refused() -> bool:
            raise OSError("fork failed")
        monkeypatch.setattr(pool._workers, "grow", refused)
        ruleset, view, last = frames[0]
        drawn = await asyncio.gather(*(pool.draw(images.render, ruleset, view, last, ()) for _ in range(3)))
        assert drawn == [images.render(ruleset, view, last, ())] * 3 and pool._drawing == 0
    finally:
        pool.close()
