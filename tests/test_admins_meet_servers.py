"""An admin's powers over a game are an admin's of the game's own server: an admin of another server (a command
naming another server's channel, as `pitboss exec` may) may not end it, take it over or change its settings."""

from __future__ import annotations

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor

A, B = "gA", "gB"


async def do(service, channel, user, line, *, guild=A, admin=False, **kw):
    return await service.execute(channel, Actor(user, user, admin), parse(line), guild=guild, **kw)


async def must(service, channel, user, line, **kw):
    reply = await do(service, channel, user, line, **kw)
    assert reply.outcome == "applied", (line, reply.text)
    return reply


async def track_running(service, channel="t1"):
    for user, line in (("ann", "/new track"), ("ann", "/game join"), ("bob", "/game join"), ("ann", "/game start")):
        await must(service, channel, user, line, guild=A)


async def test_admin_of_another_server_cannot_end_a_game(service, store):
    await track_running(service)
    reply = await do(service, "t1", "mallory", "/game end", guild=B, admin=True)
    assert reply.outcome == "refused", reply.text
    assert (await store.active_game("t1")) is not None


async def test_admin_of_another_server_cannot_take_over_a_game(service, store):
    await track_running(service)
    reply = await do(service, "t1", "mallory", "/game takeover", guild=B, admin=True)
    assert reply.outcome == "refused", reply.text


async def test_admin_of_another_server_cannot_change_table_settings(service, store):
    await track_running(service)
    reply = await do(service, "t1", "mallory", "/game settings deadline_hours:1", guild=B, admin=True)
    assert reply.outcome == "refused", reply.text


async def _gm_race(service, channel="c"):
    for user, line in (("gina", "/game new ruleset:race gm:yes tuning:0 seed:7"), ("alice", "/game join"),
                       ("bob", "/game join"), ("gina", "/game start")):
        await must(service, channel, user, line)


async def test_old_gm_thread_refused_after_the_gm_seat_changed_hands(service):
    await _gm_race(service)
    await service.link_gm_thread("c", Actor("gina", "gina"), "t1")
    await must(service, "c", "gina", "/game seat give to:dave")
    await must(service, "c", "dave", "/game seat take")
    for line in ("/dcs", "/gm change:3", "/undo", "/notes"):
        old = await do(service, "t1", "gina", line, private_thread=True)
        assert old.outcome == "refused" and "only the game's GM acts here" in old.text, (line, old.text)


async def test_league_and_tournament_admin_commands_stay_on_their_server(service, store):
    made = await must(service, "hall", "ann", "/tournament new ruleset:speedway format:elimination players:4 "
                                              "setup:'arena:duel rounds:100'")
    number = int(made.buttons[0].custom_id.split(":")[1])
    for line in (f"/tournament cancel number:{number}", f"/tournament start number:{number}"):
        reply = await do(service, "hall-b", "mallory", line, guild=B, admin=True)
        assert reply.outcome == "refused" and "on this server" in reply.text, reply.text
    joined = await service.press("hall-b", Actor("zed", "zed"), made.buttons[0].custom_id, guild=B)
    assert joined.outcome == "refused", joined.text
    season = await must(service, "hall", "boss", "/league new ruleset:track season_days:7 max_games:3", admin=True)
    (s_number,) = {int(b.custom_id.split(":")[1]) for b in season.buttons}
    ended = await do(service, "hall-b", "mallory", f"/league end number:{s_number}", guild=B, admin=True)
    assert ended.outcome == "refused" and "on this server" in ended.text, ended.text
