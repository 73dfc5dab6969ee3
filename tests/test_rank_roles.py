"""Discord rank roles (issue 40 item 4): the tiers a game kind's ratings give, /league roles turning them on and off,
what the transport is asked to do as the ratings change (a game rated, a member forgotten), and what it could not
do said once. The Discord side is tests/e2e/test_e2e_rank_roles.py."""

from __future__ import annotations

from bot.storage import rank_roles as stored
from bot.storage.ratings import Rating
from bot.table.jobs.heavy import HeavyWork
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor, Reply
from bot.table.service.rank_roles import Change, problem_words, tiers_of
from bot.table.service.ratings import rebuild
from tests.conftest import run_cli

BACKENDS = ("sqlite", "postgres")   # the settings, roles and holders are stored: both backends
G = "1001"   # a Discord server's id


async def do(service, user: str, line: str, *, guild: str = G, admin: bool = False, channel: str = "c1") -> Reply:
    return await service.execute(channel, Actor(user, user, admin), parse(line), guild=guild)


async def rate(store, guild: str, *ratings: tuple[str, float, float, int]) -> None:
    async with store.transaction():
        await store.driver.executemany(
            "INSERT INTO ratings (guild, ruleset, member, mu, sigma, games) VALUES (?, 'track', ?, ?, ?, ?)",
            [(guild, *r) for r in ratings])


def test_the_tiers_are_the_champion_the_top_3_and_the_top_10_among_the_ratings_not_provisional():
    ratings = [Rating(f"m{i:02}", 40.0 - i, 1.0, 5) for i in range(12)] + [Rating("new", 60.0, 1.0, 4)]
    tiers = tiers_of(ratings)
    assert "new" not in tiers   # provisional: four rated games
    assert tiers["m00"] == "champion" and [tiers[f"m0{i}"] for i in (1, 2)] == ["top3", "top3"]
    assert [m for m, t in tiers.items() if t == "top10"] == [f"m{i:02}" for i in range(3, 10)]
    assert len(tiers) == 10 and tiers_of([]) == {}


async def test_league_roles_turns_a_games_roles_on_and_asks_the_transport_to_make_and_give_them(service, store):
    await rate(store, G, ("ann", 30.0, 1.0, 5), ("ben", 28.0, 1.0, 6), ("cat", 25.0, 1.0, 4))
    refused = await do(service, "ben", "/league roles ruleset:track set:on")
    assert refused.outcome == "refused" and "Manage Server" in refused.text
    assert "ruleset:" in (await do(service, "ann", "/league roles set:on", admin=True)).text
    assert "None are on" in (await do(service, "ann", "/league roles")).text
    on = await do(service, "ann", "/league roles ruleset:track set:on", admin=True)
    assert on.ephemeral and "Track Champion, Track Top 3, Track Top 10" in on.text
    assert "Track Champion: ann\nTrack Top 3: ben" in on.text and "Discord only" not in on.text
    assert service.rank_roles.take_touched() == {G} and await service.rank_roles.due_guilds() == [G]

    plan = await service.rank_roles.plan(G)
    assert await service.rank_roles.due_guilds() == []   # taken: a change from now on asks again
    (kind,) = plan.kinds
    assert kind.status == "on" and [t for t, _ in kind.to_make] == ["champion", "top3", "top10"]
    assert kind.changes == (Change("ann", None, "champion"), Change("ben", None, "top3"))
    for tier, role in (("champion", "r1"), ("top3", "r2"), ("top10", "r3")):
        await service.rank_roles.made(G, "track", tier, role)
    await service.rank_roles.held(G, "track", {"ann": "champion", "ben": "top3"})
    (kind,) = (await service.rank_roles.plan(G)).kinds
    assert kind.to_make == () and kind.changes == () and kind.role_ids == {"champion": "r1", "top3": "r2",
                                                                          "top10": "r3"}

    # a game rated on this server asks for another look; cat's fifth game ends her provisional time
    for user, line in (("cat", "/game new ruleset:track seed:3"), ("cat", "/game join"), ("ben", "/game join"),
                       ("cat", "/game start"), ("ben", "/game resign confirm:yes")):
        assert (await do(service, user, line, channel="t1")).outcome in ("applied", "shown"), line
    assert await service.rank_roles.due_guilds() == [G]
    (kind,) = (await service.rank_roles.plan(G)).kinds
    assert Change("cat", None, "top3") in kind.changes and all(c.member in ("ann", "ben", "cat") for c in kind.changes)
    shown = (await do(service, "dan", "/league roles ruleset:track")).text
    assert "The Track rank roles here: on (turned on by ann in c1)" in shown and "cat" in shown


async def test_what_the_transport_cannot_do_is_said_once_and_a_role_deleted_by_hand_pauses_the_roles(service, store):
    await rate(store, G, ("ann", 30.0, 1.0, 5))
    await do(service, "ann", "/league roles ruleset:track set:on", admin=True)
    lacking = problem_words("manage_roles", "track")
    told = await service.rank_roles.trouble(G, "track", lacking)
    assert told is not None and told.player == "ann" and told.channel == "c1" and "Manage Roles" in told.text
    assert await service.rank_roles.trouble(G, "track", lacking) is None   # said once
    assert "⚠ I cannot keep the Track rank roles: I need the Manage Roles permission" in \
        (await do(service, "ben", "/league roles")).text
    assert await service.rank_roles.trouble(G, "track", "") is None   # done: nothing to say, the warning goes
    assert "⚠" not in (await do(service, "ben", "/league roles")).text

    await service.rank_roles.made(G, "track", "champion", "r1")
    await service.rank_roles.held(G, "track", {"ann": "champion"})
    lost = await service.rank_roles.lost(G, "track", "champion")
    assert lost is not None and "Track Champion was deleted by hand" in lost.text
    (kind,) = (await service.rank_roles.plan(G)).kinds
    assert kind.status == "paused" and kind.changes == ()
    await do(service, "ann", "/league roles ruleset:track set:on", admin=True)   # made anew, given anew
    (kind,) = (await service.rank_roles.plan(G)).kinds
    assert kind.status == "on" and ("champion", "Track Champion") in kind.to_make
    assert kind.changes == (Change("ann", None, "champion"),)

    off = await do(service, "ann", "/league roles ruleset:track set:off", admin=True)
    assert off.outcome == "shown" and "off" in off.text
    (kind,) = (await service.rank_roles.plan(G)).kinds
    assert kind.status == "off"
    await service.rank_roles.taken_down(G, "track")
    assert (await service.rank_roles.plan(G)).kinds == ()
    assert (await do(service, "ann", "/league roles ruleset:track set:off", admin=True)).outcome == "refused"


async def test_a_forgotten_member_leaves_the_role_bookkeeping_and_their_role_is_taken_off(service, store):
    await rate(store, G, ("ann", 30.0, 1.0, 5), ("ben", 28.0, 1.0, 5))
    await do(service, "ann", "/league roles ruleset:track set:on", admin=True)
    await service.rank_roles.plan(G)
    await service.rank_roles.made(G, "track", "champion", "r1")
    await service.rank_roles.made(G, "track", "top3", "r2")
    await service.rank_roles.held(G, "track", {"ann": "champion", "ben": "top3"})
    assert (await do(service, "ann", "/me forget confirm:yes")).outcome == "shown"
    assert await stored.holders(store, G, "track") == {"ben": "top3"}
    assert await service.rank_roles.due_guilds() == [G]
    plan = await service.rank_roles.plan(G)
    assert plan.drops == (("r1", "ann"),)   # the transport takes her role off
    assert plan.kinds[0].changes == (Change("ben", "top3", "champion"),)   # ben moves up
    await service.rank_roles.dropped(G, "r1", "ann")
    assert (await service.rank_roles.plan(G)).drops == ()


async def test_on_the_command_line_league_roles_says_roles_are_given_on_discord_only(service, store):
    await rate(store, "", ("ann", 30.0, 1.0, 5))
    shown = await do(service, "ann", "/league roles ruleset:track set:on", guild="", admin=True)
    assert "Discord only: here this shows who would hold which tier" in shown.text
    assert "Track Champion: ann" in shown.text


def test_league_roles_works_on_the_command_line_and_says_discord_gives_the_roles(tmp_path):
    where = ("--db", str(tmp_path / "roles.db"), "--channel", "c", "--user", "ann")
    refused = run_cli("exec", *where, "/league roles ruleset:speedway set:on", cwd=tmp_path)
    assert refused.returncode == 1 and "Manage Server" in refused.stdout
    on = run_cli("exec", *where, "--admin", "/league roles ruleset:speedway set:on", cwd=tmp_path)
    assert on.returncode == 0 and "The Speedway rank roles are on" in on.stdout
    assert "Rank roles are given on Discord only: here this shows who would hold which tier." in on.stdout
    shown = run_cli("exec", *where, "/league roles", cwd=tmp_path)
    assert "- Speedway: on (turned on by ann in c)" in shown.stdout


async def test_a_rebuild_of_the_ratings_asks_for_a_look_at_the_rank_roles(service, store):
    await do(service, "ann", "/league roles ruleset:track set:on", admin=True)
    await do(service, "ann", "/league roles ruleset:track set:on", admin=True, guild="1002")
    await service.rank_roles.plan(G)
    await service.rank_roles.plan("1002")
    assert await service.rank_roles.due_guilds() == []
    await rebuild(store, HeavyWork().run, G)
    assert await service.rank_roles.due_guilds() == [G]   # that server's, not the other's

