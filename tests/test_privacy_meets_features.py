"""Where the operator's controls and forgetting a member meet other features: buttons and autocomplete of a
command turned off or a blocked server, other seats' names, rematches, seasons, rank roles, seats offered."""

from __future__ import annotations

import json

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from bot.table.trust.guards import RateLimit
from tests.test_discord_adapter import ALICE, BOB, GUILD_ID, _autocomplete, _harness  # noqa: F401

ANN, BEN = "111111111111111111", "222222222222222222"
NAMES = {ANN: "Ann Lee", BEN: "Ben Moss"}


async def run(service, user: str, line: str, channel: str = "c", guild: str = "g"):
    return await service.execute(channel, Actor(user, NAMES.get(user, user)), parse(line), guild=guild)


async def press(service, user: str, custom_id: str, channel: str = "c", guild: str = "g"):
    return await service.press(channel, Actor(user, NAMES.get(user, user)), custom_id, guild=guild)


async def a_game(service, channel: str = "c", end: bool = True):
    """A Track race of Ann (host) and Ben, started; ended by Ann unless `end` is False: the last reply."""
    for user, line in ((ANN, "/game new ruleset:track seed:3"), (ANN, "/game join"), (BEN, "/game join"),
                       (ANN, "/game start")):
        reply = await run(service, user, line, channel)
        assert reply.outcome == "applied", line
    if end:
        reply = await run(service, ANN, "/game end", channel)
        assert reply.outcome == "applied"
    return reply


async def test_the_rematch_button_is_refused_while_game_rematch_is_turned_off(service, store):
    final = await a_game(service)
    button = next(b.custom_id for b in final.buttons if b.label == "Rematch")
    await service.control("command", "game rematch", on=True)
    typed = await run(service, ANN, "/game rematch")
    assert typed.text.startswith("The operator of this bot turned /game rematch off")
    pressed = await press(service, ANN, button)
    assert pressed.outcome == "refused" and "turned /game rematch off" in pressed.text, pressed.text
    assert await store.driver.fetchone("SELECT 1 FROM rematches") is None


async def test_the_resign_button_is_refused_while_game_resign_is_turned_off(service, store):
    await a_game(service, end=False)
    asked = await run(service, BEN, "/game resign")
    button = next(b.custom_id for b in asked.buttons if b.label == "Resign for good")
    await service.control("command", "game resign", on=True)
    pressed = await press(service, BEN, button)
    assert pressed.outcome == "refused" and "turned /game resign off" in pressed.text, pressed.text


async def test_a_rollback_vote_button_is_refused_while_game_rollback_is_turned_off(service, store):
    await a_game(service, end=False)
    assert (await press_first(service, BEN)).outcome == "applied"
    asked = await run(service, ANN, "/game rollback to:3")
    yes = next(b.custom_id for b in asked.buttons if "yes" in b.label.lower() or "approve" in b.label.lower())
    await service.control("command", "game rollback", on=True)
    moved = (await store.active_game("c")).version
    pressed = await press(service, BEN, yes)
    assert pressed.outcome == "refused" and "turned /game rollback off" in pressed.text, pressed.text
    assert (await store.active_game("c")).version == moved


async def press_first(service, user):
    """Play the first legal action offered to `user` (typed as its command)."""
    (first, *_) = await service.own_choices("c", user)
    return await run(service, user, first.command if first.command.startswith("/") else "/" + first.command)


async def test_autocomplete_suggests_nothing_in_a_blocked_server(tmp_path):
    async with _harness(tmp_path) as harness:
        await harness.run(ALICE, "new battlecars", seed=3)
        await harness.run(ALICE, "game join", vehicle="interceptor")
        await harness.run(BOB, "game join", vehicle="rammer")
        await harness.run(ALICE, "game start")
        await harness.client.service.control("server", str(GUILD_ID), on=True)
        refused = await harness.run(ALICE, "game status")
        assert any("blocked this server" in str(r.json) for r in refused)
        (answer,) = await harness.deliver(_autocomplete(ALICE, "speed", 50, "value", value=""))
        assert answer.json["data"]["choices"] == []


async def test_autocomplete_of_a_command_turned_off_suggests_nothing(service, store):
    await a_game(service, end=False)
    await service.control("command", "game resign", on=True)
    assert await service.suggest("c", Actor(ANN, "Ann Lee"), "game resign", "player", "", {}) == []

async def test_forgetting_a_member_leaves_another_name_that_starts_with_theirs_whole(service, store):
    """Ben ("Ben") is forgotten; Ann plays as "Ben Moss"-like name "Ben Lee": her seat must keep its name."""
    names = {ANN: "Ben Lee", BEN: "Ben"}
    for user, line in ((ANN, "/game new ruleset:track seed:3"), (ANN, "/game join"), (BEN, "/game join"),
                       (ANN, "/game start"), (ANN, "/game end")):
        reply = await service.execute("c", Actor(user, names[user]), parse(line), guild="g")
        assert reply.outcome == "applied", (line, reply.text)
    done = await service.forget(BEN, confirm=True)
    assert done.text.startswith("Forgotten") and "replaced in 1 game" in done.text, done.text
    status = await run(service, ANN, "/game status")
    assert "Ben Lee" in status.text and "forgotten player Lee" not in status.text, status.text


async def test_forget_takes_the_members_id_off_a_season_they_made_and_rank_roles_they_turned_on(service, store):
    boss = Actor(ANN, "Ann Lee", is_admin=True)
    made = await service.execute("hall", boss, parse("/league new ruleset:track season_days:7 max_games:1"), guild="g")
    assert made.outcome != "refused", made.text
    roles = await service.execute("hall", boss, parse("/league roles ruleset:track set:on"), guild="g")
    assert roles.outcome != "refused", roles.text
    done = await service.forget(ANN, confirm=True)
    assert done.text.startswith("Forgotten"), done.text
    kept = [(table, row) for table in ("seasons", "rank_roles")
            for row in await store.driver.fetchall(f"SELECT * FROM {table}") if ANN in repr(row)]
    assert kept == [], kept


async def test_a_member_of_a_blocked_server_may_still_have_their_data_deleted(service, store):
    await run(service, BEN, "/me settings time_zone:Europe/Paris")
    await service.control("server", "g", on=True)
    done = await run(service, BEN, "/me forget confirm:yes")
    # privacy.ALWAYS_ON: "a member may always have their data deleted"
    assert done.text.startswith("Forgotten"), done.text


async def test_me_forget_empties_the_members_rate_limit_counts(store):
    limit = RateLimit()
    service = GameService(store, rate_limit=limit)
    done = await run(service, BEN, "/me forget confirm:yes")
    assert done.text.startswith("Forgotten"), done.text
    assert [key for key in limit._buckets if key[0] == BEN] == []   # docs/operating.md: "/me forget empties those"


async def test_a_rematch_a_forgotten_member_agreed_to_seats_no_pseudonym(service, store):
    cat = "333333333333333333"
    names = {**NAMES, cat: "Cat Roy"}
    act = lambda user, line: service.execute("c", Actor(user, names[user]), parse(line), guild="g")  # noqa: E731
    for user, line in ((ANN, "/game new ruleset:race seed:3"), (ANN, "/game join pilot:rookie"),
                       (BEN, "/game join pilot:veteran"), (cat, "/game join pilot:rookie"), (ANN, "/game start")):
        assert (await act(user, line)).outcome == "applied", line
    final = await act(ANN, "/game end")
    rematch = next(b.custom_id for b in final.buttons if b.label == "Rematch")
    assert (await service.press("c", Actor(ANN, "Ann Lee"), rematch, guild="g")).outcome == "shown"
    assert (await act(BEN, "/game rematch")).outcome == "shown"      # Ben says yes ...
    assert (await service.forget(BEN, confirm=True)).text.startswith("Forgotten")   # ... then is forgotten
    made = await act(cat, "/game rematch")
    new = await store.active_game("c")
    seated = [p["id"] for p in json.loads(new.state)["state"]["players"]] if new else []
    assert not any(p.startswith("forgotten-") for p in seated), (seated, made.text)


async def test_forget_renames_a_member_a_seat_was_only_offered_to(service, store):
    cat = "333333333333333333"
    await a_game(service, end=False)
    offered = await run(service, BEN, f"/game seat give to:{cat}")
    assert offered.outcome == "applied", offered.text
    await run(service, ANN, "/game end")
    done = await service.execute("x", Actor(cat, "Cat Roy"), parse("/me forget confirm:yes"), guild="g")
    assert done.text.startswith("Forgotten"), done.text
    kept = [(table, row) for table in ("actions", "turn_messages", "told_messages", "games")
            for row in await store.driver.fetchall(f"SELECT * FROM {table}") if cat in repr(row)]
    assert kept == [], kept
