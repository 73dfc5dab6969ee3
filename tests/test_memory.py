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
    """setup_hook, which discord.py runs once at start-up, settles the memory after opening the store."""
    from bot.chat import adapter

    settled = []
    monkeypatch.setattr(adapter, "settle_memory", lambda: settled.append(True))
    client = adapter.PitbossClient(str(tmp_path / "bot.db"), sync_commands=False)
    monkeypatch.setattr(client, "start_scheduler", lambda: None)
    try:
        await client.setup_hook()
        assert settled == [True] and client.service is not None
    finally:
        await client.store.close()
