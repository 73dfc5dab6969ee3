"""SIGKILL a process that is playing games, at random moments, again and again: nothing acknowledged
is lost, nothing is half applied, and every game still replays from its log to its snapshot."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from bot.storage.store import Store
from bot.table.service.entry import GameService
from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # processes SIGKILLed at random moments

BACKENDS = ("sqlite", "postgres")  # the whole test runs on both (tests/conftest.py)
KILLS = 12
CHANNELS = 3


def run_until_killed(db: str, seed: int, rng: random.Random) -> list[tuple[int, int]]:
    """Start the driver, let it play for a random while, SIGKILL it; return what it acknowledged."""
    proc = subprocess.Popen([sys.executable, "-m", "tests.crash_driver", db, str(CHANNELS), str(seed)],
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        acks: list[tuple[int, int]] = []
        first = proc.stdout.readline()  # wait until it is really playing, then kill at a random moment
        assert first.startswith("ack "), first + proc.stderr.read()
        time.sleep(rng.uniform(0.0, 0.6))
        os.kill(proc.pid, signal.SIGKILL)
        assert time.monotonic() < deadline
        out = first + proc.stdout.read()
    finally:
        proc.kill()
        proc.wait(timeout=10)
    for line in out.splitlines():
        _ack, game_id, version = line.split()
        acks.append((int(game_id), int(version)))
    return acks


def test_sigkill_at_random_moments_loses_nothing_acknowledged(db_path):
    db = db_path
    rng = random.Random(6)
    acknowledged: dict[int, int] = {}  # game id -> the highest version the driver reported applied
    total = 0
    for kill in range(KILLS):
        for game_id, version in run_until_killed(db, kill, rng):
            acknowledged[game_id] = max(acknowledged.get(game_id, 0), version)
            total += 1

        async def check() -> None:
            store = await Store.open(db)
            try:
                assert await store.integrity_problems() == []
                service = GameService(store, render=None)
                games = await store.all_games()
                for game in games:
                    assert await service.replay_matches(game), f"game {game.id} does not replay after kill {kill}"
                    records = await store.actions(game.id)
                    assert [r.seq for r in records] == list(range(1, len(records) + 1))  # no gap, no half action
                stored = {g.id: g.version for g in games}
                for game_id, version in acknowledged.items():
                    assert stored[game_id] >= version, \
                        f"game {game_id}: acknowledged v{version}, stored v{stored[game_id]}"
            finally:
                await store.close()

        asyncio.run(check())
    assert total > KILLS * 3, f"only {total} moves were acknowledged in {KILLS} runs"
