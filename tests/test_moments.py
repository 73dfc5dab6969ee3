"""Deadlines you can see (issue 26, item 2): each waited-on player's deadline and next reminder in the turn
message, /game status and /games, as Discord timestamps (every client shows them in its reader's own time
zone and language), read out as ISO times with "in 3 h" on the command line; a pause says until when."""

from __future__ import annotations

import re

import pytest

from bot.table.clock.moments import moment, plain_moments
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from tests.conftest import TABLE_TIME, run_cli, run_pitboss

HOUR = 3600


async def run(service, user: str, line: str):
    return await service.execute("clock", Actor(user, user), parse(line))


async def duel_with_deadline(service):
    for user, line in (("alice", "/game new ruleset:speedway seed:2"), ("alice", "/game join car:brawler"),
                       ("bob", "/game join car:torch"), ("alice", "/game start"),
                       ("alice", "/game settings deadline_hours:24")):
        assert (await run(service, user, line)).outcome == "applied" or line.startswith("/game settings")
    return await run(service, "alice", "/speed value:2")


async def test_the_turn_message_status_and_games_show_the_deadline_and_the_next_reminder(service):
    moved = await duel_with_deadline(service)
    clock = (f"⏰ alice: deadline {moment(TABLE_TIME + 24 * HOUR)}, reminder {moment(TABLE_TIME + 12 * HOUR)}.")
    assert moved.next_line.endswith("\n" + clock) and moved.text.endswith(clock)
    assert f"<t:{int(TABLE_TIME + 24 * HOUR)}:f> (<t:{int(TABLE_TIME + 24 * HOUR)}:R>)" in clock
    status = await run(service, "carol", "/game status")
    assert status.text.endswith(clock)
    mine = await run(service, "alice", "/games")
    assert f"your turn! ⏰ deadline {moment(TABLE_TIME + 24 * HOUR)}" in mine.text
    other = await run(service, "bob", "/games")   # the game waits on alice: bob sees her deadline (issue 38, item 5)
    assert other.text.endswith(f"⏰ alice: deadline {moment(TABLE_TIME + 24 * HOUR)}.") and "reminder" not in other.text


async def test_without_a_deadline_the_reminder_shows_and_a_pause_says_until_when(service):
    for user, line in (("alice", "/game new ruleset:track seed:2"), ("alice", "/game join"), ("bob", "/game join"),
                       ("alice", "/game start")):
        started = await run(service, user, line)
    assert f"reminder {moment(TABLE_TIME + 12 * HOUR)}, no deadline" in started.text
    mover = started.waiting_on[0]
    await run(service, mover, "/game pause hours:5")
    status = await run(service, "carol", "/game status")
    assert f"away until {moment(TABLE_TIME + 5 * HOUR)}" in status.text


async def test_a_finished_game_shows_no_clock(service):
    await duel_with_deadline(service)
    ended = await run(service, "alice", "/game end")
    assert "⏰" not in ended.text and "<t:" not in ended.text


@pytest.mark.parametrize(("offset", "words"), [(3 * HOUR, "in 3 h"), (25 * 60, "in 25 min"), (30, "in a moment"),
                                               (3 * 86400, "in 3 days"), (-300, "5 min ago")])
def test_the_command_line_reads_a_moment_out_as_an_iso_time_and_how_far_off(offset, words):
    now = 1_800_000_000
    said = plain_moments(f"deadline {moment(now + offset)}.", now=now)
    assert re.fullmatch(r"deadline \d{4}-\d\d-\d\dT\d\d:\d\dZ \(" + re.escape(words) + r"\)\.", said), said
    assert plain_moments("<t:12:R> alone stays") == "<t:12:R> alone stays"


def test_the_command_line_shows_the_deadline_in_iso_time(tmp_path):
    db = str(tmp_path / "clock.db")
    for user, line in (("alice", "/game new ruleset:speedway seed:2"), ("alice", "/game join car:brawler"),
                       ("bob", "/game join car:torch"), ("alice", "/game start"),
                       ("alice", "/game settings deadline_hours:24")):
        assert run_cli("exec", "--db", db, "--channel", "c", "--user", user, line, cwd=tmp_path).returncode == 0
    shown = run_pitboss("exec", "--db", db, "--channel", "c", "--user", "bob", "/game status", cwd=tmp_path)
    assert re.search(r"⏰ alice: deadline \d{4}-\d\d-\d\dT\d\d:\d\dZ \(in 2[34] h\), reminder \S+ \(in 1[12] h\)\.",
                     shown.stdout), shown.stdout
    assert "<t:" not in shown.stdout


async def test_a_gms_private_ruling_does_not_move_the_clock_the_racers_see(store):
    """The play-test's finding: the GM's clock restarted on a private /gm change, so the public clock told
    the racers the GM had done something. A private action leaves the clock where it was."""
    import random

    from bot.table.service.entry import GameService
    from rules.registry import get_ruleset

    now = [TABLE_TIME]
    service = GameService(store, render=None, clock=lambda: now[0])
    for user, line in (("gina", "/game new ruleset:race gm:yes tuning:0 seed:7"),
                       ("alice", "/game join pilot:rookie vehicle:racing_swoop"),
                       ("bob", "/game join pilot:champion vehicle:podracer"), ("gina", "/game start")):
        assert (await run(service, user, line)).outcome == "applied", line
    ruleset, rng = get_ruleset("race"), random.Random(1)
    for _ in range(200):   # on to a section the GM readies
        state = ruleset.load_state((await store.active_game("clock")).state)
        waiting = ruleset.acting_players(state)
        if waiting == ("gina",) and state.phase.name == "GM":
            break
        player = rng.choice(waiting)
        if player == "gina":
            await run(service, "gina", "/gm approve:yes")
            continue
        await run(service, player, rng.choice(ruleset.legal_actions(state, player)).command)
    else:
        raise AssertionError("the GM never readied a section")
    before = (await run(service, "alice", "/game status")).text
    now[0] += 3 * HOUR
    assert (await run(service, "gina", "/gm change:2")).outcome == "applied"
    assert (await run(service, "alice", "/game status")).text == before


def test_one_clock_shared_by_many_waiting_players_is_written_once():
    from bot.storage.store import Timer
    from bot.table.clock.moments import clock_line
    from bot.table.clock.settings import TableSettings

    timers = [Timer(1, "c", p, "k", TABLE_TIME + 12 * HOUR, None) for p in ("p1", "p2", "p3")]
    timers.append(Timer(1, "c", "p4", "k", TABLE_TIME + 12 * HOUR, TABLE_TIME + 24 * HOUR))
    line = clock_line(("p1", "p2", "p3", "p4"), timers, TableSettings(), str, TABLE_TIME)
    assert line == (f"⏰ p1, p2, p3: reminder {moment(TABLE_TIME + 12 * HOUR)}, no deadline; "
                    f"p4: deadline {moment(TABLE_TIME + 24 * HOUR)}, reminder {moment(TABLE_TIME + 12 * HOUR)}.")


async def test_an_undone_declaration_puts_its_players_clock_back(service):
    """The play-test's finding: a Battlecars speed counter taken back left its driver with no clock."""
    for user, line in (("alice", "/game new ruleset:battlecars seed:9"), ("alice", "/game join vehicle:interceptor"),
                       ("bob", "/game join vehicle:rammer"), ("alice", "/game start")):
        assert (await run(service, user, line)).outcome == "applied", line
    both = (await run(service, "carol", "/game status")).text.splitlines()[-1]
    assert both.startswith("⏰ alice, bob: reminder")
    assert (await run(service, "alice", "/speed value:3")).outcome == "applied"
    assert (await run(service, "carol", "/game status")).text.splitlines()[-1].startswith("⏰ bob: reminder")
    assert (await run(service, "alice", "/undo")).outcome == "applied"
    assert (await run(service, "carol", "/game status")).text.splitlines()[-1] == both
