"""Time itself where it meets other features: a player's own away hours against the table's quiet hours, a
time bank's grace against a pause or a settings change, away hours changed while a bank runs, a deadline read
out in the player's own zone on the night its clocks go back, and away hours in a zone whose summer time changes
at a quarter to the hour (Pacific/Chatham)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from bot.storage.store import Store
from bot.table.clock.bank import waking_seconds
from bot.table.clock.personal import PlayerSettings, zone_names, zone_offers
from bot.table.clock.settings import TableSettings, timer_for
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from tests.test_grace_and_bank import deadline_notices, duel
from tests.test_scheduler import HOUR, T0, Clock


async def timer_of(store, player: str = "alice"):
    game = await store.active_game("chan-1")
    return {t.player: t for t in await store.timers(game.id)}[player]


async def test_a_bank_deadline_pushed_out_of_the_quiet_hours_does_not_land_in_the_players_away_hours(store):
    """The autopilot plays for alice at 07:00 UTC, the first hour of her away hours 07-15, because her bank ran out
    at 06:00, in the table's quiet hours 22-07, which pushed it there: the docs say no deadline falls in away hours."""
    service, clock, table = await duel(store, "/game settings deadline_hours:6")
    assert (await table("alice", "/me settings time_zone:UTC away:7-15")).outcome == "shown"
    # T0 is 08:00 UTC, in her away hours: her 15 h of waking time run 15:00-06:00, inside the quiet hours 22-07
    assert (await table("alice", "/game settings clock:bank bank_hours:15 quiet_hours:22-7")).outcome == "shown"
    deadline = (await timer_of(store)).deadline_due
    hour = datetime.fromtimestamp(deadline, UTC).hour
    assert not 7 <= hour < 15, f"alice's deadline falls at {hour:02d}:00 UTC, inside her away hours 07-15"
    clock.now = T0 + 23 * HOUR + 60   # 07:01 UTC the next day: alice is away
    assert await deadline_notices(service, clock, 0) == [], "the autopilot played inside alice's away hours"


async def test_a_pause_during_a_grace_does_not_bring_the_autopilot_sooner(store):
    """alice's bank ran out and her grace gave her 24 h more; she then pauses for one hour, and the autopilot
    plays for her as that hour ends: the pause cut her grace from 24 h to 1 h (and the grace is spent)."""
    service, clock, table = await duel(store, "/game settings clock:bank bank_hours:2 grace:1")
    (excused,) = await deadline_notices(service, clock, 2.1)
    assert excused.startswith("alice missed the deadline: grace 1 of 1 used, new deadline")
    graced = (await timer_of(store)).deadline_due
    assert graced >= clock.now + 23 * HOUR
    assert (await table("alice", "/game pause hours:1")).outcome == "shown"
    assert (await timer_of(store)).deadline_due >= graced, "the pause moved her deadline earlier"
    assert await deadline_notices(service, clock, 1.5) == []   # 1.5 h into a 24 h grace: nothing plays


async def test_a_pause_renewed_or_ended_during_a_grace_adds_only_the_time_paused(store):
    """A grace's wait pushed past a pause counts what was left of it from the pause's end: renewing the pause, or
    ending it early, moves the deadline by the pause's own change, never by the grace again."""
    service, clock, table = await duel(store, "/game settings clock:bank bank_hours:2 grace:1")
    await deadline_notices(service, clock, 2.1)
    graced = (await timer_of(store)).deadline_due
    assert (await table("alice", "/game pause hours:10")).outcome == "shown"
    assert abs((await timer_of(store)).deadline_due - (graced + 10 * HOUR)) < 1
    clock.advance(1)
    assert (await table("alice", "/game pause hours:10")).outcome == "shown"   # renewed: until 11 h from the start
    assert abs((await timer_of(store)).deadline_due - (graced + 11 * HOUR)) < 1
    clock.advance(1)
    assert (await table("alice", "/game pause hours:0")).outcome == "shown"   # ended after 2 h of it
    assert abs((await timer_of(store)).deadline_due - (graced + 2 * HOUR)) < 1


async def test_a_move_during_a_grace_does_not_bring_the_autopilot_at_once(store):
    """alice's bank ran out and her grace gave her 24 h more; she makes the first of her three Moves, which starts
    her clock again on an empty bank, and the autopilot plays the rest of her turn at the next tick."""
    service, clock, table = await duel(store, "/game settings clock:bank bank_hours:2 grace:1")
    (excused,) = await deadline_notices(service, clock, 2.1)
    assert excused.startswith("alice missed the deadline: grace 1 of 1 used, new deadline")
    graced = (await timer_of(store)).deadline_due
    assert (await table("alice", "/move maneuver:normal")).outcome == "applied"
    assert (await timer_of(store)).deadline_due >= graced - 1, "her move cut her grace short"
    assert await deadline_notices(service, clock, 0.1) == []


async def test_a_hosts_settings_change_during_a_grace_does_not_play_for_the_player_at_once(store):
    """bob's bank ran out and his grace gave him 24 h more; the host changes only the reminder delay, and the
    autopilot plays for bob at the next tick: the settings change threw his grace away."""
    service, clock, table = await duel(store, "/game settings clock:bank bank_hours:2 grace:1")
    for line in ("/move maneuver:normal", "/move maneuver:normal", "/move maneuver:normal", "/end"):
        assert (await table("alice", line)).outcome == "applied", line
    assert (await table("bob", "/game status")).waiting_on == ("bob",)
    (excused,) = await deadline_notices(service, clock, 2.1)
    assert excused.startswith("bob missed the deadline: grace 1 of 1 used, new deadline")
    assert (await table("alice", "/game settings reminder_hours:6")).outcome == "shown"
    assert (await timer_of(store, "bob")).deadline_due >= clock.now + 23 * HOUR, "the grace's 24 h are gone"
    assert await deadline_notices(service, clock, 0.1) == []


async def test_away_hours_set_after_the_wait_do_not_refund_the_time_bank(store):
    """alice waits 9 h of her 10 h bank, then sets away hours covering exactly those 9 h and moves: her bank
    shows 10 h again. Docs: a settings change counts from the next turn; her bank should hold 1 h."""
    service, clock, table = await duel(store, "/game settings clock:bank bank_hours:10")
    clock.advance(9)   # 08:00 -> 17:00 UTC, all of it waking time for her
    assert (await table("alice", "/me settings time_zone:UTC away:8-17")).outcome == "shown"
    for line in ("/move maneuver:normal", "/move maneuver:normal", "/move maneuver:normal", "/end"):
        assert (await table("alice", line)).outcome == "applied", line
    left = TableSettings.from_json((await store.active_game("chan-1")).settings).bank_left("alice", clock.now, None)
    assert left == 1 * HOUR, f"alice's bank holds {left / HOUR:g} h after spending 9 of 10"


# 2027-11-07: New York's clocks go back from 02:00 EDT to 01:00 EST; 06:30 UTC is the second 01:30 of that night
NIGHT = datetime(2027, 11, 6, 12, 30, tzinfo=UTC).timestamp()   # 08:30 EDT the day before


async def test_a_digest_deadline_on_the_night_clocks_go_back_says_which_0130_it_is(db_path):
    """alice's digest at 23:00 says her deadline is 'Sun 07 Nov 01:30 America/New_York': that night 01:30 comes twice,
    an hour apart (EDT, then EST), and the digest (a direct message, no Discord timestamp) does not say which."""
    clock = Clock(NIGHT)
    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)

    async def run(user, line):
        return await service.execute("chan-1", Actor(user, user), parse(line), guild="g1")
    saved = await run("alice", "/me settings time_zone:America/New_York away:20-23 notify:digest")
    assert saved.outcome == "shown", saved.text
    for user, line in (("alice", "/game new ruleset:speedway seed:2 arena:duel"), ("alice", "/game join car:brawler"),
                       ("bob", "/game join car:torch"), ("alice", "/game settings deadline_hours:18"),
                       ("alice", "/game start")):
        assert (await run(user, line)).outcome in ("applied", "shown"), line
    assert (await timer_of(store)).deadline_due == datetime(2027, 11, 7, 6, 30, tzinfo=UTC).timestamp()
    clock.now = await store.digest_due("g1", "alice")
    assert clock.now == datetime(2027, 11, 7, 3, tzinfo=UTC).timestamp()   # 23:00 EDT, before the deadline
    (digest,) = await service.due_digests()
    (line,) = [x for x in digest.text.splitlines() if "deadline" in x]
    assert "01:30 America/New_York" in line
    assert any(mark in line for mark in ("EST", "-05", "UTC-5", "06:30 UTC")), \
        f"an ambiguous local time with nothing saying which: {line!r}"
    await store.close()


# 2027-04-04 14:00 UTC: Chatham's clocks go back from 03:45 (+13:45) to 02:45 (+12:45), so 02:45-03:00 comes twice
CHATHAM_BACK = datetime(2027, 4, 3, 14, 0, tzinfo=UTC).timestamp()


def test_a_deadline_on_the_night_chathams_clocks_go_back_moves_out_of_the_away_hours():
    """A Pacific/Chatham player away 02-03 has a deadline due at the second 02:45 of the night its clocks go back:
    it stays at 02:45:48, inside her away hours, and the autopilot plays for her while she sleeps."""
    personal = PlayerSettings("Pacific/Chatham", (2, 3))
    timer = timer_for(TableSettings(deadline_hours=24), 1, "c", "alice", "k", CHATHAM_BACK - 24 * HOUR, personal)
    when = datetime.fromtimestamp(timer.deadline_due, ZoneInfo("Pacific/Chatham"))
    assert when.hour != 2, f"alice's deadline falls at {when:%H:%M:%S%z}, inside her away hours 02-03"


def test_a_bank_counts_the_repeated_quarter_hour_of_chathams_away_hours_as_away():
    """Away 02-03 in Pacific/Chatham: the night its clocks go back, 02:00-03:00 and again 02:45-03:00 are hers
    (75 minutes), yet her bank is charged for those last 15 minutes as waking time."""
    personal = PlayerSettings("Pacific/Chatham", (2, 3))
    start, end = CHATHAM_BACK - 3 * HOUR, CHATHAM_BACK + 3 * HOUR
    assert waking_seconds(personal, start, end) == 6 * HOUR - 75 * 60


async def test_a_time_zone_name_that_is_no_iana_zone_is_refused(store):
    """'localtime' (the machine's own zone), 'Factory' (a placeholder), 'posixrules' and the copies under posix/ and
    right/ sit beside the zones on many systems but are none: /me settings refuses them, autocomplete never offers
    them, and one stored by an earlier release reads as UTC, keeping the player's away hours."""
    service = GameService(store, render=None, clock=Clock(T0))
    for name in ("localtime", "Factory", "posixrules", "posix/Europe/Paris", "right/UTC"):
        refused = await service.execute("chan-1", Actor("alice", "alice"), parse(f"/me settings time_zone:{name}"),
                                        guild="g1")
        assert refused.outcome == "refused" and refused.text.startswith("time_zone: an IANA time zone"), name
        assert name not in zone_names()
    assert not any(name in ("localtime", "Factory") for name, _ in zone_offers("l") + zone_offers("f"))
    stored = PlayerSettings.from_json('{"time_zone": "localtime", "away": [1, 5]}')
    assert (stored.time_zone, stored.away) == ("UTC", (1, 5))
    assert (await service.execute("chan-1", Actor("alice", "alice"), parse("/me settings time_zone:Europe/Paris"),
                                  guild="g1")).outcome == "shown"
