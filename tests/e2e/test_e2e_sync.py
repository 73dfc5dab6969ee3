"""Command sync across applications: a database reused under another Discord application (a staging bot
restored from production's backup) syncs there, an unchanged restart does not, and `--sync` forces one."""

from __future__ import annotations

from tests.e2e.conftest import BotProcess
from tests.e2e.fake_discord import STARVED_MACHINE_DEADLINE, FakeDiscord


def test_a_database_reused_under_another_application_syncs_its_commands(fake, tmp_path):
    db = tmp_path / "shared.db"
    production = BotProcess(fake, tmp_path / "production", db=db)
    staging_discord = FakeDiscord(deadline=STARVED_MACHINE_DEADLINE).start()
    staging = BotProcess(staging_discord, tmp_path / "staging", db=db)
    try:
        production.start()   # waits until the commands are synced
        production.stop()
        assert len(fake.command_puts()) == 1
        # The same database, another application: the stored "unchanged" digest was production's.
        staging.start()
        (put,) = staging_discord.command_puts()
        assert put.path == f"/applications/{staging_discord.app_id}/commands"
        assert {c["name"] for c in staging_discord.synced_commands()} >= {"game", "help"}
        # Unchanged for this application: a restart does not sync again; --sync forces it.
        staging.restart()
        assert len(staging_discord.command_puts()) == 1
        staging.stop()
        staging.extra_args = ["--sync"]
        staging.start()
        assert len(staging_discord.command_puts()) == 2
    finally:
        for bot in (production, staging):
            bot.stop()
            print(bot.log_tail(80))
        staging_discord.stop()
