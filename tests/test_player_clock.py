"""A player's own clock (issue 26, item 3): `/me settings` (an IANA time zone, away hours in their own time,
their reminder's delay) across all their games on one server; away hours hold reminders and push a
deadline past them within the table's bound; `/me away` pauses every running game they sit in, each
within its table's pause limit and announced in its channel; `/me back` ends it."""

from __future__ import annotations

import zoneinfo
from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.storage.store import Store
from bot.table.clock.moments import moment
from bot.table.clock.personal import PlayerSettings, out_of_away, parse_hours, parse_zone, zone_offers
from bot.table.clock.settings import TableSettings, timer_for
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from rules.errors import BadOption
from tests.conftest import run_cli, track_on_the_command_line

BACKENDS = ("sqlite", "postgres")   # the store-backed tests run on both (tests/conftest.py)
HOUR = 3600.0
T0 = 1_800_000_000.0   # 2027-01-15 08:00 UTC, 09:00 in Paris (winter time, UTC+1)
PARIS = zoneinfo.ZoneInfo("Europe/Paris")


class Clock:
    def __init__(self, now: float = T0):
        self.now = now

    def __call__(self) -> float:
        return self.now


async def run(service, user, line, channel="chan-1", guild="g1"):
    return await service.execute(channel, Actor(user, user), parse(line), guild=guild)


async def speedway_waiting_on_alice(service, channel="chan-1", guild="g1", settings_line=""):
    """A Speedway duel in `channel` of `guild` that waits on alice (seed 2 gives her the first turn)."""
    for user, line in (("alice", "/game new ruleset:speedway seed:2"), ("alice", "/game join car:brawler"),
                       ("bob", "/game join car:torch")):
        assert (await run(service, user, line, channel, guild)).outcome == "applied"
    if settings_line:
        assert (await run(service, "alice", settings_line, channel, guild)).outcome == "shown"
    started = await run(service, "alice", "/game start", channel, guild)
    assert started.waiting_on == ("alice",), started.text
    return started


def paris(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=PARIS).timestamp()


# --- the settings themselves --------------------------------------------------------------------------


@pytest.mark.parametrize(("typed", "zone"), [("Europe/Paris", "Europe/Paris"), ("europe/paris", "Europe/Paris"),
                                             ("  America/New York ", "America/New_York"), ("utc", "UTC"),
                                             ("asia/kolkata", "Asia/Kolkata")])
def test_a_time_zone_is_an_iana_name_in_any_case(typed, zone):
    assert parse_zone(typed) == zone


@pytest.mark.parametrize("typed", ["Europe/Pariss", "Mars/Olympus", "../../etc/passwd", "", "x" * 500,
                                   "Europe/Paris\x00", "<@123>"])
def test_anything_else_is_refused_with_the_nearest_names(typed):
    with pytest.raises(BadOption) as refused:
        parse_zone(typed)
    assert refused.value.message.startswith("time_zone: an IANA time zone")
    assert len(refused.value.message) < 200
    if typed == "Europe/Pariss":
        assert "Did you mean Europe/Paris" in refused.value.message


def test_the_time_zone_autocomplete_offers_names_starting_with_what_was_typed_first():
    offers = [name for name, _value in zone_offers("paris")]
    assert offers == ["Europe/Paris"]
    america = zone_offers("america/")
    assert len(america) == 25 and all(name.startswith("America/") for name, _value in america)
    assert zone_offers("new york")[0] == ("America/New_York", "America/New_York")


@pytest.mark.parametrize(("typed", "hours"), [("23-07", (23, 7)), ("8-12", (8, 12)), ("22:00-06:00", (22, 6)),
                                              ("none", None)])
def test_away_hours_are_two_hours_of_the_players_day(typed, hours):
    assert parse_hours(typed, "away") == hours


@pytest.mark.parametrize("typed", ["24-3", "7-7", "morning", "-1-5", "1-2-3"])
def test_other_away_hours_are_refused(typed):
    with pytest.raises(BadOption, match="away: write START-END"):
        parse_hours(typed, "away")


def test_stored_settings_that_cannot_be_read_count_as_the_defaults():
    for text in ('{"time_zone": "Nowhere/Else"}', '{"away": [7, 7]}', "[1]", "{", '{"extra": 1}',
                 '{"reminder_hours": 0.5}', None):
        assert PlayerSettings.from_json(text) == PlayerSettings()
    kept = PlayerSettings("Asia/Kolkata", (23, 7), 6.0)
    assert PlayerSettings.from_json(kept.to_json()) == kept


# --- moments moved by away hours ----------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(zone=st.sampled_from(["Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe",
                             "Pacific/Chatham", "UTC"]),
       start=st.integers(0, 23), end=st.integers(0, 23), moment_=st.floats(1.7e9, 1.9e9))
def test_a_moment_leaves_the_away_hours_at_their_end_and_never_earlier(zone, start, end, moment_):
    """Whatever the zone (half-hour and 45-minute offsets, summer time), the moment found is outside the
    away hours, not before the one given, within a day of it, and the one given when that is outside."""
    if start == end:
        return
    personal = PlayerSettings(zone, (start, end))
    found = out_of_away(personal, moment_)
    hour = datetime.fromtimestamp(found, zoneinfo.ZoneInfo(zone)).hour
    inside = start <= hour < end if start < end else hour >= start or hour < end
    assert not inside
    assert moment_ <= found <= moment_ + 25 * HOUR
    before = datetime.fromtimestamp(moment_, zoneinfo.ZoneInfo(zone)).hour
    if not (start <= before < end if start < end else before >= start or before < end):
        assert found == moment_


def test_away_hours_follow_the_player_across_a_change_to_summer_time():
    """Paris moves its clocks from 02:00 to 03:00 on 2027-03-28: away 22-07 still ends at 07:00 Paris time."""
    personal = PlayerSettings("Europe/Paris", (22, 7))
    assert out_of_away(personal, paris("2027-03-27T23:30")) == paris("2027-03-28T07:00")
    assert out_of_away(personal, paris("2027-10-30T23:30")) == paris("2027-10-31T07:00")   # and back


def test_a_deadline_in_the_away_hours_moves_to_their_end_within_the_tables_bound():
    """The table's deadline at 24 h falls at 09:00 Paris time, in alice's away hours 08-12: it moves to
    12:00 (3 h later), or as far as the table's away_limit_hours allows; her reminder keeps out of them."""
    table = TableSettings(deadline_hours=24)
    personal = PlayerSettings("Europe/Paris", (8, 12))
    plain = timer_for(table, 1, "c", "alice", "k", T0)
    assert (plain.reminder_due, plain.deadline_due) == (T0 + 12 * HOUR, T0 + 24 * HOUR)
    own = timer_for(table, 1, "c", "alice", "k", T0, personal)
    assert own.deadline_due == paris("2027-01-16T12:00") == T0 + 27 * HOUR
    assert own.reminder_due == T0 + 12 * HOUR   # 21:00 in Paris: not away
    bounded = timer_for(TableSettings(deadline_hours=24, away_limit_hours=2), 1, "c", "alice", "k", T0, personal)
    assert bounded.deadline_due == T0 + 26 * HOUR
    later = timer_for(table, 1, "c", "alice", "k", T0, PlayerSettings("Europe/Paris", (8, 12), 23))
    assert later.reminder_due == T0 + 27 * HOUR   # her own 23 h would ping her at 08:00: held until 12:00
    quiet = timer_for(TableSettings(deadline_hours=24, quiet_hours=(11, 13)), 1, "c", "alice", "k", T0, personal)
    assert quiet.deadline_due == T0 + 29 * HOUR   # out of her away hours into the table's quiet ones: after both


# --- through the service --------------------------------------------------------------------------------


async def test_me_settings_hold_across_a_restart_and_move_the_next_deadline(db_path):
    clock = Clock()
    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)
    saved = await run(service, "alice", "/me settings time_zone:europe/paris away:8-12 reminder_hours:6")
    assert saved.ephemeral and saved.text.startswith("Saved. Time zone: Europe/Paris; away hours: 08:00-12:00")
    for bad in ("/me settings time_zone:Nowhere", "/me settings away:25-1"):
        refused = await run(service, "alice", bad)
        assert refused.outcome == "refused" and refused.ephemeral
    await store.close()

    store = await Store.open(db_path)   # a restart: the settings are the database's
    service = GameService(store, render=None, clock=clock)
    shown = await run(service, "alice", "/me settings")
    assert shown.ephemeral and "Time zone: Europe/Paris; away hours: 08:00-12:00 your time; reminders: after 6 h" \
        in shown.text
    await speedway_waiting_on_alice(service, settings_line="/game settings deadline_hours:24")
    game = await store.active_game("chan-1")
    (timer,) = await store.timers(game.id)
    assert (timer.reminder_due, timer.deadline_due) == (T0 + 6 * HOUR, T0 + 27 * HOUR)
    clock.now = T0 + 25 * HOUR   # past the table's deadline, within her away hours: nothing plays for her
    assert [n.reply.text[:8] for n in await service.run_due()] == ["Reminder"]
    clock.now = T0 + 27 * HOUR + 1
    (played,) = await service.run_due()
    assert played.reply.text.startswith("alice's deadline passed")

    # On another server her settings do not count.
    await speedway_waiting_on_alice(service, "chan-2", "g2", settings_line="/game settings deadline_hours:24")
    other = await store.active_game("chan-2")
    (elsewhere,) = await store.timers(other.id)
    assert elsewhere.deadline_due == clock.now + 24 * HOUR
    await store.close()


async def test_the_tables_quiet_hours_read_in_the_readers_own_time(service):
    await speedway_waiting_on_alice(service, settings_line="/game settings quiet_hours:22-7")
    await run(service, "bob", "/me settings time_zone:Asia/Kolkata")
    shown = await run(service, "bob", "/game settings")
    assert "quiet hours: 22:00-07:00 UTC (03:30-12:30 in Asia/Kolkata)" in shown.text
    plain = await run(service, "alice", "/game settings")
    assert "quiet hours: 22:00-07:00 UTC;" in plain.text


async def test_me_away_pauses_every_game_within_its_limit_and_says_so_in_each_channel(db_path):
    clock = Clock()
    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)
    await speedway_waiting_on_alice(service, "chan-1")
    await speedway_waiting_on_alice(service, "chan-2", settings_line="/game settings pause_limit_hours:10")
    await speedway_waiting_on_alice(service, "chan-3", guild="g2")   # another server: untouched
    assert (await run(service, "carol", "/me away hours:5")).outcome == "refused"   # no game of hers

    away = await run(service, "alice", "/me away hours:48", channel="anywhere")
    assert away.outcome == "applied" and away.ephemeral
    assert away.text.startswith("You are away in 2 games; /me back ends it.")
    assert f"chan-1: until {moment(T0 + 48 * HOUR)}." in away.text
    assert f"chan-2: until {moment(T0 + 10 * HOUR)} (its table allows up to 10 h)." in away.text
    said = {n.channel: n.reply.text for n in away.notices}
    assert set(said) == {"chan-1", "chan-2"}
    assert said["chan-1"] == (f"alice is away (/me away) until {moment(T0 + 48 * HOUR)}: their reminders and "
                              f"deadlines in this game wait until then.")
    for channel, pause in (("chan-1", 48), ("chan-2", 10), ("chan-3", 0)):
        game = await store.active_game(channel)
        (timer,) = await store.timers(game.id)
        assert timer.reminder_due == T0 + (pause + 12) * HOUR, channel
    status = await run(service, "bob", "/game status", channel="chan-1")
    assert f"away until {moment(T0 + 48 * HOUR)}" in status.text
    mine = await run(service, "alice", "/me settings")
    assert "Away (/me away) in Speedway in chan-1 until" in mine.text and "chan-2 until" in mine.text

    clock.now = T0 + 2 * HOUR
    back = await run(service, "alice", "/me back")
    assert back.text == "Welcome back: your clock runs again in 2 games."
    assert {n.channel: n.reply.text for n in back.notices} == {
        c: "alice is back: their reminders and deadlines in this game run again." for c in ("chan-1", "chan-2")}
    for channel in ("chan-1", "chan-2"):
        game = await store.active_game(channel)
        (timer,) = await store.timers(game.id)
        assert timer.reminder_due == clock.now + 12 * HOUR
        assert "alice" not in TableSettings.from_json(game.settings).paused_until
    again = await run(service, "alice", "/me back")
    assert again.outcome == "refused" and again.text == "You are not away in any game on this server."
    await store.close()


async def test_a_table_that_allows_no_pause_is_left_running(service):
    await speedway_waiting_on_alice(service, settings_line="/game settings pause_limit_hours:0")
    said = await run(service, "alice", "/me away hours:5")
    assert said.outcome == "shown" and said.notices == ()
    assert "its table allows no pauses" in said.text


def test_the_command_line_prints_the_announcements_with_their_channels(tmp_path):
    db = str(tmp_path / "me.db")
    track_on_the_command_line(db, tmp_path)   # ann and ben
    saved = run_cli("exec", "--db", db, "--channel", "elsewhere", "--user", "ben", "/me settings time_zone:utc",
                    cwd=tmp_path)
    assert saved.returncode == 0 and saved.stdout.startswith("private: Saved. Time zone: UTC;")
    away = run_cli("exec", "--db", db, "--channel", "elsewhere", "--user", "ben", "/me away hours:5", cwd=tmp_path)
    assert away.returncode == 0, away.stdout
    (announced,) = [line for line in away.stdout.splitlines() if line.startswith("[channel c] ")]
    assert announced.startswith("[channel c] ben is away (/me away) until 20") and "(in 5 h)" in announced
    malformed = run_cli("exec", "--db", db, "--channel", "c", "--user", "ben", "/me away hours:0", cwd=tmp_path)
    assert malformed.returncode == 2
