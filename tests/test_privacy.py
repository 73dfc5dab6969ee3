"""A member's data forgotten, and the operator's controls (issue 39 item 12): /me forget and `pitboss forget`
share one service function; blocked members and servers and commands turned off are refused at every door."""

from __future__ import annotations

import sqlite3

import pytest

from bot.storage import privacy
from bot.table.jobs.heavy import HeavyWork
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from tests.conftest import run_cli, run_pitboss

BACKENDS = ("sqlite", "postgres")
ANN, BEN = "111111111111111111", "222222222222222222"
NAMES = {ANN: "Ann Lee", BEN: "Ben Moss"}
EVERY_TABLE = ("games", "actions", "seats", "set_aside", "rollbacks", "told_messages", "turn_messages",
               "player_settings", "player_notices", "followers", "standing_orders", "gm_threads", "rematches",
               "rollback_votes", "player_timers")


async def run(service, user: str, line: str, channel: str = "c", guild: str = "g"):
    return await service.execute(channel, Actor(user, NAMES.get(user, user)), parse(line), guild=guild)


async def a_game(service, channel: str = "c", end: bool = True) -> None:
    """A Track race of Ann (host) and Ben, a move in, ended by Ann unless `end` is False."""
    for user, line in ((ANN, "/game new ruleset:track seed:3"), (ANN, "/game join"), (BEN, "/game join"),
                       (ANN, "/game start")):
        assert (await run(service, user, line, channel)).outcome == "applied", line
    if end:
        assert (await run(service, ANN, "/game end", channel)).outcome == "applied"


async def everything(store) -> str:
    """Every row of every table that may hold a member's id or name, as text."""
    rows = []
    for table in EVERY_TABLE:
        rows += [repr(row) for row in await store.driver.fetchall(f"SELECT * FROM {table}")]
    return "\n".join(rows)


async def test_me_forget_deletes_a_members_data_and_leaves_their_games_verifying(service, store):
    await a_game(service)
    await run(service, ANN, "/game new ruleset:track seed:4", channel="d")
    for line in ("/me settings time_zone:Europe/Paris away:23-07 notify:digest", "/game follow mode:end"):
        assert (await run(service, BEN, line, channel="d")).outcome != "refused", line
    (game,) = [g for g in await store.all_games() if g.channel == "c"]
    await store.set_standing_order(game.id, BEN, "q", "a")
    await run(service, ANN, "/me settings time_zone:Asia/Tokyo")

    asked = await run(service, BEN, "/me forget")
    assert asked.outcome == "shown" and asked.ephemeral and "/me forget confirm:yes does it" in asked.text
    assert "4 personal records" in asked.text and "1 game you played" in asked.text
    assert sum((await privacy.personal_rows(store, BEN)).values()) == 4   # nothing changed yet

    done = await run(service, BEN, "/me forget confirm:yes")
    assert done.text == "Forgotten: 4 personal records deleted, and your name and id replaced in 1 game."
    dumped = await everything(store)
    assert BEN not in dumped and "Ben Moss" not in dumped and "forgotten player" in dumped
    assert ANN in dumped and "Ann Lee" in dumped and (await privacy.personal_rows(store, ANN))["player_settings"] == 1
    renamed = await store.game(game.id)
    assert renamed.version == game.version + 1 and await service.replay_matches(renamed)
    verified = await run(service, ANN, "/game verify")
    assert verified.outcome != "refused" and "forgotten player" in (await run(service, ANN, "/game status")).text


async def test_a_forget_lets_go_of_the_long_jobs_answers_kept_with_the_members_name(store):
    heavy = HeavyWork()
    service = GameService(store, heavy=heavy)
    await a_game(service)
    gif = await run(service, BEN, "/game replay")
    assert gif.outcome == "shown" and len(heavy.kept) == 1
    assert (await run(service, BEN, "/me forget confirm:yes")).text.startswith("Forgotten")
    assert len(heavy.kept) == 0
    again = await run(service, ANN, "/game replay")
    assert again.files[0].data != gif.files[0].data   # drawn again, under the neutral name


async def test_a_member_seated_in_a_running_game_is_refused_and_nothing_changes(service, store):
    await a_game(service, end=False)
    await run(service, BEN, "/me settings time_zone:Europe/Paris")
    for reply in (await run(service, BEN, "/me forget confirm:yes"), await service.forget(BEN, confirm=True)):
        assert reply.outcome == "refused" and "still play" in reply.text and "/game resign" in reply.text
    assert "Member 222222222222222222 still plays" in (await service.forget(BEN, confirm=True)).text
    assert (await privacy.personal_rows(store, BEN))["player_settings"] == 1 and "Ben Moss" in await everything(store)
    refused = await service.forget("not an id!", confirm=True)   # the same validation at both doors
    assert refused.outcome == "refused" and "is not a member id" in refused.text


async def test_blocked_members_and_servers_and_commands_turned_off_are_refused_and_change_nothing(service, store):
    await a_game(service, end=False)
    game = await store.active_game("c")
    assert (await service.control("user", BEN, on=True, reason="spam <@1>")).outcome == "shown"
    for reply in (await run(service, BEN, "/game status"), await service.press("c", Actor(BEN, "Ben"), "pb:1:3:2"),
                  await service.confirm_plan("c", Actor(BEN, "Ben"), "x")):
        assert reply.outcome == "refused" and reply.ephemeral
        assert reply.text == "The operator of this bot has blocked you from using it; nothing was changed."
    assert await service.suggest("c", Actor(BEN, "Ben"), "game resign", "player", "", {}) == []
    assert (await run(service, ANN, "/game status")).outcome == "shown"

    await service.control("server", "g", on=True)
    assert "blocked this server" in (await run(service, ANN, "/game status")).text
    assert (await run(service, ANN, "/game status", guild="h")).outcome == "shown"
    await service.control("command", "/game replay", on=True)
    assert (await run(service, ANN, "/game replay", guild="h")).text == \
        "The operator of this bot turned /game replay off; nothing was changed."
    assert (await store.active_game("c")).version == game.version
    listed = (await service.controls()).text.splitlines()
    assert listed == ["command off /game replay", "server g", f"member {BEN}: spam 1"]

    for kind, name in (("command", "replay"), ("server", "g"), ("user", BEN)):
        assert (await service.control(kind, name, on=False)).outcome == "shown"
    assert (await run(service, BEN, "/game status")).outcome == "shown"
    for kind, name, why in (("command", "me forget", "stays on"), ("command", "speed", "not one of the table's"),
                            ("user", BEN, "was not blocked"), ("server", "<@1>", "is not a server id")):
        refused = await service.control(kind, name, on=kind != "user")
        assert refused.outcome == "refused" and why in refused.text, refused.text


@pytest.mark.sqlite_only
def test_the_operator_blocks_forgets_and_turns_commands_off_on_the_command_line(tmp_path):
    db = str(tmp_path / "p.db")
    run = lambda *args: run_cli(*args, "--db", db, cwd=tmp_path)   # noqa: E731
    for user, line in (("ann", "/game new ruleset:track seed:3"), ("ann", "/game join"), ("ben", "/game join")):
        assert run_cli("exec", "--db", db, "--channel", "c", "--user", user, line, cwd=tmp_path).returncode == 0
    blocked = run_pitboss("block", "--user", "ben", "--reason", "spam", "--db", db, cwd=tmp_path)   # a fresh process
    assert blocked.returncode == 0 and blocked.stdout == "member ben blocked (running bots take it within 10 s).\n"
    refused = run_cli("exec", "--db", db, "--channel", "c", "--user", "ben", "/game status", cwd=tmp_path)
    assert refused.returncode == 1 and "blocked you" in refused.stdout
    assert run("disable-command", "game", "replay").returncode == 0
    assert run("blocks").stdout == "command off /game replay\nmember ben: spam\n"
    assert run("enable-command", "/game", "replay").returncode == 0 and run("unblock", "--user", "ben").returncode == 0
    assert run("unblock", "--server", "9").returncode == 1
    assert run("blocks").stdout == "Nothing is blocked or turned off.\n"

    seated = run("forget", "--user", "ben", "--yes")
    assert seated.returncode == 1 and seated.stderr.startswith("refused: Member ben still plays in 1 running game")
    assert run_cli("exec", "--db", db, "--channel", "c", "--user", "ann", "/game end", cwd=tmp_path).returncode == 0
    asked = run("forget", "--user", "ben")
    assert asked.returncode == 0 and "pitboss forget --user ben --yes does it" in asked.stdout
    done = run("forget", "--user", "ben", "--yes")
    assert done.stdout == "Forgotten: 0 personal records deleted, and their name and id replaced in 1 game.\n"
    with sqlite3.connect(db) as conn:
        assert "ben" not in "\n".join(conn.iterdump()).replace("ruleset", "")
    verified = run("verify")
    assert verified.returncode == 0 and "0 mismatches" in verified.stdout


async def test_a_game_the_neutral_name_would_not_re_run_is_left_as_it_was_and_counted(service, store):
    """A member named 'pits' (a word Track's snapshot uses: a car in the pits) cannot be told from the word: the
    renamed game would not re-run to its snapshot, so it is left exactly as it was, and the answer says so."""
    for user, line in ((ANN, "/game new ruleset:track seed:3"), (ANN, "/game join"), ("pits", "/game join"),
                       (ANN, "/game start"), (ANN, "/game end")):
        assert (await run(service, user, line)).outcome == "applied", line
    before = await everything(store)
    reply = await service.forget("pits", confirm=True)
    assert reply.text == ("Forgotten: 0 personal records deleted, and their name and id replaced in 0 games. 1 game "
                          "keeps their name, as the neutral one would not re-run to its snapshot (game 1).")
    assert await everything(store) == before
