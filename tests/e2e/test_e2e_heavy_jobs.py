"""End to end: one user runs a long import, verify, replay and undo while another
user plays in another channel; the other user's commands are answered while the heavy jobs still run (how
fast is printed in the latency summary and measured by `pitboss bench --stall`, not judged here)."""

from __future__ import annotations

import asyncio
import sqlite3

from bot.cli.bench_stall import circling_log, export_of, store_running_game
from bot.storage.store import Store
from tests.e2e.fake_discord import FakeChannel, snowflake
from tests.e2e.test_e2e_discord import slash

LONG_LOG = 2000   # actions: seconds of work for each job, a /game status milliseconds
HEAVY_TIMEOUT = 300.0  # a bound on waiting for the heavy jobs themselves (normally a few seconds each)


async def _others_while(fake, pending: list[str], record_latency, asks: int) -> list:
    """Carol asks /game status in #channel `asks` times, 0.3 s apart, while `pending` interactions run."""
    exchanges = []
    for _ in range(asks):
        exchanges.append(await slash(fake, "carol", "channel", "game status"))
        await asyncio.sleep(0.3)
    for exchange in exchanges:
        record_latency("carol /game status during heavy jobs", exchange.latency)
    return exchanges


def _answered_at(exchange) -> float:
    """When the bot's last request for an interaction arrived (the fake's clock)."""
    return max(record.at for record in exchange.requests)


async def test_heavy_jobs_leave_other_channels_answered_while_they_run(fake, start_bot, tmp_path, record_latency):
    garage = FakeChannel("garage", snowflake(), 0, fake.guild_id)
    fake.channels["garage"] = garage
    alice, bob = fake.users["alice"].id, fake.users["bob"].id
    log = await asyncio.to_thread(circling_log, alice, bob, LONG_LOG)
    data = export_of(log, alice)
    db = tmp_path / "heavy.db"
    store = await Store.open(str(db))
    await store_running_game(store, garage.id, log, alice, guild=fake.guild_id)
    await store.close()
    start_bot(db=db)
    for line in ("new speedway", "game join"):
        assert (await slash(fake, "carol", "channel", line)).callback is not None

    # A long import: a re-play of LONG_LOG actions (the longest allowed is `pitboss bench --stall`'s).
    importing = await fake.send_slash("alice", "thread", "game import", {"file": ("long-game.json", data)})
    during_import = await _others_while(fake, [importing], record_latency, asks=4)
    imported = await fake.responses(importing, timeout=HEAVY_TIMEOUT)
    assert imported.followups and "re-played here" in imported.followups[-1].message["content"]

    # Then verify and the GIF on that game, and an undo that rebuilds the running game's whole log.
    undoer = "alice" if log[-2][0] == alice else "bob"
    heavy = [await fake.send_slash("alice", "thread", "game verify"),
             await fake.send_slash("alice", "thread", "game replay"),
             await fake.send_slash(undoer, "garage", "undo")]
    during_jobs = await _others_while(fake, heavy, record_latency, asks=6)
    answers = [await fake.responses(i, timeout=HEAVY_TIMEOUT) for i in heavy]
    verify, replay, undo = (" ".join(f.message.get("content") or "" for f in a.followups) for a in answers)
    assert "rebuilds the table exactly" in verify and "Dice seed revealed" in verify
    assert any(f.record.files and f.record.files[0].filename.endswith(".gif") for f in answers[1].followups)
    assert "actions" in replay
    assert "Undone" in undo or "cannot be undone" in undo, undo

    for exchange in during_import + during_jobs:
        assert exchange.callback is not None, exchange.describe()
        assert exchange.followups or exchange.requests, exchange.describe()  # and it was answered in full
    # carol's first question after the import, the verify and the GIF were sent was answered before they
    # were: they held no other channel (each takes seconds of work, a /game status milliseconds)
    assert _answered_at(during_import[0]) < _answered_at(imported), (during_import[0].describe(), imported.describe())
    for job in answers[:2]:
        assert _answered_at(during_jobs[0]) < _answered_at(job), (during_jobs[0].describe(), job.describe())
    with sqlite3.connect(db) as conn:
        (games,) = conn.execute("SELECT COUNT(*) FROM games").fetchone()
    assert games == 3  # the running game, the re-played one, carol's
