"""Grace before the autopilot and a previewed plan played at the deadline (issue 38 finding 12); a time bank
counted in each player's waking hours (finding 13): through the service with a controlled clock."""

from __future__ import annotations

import json

from bot.table.clock.settings import TableSettings
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from tests.conftest import exec_in, run_cli, run_pitboss, track_on_the_command_line
from tests.test_scheduler import Clock

BACKENDS = ("sqlite", "postgres")   # timers are stored: both databases (tests/conftest.py)


async def duel(store, settings: str) -> tuple[GameService, Clock, object]:
    """A Speedway duel that waits on alice's Moves (speed 3), under the table settings given."""
    clock = Clock()
    service = GameService(store, render=None, clock=clock)

    async def table(user: str, line: str):
        return await service.execute("chan-1", Actor(user, user), parse(line), guild="g1")
    for user, line in (("alice", "/game new ruleset:speedway seed:2 arena:duel"), ("alice", "/game join car:brawler"),
                       ("bob", "/game join car:torch"), ("alice", settings), ("alice", "/game start"),
                       ("alice", "/speed value:3")):
        reply = await table(user, line)
        assert reply.outcome in ("applied", "shown"), (line, reply.text)
    return service, clock, table


async def kinds(store) -> list[str]:
    """alice's logged Moves and shots."""
    game = await store.active_game("chan-1")
    return [a["maneuver"] if a["type"] == "Move" else a["type"].lower() for r in await store.actions(game.id)
            if r.actor == "alice" and (a := json.loads(r.action))["type"] in ("Move", "Fire")]


async def deadline_notices(service, clock, hours: float) -> list[str]:
    clock.advance(hours)
    return [n.reply.text for n in await service.run_due() if not n.reply.text.startswith("Reminder")]


async def test_a_grace_extends_a_missed_deadline_once_then_the_autopilot_plays(store):
    service, clock, table = await duel(store, "/game settings deadline_hours:6 grace:1")
    assert "(then grace: +6 h, 1 of 1 left)" in (await table("bob", "/game status")).text
    (excused,) = await deadline_notices(service, clock, 6.5)
    assert excused.startswith("alice missed the deadline: grace 1 of 1 used, new deadline <t:")
    assert await kinds(store) == []                                  # nothing played for her yet
    assert "(extended by grace: then the autopilot)" in (await table("bob", "/game status")).text
    (played,) = await deadline_notices(service, clock, 6.5)          # the extended deadline is not extended again
    assert played.startswith("alice's deadline passed: the autopilot plays for them")
    assert TableSettings.from_json((await store.active_game("chan-1")).settings).grace_used == {"alice": 1}
    shown = await table("bob", "/game settings")
    assert "grace: 1 missed deadline per player extended by 6 h first" in shown.text


async def test_a_plan_previewed_but_not_confirmed_is_played_at_the_deadline(store):
    service, clock, table = await duel(store, "/game settings deadline_hours:6")
    preview = await table("alice", "/move plan:normal,normal fire:front@bob preview:yes")
    assert preview.outcome == "shown" and preview.ephemeral
    (played,) = await deadline_notices(service, clock, 6.5)
    assert played.startswith("alice's deadline passed: the plan they previewed is played for them.")
    assert await kinds(store) == ["fire", "normal", "normal", "normal"]   # the plan, then the autopilot's last Move
    assert await service.replay_matches(await store.active_game("chan-1"))


async def test_a_previewed_plan_the_game_no_longer_takes_falls_back_to_the_autopilot(store):
    service, clock, table = await duel(store, "/game settings deadline_hours:6")
    await table("alice", "/move plan:normal preview:yes")
    game = await store.active_game("chan-1")
    settings = TableSettings.from_json(game.settings)
    (key, _), = settings.previewed.values()
    too_long = settings.with_preview("alice", (key, "-:n.n.n.n.n"))    # more maneuvers than Moves left
    async with store.transaction():
        await store.set_settings_tx(game, too_long.to_json())
    (played,) = await deadline_notices(service, clock, 6.5)
    assert await kinds(store) == ["normal", "normal", "normal"]
    assert "the plan they previewed cannot be played now (" in played and "the autopilot plays for them" in played


async def test_acting_forgets_the_preview(store):
    service, clock, table = await duel(store, "/game settings deadline_hours:6")
    await table("alice", "/move plan:normal,normal preview:yes")
    assert await table("alice", "/move maneuver:normal") is not None
    assert TableSettings.from_json((await store.active_game("chan-1")).settings).previewed == {}
    (played,) = await deadline_notices(service, clock, 6.5)
    assert "the autopilot plays for them" in played and "previewed" not in played


def past_deadlines(db: str) -> None:
    """Every running deadline of the SQLite file `db` moved into the past, as if the hours had gone by."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE player_timers SET deadline_due = 1 WHERE deadline_due IS NOT NULL")


def test_grace_on_the_command_line(tmp_path):
    db = str(tmp_path / "game.db")
    track_on_the_command_line(db, tmp_path)
    shown = exec_in(db, tmp_path)("ann", "/game settings deadline_hours:6 grace:2")
    assert "grace: 2 missed deadlines per player extended by 6 h first" in shown
    past_deadlines(db)
    ticked = run_pitboss("tick", "--db", db, cwd=tmp_path)
    assert ticked.returncode == 0 and "missed the deadline: grace 1 of 2 used, new deadline 20" in ticked.stdout
    refused = run_cli("exec", "--db", db, "--channel", "c", "--user", "ann", "/game settings grace:4", cwd=tmp_path)
    assert refused.returncode != 0 and "grace" in refused.stdout and "Traceback" not in refused.stdout


async def test_help_explains_grace(service):
    reply = await service.execute("chan-9", Actor("ann", "ann"), parse("/help command:settings"))
    assert "`grace:`" in reply.text and "missed deadlines" in reply.text
