"""The bot settles its memory after start-up: start-up objects are frozen out of the collector's way."""

from __future__ import annotations

import gc

from bot.table.jobs.memory import settle_memory


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
