"""Pings on each player's terms (issue 38, findings 2 and 3): a message posted inside a player's away hours
or their `/me away` pings nobody who is away, and the game pings them once when they are back if it still
waits on them; a reminder that cannot leave time to act before the autopilot's deadline is not sent."""

from __future__ import annotations

from bot.storage.store import Store, Timer
from bot.table.clock.moments import moment, player_clock
from bot.table.clock.settings import HOUR, TableSettings, reminder_lead
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from tests.test_player_clock import Clock, speedway_waiting_on_alice

BACKENDS = ("sqlite", "postgres")   # timers are stored: both backends (tests/conftest.py)
T0 = 1_800_000_000.0   # 2027-01-15 08:00 UTC: 17:00 in Tokyo
NIGHT_IN_TOKYO = T0 + 9.5 * HOUR   # 02:30 in Tokyo
MORNING_IN_TOKYO = T0 + 14 * HOUR   # 07:00 in Tokyo, when ann's away hours (23-07) end


async def opened(db_path, now):
    """A clock at `now`, the store and a service on it."""
    clock = Clock(now)
    store = await Store.open(db_path)
    return clock, store, GameService(store, render=None, clock=clock)


async def run(service, user, line, channel="f"):
    return await service.execute(channel, Actor(user, user), parse(line), guild="g1")


async def track(service):
    """A Track game of ann and ben in channel f, waiting on ben (seed 3 gives him the first turn)."""
    for user, line in (("ann", "/game new ruleset:track seed:3"), ("ann", "/game join"), ("ben", "/game join")):
        assert (await run(service, user, line)).outcome == "applied"
    started = await run(service, "ann", "/game start")
    assert started.waiting_on == ("ben",)


async def act(service, player):
    """The first card `player` is offered, played: the reply."""
    own = await service.own_choices("f", player)
    played = await run(service, player, own[0].command)
    assert played.outcome == "applied", played.text
    return played


async def pings_until(service, clock, end, step=0.5 * HOUR):
    """Every scheduler notice up to `end`, as (when, text's first words, who it pings)."""
    seen = []
    while clock.now < end:
        clock.now = min(end, clock.now + step)
        seen += [(clock.now, n.reply.text[:9], n.reply.mentions) for n in await service.run_due()]
    return seen


async def test_a_turn_that_reaches_a_player_in_their_night_pings_them_once_in_their_morning(db_path):
    clock, store, service = await opened(db_path, T0)
    await run(service, "ann", "/me settings time_zone:Asia/Tokyo away:23-7")
    await track(service)
    clock.now = NIGHT_IN_TOKYO
    passed = await act(service, "ben")
    assert passed.waiting_on == ("ann",) and passed.mentions == ()   # 02:30 in Tokyo: no ping
    game = await store.active_game("f")
    (timer,) = await store.timers(game.id)
    assert timer.player == "ann" and timer.reminder_due == MORNING_IN_TOKYO
    seen = await pings_until(service, clock, NIGHT_IN_TOKYO + 30 * HOUR)
    assert seen == [(MORNING_IN_TOKYO, "Reminder:", ("ann",))]   # once, when her away hours end
    back = await act(service, "ann")   # in her day, ben is pinged as ever
    assert back.mentions == ("ben",)
    await store.close()


async def test_a_player_away_by_me_away_is_pinged_once_when_the_pause_ends(db_path):
    clock, store, service = await opened(db_path, T0)
    await track(service)
    assert (await run(service, "ann", "/me away hours:10")).outcome == "applied"
    clock.now = T0 + HOUR
    passed = await act(service, "ben")
    assert passed.waiting_on == ("ann",) and passed.mentions == ()
    seen = await pings_until(service, clock, T0 + 30 * HOUR)
    assert seen == [(T0 + 10 * HOUR, "Reminder:", ("ann",))]
    await store.close()


async def test_a_follower_in_their_away_hours_is_not_pinged(db_path):
    clock, store, service = await opened(db_path, NIGHT_IN_TOKYO)
    await run(service, "zed", "/me settings time_zone:Asia/Tokyo away:23-7")
    await track(service)
    for follower in ("zed", "yan"):
        assert (await run(service, follower, "/game follow")).outcome == "shown"
    await act(service, "ben")
    told = [n for n in (await act(service, "ann")).notices]
    assert [n.reply.mentions for n in told] == [("yan",)]   # zed sleeps; yan, with no away hours, is pinged
    await store.close()


def test_a_reminder_must_leave_an_hour_or_a_quarter_of_a_short_deadline():
    assert reminder_lead(TableSettings(deadline_hours=24)) == HOUR
    assert reminder_lead(TableSettings(deadline_hours=2)) == 0.5 * HOUR
    assert reminder_lead(TableSettings()) == 0.0


async def test_no_reminder_at_the_moment_away_hours_push_the_deadline_to(db_path):
    """alice's 23-hour reminder would fall at 08:00 in Paris and her 24-hour deadline at 09:00, both inside
    her away hours (08-12): both are pushed to 12:00, and only the autopilot speaks then."""
    clock, store, service = await opened(db_path, T0)
    await service.execute("chan-1", Actor("alice", "alice"),
                          parse("/me settings time_zone:Europe/Paris away:8-12 reminder_hours:23"), guild="g1")
    await speedway_waiting_on_alice(service, guild="g1", settings_line="/game settings deadline_hours:24")
    game = await store.active_game("chan-1")
    (timer,) = await store.timers(game.id)
    assert timer.reminder_due == timer.deadline_due == T0 + 27 * HOUR
    clock.now = T0 + 27 * HOUR
    (played,) = await service.run_due()
    assert played.reply.text.startswith("alice's deadline passed: the autopilot plays for them")
    await store.close()


async def test_after_downtime_the_autopilot_comes_without_a_reminder_a_reminder_with_time_left_still_comes(db_path):
    clock, store, service = await opened(db_path, T0)
    await speedway_waiting_on_alice(service, guild="g1", settings_line="/game settings deadline_hours:24")
    clock.now = T0 + 30 * HOUR   # the bot was down from before the reminder (12 h) to past the deadline (24 h)
    (played,) = await service.run_due()
    assert played.reply.text.startswith("alice's deadline passed")
    waiting = tuple(p for p in played.reply.mentions if p != "alice")   # alice is pinged as played for
    assert waiting and "alice" in played.reply.mentions
    clock.now += 23 * HOUR   # down again: a reminder sent late that still leaves an hour is sent
    (reminded,) = await service.run_due()
    assert reminded.reply.text.startswith("Reminder:") and reminded.reply.mentions == waiting
    await store.close()


def test_a_reminder_too_close_to_the_autopilot_is_not_shown_in_the_clock_line_either():
    """Finding 3: a reminder less than the lead before an autopilot's deadline is not sent, so the turn's
    clock line does not promise it; one that leaves the lead is shown as before, and so is any reminder
    before the deadline where no lead applies (a game without an autopilot)."""
    deadline = T0 + 13 * HOUR
    late, early = (Timer(1, "c", "alice", "k", deadline - gap, deadline) for gap in (0.5 * HOUR, HOUR))
    assert player_clock(late, 0.0, T0, HOUR) == f"deadline {moment(deadline)}"
    assert player_clock(early, 0.0, T0, HOUR) == f"deadline {moment(deadline)}, reminder {moment(deadline - HOUR)}"
    assert player_clock(late, 0.0, T0) == f"deadline {moment(deadline)}, reminder {moment(deadline - 0.5 * HOUR)}"


async def test_the_message_that_ends_a_game_in_a_players_night_does_not_ping_them(db_path):
    """The end pings everyone still seated, but not inside their away hours: the game no longer waits on
    them, so nothing pings them later either (the week replayed in tests/e2e/test_e2e_week.py found it)."""
    clock, store, service = await opened(db_path, NIGHT_IN_TOKYO)
    await run(service, "ann", "/me settings time_zone:Asia/Tokyo away:23-7")
    await track(service)
    ended = await run(service, "ben", "/game resign confirm:yes")
    assert ended.outcome == "applied" and await store.active_game("f") is None, ended.text
    assert ended.mentions == (), ended
    await store.close()
