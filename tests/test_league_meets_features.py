"""The league's automatic parts where they meet the table's other features: a blocked server, a game moved to
another channel, a tournament game its host would end."""

from __future__ import annotations

from bot.storage import seasons as season_stored
from bot.storage import tournaments as tournament_stored
from bot.storage.privacy import Control, set_control
from bot.table.league import tournament as course
from bot.table.protocol.commands import Command, parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from tests.test_seasons import Clock
from tests.test_tournaments import do, must

G = "g1"


async def _season_games(service, number):
    found = []
    for game in await season_stored.games(service._store, number):
        record = await service._store.game(game.game_id)
        if record is not None and record.status == "active":
            found.append((game.members, record))
    return found


async def test_a_blocked_servers_season_pairs_no_new_games(store):
    clock = Clock()
    service = GameService(store, clock=clock)
    await must(service, "hall", "boss", "/league new ruleset:speedway season_days:7 max_games:1 setup:arena:duel",
               admin=True)
    for member in ("ann", "bob"):
        await must(service, "hall", member, "/league join")
    ((members, game),) = await _season_games(service, 1)
    for member in members:   # the computer plays the running game out
        await must(service, game.channel, member, "/game seat computer")
    assert (await service._store.game(game.id)).status == "finished"
    await set_control(store, Control("server", G))   # `pitboss block --server g1`
    posted = await service.run_due()
    paired = [n for n in posted if "paired" in n.reply.text]
    assert paired == [], [n.reply.text for n in paired]   # a blocked server's members cannot play a new game


def _runner(service):
    """A command of a member (named as their id, capitalised) in a channel of the server G."""
    async def run(user, line, channel="hall"):
        return await service.execute(channel, Actor(user, user.title()), parse(line), guild=G)
    return run


async def _mustered(run) -> str:
    """Ann and Bob fill a Speedway duel's queue: the thread of its muster."""
    for user in ("ann", "bob"):
        reply = await run(user, "/queue join ruleset:speedway players:2")
    (notice,) = reply.notices
    return notice.channel


async def test_a_blocked_servers_queue_opens_no_muster_pinging_its_members(store):
    clock = Clock()
    service = GameService(store, clock=clock)

    run = _runner(service)
    thread = await _mustered(run)
    await run("ann", "/queue join ruleset:battlecars players:2")
    await run("cat", "/queue join ruleset:battlecars players:2")   # ann is at her limit: cat waits
    for user in ("ann", "bob"):
        assert (await run(user, "/queue confirm", thread)).outcome == "applied"
    assert (await run("ann", "/game end", thread)).outcome == "applied"
    await set_control(store, Control("server", G))   # blocked before the scheduler's next round
    posted = await service.run_due()
    pings = [n for n in posted if n.reply.mentions]
    assert pings == [], [(n.channel, n.reply.text) for n in pings]   # ann and cat cannot confirm: refused at the door


async def _started_elimination(service):
    """Ann's elimination tournament of four Speedway duels, started: its course, a table with a game, that game."""
    await must(service, "hall", "ann", "/tournament new ruleset:speedway format:elimination players:4 "
                                       "setup:'arena:duel rounds:100'")
    for member in ("ann", "bob", "cat", "dan"):
        await must(service, "hall", member, "/tournament join")
    await must(service, "hall", "ann", "/tournament start")
    plan = course.load((await tournament_stored.get(service._store, 1)).course)
    table = next(t for t in plan.tables if t.game_id)
    return plan, table, await service._store.game(table.game_id)


async def test_a_tournament_game_moved_elsewhere_is_not_counted_as_ended(service):
    plan, table, game = await _started_elimination(service)
    host = game.host
    exported = await must(service, game.channel, host, "/game export")
    moved = await service.execute("annex", Actor(host, host), Command("game import", {
        "file": exported.files[0].data}), guild=G)
    assert moved.outcome == "applied", moved.text
    assert (await service._store.active_game("annex")) is not None   # the game plays on, in annex
    await service.run_due()
    plan = course.load((await tournament_stored.get(service._store, 1)).course)
    table = next(t for t in plan.tables if t.members == table.members)
    assert table.order is None, f"a game still running in annex was given the result {table.order}"


async def _moved_season_game(service):
    await must(service, "hall", "boss", "/league new ruleset:speedway season_days:7 max_games:1 setup:arena:duel",
               admin=True)
    for member in ("ann", "bob"):
        await must(service, "hall", member, "/league join")
    ((members, game),) = await _season_games(service, 1)
    exported = await must(service, game.channel, members[0], "/game export")
    moved = await service.execute("annex", Actor(members[0], members[0]), Command("game import", {
        "file": exported.files[0].data}), guild=G)
    assert moved.outcome == "applied", moved.text
    return members


async def test_a_season_game_moved_and_finished_before_the_scheduler_looked_still_counts(service):
    members = await _moved_season_game(service)
    for member in members:   # played out where it went, before any scheduler round
        await must(service, "annex", member, "/game seat computer")
    assert await service._store.active_game("annex") is None
    shown = await must(service, "hall", "boss", "/league show")
    assert "Games played to their end: 1" in shown.text, shown.text


async def test_a_season_does_not_adopt_an_unrelated_game_opened_where_its_game_went(service):
    members = await _moved_season_game(service)
    for member in members:
        await must(service, "annex", member, "/game seat computer")
    await must(service, "annex", "eve", "/new ruleset:speedway arena:duel")   # a stranger's game, later, in annex
    shown = await must(service, "hall", "boss", "/league show")
    assert "Games running: 0" in shown.text, shown.text


async def test_a_queued_game_moved_elsewhere_still_holds_its_members_at_once(service):
    run = _runner(service)
    thread = await _mustered(run)
    for user in ("ann", "bob"):
        assert (await run(user, "/queue confirm", thread)).outcome == "applied"
    exported = await run("ann", "/game export", thread)
    moved = await service.execute("annex", Actor("ann", "Ann"), Command("game import", {
        "file": exported.files[0].data}), guild=G)
    assert moved.outcome == "applied", moved.text
    assert await service._store.active_game("annex") is not None   # ann's queued game runs on, in annex
    await run("cat", "/queue join ruleset:battlecars players:2")
    joined = await run("ann", "/queue join ruleset:battlecars players:2")   # at_once 1: she plays one already
    assert joined.notices == (), "a second queued game opened for ann while her first still runs (moved)"


async def test_a_tournament_games_host_cannot_go_through_by_ending_it(service):
    plan, table, game = await _started_elimination(service)
    host = table.members[0]
    assert game.host == host   # the better seed hosts
    ended = await do(service, game.channel, host, "/game end")
    for rest in plan.tables:   # the round's other game is played out by the computer
        if rest.game_id and rest.game_id != game.id:
            other_game = await service._store.game(rest.game_id)
            for member in rest.members:
                await do(service, other_game.channel, member, "/game seat computer")
    await service.run_due()
    plan = course.load((await tournament_stored.get(service._store, 1)).course)
    nxt = [t for t in plan.tables if t.round == 2]
    assert ended.outcome == "refused" or not any(host in t.members for t in nxt), \
        f"{host} ended their own game ({ended.text!r}) and went on: {[t.members for t in nxt]}"
