"""Databases made by earlier releases load, verify and play on with today's code (tests/fixtures)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import time
from datetime import UTC, datetime

import pytest

from bot.storage.store import Store
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from rules.codec import decode_state
from rules.registry import get_ruleset
from rules.table import TablePhase
from tests.conftest import ROOT, run_cli, run_pitboss
from tests.test_scheduler import Clock

# stop 8 (schema 5), stop 9 (schema 6, rules revision 2), issue 11 (schema 7, snapshots still holding the
# last action's words, roll and shot), issue 13's start (rules revision 3, a Junkyard game): each with
# its count of stored games; issue 14's first landing (a Battlecars game, rules revision 1); issue 16's landing
# (secrets in flight: a half-declared Battlecars turn after a takeover, a GM's changed DC, timers running).
# Issue 24's restructuring (schema 8: turn messages without their words; Race revision 2). Stop 33 (schema 9:
# turn messages with their words), the last before players' own settings (schema 10). Stop 34 (schema 12:
# settings, standing orders, followers, seats that changed hands), the last before rollbacks and GM threads.
# 602805d's rollbacks (a Track rollback logged before it dealt anew; tests/fixtures/make_rollback_db.py).
# Stop 36, release 0.2.0 (schema 15, made with git 68207b8): the last before Battlecars' and Track's rules
# revision 4 and games as classes. Release 0.5.0 (schema 19, made with git 6f285a9): the last before the league
# (ratings, open tables, queues, tournaments: migrations 20-23). Release 0.6.0 (schema 25, made with git 17fe248):
# the same games and the league as it stored it: rated Track races, rank roles, an open table, a queue with a
# muster gathering, a tournament whose final is open and a season whose second pairings run.
FIXTURES = {"release8.db": 5, "release9.db": 5, "release11.db": 6, "release12.db": 7, "release13.db": 8,
            "release21.db": 11, "release30.db": 11, "release33.db": 11, "release34.db": 13,
            "rollbacks602805d.db": 2, "release36.db": 13, "release38.db": 13, "release50.db": 13,
            "release60.db": 30}


@pytest.fixture(params=FIXTURES)
def old_database(request, tmp_path) -> str:
    path = tmp_path / request.param
    shutil.copyfile(ROOT / "tests" / "fixtures" / request.param, path)
    return str(path)


async def test_every_stored_game_verifies_and_the_running_ones_play_on(old_database):
    store = await Store.open(old_database)
    try:
        service = GameService(store, render=None)
        games = await store.all_games()
        assert len(games) == FIXTURES[os.path.basename(old_database)]
        for game in games:
            assert await service.replay_matches(game), (game.id, game.channel)
        for game in [g for g in games if g.status == "active"]:
            ruleset = get_ruleset(game.ruleset)
            state = decode_state(ruleset.state_type, game.state)
            if state.phase == TablePhase.LOBBY:   # release60's open table and muster: tested below
                continue
            player = ruleset.acting_players(state)[0]
            command = ruleset.legal_actions(state, player)[0].command
            reply = await service.execute(game.channel, Actor(player, player), parse(command), guild="guild-1")
            assert reply.outcome == "applied", (game.channel, command, reply.text)
            assert await service.replay_matches(await store.active_game(game.channel))
    finally:
        await store.close()


NOON_AFTER_RELEASE34 = datetime(2026, 12, 4, 12, 0, tzinfo=UTC).timestamp()


async def test_a_game_stored_before_rollbacks_rolls_back_and_verifies(tmp_path):
    """A game made by the code before rollbacks (release34.db) votes itself back, plays on and verifies;
    its settings, orders and follower are still read."""
    path = tmp_path / "release34.db"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "release34.db", path)
    store = await Store.open(str(path))
    try:
        # 13:00 in Paris, three hours after the fixture was made: outside oli's away hours (23-7 there), which hold
        # the ping (the test failed from 22:00 to 06:00 UTC)
        service = GameService(store, render=None, clock=lambda: NOON_AFTER_RELEASE34)
        game = await store.active_game("chan-seats")
        assert await store.standing_orders(game.id) and await store.followers(game.id) == [("quin", "round")]
        count = await store.action_count(game.id)
        asked = await service.execute("chan-seats", Actor("rae", "rae"), parse(f"/game rollback to:{count - 3}"),
                                      guild="guild-1")
        assert asked.mentions == ("oli",), asked.text   # the computer plays oli's seat for oli, who still votes
        rolled = await service.execute("chan-seats", Actor("oli", "oli"), parse("/game rollback vote:yes"),
                                       guild="guild-1")
        assert rolled.outcome == "applied" and "The table voted to roll back" in rolled.text, rolled.text
        game = await store.active_game("chan-seats")
        assert get_ruleset("speedway").load_state(game.state).dice.branch == 1
        assert await service.replay_matches(game)
    finally:
        await store.close()


RATED60 = 13   # release60.db's finished games a rebuild counts


async def ratings_rows(path) -> dict:
    store = await Store.open(str(path))
    try:
        rows = await store.driver.fetchall("SELECT guild, ruleset, member, mu, sigma, games FROM ratings")
    finally:
        await store.close()
    return {(guild, kind, member): (mu, sigma, games) for guild, kind, member, mu, sigma, games in rows}


def test_the_ratings_stored_by_release_0_6_0_are_what_a_rebuild_gives(tmp_path):
    path = tmp_path / "release60.db"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "release60.db", path)
    stored = asyncio.run(ratings_rows(path))
    assert {m for _g, _k, m in stored} == {"ann", "ben", "cat", "dan"}
    rebuilt = run_cli("ratings", "--rebuild", "--db", str(path), cwd=tmp_path)
    assert rebuilt.returncode == 0 and f"ratings rebuilt from {RATED60} finished games" in rebuilt.stdout, rebuilt
    assert asyncio.run(ratings_rows(path)) == stored


# What 0.6.0 (17fe248) itself answered on release60.db.
STANDINGS60 = ("1. ann: rating 13.2; 5 won of 5 (100%), 0 drawn\n2. cat: rating 2.2; 2 won of 5 (40%), 0 drawn\n"
               "3. ben: rating -1.5?; 1 won of 4 (25%), 0 drawn\n4. dan: rating -3.4?; 0 won of 2 (0%), 0 drawn")
COURSE60 = "Round 1: ann v dan: result ann=dan.\nRound 1: ben v cat: result ben=cat.\nRound 2: ann v ben: game 26."
SEASON60 = "Games running: 2:\nann v cat in chan-season-s3\nben v dan in chan-season-s4\nGames played to their end: 2."


async def test_the_league_stored_by_release_0_6_0_reads_as_stored_and_plays_on(tmp_path):
    """release60.db: /standings, /stats, /league roles, /lfg, /queue show, /tournament show and /league show answer
    as 0.6.0 did, and the league plays on: the muster starts its game, the scheduler's round ends the tournament
    with its final and pairs the season again."""
    from bot.storage import seasons, tournaments
    from bot.table.league import tournament as course

    path = tmp_path / "release60.db"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "release60.db", path)
    store = await Store.open(str(path))
    try:
        made = datetime.fromisoformat((await store.driver.fetchone("SELECT MAX(updated_at) FROM games"))[0])
        service = GameService(store, render=None, clock=Clock(made.timestamp() + 60))   # nothing fell due since

        async def run(channel, user, line, admin=False):
            return await service.execute(channel, Actor(user, user, admin), parse(line), guild="guild-1")

        standings = (await run("chan-x", "zed", "/standings ruleset:track")).text
        assert STANDINGS60 in standings, standings
        stats = (await run("chan-x", "zed", "/stats player:ann ruleset:track")).text
        assert "5 games, 5 won, 0 drawn" in stats and "rating 13.2 (μ 34.8, σ 7.2) (5 rated games)" in stats, stats

        roles = (await run("chan-x", "zed", "/league roles ruleset:track")).text
        assert "on (turned on by boss in chan-hall)" in roles and "Champion: ann\nTrack Top 3: cat" in roles, roles
        (kind,) = (await service.rank_roles.plan("guild-1")).kinds
        assert kind.role_ids == {"champion": "role-1", "top3": "role-2", "top10": "role-3"}
        assert kind.to_make == () and kind.changes == ()   # the holders 0.6.0 stored are the ratings' tiers

        listed = await run("chan-x", "zed", "/lfg")
        assert "**Speedway** (arena:duel) · 1/4 seats · host eve · in chan-lfg" in listed.text, listed.text
        (join,) = listed.buttons
        joined = await service.press("chan-x", Actor("zed", "zed"), join.custom_id, guild="guild-1")
        assert "You joined the Speedway game in chan-lfg" in joined.text, joined.text

        waiting = (await run("chan-hall", "hal", "/queue show")).text
        assert "Speedway, 2 players, arena:duel: 1 of 2 wait" in waiting and "0 queued games hold" in waiting, waiting
        assert "1 queued game holds you" in (await run("chan-hall", "gus", "/queue show")).text
        started = await run("chan-hall-queue1", "gus", "/queue confirm")
        assert "Every seat is taken: the game starts." in started.text, started.text
        assert await service.replay_matches(await store.active_game("chan-hall-queue1"))

        assert COURSE60 in (await run("chan-cup", "zed", "/tournament show")).text
        (cup,) = await tournaments.of_guild(store, "guild-1")
        (final,) = [t for t in course.load(cup.course).tables if t.game_id and t.order is None]
        channel = (await store.game(final.game_id)).channel
        for member in final.members:
            await run(channel, member, "/game seat computer")
        told = [n.reply.text for n in await service.run_due()]
        assert any("is over" in text and "Final table" in text for text in told), told
        assert course.load((await tournaments.get(store, cup.id)).course).status == "finished"

        assert SEASON60 in (await run("chan-season", "zed", "/league show")).text
        (season,) = await seasons.of_guild(store, "guild-1")
        for game in await seasons.games(store, season.id):
            record = await store.game(game.game_id)
            if record.status == "active":
                for member in game.members:
                    await run(record.channel, member, "/game seat computer")
        told = [n.reply.text for n in await service.run_due()]
        assert any("Season 1, paired:" in text for text in told), told
    finally:
        await store.close()


@pytest.mark.slow
def test_pitboss_verify_passes_on_an_old_database(old_database, tmp_path):
    result = run_pitboss("verify", "--db", old_database, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    count = FIXTURES[os.path.basename(old_database)]
    assert f"{count} games checked, 0 mismatches" in result.stdout


@pytest.fixture
async def release11(tmp_path):
    """The database issue 11's code left: snapshot schema 1, the last action's words, roll and shot in it."""
    path = tmp_path / "release11.db"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "release11.db", path)
    store = await Store.open(str(path))
    yield store
    await store.close()


async def test_an_old_snapshot_is_read_through_its_upgrade_and_rewritten_today_only_when_played_on(release11):
    store = release11
    game = await store.active_game("chan-shot")
    assert json.loads(game.state)["schema"] == 1
    assert {"last_action", "last_roll", "last_shot"} <= set(json.loads(game.state)["state"])
    ruleset = get_ruleset("speedway")
    state = ruleset.load_state(game.state)
    service = GameService(store, render=None)
    assert await service.replay_matches(game)
    player = ruleset.acting_players(state)[0]
    reply = await service.execute("chan-shot", Actor(player, player),
                                  parse(ruleset.legal_actions(state, player)[0].command), guild="guild-1")
    assert reply.outcome == "applied", reply.text
    written = json.loads((await store.active_game("chan-shot")).state)
    assert written["schema"] == 2 and not {"last_action", "last_roll", "last_shot"} & set(written["state"])
    assert await service.replay_matches(await store.active_game("chan-shot"))


async def test_an_old_games_picture_still_shows_its_last_shot_and_words(release11):
    """The last record of chan-shot is a shot logged before events carried car ids: the picture draws
    it from the logged events (cars found by name) and the status text says what happened."""
    from images import render
    from images.speedway import map_band
    from images.speedway.last_turn import last_roll, last_shot

    store = release11
    game = await store.active_game("chan-shot")
    (record,) = await store.recent_actions(game.id, 1)
    assert '"car_id"' not in record.events and '"WeaponFired"' in record.events
    pictures = []

    def recording(ruleset: str, view, last: tuple, turn: tuple) -> bytes:
        pictures.append((last, turn))
        return render(ruleset, view, last, turn)

    service = GameService(store, render=recording)
    host = game.host
    reply = await service.execute("chan-shot", Actor(host, host), parse("/game status"), guild="guild-1")
    ((last, turn),) = pictures
    stored = json.loads(game.state)["state"]
    # the same words the old state held, the damage dice told as today: each face with what it strikes
    from rules.speedway.events import FACE_NAMES

    def faces_named(dice: re.Match) -> str:
        return ", ".join(f"{colour} {face} ({FACE_NAMES[face]})"
                         for colour, face in re.findall(r"(\w+)\[(.)\]", dice.group(0)))
    said = re.sub(r"\w+\[.\](?: \w+\[.\])*", faces_named, stored["last_action"])
    assert f"Last: {said}" in reply.text
    ruleset = get_ruleset("speedway")
    view = ruleset.view(ruleset.load_state(game.state), None)
    assert map_band(view, last).tobytes() != map_band(view, ()).tobytes()
    # What the old code stored for the picture, the events give back: the same shot and the same roll.
    shot, roll = last_shot(view, last), last_roll(last)
    old_shot, old_roll = stored["last_shot"], stored["last_roll"]
    assert (list(shot.from_hex), list(shot.to_hex), shot.hit, shot.firer.id) == \
        (old_shot["from_hex"], old_shot["to_hex"], old_shot["hit"], old_shot["firer"])
    assert (list(roll.faces), roll.total, roll.target, roll.success) == \
        (old_roll["faces"], old_roll["total"], old_roll["target"], old_roll["success"])
    assert reply.image == render("speedway", view, last, turn)
    assert reply.alt_text.startswith(f"Last: {stored['last_action'][:100]}")


async def test_rewording_every_event_leaves_every_stored_game_verifying(release11, monkeypatch):
    """The words are drawn from the events when shown, never stored: a reworded event changes no snapshot."""
    for ruleset_id in ("speedway", "track"):
        for event_class in get_ruleset(ruleset_id).events.classes():
            monkeypatch.setattr(event_class, "describe", lambda self: "reworded.")
    service = GameService(release11, render=None)
    for game in await release11.all_games():
        assert await service.replay_matches(game), game.channel
    reply = await service.execute("chan-track", Actor("carol", "carol"), parse("/game status"), guild="guild-1")
    assert "Last: reworded." in reply.text


def test_snapshot_upgrades_run_from_the_stored_schema_and_refuse_unknown_ones():
    from rules.codec import (
        SCHEMA_VERSION,
        CodecError,
        decode_state,
        normalised_snapshot,
        upgraded_state,
        without_fields,
    )

    assert SCHEMA_VERSION == 2
    steps = {1: without_fields("said")}
    old = json.dumps({"schema": 1, "state": {"said": "x", "kept": 1}})
    assert upgraded_state(old, steps) == {"kept": 1}
    assert upgraded_state(old, {}) == {"said": "x", "kept": 1}          # a game with no step for it
    today = json.dumps({"schema": 2, "state": {"said": "x"}})
    assert upgraded_state(today, steps) == {"said": "x"}                 # today's snapshots are not touched
    assert normalised_snapshot(old, steps) == '{"schema":2,"state":{"kept":1}}'
    for bad in ('{"schema":0,"state":{}}', '{"schema":3,"state":{}}', '{"schema":"1","state":{}}',
                '{"schema":true,"state":{}}', '{"state":{}}', '{"schema":1}', "[]"):
        with pytest.raises(CodecError):
            upgraded_state(bad, steps)
    with pytest.raises(CodecError):
        upgraded_state('{"schema":1,"state":[1]}', steps)
    track = get_ruleset("track")
    with pytest.raises(CodecError):
        decode_state(track.state_type, '{"schema":3,"state":{}}', track.snapshot_upgrades)


async def test_a_race_stored_before_revision_3_keeps_its_turn_keys(tmp_path):
    """A race of revision 2 keeps the turn keys it was stored with (they name who is still waited on), so
    its stored timers and turn message stay good; a new race is of the newest revision (5)."""
    path = tmp_path / "release30.db"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "release30.db", path)
    store = await Store.open(str(path))
    try:
        race = get_ruleset("race")
        games = [g for g in await store.all_games() if g.ruleset == "race" and g.status == "active"]
        assert games
        for game in games:
            state = race.load_state(game.state)
            assert state.revision == 2
            waiting = race.acting_players(state)
            assert race.turn_key(state).endswith(":" + ",".join(waiting)), race.turn_key(state)
            timers = await store.timers(game.id)
            assert {t.turn_key for t in timers} <= {race.turn_key(state)}
        assert race.new_game_options({})["revision"] == 5
    finally:
        await store.close()


async def test_games_of_release_0_2_0_keep_the_rules_revision_they_began_under(tmp_path):
    """Battlecars and Track games stored by 0.2.0 (revision 3) play on under revision 3: a tank ramming
    still takes what it took then, a Joker still leaves a finished car be."""
    path = tmp_path / "release36.db"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "release36.db", path)
    store = await Store.open(str(path))
    try:
        service = GameService(store, render=None)
        for channel in ("chan-cars", "chan-track"):
            game = await store.active_game(channel)
            ruleset = get_ruleset(game.ruleset)
            assert ruleset.revision == {"battlecars": 6, "track": 6}[ruleset.id]
            assert json.loads(game.options)["revision"] == 3
            state = decode_state(ruleset.state_type, game.state)
            player = ruleset.acting_players(state)[0]
            command = ruleset.legal_actions(state, player)[0].command
            assert (await service.execute(channel, Actor(player, player), parse(command))).outcome == "applied"
            after = await store.active_game(channel)
            assert json.loads(after.options)["revision"] == 3 and await service.replay_matches(after)
    finally:
        await store.close()


async def test_a_game_stored_before_grace_and_banks_takes_both_and_its_clock_runs_on(tmp_path):
    """A race stored by the code before issue 38's clock (release38.db, a deadline and a timer running) takes
    a grace and a time bank from its host: the bank runs out, the grace extends it once, then the autopilot
    plays, and the game still verifies."""
    path = tmp_path / "release38.db"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "release38.db", path)
    store = await Store.open(str(path))
    try:
        clock = Clock(time.time())
        service = GameService(store, render=None, clock=clock)
        game = await store.active_game("chan-race")
        changed = await service.execute("chan-race", Actor(game.host, game.host), parse(
            "/game settings grace:1 clock:bank bank_hours:2 increment_hours:1 cap_hours:4"))
        assert "a time bank of 2 h a player" in changed.text and "grace: 1 missed deadline" in changed.text
        clock.advance(2.5)
        told = [n.reply.text for n in await service.run_due() if not n.reply.text.startswith("Reminder")]
        assert any("missed the deadline: grace 1 of 1 used" in text for text in told), told
        before = len(await store.actions(game.id))
        clock.advance(24.5)   # the grace extends by the table's deadline_hours (24 in this fixture)
        told = [n.reply.text for n in await service.run_due() if not n.reply.text.startswith("Reminder")]
        assert any("the autopilot plays for" in text for text in told), told
        assert len(await store.actions(game.id)) > before
        assert await service.replay_matches(await store.active_game("chan-race"))
    finally:
        await store.close()


# Rollback lines (602805d), a seat's name in its driver's (release13), computer seats (release9), the last release.
FORGETTING = ("rollbacks602805d.db", "release13.db", "release9.db", "release38.db")


@pytest.mark.parametrize("fixture", FORGETTING)
async def test_every_member_of_an_old_database_is_forgotten_and_every_game_still_verifies(fixture, tmp_path):
    """Issue 39 item 12: once its games ended, each seated member forgets in turn; every game (rollback lines
    included) is renamed, not one left as it was, and re-runs to its renamed snapshot."""
    shutil.copyfile(ROOT / "tests" / "fixtures" / fixture, tmp_path / fixture)
    store = await Store.open(str(tmp_path / fixture))
    try:
        service = GameService(store, render=None)
        for game in [g for g in await store.all_games() if g.status == "active"]:
            ended = await service.execute(game.channel, Actor("admin", "admin", is_admin=True), parse("/game end"))
            assert ended.outcome == "applied", ended.text
        members = [row[0] for row in await store.driver.fetchall(
            "SELECT DISTINCT player FROM seats WHERE player NOT LIKE 'ai-%' ORDER BY player")]
        for member in members:
            reply = await service.forget(member, confirm=True)
            assert reply.outcome == "shown" and "keep" not in reply.text, (member, reply.text)
        for game in await store.all_games():
            assert await service.replay_matches(game), game.id
            assert not set(members) & {row[0] for row in await store.driver.fetchall(
                "SELECT actor FROM actions WHERE game_id = ?", (game.id,))}
    finally:
        await store.close()
