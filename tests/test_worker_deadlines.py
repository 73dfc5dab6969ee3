"""A worker past its deadline is killed when it is hung, and waited for when a busy machine only starved it of
CPU (issue 39, item 13: a release is judged on shared machines)."""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from bot.table.jobs.workers import ProcessWorkers, WorkerHung, process_cpu, starved


def _spin(seconds: float) -> float:
    """Use `seconds` of CPU time."""
    began = time.process_time()
    while time.process_time() - began < seconds:
        pass
    return time.process_time() - began


def test_only_a_runnable_worker_short_of_its_deadlines_cpu_is_starved():
    assert starved(("R", 1.2), 1.0, 0.5)          # runnable, 0.2 s of CPU on a 0.5 s job: starved
    assert starved(("D", 1.2), 1.0, 0.5)          # in a disk wait: not hung either
    assert not starved(("R", 1.6), 1.0, 0.5)      # spent its deadline's worth of CPU: a runaway job
    assert not starved(("T", 1.0), 1.0, 0.5)      # stopped (SIGSTOP)
    assert not starved(("S", 1.0), 1.0, 0.5)      # asleep (wedged on a lock, a pipe)
    assert not starved(None, 1.0, 0.5)            # gone, or no /proc to tell
    assert not starved(("R", 1.0), None, 0.5)


def test_process_cpu_reads_this_process():
    state, before = process_cpu(os.getpid())
    _spin(0.06)
    state, after = process_cpu(os.getpid())
    assert state == "R" and after - before >= 0.03   # /proc counts whole clock ticks
    assert process_cpu(2 ** 22 + 12345) is None


async def test_a_sleeping_worker_past_its_deadline_is_killed_and_a_working_one_answers():
    pool = ProcessWorkers(1, name="pitboss-test")
    try:
        await pool.warm()
        with pytest.raises(WorkerHung):
            await pool.call(time.sleep, 30, deadline=0.3)   # asleep, not starved: killed at its deadline
        assert await pool.call(_spin, 0.01, deadline=30) >= 0.01   # its replacement works
    finally:
        pool.close()


async def test_a_workers_cpu_is_read_from_its_stat_file_kept_open_and_closed_with_it():
    pool = ProcessWorkers(1, name="pitboss-test")
    try:
        await pool.warm()
        worker = pool._workers[0]
        state, before = worker.cpu()
        kept = worker._stat
        assert kept is not None and state in "RS"
        await pool.call(_spin, 0.1, deadline=30)
        _state, after = worker.cpu()
        assert after - before >= 0.05 and worker._stat == kept   # read again, not opened again
    finally:
        pool.close()
    assert worker._stat is None   # closed with the worker
    assert worker.cpu() is None and worker._stat is None   # and not opened again: its id may be another's now


async def test_a_job_given_to_an_idle_worker_waits_on_no_timer_for_one(monkeypatch):
    pool = ProcessWorkers(1, name="pitboss-test")
    try:
        await pool.warm()
        waits = []
        wait_for = asyncio.wait_for

        def counted(awaitable, timeout):
            waits.append(timeout)
            return wait_for(awaitable, timeout)

        monkeypatch.setattr(asyncio, "wait_for", counted)
        assert await pool.call(_spin, 0.01, deadline=30) >= 0.01
        assert waits == []   # the idle worker was taken at once
    finally:
        pool.close()


async def test_a_job_that_waits_for_a_worker_keeps_its_place_in_the_line():
    """A job that finds the worker busy waits; one that asks just as the worker is handed back (before the
    waiting one has woken) goes after it, not taking the worker at once past the one that waited."""
    pool = ProcessWorkers(1, name="pitboss-test")
    try:
        await pool.warm()
        started: list[str] = []
        newcomers: list[asyncio.Future] = []

        async def job(name: str, seconds: float) -> None:
            await pool.call(_spin, seconds, deadline=60)
            started.append(name)

        idle = pool._queue()
        hand_back = idle.put_nowait

        def asked_as_handed_back(worker) -> None:
            if pool._waiting and not newcomers:   # the newcomer's first step runs before the waiter wakes
                newcomers.append(asyncio.ensure_future(job("newcomer", 0.01)))
            hand_back(worker)

        first = asyncio.ensure_future(job("first", 1.0))   # a second of the worker's CPU: the next job waits
        while not pool._busy:
            await asyncio.sleep(0.01)
        idle.put_nowait = asked_as_handed_back   # type: ignore[method-assign]
        waiting = asyncio.ensure_future(job("waiting", 0.01))
        await asyncio.gather(first, waiting)
        await asyncio.gather(*newcomers)
        assert newcomers and started == ["first", "waiting", "newcomer"]
    finally:
        pool.close()


async def test_a_job_in_line_counts_its_deadline_from_when_a_worker_takes_it_and_its_line_has_a_bound_of_its_own():
    """A long job behind a longer one (each watched by its own deadline) waited past its own deadline before
    it started, and was refused as "did not finish in time": on a slow machine, an undo behind a verify and a
    GIF. With `line`, it waits in line, then has its whole deadline; a line past its bound refuses it as
    never started (NoWorkerFree), and a call without `line` counts the wait in its deadline, as before."""
    from bot.table.jobs.workers import NoWorkerFree

    pool = ProcessWorkers(1, name="pitboss-test")
    try:
        await pool.warm()
        ahead = asyncio.ensure_future(pool.call(time.sleep, 1.0, deadline=30))   # asleep: not starved, not hung
        while not pool._busy:
            await asyncio.sleep(0.01)
        assert await pool.call(_spin, 0.01, deadline=0.5, line=30) >= 0.01   # waited ~1 s, past its 0.5 s
        await ahead
        ahead = asyncio.ensure_future(pool.call(time.sleep, 1.0, deadline=30))
        while not pool._busy:
            await asyncio.sleep(0.01)
        with pytest.raises(NoWorkerFree):
            await pool.call(_spin, 0.01, deadline=30, line=0.2)
        with pytest.raises(WorkerHung) as refused:
            await pool.call(_spin, 0.01, deadline=0.2)
        assert not isinstance(refused.value, NoWorkerFree) and "no worker was free" in str(refused.value)
        await ahead   # the job ahead was not disturbed by those that gave up
    finally:
        pool.close()
