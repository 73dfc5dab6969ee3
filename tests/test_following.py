"""Followers (issue 27, item 5): a member who watches a game is pinged once a round (or only at its end) in
a message of its own in the game's channel, and no longer after /game unfollow; players are not followers."""

from __future__ import annotations

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from tests.conftest import run_cli, track_on_the_command_line


async def run(service, user, line, channel="f"):
    return await service.execute(channel, Actor(user, user), parse(line))


async def track(service):
    for user, line in (("ann", "/game new ruleset:track seed:3"), ("ann", "/game join"), ("ben", "/game join"),
                       ("ann", "/game start")):
        await run(service, user, line)


async def play_a_round(service):
    """Each of the two players' first offered card (a Track round): the replies."""
    replies = []
    for _ in range(2):
        status = await run(service, "zed", "/game status")
        if not status.waiting_on:
            break
        player = status.waiting_on[0]
        own = await service.own_choices("f", player)
        replies.append(await run(service, player, own[0].command))
    return replies


async def test_a_follower_is_pinged_once_a_round_and_not_after_unfollowing(service):
    await track(service)
    assert (await run(service, "ann", "/game follow")).outcome == "refused"   # a player: pinged on their turns
    kept = await run(service, "zed", "/game follow")
    assert kept.ephemeral and kept.text.startswith("You follow this Track (the card race) game: a ping once a round.")
    assert (await run(service, "yan", "/game follow mode:end")).outcome == "shown"
    replies = await play_a_round(service)
    told = [n for r in replies for n in r.notices]
    assert len(told) == 1 and told[0].channel == "f" and told[0].reply.mentions == ("zed",)
    assert told[0].reply.text.startswith("Round 2 of the Track (the card race) game here begins.")
    assert (await run(service, "zed", "/game unfollow")).text == "You do not follow this game (any more)."
    replies = await play_a_round(service)
    assert not [n for r in replies for n in r.notices]
    ended = await run(service, "ben", "/game resign confirm:yes")
    (said,) = ended.notices
    assert said.reply.mentions == ("yan",)
    assert said.reply.text.startswith("The Track (the card race) game here has ended.")


def test_following_on_the_command_line(tmp_path):
    db = str(tmp_path / "f.db")
    track_on_the_command_line(db, tmp_path)
    assert run_cli("exec", "--db", db, "--channel", "c", "--user", "zed", "/game follow mode:end",
                   cwd=tmp_path).returncode == 0
    ended = run_cli("exec", "--db", db, "--channel", "c", "--user", "ben", "/game resign confirm:yes", cwd=tmp_path)
    assert "[channel c] The Track (the card race) game here has ended." in ended.stdout, ended.stdout


def test_a_thread_is_discords_the_command_line_plays_in_its_channel(tmp_path):
    db = str(tmp_path / "t.db")
    said = run_cli("exec", "--db", db, "--channel", "c", "--user", "ann", "/game new ruleset:track thread:yes",
                   cwd=tmp_path)
    assert said.returncode == 1 and "thread:yes opens a Discord thread for the game" in said.stdout
    assert run_cli("exec", "--db", db, "--channel", "c", "--user", "ann", "/game status", cwd=tmp_path).returncode == 1
    assert run_cli("exec", "--db", db, "--channel", "c", "--user", "ann", "/game new ruleset:track thread:no",
                   cwd=tmp_path).returncode == 0


async def test_a_follower_who_joins_is_pinged_as_a_player_and_may_still_unfollow(service, store):
    """The play-test's finding: a spectator who followed and then joined kept the follower's pings and
    could not unfollow."""
    await run(service, "ann", "/game new ruleset:speedway seed:2")
    assert (await run(service, "dan", "/game follow")).outcome == "shown"
    for user in ("ann", "dan"):
        await run(service, user, "/game join")
    await run(service, "ann", "/game start")
    assert (await run(service, "dan", "/game unfollow")).outcome == "shown"
    game = await store.active_game("f")
    assert await store.followers(game.id) == []
