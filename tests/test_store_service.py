"""Storage and service: replay, refusals that write nothing, one game per channel, concurrency."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from dataclasses import replace

import pytest

from bot.storage.store import MIGRATED_BY_KEY, MIGRATIONS, NewerDatabase, Store, VersionConflict
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.version import VERSION
from rules.codec import decode_state, encode_state
from rules.speedway.state import SpeedwayState
from tests.conftest import ROOT, Table, run_pitboss

BACKENDS = ("sqlite", "postgres")


async def start_two_player_game(table, seed: int = 7):
    assert (await table("alice", f"/game new ruleset:speedway seed:{seed}")).outcome == "applied"
    assert (await table("alice", "/game join car:brawler")).outcome == "applied"
    assert (await table("bob", "/game join car:torch")).outcome == "applied"
    reply = await table("alice", "/game start")
    assert reply.outcome == "applied"
    return reply


async def snapshot_counts(store) -> tuple:
    """Every game's version, status and snapshot, and how many actions are logged: what a write changes."""
    games = await store.driver.fetchall("SELECT id, version, status, state FROM games ORDER BY id")
    actions = (await store.driver.fetchone("SELECT COUNT(*) FROM actions"))[0]
    return games, actions


async def active_player(store, channel="chan-1") -> str:
    game = await store.active_game(channel)
    return decode_state(SpeedwayState, game.state).active_player


async def test_replay_equals_snapshot(table, store, service):
    await start_two_player_game(table, seed=11)
    script = ["/speed value:3", "/move maneuver:normal", "/move maneuver:turn-left",
              "/move maneuver:sideslip-right"]
    for _round in range(4):
        for line in script:
            player = await active_player(store)
            reply = await table(player, line)
            if reply.outcome == "refused":
                # Out of control or a pending skid: answer what the game asks for.
                state = decode_state(SpeedwayState, (await store.active_game("chan-1")).state)
                follow = "/skid choice:resist" if state.phase == "skid" else "/move maneuver:slide"
                assert (await table(player, follow)).outcome == "applied"
    game = await store.active_game("chan-1")
    assert game.version > 12
    assert await service.replay_matches(game)
    assert decode_state(SpeedwayState, game.state).dice.counter > 0, "the script should have rolled dice"
    broken = replace(game, state=encode_state(replace(decode_state(SpeedwayState, game.state), round=99)))
    async with store.transaction():
        await store.driver.execute("UPDATE games SET state = ? WHERE id = ?", (broken.state, game.id))
    assert not await service.replay_matches(game)  # a snapshot its log does not rebuild is caught


async def test_refusals_write_nothing(table, store, db_path):
    await start_two_player_game(table)
    first = await active_player(store)
    other = "bob" if first == "alice" else "alice"
    before = await snapshot_counts(store)
    refused = [
        (other, "/speed value:2"),          # not their turn
        ("carol", "/speed value:2"),        # bystander
        (first, "/speed value:9"),          # beyond Engine
        (first, "/move maneuver:normal"),   # wrong phase: speed first
        ("carol", "/game start"),           # not the host; already started
        ("carol", "/game end"),             # not the host
        (first, "/skid choice:accept"),     # nothing to answer
    ]
    for user, line in refused:
        reply = await table(user, line)
        assert reply.outcome == "refused", line
        assert reply.ephemeral and reply.image is None
    assert await snapshot_counts(store) == before


async def test_one_active_game_per_channel(table, service, store):
    await table("alice", "/game new ruleset:speedway seed:1")
    again = await table("bob", "/game new ruleset:speedway")
    assert again.outcome == "refused" and "already has a game" in again.text
    other = Table(service, "chan-2")
    assert (await other("bob", "/game new ruleset:speedway")).outcome == "applied"
    assert (await store.active_game("chan-1")).host == "alice"
    assert (await store.active_game("chan-2")).host == "bob"


async def test_ended_game_frees_the_channel_and_is_kept(table, store):
    await start_two_player_game(table)
    assert (await table("carol", "/game end", admin=True)).outcome == "applied"
    assert await store.active_game("chan-1") is None
    kept = await store.latest_game("chan-1")
    assert kept.status == "finished" and kept.version == 4
    status = await table("carol", "/game status")
    assert status.outcome == "shown" and "Game over" in status.text
    assert (await table("alice", "/game new ruleset:speedway")).outcome == "applied"


async def test_no_game_refusal(table):
    reply = await table("alice", "/speed value:1")
    assert reply.outcome == "refused" and "/new speedway" in reply.text


@pytest.mark.sqlite_only
async def test_migrations_are_versioned_and_wal(db_path):
    latest = len(MIGRATIONS)
    first = await Store.open(db_path)
    assert await first.schema_version() == latest
    await first.close()
    again = await Store.open(db_path)  # re-running migrations is a no-op
    assert await again.schema_version() == latest
    await again.close()
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0] == latest


async def test_compare_and_swap_rejects_a_stale_version(table, store):
    await table("alice", "/game new ruleset:speedway seed:3")
    stale = await store.active_game("chan-1")
    await table("alice", "/game join")
    with pytest.raises(VersionConflict):
        async with store.transaction():
            await store.append_action_tx(stale, "x", "{}", "[]", stale.state, "active")
    assert (await store.active_game("chan-1")).version == 1
    assert len(await store.actions(stale.id)) == 1


@pytest.mark.slow
async def test_database_reopened_by_a_new_process_continues(table, store, db_path, tmp_path):
    await start_two_player_game(table)
    player = await active_player(store)
    await store.close()
    result = run_pitboss("exec", "--db", db_path, "--channel", "chan-1", "--user", player,
                         "/speed value:2", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    reopened = await Store.open(db_path)
    game = await reopened.active_game("chan-1")
    state = decode_state(SpeedwayState, game.state)
    assert game.version == 4 and state.phase == "movement" and state.car(state.active_car).speed == 2
    await reopened.close()


def _parallel(db_path, cwd, commands):
    """Start every (user, command) as its own process at once; return their results."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-m", "bot", "exec", "--db", db_path, "--channel", "chan-1",
                               "--user", user, *line.split()], cwd=cwd, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for user, line in commands]
    return [(p.wait(timeout=120), p.stdout.read() + p.stderr.read()) for p in procs]


@pytest.mark.slow
async def test_parallel_processes_lose_no_update(table, store, db_path, tmp_path):
    await table("host", "/game new ruleset:speedway seed:5")
    await store.close()
    joins = _parallel(db_path, tmp_path, [(f"p{i}", "/game join") for i in range(8)])
    assert sorted(code for code, _ in joins) == [0] * 6 + [1] * 2, joins  # six seats
    assert all("locked" not in out for _, out in joins)
    reopened = await Store.open(db_path)
    game = await reopened.active_game("chan-1")
    state = decode_state(SpeedwayState, game.state)
    assert game.version == 6 and len(state.players) == 6
    assert len(await reopened.actions(game.id)) == 6
    await reopened.close()

    start = run_pitboss("exec", "--db", db_path, "--channel", "chan-1", "--user", "host", "/game", "start")
    assert start.returncode == 0, start.stdout + start.stderr
    reopened = await Store.open(db_path)
    first = decode_state(SpeedwayState, (await reopened.active_game("chan-1")).state).active_player
    await reopened.close()
    # Eight copies of the same legal action race: exactly one lands, the rest are refused cleanly.
    speeds = _parallel(db_path, tmp_path, [(first, "/speed value:2")] * 8)
    assert sorted(code for code, _ in speeds) == [0] + [1] * 7, speeds
    assert all("locked" not in out and "Traceback" not in out for _, out in speeds)
    reopened = await Store.open(db_path)
    game = await reopened.active_game("chan-1")
    assert game.version == 8 and len(await reopened.actions(game.id)) == 8
    await reopened.close()


@pytest.mark.sqlite_only
async def test_an_older_database_is_upgraded_in_place(db_path, monkeypatch):
    import bot.storage.store as store_module

    monkeypatch.setattr(store_module, "MIGRATIONS", MIGRATIONS[:2])
    old = await Store.open(db_path)  # a database as the previous release left it
    await old.driver.execute("INSERT INTO games (channel, ruleset, status, host, seed, options, version, state,"
                          " created_at, updated_at) VALUES ('chan-9', 'speedway', 'active', 'alice', 5, '{}', 0,"
                          " '{}', 'now', 'now')")
    await old.close()
    monkeypatch.setattr(store_module, "MIGRATIONS", MIGRATIONS)
    new = await Store.open(db_path)
    try:
        assert await new.schema_version() == len(MIGRATIONS)
        game = await new.active_game("chan-9")
        assert game.host == "alice" and game.guild == "" and game.settings == "{}"
    finally:
        await new.close()


async def test_a_database_written_by_a_newer_pitboss_is_refused_at_open(table, store, db_path):
    await start_two_player_game(table)
    later = len(MIGRATIONS) + 1
    await store.driver.execute("INSERT INTO schema_migrations VALUES (?, ?)", (later, "later"))
    before = await snapshot_counts(store)
    with pytest.raises(NewerDatabase) as refused:
        await Store.open(db_path)
    assert f"schema version {later}" in str(refused.value) and f"up to {len(MIGRATIONS)}" in str(refused.value)
    assert await snapshot_counts(store) == before


async def test_a_migration_records_the_pitboss_release_and_a_newer_one_is_named_when_refused(table, store, db_path):
    """The database records the release that last migrated it; one a later release migrated is refused
    by name, so the operator knows which Pitboss to run."""
    assert await store.migrated_by() == VERSION
    await start_two_player_game(table)
    await store.driver.execute("INSERT INTO schema_migrations VALUES (?, ?)", (len(MIGRATIONS) + 1, "later"))
    await store.set_meta(MIGRATED_BY_KEY, "9.4.2")
    with pytest.raises(NewerDatabase) as refused:
        await Store.open(db_path)
    assert refused.value.written_by == "9.4.2"
    assert "written by Pitboss 9.4.2" in str(refused.value) and f"this Pitboss {VERSION}" in str(refused.value)


async def test_a_current_database_is_not_written_on_open(store, db_path):
    """Opening a database that needs no migration leaves the recorded release alone (a read-only file opens)."""
    await store.set_meta(MIGRATED_BY_KEY, "0.0.9")   # as if an older release had migrated it last
    again = await Store.open(db_path)
    try:
        assert await again.migrated_by() == "0.0.9"
    finally:
        await again.close()


@pytest.mark.slow
@pytest.mark.sqlite_only
def test_every_command_refuses_a_newer_database_in_one_line(db_path, tmp_path):
    connection = sqlite3.connect(db_path)
    connection.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
    connection.executemany("INSERT INTO schema_migrations VALUES (?, 'then')",
                           [(v,) for v in range(1, len(MIGRATIONS) + 3)])
    connection.commit()
    connection.close()
    found = f"schema version {len(MIGRATIONS) + 2}"
    for args in (("exec", "--db", db_path, "--channel", "c", "--user", "alice", "/game status"),
                 ("verify", "--db", db_path), ("tick", "--db", db_path), ("play", "--db", db_path),
                 ("backup", "--db", db_path, str(tmp_path / "copy.db")), ("run", "--db", db_path)):
        result = run_pitboss(*args, cwd=tmp_path, stdin="", env={"DISCORD_TOKEN": "x"})
        assert result.returncode == 1, (args, result.stdout, result.stderr)
        assert found in result.stderr and "newer Pitboss" in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stdout + result.stderr, args
    assert sqlite3.connect(db_path).execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'games'").fetchone() \
        == (0,)


# --- one delivery, one change ----------------------------------------------------------------------

async def test_a_command_delivered_twice_is_carried_out_once(table, store, service, db_path):
    await start_two_player_game(table)
    player = await active_player(store)
    who = Actor(player, player)
    first = await service.execute("chan-1", who, parse("/speed value:2"), delivery="interaction-1")
    assert first.outcome == "applied"
    before = await snapshot_counts(store)
    again = await service.execute("chan-1", who, parse("/speed value:2"), delivery="interaction-1")
    assert again.outcome == "refused" and again.ephemeral and "already carried out" in again.text
    assert await snapshot_counts(store) == before
    # A new delivery of the same words is a new command (here, refused by the rules: speed is set).
    other = await service.execute("chan-1", who, parse("/move maneuver:normal"), delivery="interaction-2")
    assert other.outcome == "applied"


async def test_an_undo_delivered_twice_takes_back_one_action(table, store, service, db_path):
    await start_two_player_game(table)
    player = await active_player(store)
    who = Actor(player, player)
    for line in ("/speed value:2", "/move maneuver:normal"):
        assert (await service.execute("chan-1", who, parse(line))).outcome == "applied"
    assert (await service.execute("chan-1", who, parse("/undo"), delivery="undo-1")).outcome == "applied"
    after_one = await snapshot_counts(store)
    twice = await service.execute("chan-1", who, parse("/undo"), delivery="undo-1")
    assert twice.outcome == "refused" and await snapshot_counts(store) == after_one


async def test_a_refused_delivery_can_be_retried_and_a_plan_claims_once(table, store, service):
    await start_two_player_game(table)
    player = await active_player(store)
    who = Actor(player, player)
    refused = await service.execute("chan-1", who, parse("/speed value:9"), delivery="d-1")
    assert refused.outcome == "refused" and "already" not in refused.text  # nothing claimed
    assert (await service.execute("chan-1", who, parse("/speed value:2"), delivery="d-1")).outcome == "applied"
    version = (await store.active_game("chan-1")).version
    plan = await service.execute("chan-1", who, parse("/move plan:normal,normal"), delivery="d-2")
    assert plan.outcome == "applied" and (await store.active_game("chan-1")).version == version + 2


def test_the_recent_events_window_follows_writes_and_drops_what_it_missed():
    from bot.table.service.recent import RECENT_ACTIONS, RecentEvents

    recent = RecentEvents()
    assert recent.get(1, 5) is None
    recent.put(1, 5, [("a",), ("b",)])
    recent.add(1, 6, ("c",))
    assert recent.get(1, 6) == [("a",), ("b",), ("c",)] and recent.get(1, 5) is None
    recent.add(1, 8, ("e",))                        # a write this process did not see: forgotten
    assert recent.get(1, 8) is None and recent.get(1, 6) is None
    recent.put(2, 1, [(n,) for n in range(RECENT_ACTIONS + 5)])
    assert len(recent.get(2, 1)) == RECENT_ACTIONS and recent.get(2, 1)[0] == (5,)
