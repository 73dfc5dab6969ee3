"""Tournaments (and seasons, where they share the code) meeting the table's other features: a game's settings, the
operator's blocks, a seat handed over, a game moved to another server, the host's powers over a gone player's seat,
/undo of the start the league made, and the words of a setup refusal. Most tests play a Speedway duel tournament of
four through the service, its dice fixed."""

from __future__ import annotations

import pytest

from bot.storage import seasons as season_stored
from bot.storage import tournaments as stored
from bot.table.clock.settings import TableSettings
from bot.table.league import tournament as course
from bot.table.protocol.commands import Command
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from rules.registry import get_ruleset
from rules.table import TablePhase
from tests.test_seasons import Clock
from tests.test_tournaments import do, must

G = "g1"
MEMBERS = ("ann", "bob", "cat", "dan")
HOUR = 3600.0


@pytest.fixture(autouse=True)
def fixed_dice(monkeypatch):
    """Every game the league opens rolls the same dice: a fixed seed in place of the secret one."""
    from bot.table.service import seating
    monkeypatch.setattr(seating, "new_seed", lambda: 20240611)


async def _plan(service, number: int = 1) -> course.Tournament:
    return course.load((await stored.get(service._store, number)).course)


async def _started(service, fmt: str = "elimination") -> course.Tournament:
    """Ann's tournament of four Speedway duels, everyone signed up in order, started: its course. Unrated, so
    seeded by sign-up: round 1 of an elimination is ann v dan and bob v cat."""
    await must(service, "hall", "ann", f"/tournament new ruleset:speedway format:{fmt} players:4 "
                                       "setup:'arena:duel rounds:100'")
    for member in MEMBERS:
        await must(service, "hall", member, "/tournament join")
    await must(service, "hall", "ann", "/tournament start")
    return await _plan(service)


async def _computer_plays(service, table: course.Table) -> None:
    """The computer plays a table's game to its end."""
    game = await service._store.game(table.game_id)
    for member in table.members:
        await do(service, game.channel, member, "/game seat computer")
    assert (await service._store.game(table.game_id)).status == "finished"


def _round(plan: course.Tournament, number: int) -> list[course.Table]:
    return [t for t in plan.tables if t.round == number]


# A tournament game's clock


@pytest.mark.parametrize("league", ["tournament", "season"])
async def test_a_league_games_host_cannot_turn_its_deadline_off(service, league):
    """The host of a tournament's (or season's) game turns its deadline off with /game settings: the game then
    waits on an absent player for ever, which the league promises never happens."""
    if league == "tournament":
        game = await service._store.game(_round(await _started(service), 1)[0].game_id)
    else:
        await must(service, "hall", "boss", "/league new ruleset:speedway season_days:7 max_games:1 "
                                            "setup:arena:duel", admin=True)
        for member in ("ann", "bob"):
            await must(service, "hall", member, "/league join")
        (paired,) = await season_stored.games(service._store, 1)
        game = await service._store.game(paired.game_id)
    said = await do(service, game.channel, game.host, "/game settings deadline_hours:0")
    after = TableSettings.or_defaults((await service._store.game(game.id)).settings)
    assert after.deadline_hours, f"the {league} game runs untimed now ({said.outcome}: {said.text[:80]!r})"


# The operator's blocks


async def test_a_blocked_servers_tournament_opens_no_new_round(store):
    """The operator blocks a server mid-tournament: the scheduler still opens the next round there, seating and
    pinging members whose every command is refused at the door (a season of a blocked server pairs nobody)."""
    service = GameService(store, clock=Clock())
    plan = await _started(service)
    for table in _round(plan, 1):
        await _computer_plays(service, table)
    assert (await service.control("server", G, True)).outcome != "refused"   # `pitboss block --server g1`
    posted = await service.run_due()
    opened = [t for t in _round(await _plan(service), 2) if t.game_id]
    pings = [(n.channel, n.reply.text[:80]) for n in posted if n.reply.mentions]
    assert not opened and not pings, f"a blocked server's tournament opened {opened}, pinging: {pings}"


async def test_a_tournament_does_not_seat_a_blocked_member_as_a_player_it_waits_on(service):
    """A member the operator blocked after they signed up is seated at a new tournament game as a person: every
    turn of theirs waits out its whole deadline, while their commands are refused at the door."""
    await must(service, "hall", "ann", "/tournament new ruleset:speedway format:elimination players:4 "
                                       "setup:'arena:duel rounds:100'")
    for member in MEMBERS:
        await must(service, "hall", member, "/tournament join")
    assert (await service.control("user", "dan", True)).outcome != "refused"   # `pitboss block --user dan`
    await must(service, "hall", "ann", "/tournament start")
    plan = await _plan(service)
    seated = [t for t in _round(plan, 1) if "dan" in t.members and t.game_id]
    if not seated:
        return   # not seated at all: fine too
    (table,) = seated
    game = await service._store.game(table.game_id)
    seat = get_ruleset(game.ruleset).load_state(game.state).player("dan")
    assert await service.door(Actor("dan", "dan"), G, "game seat computer") is not None   # refused at the door
    assert seat is None or seat.ai, "a blocked member holds a person's seat in a tournament game"


# A seat handed over


async def test_a_seat_handed_over_keeps_its_result_for_the_tournament(service):
    """Ann hands her seat to Eve, who wins the game with it: the tournament credits nobody with the win and sends
    Dan, who resigned, on to the final."""
    plan = await _started(service)
    (ours,) = [t for t in _round(plan, 1) if "ann" in t.members]
    assert sorted(ours.members) == ["ann", "dan"]
    game = await service._store.game(ours.game_id)
    await must(service, game.channel, "ann", "/game seat give to:eve")
    await must(service, game.channel, "eve", "/game seat take")
    await must(service, game.channel, "dan", "/game resign confirm:yes")
    assert (await service._store.game(game.id)).status == "finished"
    (other,) = [t for t in _round(plan, 1) if t is not ours and t.game_id]
    await _computer_plays(service, other)
    await service.run_due()
    after = await _plan(service)
    (final,) = _round(after, 2)
    assert "dan" not in final.members, (f"dan resigned and went on to the final {final.members}; the game's result "
                                        f"was read as {after.table_of(game.id).order}")


# A game moved to another server


async def test_a_tournament_games_host_cannot_move_it_to_their_own_server_and_end_it(service):
    """The host (the better seed) moves a tournament game to a server of their own, where they are an admin, and
    ends it there with no result: a tie sends the better seed on, from a game they may have been losing."""
    plan = await _started(service)
    (ours,) = [t for t in _round(plan, 1) if "ann" in t.members]
    game = await service._store.game(ours.game_id)
    host = game.host
    exported = await must(service, game.channel, host, "/game export")
    moved = await service.execute("my-own", Actor(host, host, True), Command("game import", {
        "file": exported.files[0].data}), guild="g2")
    ended = await do(service, "my-own", host, "/game end", guild="g2", admin=True)
    (other,) = [t for t in _round(plan, 1) if t is not ours]
    await _computer_plays(service, other)
    await service.run_due()
    final = _round(await _plan(service), 2)
    assert moved.outcome == "refused" or ended.outcome == "refused" or not any(host in t.members for t in final), \
        f"{host} moved their game to g2 ({moved.text[:60]!r}), ended it there ({ended.text!r}) and went on: " \
        f"{[t.members for t in final]}"


# The host's powers over a gone player's seat


async def test_a_tournament_games_host_cannot_resign_their_opponent_after_one_missed_deadline(store):
    """Dan misses one deadline (the autopilot plays it, as the tournament promises); Ann, his opponent and the
    game's host, then resigns Dan's seat for him and goes on to the final."""
    clock = Clock()
    service = GameService(store, clock=clock)
    plan = await _started(service)
    (ours,) = [t for t in _round(plan, 1) if "ann" in t.members]
    game = await store.game(ours.game_id)
    assert game.host == "ann"
    await must(service, game.channel, "ann", "/game seat computer")   # the computer plays Ann's turns at once
    ruleset = get_ruleset(game.ruleset)
    state = ruleset.load_state((await store.game(game.id)).state)
    assert ruleset.people_waited_on(state) == ("dan",)
    clock.now += 49 * HOUR   # dan's deadline passes: the autopilot plays his turn
    await service.run_due()
    resigned = await do(service, game.channel, "ann", "/game resign player:dan confirm:yes")
    (other,) = [t for t in _round(plan, 1) if t is not ours]
    if (await store.game(other.game_id)).status == "active":
        await _computer_plays(service, other)
    await service.run_due()
    final = _round(await _plan(service), 2)
    assert resigned.outcome == "refused" or not any("ann" in t.members for t in final), \
        f"ann resigned her opponent's seat ({resigned.text[:90]!r}) and went on: {[t.members for t in final]}"


# /undo of the start the league made


async def test_a_tournament_race_is_not_undone_back_to_its_lobby(service):
    """The host of a tournament's race takes its start back with /undo: the game sits in its lobby waiting on
    nobody under no deadline (the round never ends), and once the other racer undoes their join a stranger can
    take their seat."""
    await must(service, "hall", "ann", "/tournament new ruleset:race format:elimination players:2")
    for member in ("ann", "bob"):
        await must(service, "hall", member, "/tournament join")
    await must(service, "hall", "ann", "/tournament start")
    (table,) = (await _plan(service)).tables
    game = await service._store.game(table.game_id)
    undone = await do(service, game.channel, "ann", "/undo")
    ruleset = get_ruleset(game.ruleset)
    state = ruleset.load_state((await service._store.game(game.id)).state)
    assert state.phase != TablePhase.LOBBY and ruleset.people_waited_on(state), \
        f"the tournament's race is back in its lobby, waiting on nobody ({undone.outcome}: {undone.text[:70]!r})"


# The words of a refusal


@pytest.mark.parametrize("line", ["/tournament new ruleset:race format:elimination players:4 setup:gm:yes",
                                  "/league new ruleset:race season_days:7 max_games:1 setup:gm:yes"])
async def test_a_league_setup_refusal_speaks_of_the_league_not_a_queue(service, line):
    """A tournament or season whose setup asks for a game master is refused as "a queued game seats no game master":
    words about the queue, which the member never used."""
    said = await do(service, "hall", "boss", line, admin=True)
    assert said.outcome == "refused"
    assert "queue" not in said.text, said.text
