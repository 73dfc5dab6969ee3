"""Issue 40 item 3: the server's rating per game kind (OpenSkill Plackett-Luce), updated once when a game ends,
the half-own-turns rule, /stats and /standings, forgetting a member, and `pitboss ratings --rebuild` giving the
same numbers as the updates, on SQLite and PostgreSQL and on a release database."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from openskill.models import PlackettLuce

from bot.storage import ratings as stored
from bot.storage import store as store_module
from bot.storage.store import MIGRATIONS, Store
from bot.table.jobs.heavy import HeavyWork
from bot.table.jobs.rating_jobs import rating_input
from bot.table.protocol.commands import Command, parse
from bot.table.protocol.replies import Actor
from bot.table.service import ratings as service_ratings
from bot.table.service.entry import GameService
from bot.table.service.ratings import rebuild
from rules.registry import get_ruleset
from tests.conftest import run_cli

BACKENDS = ("sqlite", "postgres")
ROOT = Path(__file__).resolve().parent.parent
GUILD = "g1"


async def run(service, user, line, channel, guild=GUILD):
    reply = await service.execute(channel, Actor(user, user), parse(line), guild=guild)
    assert reply.outcome in ("applied", "shown"), (line, reply.text)
    return reply


async def track_won(service, channel, winner, loser, guild=GUILD):
    """A Track race `winner` wins as `loser` resigns."""
    for user, line in (("ann", "/game new ruleset:track seed:3"), (winner, "/game join"), (loser, "/game join"),
                       ("ann", "/game start"), (loser, "/game resign confirm:yes")):
        await run(service, user, line, channel, guild)


async def played_by_people(service, store, channel, guild=GUILD, limit=2_000):
    """The channel's game played to its end, each person's move the one the computer would pick where it is
    listed as legal (else the first listed); the computer seats play themselves."""
    for _ in range(limit):
        game = await store.latest_game(channel)
        ruleset = get_ruleset(game.ruleset)
        state = ruleset.load_state(game.state)
        if ruleset.is_finished(state):
            return state
        player = next(p for p in ruleset.acting_players(state) if not ruleset.is_computer(state, p))
        action = ruleset.computer.choose(state, player)
        legal = [a for a in ruleset.legal_actions(state, player) if a.action is not None]
        line = next((a.command for a in legal if a.action == action), legal[0].command)
        await run(service, player, line, channel, guild)
    raise AssertionError("the game did not end")


async def all_ratings(store) -> dict:
    rows = await store.driver.fetchall("SELECT guild, ruleset, member, mu, sigma, games FROM ratings")
    return {(g, k, m): (mu, sigma, n) for g, k, m, mu, sigma, n in rows}


async def test_ratings_are_updated_once_as_games_end_and_a_rebuild_gives_the_same_numbers(db_path, monkeypatch):
    store = await Store.open(db_path)
    service = GameService(store, render=None)
    await track_won(service, "t1", "ann", "ben")
    model = PlackettLuce()
    ann, ben = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    assert await all_ratings(store) == {(GUILD, "track", "ann"): (ann[0].mu, ann[0].sigma, 1),
                                        (GUILD, "track", "ben"): (ben[0].mu, ben[0].sigma, 1)}
    await track_won(service, "t2", "ben", "carol")
    await track_won(service, "t3", "carol", "ann")
    await track_won(service, "t4", "ann", "dave", guild="g2")   # another server: its own ratings
    # a game whose end found the rating out of order is rated later, once, in its turn
    broken = service_ratings.rate_due

    async def failing(*_args, **_kwargs):
        raise RuntimeError("down")
    monkeypatch.setattr(service_ratings, "rate_due", failing)
    await track_won(service, "t5", "ben", "ann")
    assert (await stored.rating(store, GUILD, "track", "ben")).games == 2   # not yet
    monkeypatch.setattr(service_ratings, "rate_due", broken)
    board = await run(service, "zed", "/standings ruleset:track", "x")
    assert (await stored.rating(store, GUILD, "track", "ben")).games == 3
    assert await service_ratings.rate_due(store, HeavyWork().run, GUILD) == 0   # nothing twice
    # a game ended by its host and a Speedway game: not rated, and rated on its own kind
    for user, line in (("ann", "/game new ruleset:track seed:4"), ("ann", "/game join"), ("ben", "/game join"),
                       ("ann", "/game start"), ("ann", "/game end")):
        await run(service, user, line, "t6")
    example = get_ruleset("speedway").example
    for user, line in example.lines("speedway", 5):
        await run(service, user, line, "s1")
    await played_by_people(service, store, "s1")
    incremental = await all_ratings(store)
    assert (GUILD, "speedway", "ann") in incremental and incremental[(GUILD, "track", "ann")][2] == 3
    assert board.text.splitlines()[0].startswith("**Track (the card race)** standings on this server, by rating")

    heavy = HeavyWork()
    for guild in (GUILD, "g2"):
        await rebuild(store, heavy.run, guild)
    assert await all_ratings(store) == incremental
    by_rating = sorted((r for (g, k, _m), r in incremental.items() if (g, k) == (GUILD, "track")),
                       key=lambda r: -(r[0] - 3 * r[1]))
    shown = (await run(service, "zed", "/standings ruleset:track", "x")).text.splitlines()[1:]
    assert [line.split(":")[1].strip().split(";")[0] for line in shown] == \
        [f"rating {mu - 3 * sigma:.1f}?" for mu, sigma, _n in by_rating]   # provisional: fewer than 5 games
    assert " won of " in shown[0] and " drawn" in shown[0]
    await store.close()


async def test_a_player_who_played_fewer_than_half_their_turns_is_not_rated_the_others_are(db_path):
    """Carol's seat was the computer's from the start: she is not rated; ann and ben are, among themselves."""
    store = await Store.open(db_path)
    service = GameService(store, render=None)
    for user, line in (("ann", "/game new ruleset:battlecars seed:8"), ("ann", "/game join vehicle:interceptor"),
                       ("ben", "/game join vehicle:rammer"), ("carol", "/game join vehicle:interceptor"),
                       ("ann", "/game start"), ("carol", "/game seat computer")):
        await run(service, user, line, "b1")
    final = await played_by_people(service, store, "b1")
    game = await store.latest_game("b1")
    seats = {row[0]: row[1:] for row in await store.driver.fetchall(
        "SELECT member, own_turns, turns, rated FROM rated_seats WHERE game_id = ?", (game.id,))}
    assert seats["carol"][0] == 0 and seats["carol"][1] > 0 and seats["carol"][2] == 0
    assert seats["ann"][2] == seats["ben"][2] == 1 and seats["ann"][0] == seats["ann"][1]
    assert await stored.rating(store, GUILD, "battlecars", "carol") is None
    ann = await stored.rating(store, GUILD, "battlecars", "ann")
    ben = await stored.rating(store, GUILD, "battlecars", "ben")
    order = rating_input("battlecars", game, await stored.rating_log(store, game.id)).order
    place = {seat: n for n, group in enumerate(order, 1) for seat in group}
    assert {"ann", "ben", "carol"} <= set(place) and final.phase == "finished"
    stats = (await run(service, "carol", "/stats ruleset:battlecars", "x")).text
    assert "not rated yet; played 0% of their seats' turns themselves" in stats, stats
    mine = (await run(service, "ann", "/stats ruleset:battlecars", "x")).text
    assert f"rating {ann.ordinal:.1f} (μ {ann.mu:.1f}, σ {ann.sigma:.1f}) ? provisional (1 of 5 rated games)" \
        in mine and "played 100% of their seats' turns themselves" in mine, mine
    model = PlackettLuce()   # ann and ben ranked as the game placed them, carol left out
    expected = model.rate([[model.rating()], [model.rating()]], ranks=[place["ann"], place["ben"]])
    assert (ann.mu, ben.mu) == (expected[0][0].mu, expected[1][0].mu)
    await store.close()


async def test_forgetting_a_member_removes_their_ratings_and_a_rebuild_brings_none_back(db_path):
    store = await Store.open(db_path)
    service = GameService(store, render=None)
    await track_won(service, "t1", "ann", "ben")
    await track_won(service, "t2", "ben", "carol")
    before = await all_ratings(store)
    assert await stored.member_rows(store, "ben") == 3
    asked = await run(service, "ben", "/me forget", "x")
    assert "ratings and turn counts" in asked.text
    await run(service, "ben", "/me forget confirm:yes", "x")
    assert await stored.member_rows(store, "ben") == 0
    await rebuild(store, HeavyWork().run, GUILD)
    after = await all_ratings(store)
    assert not any(member.startswith("forgotten-") or member == "ben" for _g, _k, member in after)
    assert after == {key: value for key, value in before.items() if key[2] != "ben"}   # the others' stand
    await store.close()


@pytest.mark.sqlite_only
async def test_a_release_database_rates_its_earlier_games_when_rebuilt_plays_on_and_verifies(tmp_path, monkeypatch):
    """release38.db migrates; a game that ended under the release before ratings (migrations 1-19) is rated only
    by the rebuild; one ending after is rated as it ends; every game still verifies."""
    path = tmp_path / "release38.db"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "release38.db", path)
    monkeypatch.setattr(store_module, "MIGRATIONS", MIGRATIONS[:19])
    old = await Store.open(str(path))
    await run(GameService(old, render=None), "carol", "/game resign confirm:yes", "chan-track", "guild-1")
    await old.close()
    monkeypatch.setattr(store_module, "MIGRATIONS", MIGRATIONS)
    store = await Store.open(str(path))
    service = GameService(store, render=None)
    assert await all_ratings(store) == {}
    for user in ("lee", "max"):
        await run(service, user, "/game resign confirm:yes", "chan-decl", "guild-1")
    played_on = await all_ratings(store)
    assert set(played_on) == {("guild-1", "battlecars", p) for p in ("lee", "max", "ned")}
    ned, lee, maxed = (played_on[("guild-1", "battlecars", p)] for p in ("ned", "lee", "max"))
    assert ned[0] > lee[0] == maxed[0]   # the resigned tie last
    for game in await store.all_games():
        assert await service.replay_matches(game), game.id
    await store.close()
    result = await asyncio.to_thread(run_cli, "ratings", "--db", str(path), "--rebuild", cwd=tmp_path)
    assert result.returncode == 0 and "ratings rebuilt from 3 finished games" in result.stdout, result.stdout
    store = await Store.open(str(path))
    rebuilt = await all_ratings(store)
    assert {key: value for key, value in rebuilt.items() if key[1] == "battlecars"} == played_on
    assert rebuilt[("guild-1", "track", "dave")][0] > rebuilt[("guild-1", "track", "carol")][0]
    await store.close()


@pytest.mark.sqlite_only
async def test_an_imported_game_is_never_rated(db_path):
    """A finished game re-played from its export was played elsewhere (or is a copy of one rated already)."""
    store = await Store.open(db_path)
    service = GameService(store, render=None)
    await track_won(service, "t1", "ann", "ben")
    before = await all_ratings(store)
    exported = await service.execute("t1", Actor("ann", "ann"), parse("/game export"), guild=GUILD)
    file = exported.files[0].data
    imported = await service.execute("imp", Actor("zed", "zed"), Command("game import", {"file": file}), guild=GUILD)
    assert imported.outcome == "applied", imported.text
    copy = await store.latest_game("imp")
    assert copy.status == "finished" and await stored.due_games(store, GUILD) == []
    await run(service, "zed", "/standings ruleset:track", "x")
    await rebuild(store, HeavyWork().run, GUILD)
    assert await all_ratings(store) == before
    await store.close()


@pytest.mark.sqlite_only
async def test_turns_the_autopilot_played_at_a_deadline_are_not_the_players_own(db_path):
    store = await Store.open(db_path)
    clock = [1_800_000_000.0]
    service = GameService(store, render=None, clock=lambda: clock[0])
    for user, line in (("ann", "/game new ruleset:speedway seed:2"), ("ann", "/game join"), ("ben", "/game join"),
                       ("ann", "/game settings deadline_hours:1"), ("ann", "/game start")):
        await run(service, user, line, "s1")
    if (await run(service, "zed", "/game status", "s1")).waiting_on == ("ann",):
        await run(service, "ann", "/speed value:0", "s1")   # standing still, she may still drop her mines:
        await run(service, "ann", "/end", "s1")             # her turn ends with it
    clock[0] += 2 * 3600
    assert any("autopilot" in n.reply.text for n in await service.run_due())
    await run(service, "ann", "/game resign confirm:yes", "s1")
    game = await store.latest_game("s1")
    seats = {row[0]: row[1:] for row in await store.driver.fetchall(
        "SELECT member, own_turns, turns, rated FROM rated_seats WHERE game_id = ?", (game.id,))}
    assert seats["ben"][0] == 0 and seats["ben"][1] >= 1 and seats["ben"][2] == 0   # ben won, but not himself
    assert await all_ratings(store) == {}   # ann alone is left to rate: nobody is
    assert "played 0% of their seats' turns themselves" in (await run(service, "ben", "/stats", "x")).text
    await store.close()


@pytest.mark.parametrize("long_running", [True, False])
async def test_a_long_running_bot_rates_an_ended_game_after_the_last_moves_reply(db_path, monkeypatch, long_running):
    """Issue 39 item 3: with its long jobs in a process (`pitboss run`), the move that ends a game replies
    before the rating's re-run of its log (here held until let go); what reads the ratings waits for it. A
    one-shot process (long jobs on a thread) rates before the reply, as before."""
    store = await Store.open(db_path)
    heavy = HeavyWork()
    heavy.process = long_running   # as `pitboss run`'s says, its jobs still on a thread here (no process to start)
    service = GameService(store, render=None, heavy=heavy)
    go, started = asyncio.Event(), []
    rate_due = service_ratings.rate_due

    async def held(*args, **kwargs):
        started.append(True)
        if long_running:
            await go.wait()
        return await rate_due(*args, **kwargs)
    monkeypatch.setattr(service_ratings, "rate_due", held)
    try:
        await asyncio.wait_for(track_won(service, "t1", "ann", "ben"), 60)   # the last move's reply came
        assert started == [True]
        rated = await stored.rating(store, GUILD, "track", "ann")
        assert (rated is None) is long_running
        go.set()
        board = (await run(service, "zed", "/standings ruleset:track", "x")).text   # waits for the rating
        assert "ann" in board and (await stored.rating(store, GUILD, "track", "ann")).games == 1
        await service.settled()
    finally:
        await store.close()


async def test_a_game_ends_rating_starts_once_the_ending_moves_picture_is_drawn(store, monkeypatch):
    """A long-running bot rates an ended game on a task of its own; that task waits for the ending move's
    picture first, so the long-job process a first rating spawns does not take the cores the picture needs
    (Battlecars' first game end took 33-59 ms, the next 25)."""
    from bot.table.service.ratings import Ratings

    service = GameService(store, heavy=HeavyWork(process=True))   # no process starts: rate_due is replaced
    started: list[str] = []

    async def rate_due(store, run, guild, taken) -> None:
        started.append(guild)

    monkeypatch.setattr(service_ratings, "rate_due", rate_due)
    ratings = Ratings(service._table)
    picture: asyncio.Future = asyncio.get_running_loop().create_future()
    await ratings.game_ended("g1", after=picture)
    for _ in range(20):
        await asyncio.sleep(0)
    assert started == []   # the picture is still being drawn
    picture.set_result((b"png", ()))
    await ratings.settled(5)
    assert started == ["g1"]
    failed: asyncio.Future = asyncio.get_running_loop().create_future()
    await ratings.game_ended("g2", after=failed)
    failed.set_exception(RuntimeError("the render process died"))   # the move's to read: the rating goes on
    await ratings.settled(5)
    assert started == ["g1", "g2"] and isinstance(failed.exception(), RuntimeError)
    monkeypatch.setattr(service_ratings, "AFTER_PICTURE_SECONDS", 0.05)
    await ratings.game_ended("g3", after=asyncio.get_running_loop().create_future())   # never drawn
    await ratings.settled(5)
    assert started == ["g1", "g2", "g3"]
