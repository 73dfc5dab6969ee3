"""Whole Speedway games through the service and the command line: computer seats, odds, a winner."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from rules.codec import decode_state
from rules.speedway.state import SpeedwayState
from tests.conftest import ROOT, run_pitboss


async def state_of(store, channel="chan-1") -> SpeedwayState:
    game = await store.active_game(channel) or await store.latest_game(channel)
    return decode_state(SpeedwayState, game.state)


async def test_computer_drivers_play_a_whole_game_through_the_service(table, store, service):
    await table("alice", "/game new ruleset:speedway seed:12 arena:duel rounds:40")
    assert (await table("alice", "/game add-ai car:brawler")).outcome == "applied"
    assert (await table("alice", "/game add-ai car:bruiser")).outcome == "applied"
    reply = await table("alice", "/game start")
    assert reply.outcome == "applied"
    game = await store.latest_game("chan-1")
    state = decode_state(SpeedwayState, game.state)
    assert game.status == "finished" and state.phase == "finished"
    assert "WINS" in reply.text or "draw" in reply.text, reply.text[-300:]
    records = await store.actions(game.id)
    assert {r.actor for r in records[3:]} <= {"ai-1", "ai-2"}, "every move after the start is the computers'"
    assert len(records) > 20
    assert await service.replay_matches(game)


async def test_a_person_plays_against_a_computer(table, store):
    await table("alice", "/game new ruleset:speedway seed:3 arena:duel")
    await table("alice", "/game join car:sniper")
    await table("alice", "/game add-ai car:torch")
    await table("alice", "/game start")
    state = await state_of(store)
    # Whoever went first, the computer has already played its turn when the reply comes back.
    assert state.deciding_player == "alice" and state.phase == "upkeep"
    speed = await table("alice", "/speed value:2")
    assert speed.outcome == "applied"
    for _ in range(3):
        state = await state_of(store)
        if state.deciding_player != "alice" or state.phase != "movement" or state.moves_left == 0:
            break
        assert (await table("alice", "/move maneuver:normal")).outcome == "applied"
    state = await state_of(store)
    if state.phase == "movement" and state.moves_left == 0:
        await table("alice", "/end")
    state = await state_of(store)
    assert state.deciding_player == "alice" or state.phase == "finished"
    assert state.round >= 1, "the computer's turn came and went in between"


async def test_add_ai_is_for_the_host(table):
    await table("alice", "/game new ruleset:speedway seed:1")
    reply = await table("bob", "/game add-ai")
    assert reply.outcome == "refused" and "host" in reply.text


async def test_odds_are_private_and_change_nothing(table, store, db_path):
    await table("alice", "/game new ruleset:speedway seed:4 arena:duel")
    await table("alice", "/game join car:brawler")
    await table("bob", "/game join car:sniper")
    await table("alice", "/game start")
    player = (await state_of(store)).active_player
    await table(player, "/speed value:3")
    with sqlite3.connect(db_path) as db:
        before = db.execute("SELECT version, state FROM games").fetchall()
    reply = await table(player, "/odds maneuver:turn-left")
    assert reply.outcome == "shown" and reply.ephemeral and reply.image is None
    assert "does not skid" in reply.text  # speed 3 < skid speed 5
    other = "bob" if player == "alice" else "alice"
    shot = await table(player, f"/odds weapon:front target:{other}")
    assert shot.outcome in ("shown", "refused")
    assert "to hit" in shot.text or "arc" in shot.text or "sight" in shot.text or "reaches" in shot.text
    with sqlite3.connect(db_path) as db:
        assert db.execute("SELECT version, state FROM games").fetchall() == before


def test_the_scripted_duel_reaches_a_winner(tmp_path):
    script = (ROOT / "examples" / "duel.txt").read_text()
    winner = re.search(r"^# winner: (\w+)", script, re.M).group(1)
    result = run_pitboss("play", "--db", str(tmp_path / "duel.db"), "--out", str(tmp_path / "maps"),
                         stdin=script, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "refused" not in result.stdout and "error:" not in result.stdout
    assert f"{winner} WINS: the last car running." in result.stdout
    assert f"Game over: {winner} wins." in result.stdout
    verify = run_pitboss("verify", "--db", str(tmp_path / "duel.db"), cwd=tmp_path)
    assert "0 mismatches" in verify.stdout
    maps = sorted(Path(tmp_path / "maps").glob("*.png"))
    assert len(maps) > 100


async def test_an_arena_seats_no_more_cars_than_it_has_starts(table, store):
    """The Duel Pit has four starting places: a fifth car is refused at the door, not at /game start."""
    await table("alice", "/game new ruleset:speedway arena:duel")
    for name in ("alice", "bob", "carol", "dave"):
        assert (await table(name, "/game join")).outcome == "applied"
    refused = await table("erin", "/game join")
    assert refused.outcome == "refused" and "The table is full (4 cars on Duel Pit)" in refused.text
    refused = await table("alice", "/game add-ai")
    assert refused.outcome == "refused"
    started = await table("alice", "/game start")
    assert started.outcome == "applied"
    assert len(decode_state(SpeedwayState, (await store.active_game("chan-1")).state).cars) == 4
