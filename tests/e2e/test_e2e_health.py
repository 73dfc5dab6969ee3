"""`pitboss health` against a real `pitboss run`: healthy while it is connected, unhealthy once it stops beating."""

from __future__ import annotations

import time

from tests.conftest import run_pitboss


def test_health_follows_the_running_bot(start_bot, tmp_path):
    beat = tmp_path / "heartbeat.json"
    env = {"PITBOSS_HEARTBEAT": str(beat), "PITBOSS_HEARTBEAT_SECONDS": "0.5"}   # stale after 3 s
    bot = start_bot(env=env)
    deadline = time.monotonic() + 20
    while (checked := run_pitboss("health", "--db", str(bot.db), env=env, cwd=tmp_path)).returncode != 0:
        assert time.monotonic() < deadline, checked.stderr + bot.log_tail()
        time.sleep(0.2)
    assert "healthy: connected to Discord" in checked.stdout
    bot.stop()   # killed: its last heartbeat said connected, and goes stale
    time.sleep(3.5)
    stopped = run_pitboss("health", "--db", str(bot.db), env=env, cwd=tmp_path)
    assert stopped.returncode == 1 and "the bot is stuck or stopped" in stopped.stderr, stopped.stderr
