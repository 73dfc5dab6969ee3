"""The bot settles its memory after start-up: start-up objects are frozen out of the collector's way."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

import pytest

from bot.table.jobs.memory import ARENAS, ARENAS_ENV, MALLOPT, settle_memory


def test_settling_freezes_what_start_up_loaded():
    before = gc.get_freeze_count()
    try:
        settle_memory()
        assert gc.get_freeze_count() > before and gc.get_count()[0] < 50
    finally:
        gc.unfreeze()


async def test_the_discord_client_settles_its_memory_when_it_starts(tmp_path, monkeypatch):
    """setup_hook, which discord.py runs once at start-up, settles the memory after opening the store, and
    has its own drawing warmed before it returns (issue 39, item 6: before the gateway connects)."""
    from bot.chat import adapter
    from bot.table.jobs import drawing

    settled, warmed = [], []
    monkeypatch.setattr(adapter, "settle_memory", lambda: settled.append(True))
    monkeypatch.setattr(drawing, "warm_drawing", lambda: warmed.append(True))
    monkeypatch.delenv("PITBOSS_RENDER_PROCESSES", raising=False)
    monkeypatch.delenv(drawing.WARM_ENV, raising=False)
    client = adapter.PitbossClient(str(tmp_path / "bot.db"), sync_commands=False)
    monkeypatch.setattr(client, "start_scheduler", lambda: None)
    try:
        await client.setup_hook()
        assert settled == [True] and client.service is not None
        assert warmed == [True]
    finally:
        await client.store.close()


ARENAS_SEEN = """
import ctypes, ctypes.util, threading
from bot.table.jobs.memory import limit_arenas
limit_arenas()
libc = ctypes.CDLL(ctypes.util.find_library("c"))
barrier = threading.Barrier(6)
def work():
    barrier.wait()   # all six alive at once, each asking malloc for memory: each wants a heap of its own
    libc.malloc(4000)
    barrier.wait()
threads = [threading.Thread(target=work) for _ in range(6)]
for thread in threads: thread.start()
for thread in threads: thread.join()
libc.malloc_stats()
"""


@pytest.mark.skipif(MALLOPT is None, reason="glibc only")
@pytest.mark.parametrize(("environment", "heaps"), [({}, ARENAS), ({ARENAS_ENV: "8"}, 7)])
def test_a_long_running_bots_threads_share_two_malloc_heaps_unless_told_otherwise(environment, heaps):
    """Issue 39, item 8: six threads allocating at once use ARENAS heaps after limit_arenas (glibc's
    default gives each its own, and keeps what a burst left in each); $MALLOC_ARENA_MAX still wins."""
    env = {k: v for k, v in os.environ.items() if k != ARENAS_ENV} | environment
    done = subprocess.run([sys.executable, "-c", ARENAS_SEEN], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert sum(line.startswith("Arena ") for line in done.stderr.splitlines()) == heaps
