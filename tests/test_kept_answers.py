"""A long job's answer kept by what it was made from: a replay or a verification asked again of an unchanged
game is not worked out again, and any change to the game's log or row is (bot.table.jobs.kept)."""

from __future__ import annotations

import asyncio
import functools

import pytest

from bot.table.jobs import heavy_jobs
from bot.table.jobs.heavy import HeavyWork
from bot.table.jobs.kept import SMALL_ANSWER, KeptAnswers
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService

HOST, GUEST = Actor("alice", "alice"), Actor("bob", "bob")


@pytest.fixture
def counted(monkeypatch):
    """How many times each long job really ran (the real jobs, counted on their way)."""
    runs: dict[str, int] = {}

    def counting(job):
        @functools.wraps(job)
        def counted_job(*args):
            runs[job.__name__] = runs.get(job.__name__, 0) + 1
            return job(*args)
        return counted_job

    for name in ("replay_gif", "snapshot_matches", "set_aside_replays"):
        monkeypatch.setattr(heavy_jobs, name, counting(getattr(heavy_jobs, name)))
    return runs


async def _duel(service: GameService, channel: str) -> None:
    for actor, line in ((HOST, "/game new ruleset:speedway seed:31"), (HOST, "/game join car:brawler"),
                        (GUEST, "/game join car:torch"), (HOST, "/game start"), (HOST, "/speed value:2")):
        reply = await service.execute(channel, actor, parse(line))
        assert reply.outcome == "applied", reply.text


async def _gif(service: GameService, actor: Actor = HOST, channel: str = "c") -> bytes:
    reply = await service.execute(channel, actor, parse("/game replay"))
    assert reply.outcome == "shown", reply.text
    return reply.files[0].data


async def test_a_replay_asked_again_of_an_unchanged_game_is_not_drawn_again(store, counted):
    service = GameService(store, heavy=HeavyWork())
    await _duel(service, "c")
    first = await _gif(service)
    assert await _gif(service, GUEST) == first and counted["replay_gif"] == 1   # another player asks
    assert (await service.execute("c", HOST, parse("/move maneuver:normal"))).outcome == "applied"
    moved = await _gif(service)
    assert counted["replay_gif"] == 2 and moved != first


async def test_a_rollback_to_a_log_as_long_but_different_is_drawn_again(store, counted):
    service = GameService(store, heavy=HeavyWork())
    await _duel(service, "c")
    assert (await service.execute("c", HOST, parse("/move maneuver:normal"))).outcome == "applied"
    straight = await _gif(service)
    assert (await service.execute("c", HOST, parse("/undo"))).outcome == "applied"
    assert (await service.execute("c", HOST, parse("/move maneuver:tight-turn-left"))).outcome == "applied"
    turned = await _gif(service)
    assert counted["replay_gif"] == 2 and turned != straight


async def test_the_same_game_in_another_channel_is_its_own_question(store, counted):
    service = GameService(store, heavy=HeavyWork())
    for channel in ("c", "d"):
        await _duel(service, channel)
    await _gif(service, channel="c")
    await _gif(service, channel="d")
    assert counted["replay_gif"] == 2


async def test_a_verification_asked_again_is_answered_from_the_kept_one_until_the_game_moves(store, counted):
    service = GameService(store, heavy=HeavyWork())
    await _duel(service, "c")
    for _ in range(3):
        reply = await service.execute("c", GUEST, parse("/game verify"))
        assert "rebuilds the table exactly" in reply.text
    assert counted["snapshot_matches"] == 1
    assert (await service.execute("c", HOST, parse("/move maneuver:normal"))).outcome == "applied"
    assert "rebuilds the table exactly" in (await service.execute("c", GUEST, parse("/game verify"))).text
    assert counted["snapshot_matches"] == 2


async def test_a_tampered_snapshot_is_found_though_the_game_was_verified_before(store, counted):
    service = GameService(store, heavy=HeavyWork())
    await _duel(service, "c")
    before = (await store.latest_game("c")).state   # the table before the next move
    assert (await service.execute("c", HOST, parse("/move maneuver:normal"))).outcome == "applied"
    assert "rebuilds the table exactly" in (await service.execute("c", GUEST, parse("/game verify"))).text
    await store.driver.execute("UPDATE games SET state = ? WHERE channel = ?", (before, "c"))
    reply = await service.execute("c", GUEST, parse("/game verify"))
    assert "rebuilds the table exactly" not in reply.text and counted["snapshot_matches"] == 2


async def test_two_callers_asking_at_once_share_one_job():
    kept, started = KeptAnswers(), []

    async def work():
        started.append(1)
        await asyncio.sleep(0.01)
        return b"gif"

    assert await asyncio.gather(kept.get(b"k", work), kept.get(b"k", work)) == [b"gif", b"gif"]
    assert started == [1] and await kept.get(b"k", work) == b"gif" and started == [1]


def gated(answer: bytes):
    """A job that answers `answer` once its gate is set: (the gate, the job)."""
    gate = asyncio.Event()

    async def work():
        await gate.wait()
        return answer

    return gate, work


async def test_a_caller_that_gives_up_leaves_the_job_to_the_other():
    kept, (gate, work) = KeptAnswers(), gated(b"gif")
    first = asyncio.ensure_future(kept.get(b"k", work))
    second = asyncio.ensure_future(kept.get(b"k", work))
    await asyncio.sleep(0)
    first.cancel()
    gate.set()
    assert await second == b"gif" and first.cancelled() and len(kept) == 1


async def test_a_job_under_way_when_the_answers_are_cleared_keeps_nothing():
    kept, (gate, work) = KeptAnswers(), gated(b"gif with a forgotten name")
    asked = asyncio.ensure_future(kept.get(b"k", work))
    await asyncio.sleep(0)
    kept.clear()   # a member forgotten while the job ran
    gate.set()
    assert await asked == b"gif with a forgotten name" and len(kept) == 0 and kept.nbytes == 0


async def test_a_failed_job_is_not_kept():
    kept, calls = KeptAnswers(), []

    async def work():
        calls.append(1)
        if len(calls) == 1:
            raise ValueError("too big")
        return b"gif"

    with pytest.raises(ValueError):
        await kept.get(b"k", work)
    assert await kept.get(b"k", work) == b"gif" and len(calls) == 2


async def test_answers_past_the_budget_let_the_least_recently_asked_go():
    kept = KeptAnswers(budget=3 * (100 + SMALL_ANSWER))

    def answer(byte: bytes):
        async def work():
            return byte * 100
        return work

    for key in (b"a", b"b", b"c"):
        await kept.get(key, answer(key))
    await kept.get(b"a", answer(b"x"))              # asked again: now the most recent
    await kept.get(b"d", answer(b"d"))              # b goes
    assert await kept.get(b"b", answer(b"B")) == b"B" * 100   # worked out again
    assert await kept.get(b"a", answer(b"x")) == b"a" * 100   # kept all along
    assert kept.nbytes <= kept.budget
    huge = KeptAnswers(budget=50)
    await huge.get(b"k", answer(b"h"))
    assert len(huge) == 0 and huge.nbytes == 0
