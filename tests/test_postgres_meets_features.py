"""The PostgreSQL backend meeting the newest features: what SQLite serialises by its one writer at a time
(BEGIN IMMEDIATE) PostgreSQL runs side by side under READ COMMITTED, guarded only by the channel's advisory lock
and the version compare-and-swap. Each test here drives the service (or two, as two bots on one database) on
PostgreSQL; the same steps on SQLite give the right answer, but where a test says it fails on both."""

from __future__ import annotations

import asyncio
import contextlib

import asyncpg
import pytest

from bot.storage.store import Store
from bot.table.protocol.commands import Command, parse
from bot.table.protocol.replies import Actor
from bot.table.service import relocation
from bot.table.service.entry import GameService
from rules.registry import get_ruleset
from tests.test_grace_and_bank import duel

ON_POSTGRES = pytest.mark.parametrize("db_backend", ["postgres"])


async def run(service: GameService, user: str, line: str, channel: str):
    return await service.execute(channel, Actor(user, user), parse(line), guild="g1")


async def speedway_started(service: GameService, channel: str) -> None:
    for user, line in (("ann", "/game new ruleset:speedway seed:5"), ("ann", "/game join car:brawler"),
                       ("ben", "/game join car:brawler"), ("ann", "/game start")):
        assert (await run(service, user, line, channel)).outcome == "applied", line


async def waiting_on_a_lock(url: str, timeout: float = 20.0) -> None:
    """Until some session of the database waits on a lock another holds (a row or an advisory lock)."""
    conn = await asyncpg.connect(url)
    try:
        deadline = asyncio.get_running_loop().time() + timeout
        while not await conn.fetchval("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                                      " AND wait_event_type = 'Lock'"):
            assert asyncio.get_running_loop().time() < deadline, "nobody came to wait on the lock"
            await asyncio.sleep(0.02)
    finally:
        await conn.close()


@ON_POSTGRES
async def test_a_move_made_while_a_player_acts_in_the_old_channel_never_forks_the_game(db_path, monkeypatch):
    """A game moved by its export while a player moves in its old channel runs on in BOTH channels (forked)."""
    store = await Store.open(db_path)
    service = GameService(store, render=None)
    try:
        await speedway_started(service, "before")
        mover = (await run(service, "ann", "/game status", "before")).waiting_on[0]
        exported = await run(service, "ann", "/game export", "before")
        # the move's write is held open right after the old record was retired and copied (a slow moment of
        # the server), while the player's move in the old channel comes in
        inside, release = asyncio.Event(), asyncio.Event()
        carried = relocation.carry_listing_tx

        async def held(store_, source_id, game_id, **kw):
            await carried(store_, source_id, game_id, **kw)
            inside.set()
            await release.wait()
        monkeypatch.setattr(relocation, "carry_listing_tx", held)
        moving = asyncio.create_task(service.execute("after", Actor("ann", "ann"),
                                                     Command("game import", {"file": exported.files[0].data}),
                                                     guild="g1"))
        await asyncio.wait_for(inside.wait(), 20)
        acting = asyncio.create_task(run(service, mover, "/speed value:0", "before"))
        await waiting_on_a_lock(db_path)   # the player's write waits for the move's
        release.set()
        moved, acted = await asyncio.gather(moving, acting)
        assert moved.outcome == "applied", moved.text
        running = [channel for channel in ("before", "after") if await store.active_game(channel) is not None]
        # SQLite: the move's write goes first whole, and the player is told the game moved ("no game here")
        assert running == ["after"], (running, acted.outcome, acted.text)
    finally:
        with contextlib.suppress(Exception):
            release.set()
        await store.close()


@pytest.mark.parametrize("db_backend", ["postgres", "sqlite"])   # not PostgreSQL's alone: fails on both
async def test_a_deadline_claimed_as_the_game_moves_leaves_the_moved_game_a_deadline(store):
    """A game moved between a deadline's claim and its firing waits on its player forever, with no deadline."""
    service, clock, table = await duel(store, "/game settings deadline_hours:6")
    exported = await table("alice", "/game export")
    clock.advance(7)
    claimed = await store.claim_due(clock())   # the scheduler's claim: alice's deadline (and reminder) taken
    assert ("deadline", "alice") in [(kind, timer.player) for kind, timer in claimed]
    moved = await service.execute("after", Actor("alice", "alice"),
                                  Command("game import", {"file": exported.files[0].data}), guild="g1")
    assert moved.outcome == "applied", moved.text
    await service.send_claimed(claimed)   # the claim is carried out: the game is no longer in chan-1
    game = await store.active_game("after")
    assert "alice" in get_ruleset(game.ruleset).people_waited_on(get_ruleset(game.ruleset).load_state(game.state))
    timers = {t.player: t for t in await store.timers(game.id)}
    clock.advance(48)
    played = [(n.channel, n.reply.text) for n in await service.run_due()]
    assert any(channel == "after" and "alice's deadline passed" in text for channel, text in played), \
        (timers["alice"], played)   # the claim came over with the game and is taken again there
