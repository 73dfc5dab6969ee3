"""`pitboss health` (Docker's HEALTHCHECK) and the start-up check of the database folder."""

from __future__ import annotations

import json
import os
import time

import pytest

from bot.cli import checks
from bot.cli.checks import health, unwritable_database
from bot.heartbeat import BEAT_SECONDS, HEARTBEAT_ENV, MISSED_BEATS, heartbeat_problem, write_heartbeat
from bot.storage.store import Store


@pytest.fixture
async def database(tmp_path) -> str:
    path = str(tmp_path / "pitboss.db")
    store = await Store.open(path)
    await store.close()
    return path


def test_a_fresh_connected_heartbeat_is_healthy_and_anything_else_is_not(tmp_path):
    beat = tmp_path / "beat.json"
    assert "not running" in heartbeat_problem(beat)
    write_heartbeat(beat, connected=True)
    assert heartbeat_problem(beat) is None and json.loads(beat.read_text())["pid"] == os.getpid()
    assert "old" in heartbeat_problem(beat, now=time.time() + MISSED_BEATS * BEAT_SECONDS + 1)   # stopped beating
    write_heartbeat(beat, connected=False)
    assert heartbeat_problem(beat) == "the bot is not connected to Discord"
    beat.write_text("{half")
    assert "cannot be read" in heartbeat_problem(beat)
    assert [p.name for p in tmp_path.iterdir()] == ["beat.json"]   # written in one step, nothing left beside


def test_health_needs_the_heartbeat_and_the_database(tmp_path, database, monkeypatch, capsys):
    beat = tmp_path / "beat.json"
    monkeypatch.delenv(HEARTBEAT_ENV, raising=False)
    assert health(database) == 1 and HEARTBEAT_ENV in capsys.readouterr().err
    monkeypatch.setenv(HEARTBEAT_ENV, str(beat))
    write_heartbeat(beat, connected=True)
    assert health(database) == 0 and "healthy" in capsys.readouterr().out
    write_heartbeat(beat, connected=False)
    assert health(database) == 1 and "not connected" in capsys.readouterr().err
    write_heartbeat(beat, connected=True)
    missing = str(tmp_path / "gone" / "pitboss.db")
    assert health(missing) == 1 and f"no database at {missing}" in capsys.readouterr().err
    assert not os.path.exists(missing)   # never created by the check


def test_an_unreachable_postgresql_is_unhealthy_and_its_password_is_not_shown(tmp_path, monkeypatch, capsys):
    beat = tmp_path / "beat.json"
    monkeypatch.setenv(HEARTBEAT_ENV, str(beat))
    monkeypatch.setattr(checks, "DATABASE_SECONDS", 5.0)
    write_heartbeat(beat, connected=True)
    assert health("postgresql://pitboss:s3cret-pw@127.0.0.1:1/pitboss") == 1
    err = capsys.readouterr().err
    assert "cannot be opened" in err and "s3cret-pw" not in err


def test_a_database_folder_the_user_cannot_write_is_named_with_the_user_id(tmp_path, monkeypatch):
    target = str(tmp_path / "data" / "pitboss.db")
    assert "does not exist" in unwritable_database(target)
    os.mkdir(tmp_path / "data")
    assert unwritable_database(target) is None
    monkeypatch.setattr(os, "access", lambda path, mode: False)   # a bind mount owned by another user
    problem = unwritable_database(target)
    ids = f"{os.getuid()}:{os.getgid()}"
    assert f"user {ids} cannot write the folder {tmp_path / 'data'}" in problem and f"chown -R {ids}" in problem
    assert unwritable_database("postgresql://u:p@db/pitboss") is None
