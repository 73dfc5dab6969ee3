"""When a worker measures its own size (bot.table.jobs.workers._serve): in a lull, never between an answer and a
job already waiting for it (a render process's measure took 2-7 ms, and held the next picture that long)."""

from __future__ import annotations

import multiprocessing
import time
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

from bot.table.jobs import memory, workers

THEIRS: list[Connection] = []   # the worker's end of the pipe, as the forked worker sees it
MEASURES: list[Path] = []       # the file each measure adds a byte to


def _noted_measure() -> float:
    with MEASURES[0].open("ab") as noted:
        noted.write(b".")
    return 50.0


def _until_the_next_job_waits() -> str:
    """A job that ends only once the job after it waits in the worker's pipe."""
    while not THEIRS[0].poll(0.01):
        pass
    return "first"


def _second() -> str:
    return "second"


def _worker(ours: Connection, theirs: Connection) -> None:
    """The forked worker: the bot's end closed here, so the worker sees the pipe end when the test closes it."""
    ours.close()
    workers._serve(theirs, None)


@pytest.mark.parametrize("most, measures", [(1e9, 2), (0.0, 3)])
def test_a_worker_measures_its_size_in_a_lull_not_with_a_job_waiting(tmp_path, monkeypatch, most, measures):
    """Each answer is due a measure (SIZE_SECONDS 0): after the first, the second job already waits, and the
    measure waits for a lull (after the second), unless none came for SIZE_MOST_SECONDS (0 here: measured after
    each). One measure at the worker's start. The worker is forked with these settings."""
    noted = tmp_path / "measures"
    noted.touch()
    monkeypatch.setattr(memory, "pss_mb", _noted_measure)
    monkeypatch.setattr(memory, "trim_memory", lambda: None)
    monkeypatch.setattr(workers, "SIZE_SECONDS", 0.0)
    monkeypatch.setattr(workers, "SIZE_MOST_SECONDS", most)
    monkeypatch.setattr(workers, "SIZE_LULL_SECONDS", 0.05)
    monkeypatch.setattr(workers, "TRIM_SECONDS", 1e6)   # no lull's trim (and its measure) before the pipe closes
    ours, theirs = multiprocessing.Pipe()
    THEIRS[:], MEASURES[:] = [theirs], [noted]
    worker = multiprocessing.get_context("fork").Process(target=_worker, args=(ours, theirs), daemon=True)
    worker.start()
    theirs.close()
    try:
        assert isinstance(ours.recv(), workers._Ready)
        ours.send((_until_the_next_job_waits, ()))
        ours.send((_second, ()))
        assert ours.recv()[:2] == (True, "first")
        assert ours.recv()[:2] == (True, "second")
        for _ in range(600):   # the lull after the second: its measure comes SIZE_LULL_SECONDS after its answer
            if noted.stat().st_size >= measures:
                break
            time.sleep(0.1)
    finally:
        ours.close()
        worker.join(60)
        THEIRS.clear()
        MEASURES.clear()
    assert worker.exitcode == 0 and noted.stat().st_size == measures
