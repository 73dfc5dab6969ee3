"""Grace before the autopilot and a previewed plan played at the deadline (issue 38 finding 12); a time bank
counted in each player's waking hours (finding 13): through the service with a controlled clock."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bot.table.clock.settings import TableSettings
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from tests.conftest import exec_in, run_cli, run_pitboss, track_on_the_command_line
from tests.test_scheduler import HOUR, T0, Clock

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


def test_grace_and_a_bank_on_the_command_line(tmp_path):
    db = str(tmp_path / "game.db")
    track_on_the_command_line(db, tmp_path)
    shown = exec_in(db, tmp_path)("ann", "/game settings deadline_hours:6 grace:2")
    assert "grace: 2 missed deadlines per player extended by 6 h first" in shown
    past_deadlines(db)
    ticked = run_pitboss("tick", "--db", db, cwd=tmp_path)
    assert ticked.returncode == 0 and "missed the deadline: grace 1 of 2 used, new deadline 20" in ticked.stdout
    refused = run_cli("exec", "--db", db, "--channel", "c", "--user", "ann", "/game settings grace:4", cwd=tmp_path)
    assert refused.returncode != 0 and "grace" in refused.stdout and "Traceback" not in refused.stdout
    shown = exec_in(db, tmp_path)("ann", "/game settings clock:bank bank_hours:48 increment_hours:6 cap_hours:72")
    assert "a time bank of 48 h a player" in shown
    status = exec_in(db, tmp_path)("ben", "/game status")
    assert re.search(r"⏰ \w+: bank (48:00|47:59) left, runs out 20\d\d-", status), status


async def test_help_and_the_commands_doc_name_every_clock_setting(service):
    reply = await service.execute("chan-9", Actor("ann", "ann"), parse("/help command:settings"))
    doc = (Path(__file__).resolve().parent.parent / "docs" / "commands.md").read_text()
    for name in ("grace", "clock", "bank_hours", "increment_hours", "cap_hours"):
        assert f"`{name}:`" in reply.text and f"[{name}" in doc, name
    assert "missed deadlines" in reply.text and "time bank" in reply.text


# --- the time bank (finding 13) ---------------------------------------------------------------------------


async def bank_of(store, player: str, now: float) -> float:
    """Hours left in a player's bank at `now` (a player without /me settings: every hour counts)."""
    return TableSettings.from_json((await store.active_game("chan-1")).settings).bank_left(player, now, None) / HOUR


async def test_a_bank_runs_only_while_the_game_waits_on_its_player_and_a_move_adds_the_increment(store):
    service, clock, table = await duel(store, "/game settings clock:bank bank_hours:10 increment_hours:3 cap_hours:12")
    status = (await table("bob", "/game status")).text
    assert "⏰ alice: bank 10:00 left, runs out <t:" in status        # bob's bank is not shown: he is not waited on
    clock.advance(4)
    for line in ("/move maneuver:normal", "/move maneuver:normal", "/move maneuver:normal", "/end"):
        assert (await table("alice", line)).outcome == "applied", line
    assert await bank_of(store, "alice", clock.now) == 9.0             # 10 - 4 spent + 3 for the move, under 12
    assert await bank_of(store, "bob", clock.now) == 10.0              # his starts now
    clock.advance(1.5)
    assert "bob: bank 8:30 left" in (await table("alice", "/game status")).text
    assert await deadline_notices(service, clock, 8.4) == []           # 9.9 h of his 10: not yet
    (played,) = await deadline_notices(service, clock, 0.2)
    assert played.startswith("bob's deadline passed: the autopilot plays for them")
    assert await bank_of(store, "bob", clock.now) == 3.0               # emptied, then the autopilot's move earned 3


async def test_a_bank_is_spent_only_outside_its_players_away_hours_and_survives_a_restart(db_path):
    from bot.storage.store import Store

    store = await Store.open(db_path)
    service, clock, table = await duel(store, "/game settings clock:bank bank_hours:6")
    await table("alice", "/me settings time_zone:Europe/Paris away:12-20")   # 11:00-19:00 UTC in January
    await table("alice", "/game settings clock:bank bank_hours:5")              # banks start anew, full
    timer = (await store.timers((await store.active_game("chan-1")).id))[0]
    assert timer.deadline_due == T0 + 3 * HOUR + 8 * HOUR + 2 * HOUR        # 08-11 UTC, away 11-19, then 2 h more
    await store.close()
    store = await Store.open(db_path)                                        # a restart: the bank is where it was
    service = GameService(store, render=None, clock=clock)
    clock.advance(10)                                                        # 18:00 UTC: 3 h spent, 7 of them away
    assert "alice: bank 2:00 left" in (await service.execute("chan-1", Actor("bob", "bob"), parse("/game status"),
                                                              guild="g1")).text
    await store.close()


async def test_grace_comes_before_an_empty_bank_plays(store):
    service, clock, table = await duel(store, "/game settings clock:bank bank_hours:2 grace:1")
    (excused,) = await deadline_notices(service, clock, 2.1)
    assert excused.startswith("alice missed the deadline: grace 1 of 1 used, new deadline")
    assert "alice: bank empty, deadline <t:" in (await table("bob", "/game status")).text
    (played,) = await deadline_notices(service, clock, 24)
    assert played.startswith("alice's deadline passed: the autopilot plays for them")


async def test_the_bank_waits_out_a_pause_and_belongs_to_the_seat(store):
    service, clock, table = await duel(store, "/game settings clock:bank bank_hours:10")
    assert (await table("alice", "/game pause hours:3")).outcome == "shown"
    clock.advance(5)
    assert await bank_of(store, "alice", clock.now) == 8.0             # 5 h waited, 3 of them paused
    assert "alice: bank 8:00 left" in (await table("bob", "/game status")).text
    assert (await table("alice", "/game seat give to:dave")).outcome in ("applied", "shown")
    assert (await table("dave", "/game seat take")).outcome == "applied"
    assert await bank_of(store, "dave", clock.now) == 8.0              # the seat's bank, as alice left it
    assert "alice" not in TableSettings.from_json((await store.active_game("chan-1")).settings).banks


async def test_bank_options_are_checked(store):
    service, clock, table = await duel(store, "/game settings deadline_hours:6")
    for line, why in (("/game settings clock:bank", "clock:bank needs bank_hours"),
                      ("/game settings clock:bank bank_hours:10 cap_hours:5", "cap_hours (5) must be at least"),
                      ("/game settings bank_hours:10", "add clock:bank")):
        refused = await table("alice", line)
        assert refused.outcome == "refused" and why in refused.text, (line, refused.text)
    shown = await table("alice", "/game settings clock:bank bank_hours:10 increment_hours:2 cap_hours:20")
    assert "a time bank of 10 h a player (counted outside their away hours), +2 h a move up to 20 h" in shown.text
    back = await table("alice", "/game settings clock:deadline")
    assert "deadline: 6 h, then autopilot" in back.text
    assert TableSettings.from_json((await store.active_game("chan-1")).settings).banks == {}


async def test_players_waited_on_at_once_each_spend_their_own_bank(store):
    clock = Clock()
    service = GameService(store, render=None, clock=clock)

    async def table(user: str, line: str):
        return await service.execute("chan-1", Actor(user, user), parse(line))
    bank = "/game settings clock:bank bank_hours:10 increment_hours:1"
    for user, line in (("alice", "/game new ruleset:toy"), ("alice", "/game join"), ("bob", "/game join"),
                       ("alice", bank), ("alice", "/game start")):
        assert (await table(user, line)).outcome in ("applied", "shown"), line
    clock.advance(2)
    await table("alice", "/move direction:north")         # her wait ends; bob's runs on
    clock.advance(3)
    assert await bank_of(store, "alice", clock.now) == 9.0   # 10 - 2 + 1
    assert await bank_of(store, "bob", clock.now) == 5.0     # 10 - 5, still running
    assert "bob: bank 5:00 left" in (await table("alice", "/game status")).text


async def test_an_undo_takes_back_the_increment_its_move_earned(store):
    service, clock, table = await duel(store, "/game settings clock:bank bank_hours:10 increment_hours:3")
    clock.advance(4)
    for line in ("/move maneuver:normal", "/move maneuver:normal", "/move maneuver:normal", "/end"):
        assert (await table("alice", line)).outcome == "applied", line
    assert await bank_of(store, "alice", clock.now) == 9.0
    undone = await table("alice", "/undo")
    assert undone.outcome == "applied", undone.text
    assert await bank_of(store, "alice", clock.now) == 6.0            # the time stays spent, the 3 h go back



async def test_a_rollback_gives_no_time_back(store):
    service, clock, table = await duel(store, "/game settings clock:bank bank_hours:10")
    game = await store.active_game("chan-1")
    before = len((await store.game_and_actions(game.id))[1])
    clock.advance(4)
    for line in ("/move maneuver:normal", "/move maneuver:normal", "/move maneuver:normal", "/end"):
        assert (await table("alice", line)).outcome == "applied", line
    clock.advance(2)
    assert (await table("alice", f"/game rollback to:{before}")).outcome == "shown"
    assert (await table("bob", "/game rollback vote:yes")).outcome == "applied"
    assert (await table("bob", "/game status")).waiting_on == ("alice",)      # her turn again, as it was
    assert await bank_of(store, "alice", clock.now) == 6.0                     # the 4 h she spent stay spent
    assert await bank_of(store, "bob", clock.now) == 8.0                       # and so do bob's 2


async def test_a_bank_that_runs_out_before_the_reminders_delay_reminds_with_a_quarter_left(store):
    """The reminder comes after 12 h by default: a bank of 10 h is reminded of when 2.5 h are left (it was not at
    all: the autopilot came first), in the player's waking hours as the bank runs."""
    service, clock, table = await duel(store, "/game settings clock:bank bank_hours:10")
    clock.advance(7.4)
    assert await service.run_due() == []
    clock.advance(0.2)
    (reminder,) = [n.reply.text for n in await service.run_due()]
    assert reminder.startswith("Reminder: the game is waiting for alice.") and \
        f"Your deadline: <t:{int(T0 + 10 * HOUR)}:f>" in reminder, reminder
    (played,) = await deadline_notices(service, clock, 2.5)
    assert played.startswith("alice's deadline passed: the autopilot plays for them")


async def test_a_rematch_starts_every_bank_full_and_every_grace_unused(store):
    """alice spent her bank and her grace in the game that ended: the rematch's clock is the table's as set,
    not what she had left (she began it with an empty bank, and the autopilot played at once)."""
    service, clock, table = await duel(store, "/game settings clock:bank bank_hours:10 grace:1 deadline_hours:4")
    clock.advance(10.1)
    (excused,) = await deadline_notices(service, clock, 0)
    assert excused.startswith("alice missed the deadline: grace 1 of 1 used"), excused
    assert (await table("alice", "/game end")).outcome == "applied"
    assert (await table("alice", "/game rematch")).outcome == "shown"
    assert (await table("bob", "/game rematch")).outcome == "applied"
    game = await store.active_game("chan-1")
    settings = TableSettings.from_json(game.settings)
    assert (settings.clock, settings.bank_hours, settings.grace, settings.grace_used) == ("bank", 10, 1, {})
    assert {p: settings.bank_left(p, clock.now, None) for p in ("alice", "bob")} == {"alice": 10 * HOUR,
                                                                                    "bob": 10 * HOUR}
    assert await deadline_notices(service, clock, 9.9) == []   # nobody's bank runs out at once
