"""The long jobs in a worker process (as `pitboss run` runs them): the same replies as on a thread,
refusals that cross back intact, and a worker that dies costs one refused job, never a changed game."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from bot.table.jobs.heavy import HeavyWork
from bot.table.protocol.commands import Command, parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService

pytestmark = pytest.mark.slow  # long jobs in worker processes

HOST, GUEST = Actor("alice", "alice"), Actor("bob", "bob")


@pytest.fixture
async def heavy_process():
    work = HeavyWork(process=True)
    await work.warm()
    yield work
    work.close()


async def _finished_game(service: GameService, channel: str) -> None:
    for actor, line in ((HOST, "/game new ruleset:speedway seed:31"), (HOST, "/game join car:brawler"),
                        (GUEST, "/game join car:torch"), (HOST, "/game start"), (HOST, "/speed value:2"),
                        (HOST, "/move maneuver:normal"), (HOST, "/game end")):
        reply = await service.execute(channel, actor, parse(line))
        assert reply.outcome == "applied", reply.text


async def test_each_long_job_answers_in_the_process_as_on_the_thread(store, heavy_process):
    threaded, pooled = GameService(store), GameService(store, heavy=heavy_process)
    await _finished_game(threaded, "chan-1")
    replies = {}
    for name, service in (("thread", threaded), ("process", pooled)):
        verify = await service.execute("chan-1", HOST, parse("/game verify"))
        export = await service.execute("chan-1", HOST, parse("/game export"))
        replay = await service.execute("chan-1", HOST, parse("/game replay"))
        replies[name] = (verify.text, export.files[0].data, replay.files[0].data)
    assert replies["thread"] == replies["process"]
    assert "rebuilds the table exactly" in replies["process"][0]
    assert replies["process"][2].startswith(b"GIF8")

    foreign = {**json.loads(replies["process"][1]), "game_id": 987_654}   # as if from another bot: re-played
    data = json.dumps(foreign).encode()
    imported = await pooled.execute("chan-2", GUEST, Command("game import", {"file": data}))
    assert imported.outcome == "applied" and "re-played here" in imported.text
    assert (await store.latest_game("chan-2")).state == (await store.latest_game("chan-1")).state

    forged = foreign["actions"][:3] + [{"actor": "eve", "action": {"type": "Start"}}]
    hostile = json.dumps({**foreign, "actions": forged})
    refused = await pooled.execute("chan-3", GUEST, Command("game import", {"file": hostile.encode()}))
    assert refused.outcome == "refused" and "does not replay" in refused.text
    assert await store.latest_game("chan-3") is None


async def test_undo_rebuilds_in_the_process(store, heavy_process):
    service = GameService(store, heavy=heavy_process)
    for actor, line in ((HOST, "/game new ruleset:speedway seed:4"), (HOST, "/game join car:brawler"),
                        (GUEST, "/game join car:torch"), (HOST, "/game start")):
        assert (await service.execute("chan-1", actor, parse(line))).outcome == "applied"
    before = (await store.active_game("chan-1")).state
    assert (await service.execute("chan-1", GUEST, parse("/speed value:2"))).outcome == "applied"
    undone = await service.execute("chan-1", GUEST, parse("/undo"))
    assert undone.outcome == "applied" and undone.text.startswith("Undone")
    assert (await store.active_game("chan-1")).state == before


async def test_a_dead_worker_refuses_one_job_and_changes_nothing(store, heavy_process):
    service = GameService(store, heavy=heavy_process)
    await _finished_game(service, "chan-1")
    stored = await store.latest_game("chan-1")
    (pid,) = [await heavy_process.run(os.getpid)]
    os.kill(pid, signal.SIGKILL)
    lost = await service.execute("chan-1", HOST, parse("/game verify"))
    assert lost.outcome == "refused" and "nothing was changed" in lost.text
    assert await store.latest_game("chan-1") == stored
    again = await service.execute("chan-1", HOST, parse("/game verify"))   # a new worker took over
    assert again.outcome == "shown" and await heavy_process.run(os.getpid) != pid


async def test_a_stopped_worker_holds_no_channel_past_a_long_jobs_deadline(store, heavy_process, monkeypatch):
    """Issue 23, item 4: a SIGSTOPped long-job worker hung /game verify in every channel, and /game status
    behind it. Now each long job ends by its deadline (refused, nothing changed, or done by the worker
    that replaced it), one past the queue's bound is refused at once, and each channel is free again."""
    import asyncio

    from bot.table.jobs import heavy

    # long enough for all five to be queued before any deadline passes on a busy machine
    monkeypatch.setattr(heavy, "LONG_JOB_SECONDS", 3.0)
    service = GameService(store, heavy=heavy_process)
    channels = [f"chan-{i}" for i in range(6)]
    for channel in channels:
        await _finished_game(service, channel)
    # the ratings those ends started are long jobs too: done before the worker stops, or they would hold
    # places in its queue (two did, under a full suite's load, and two verifies were refused as busy)
    await service.settled()
    stored = {c: await store.latest_game(c) for c in channels}
    pid = await heavy_process.run(os.getpid)
    os.kill(pid, signal.SIGSTOP)
    finished: list[str] = []

    async def verify(channel: str):
        reply = await service.execute(channel, HOST, parse("/game verify"))
        finished.append(channel)
        return reply

    tasks = [asyncio.ensure_future(verify(c)) for c in channels[:5]]
    for _ in range(3000):   # until the five are in: one runs (on the stopped worker), four wait
        if heavy_process._pending == 5:
            break
        await asyncio.sleep(0.01)
    over = await verify(channels[5])
    assert over.outcome == "refused" and "busy" in over.text and finished == [channels[5]]   # at once
    replies = await asyncio.wait_for(asyncio.gather(*tasks), 60)
    for reply in replies:
        assert reply.outcome == "refused" and "nothing was changed" in reply.text or \
            "rebuilds the table exactly" in reply.text, reply.text
    assert any("did not finish in time" in r.text for r in replies)
    statuses = await asyncio.wait_for(asyncio.gather(
        *(service.execute(c, GUEST, parse("/game status")) for c in channels)), 60)
    assert all(s.outcome == "shown" for s in statuses)
    assert {c: await store.latest_game(c) for c in channels} == stored
    monkeypatch.setattr(heavy, "LONG_JOB_SECONDS", 60.0)   # the replacement's start is not what is timed here
    again = await service.execute("chan-0", HOST, parse("/game verify"))
    assert "rebuilds the table exactly" in again.text and await heavy_process.run(os.getpid) != pid


def test_a_worker_whose_bot_died_while_it_warmed_up_ends_quietly():
    """A bot killed (SIGKILL) while its workers warm up: each worker's READY meets a closed socket, and the
    worker ends without a traceback in the log the bot shared with it (seen under load in the e2e crash test)."""
    import socket
    from multiprocessing.connection import Connection

    from bot.table.jobs import workers

    ours, theirs = socket.socketpair()
    conn = Connection(theirs.detach())
    ours.close()
    assert workers._serve(conn, warm=lambda: None) is None


async def test_a_long_job_behind_a_longer_one_waits_its_turn_and_then_has_its_whole_deadline(heavy_process,
                                                                                           monkeypatch):
    """The e2e suite's undo behind a verify and a GIF was refused on a slow machine ("did not finish in time",
    before it started): the wait in line counted against its own deadline."""
    import asyncio
    import time

    from bot.table.jobs import heavy

    monkeypatch.setattr(heavy, "LONG_JOB_SECONDS", 0.5)
    await heavy_process.run(os.getpid)   # the worker is up: its start is not what is timed here
    ahead = asyncio.ensure_future(heavy_process.run(time.sleep, 1.5, items=200))   # a deadline of 2.5 s
    while heavy_process._pending == 0:
        await asyncio.sleep(0.01)
    assert await heavy_process.run(os.getpid) != os.getpid()   # 0.5 s of its own, after ~1.5 s in line
    await ahead


WARM_PRIORITY = """
import importlib.abc, os, sys
started, seen = os.nice(0), {}

class Noting(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in ("bot.table.jobs.heavy_jobs", "rules.registry") and name not in seen:
            seen[name] = os.nice(0)
        return None

sys.meta_path.insert(0, Noting())
from bot.table.jobs.heavy import WORKER_NICENESS, _warm_worker
_warm_worker()
print(started, WORKER_NICENESS, seen["bot.table.jobs.heavy_jobs"], seen["rules.registry"])
"""


def test_the_long_job_process_lowers_its_priority_before_its_imports():
    """Most of the long-job process's start is importing the jobs and the games (0.4 s of CPU, paid when a game's
    end starts it, with moves drawing beside it): they are imported at its lowered priority."""
    from tests.conftest import ROOT

    done = subprocess.run([sys.executable, "-c", WARM_PRIORITY], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    started, niceness, at_jobs, at_games = (int(word) for word in done.stdout.split())
    assert at_jobs == at_games == min(19, started + niceness) > started
