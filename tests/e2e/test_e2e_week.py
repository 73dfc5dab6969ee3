"""End to end: a week at one table, replayed on a clock the test sets (issue 38's acceptance).

Four players in four zones (Berlin, Los Angeles, Tokyo, Kolkata), each with away hours of their own day,
race hares (the walkthrough game: a die roll a turn, seeded) against 12-hour deadlines from Thursday to
Monday, across the night Europe moves to summer time (Sunday 28 March 2027, 01:00 UTC). carol is silent
for two days, so the autopilot plays her turns; alice is `/me away` over the weekend; bob hands his seat
to erin (London), who takes it on Friday. The real bot runs against the fake Discord; its table clock is
a file the test moves (fake_clock.py) from one player's look at the game, or one timer of the bot's (read
from its database), to the next, so the week takes seconds and every run is the same. Each ping the fake
delivered is counted per player and per their own local day: none falls inside the pinged player's away
hours or pause (a ping held through them comes at the very moment they end, which is outside them).
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.e2e.fake_clock import set_time, ticked
from tests.e2e.test_e2e_discord import RESPONSE_TIMEOUT, assert_nothing_unexpected

pytestmark = pytest.mark.slow

HOUR = 3600.0
TICK = "0.05"         # how often the bot's scheduler looks for due timers (real seconds)
SETTLE = 0.1          # a command's answer is complete once the bot has been quiet this long
TICK_TIMEOUT = 30.0   # a bound on one scheduler round, not an expectation
SEED = 5              # the hares' dice: alice wins on Monday evening, in carol's night


def utc(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


START = utc("2027-03-25T10:00")                # Thursday
END = utc("2027-04-01T12:00")                  # a bound on the replay, well past the race's end
CAROL_SILENT_UNTIL = utc("2027-03-28T12:00")   # carol says nothing for her first two turns (Friday to Sunday)
SEAT_GIVEN_AT = utc("2027-03-26T01:00")        # Thursday 18:00 in Los Angeles: bob offers his seat to erin
SEAT_TAKEN_AT = utc("2027-03-26T19:00")        # Friday 19:00 in London: erin takes it
ALICE_AWAY_AT = utc("2027-03-27T08:00")        # Saturday 09:00 in Berlin: `/me away` for the weekend
ALICE_BACK = ALICE_AWAY_AT + 30 * HOUR         # Sunday 16:00 in Berlin, now on summer time


@dataclass(frozen=True)
class Person:
    zone: str
    away: tuple[int, int]       # their own hours [start, end): nothing pings them then
    looks: tuple[str, ...]      # the local times they look at the game each day (and play, if it waits on them)

    def local(self, moment: float) -> datetime:
        return datetime.fromtimestamp(moment, ZoneInfo(self.zone))

    def is_away(self, moment: float) -> bool:
        start, end = self.away
        hour = self.local(moment).hour
        return start <= hour < end if start < end else hour >= start or hour < end

    def away_ends(self, moment: float) -> bool:
        """Whether `moment` is the very moment their away hours end (a held ping comes then)."""
        when = self.local(moment)
        return (when.hour, when.minute, when.second) == (self.away[1], 0, 0)

    def next_look(self, after: float) -> float:
        zone, day = ZoneInfo(self.zone), self.local(after).date()
        for offset in range(3):
            date = day + timedelta(days=offset)
            for at in self.looks:
                hour, minute = (int(x) for x in at.split(":"))
                look = datetime(date.year, date.month, date.day, hour, minute, tzinfo=zone).timestamp()
                if look >= after:
                    return look
        raise AssertionError("no look within three days")


PEOPLE = {
    "alice": Person("Europe/Berlin", (23, 7), ("08:15", "20:30")),
    "bob": Person("America/Los_Angeles", (23, 7), ("07:50", "21:10")),
    "carol": Person("Asia/Tokyo", (0, 8), ("12:20", "22:05")),
    "dave": Person("Asia/Kolkata", (1, 9), ("10:45", "23:30")),
    "erin": Person("Europe/London", (22, 6), ("07:20", "18:20")),
}
SEATED = ("alice", "bob", "carol", "dave")
# Pings per player per their own local day (the replay is deterministic: seeded dice, a fixed week).
EXPECTED_PINGS = {
    "alice": {"Thu 25": 1, "Sat 27": 1, "Sun 28": 1, "Mon 29": 1},
    "bob": {"Thu 25": 1},
    "carol": {"Fri 26": 2, "Sat 27": 3, "Sun 28": 1, "Mon 29": 2},
    "dave": {"Sat 27": 1, "Sun 28": 1, "Mon 29": 1, "Tue 30": 1},
    "erin": {"Sat 27": 1, "Sun 28": 1, "Mon 29": 2},
}


@dataclass(frozen=True)
class Ping:
    at: float      # the table's time
    who: str
    text: str      # the message that pinged them


class Week:
    """The replay: the table clock, the bot's database (read only), and every ping with the time it came at."""

    def __init__(self, fake, bot, clock: Path):
        self.fake, self.bot, self.clock = fake, bot, clock
        self.now = START
        self.pings: list[Ping] = []
        self.delivered = 0
        self.names = {u.id: name for name, u in fake.users.items()}

    def _read(self, sql: str) -> list[tuple]:
        with sqlite3.connect(f"file:{self.bot.db}?mode=ro", uri=True, timeout=15.0) as db:
            return db.execute(sql).fetchall()

    def running(self) -> bool:
        return self._read("SELECT status FROM games")[0][0] == "active"

    def waiting(self) -> tuple[str, float]:
        """Whom the game waits on, and when the bot's next reminder or deadline for them is due."""
        ((player, reminder, deadline),) = self._read("SELECT player, reminder_due, deadline_due FROM player_timers")
        return self.names[player], min(t for t in (reminder, deadline) if t is not None)

    def collect(self) -> None:
        """The pings delivered since the last look, at the table's time now."""
        delivered = self.fake.notifications()
        for message_id, user in delivered[self.delivered:]:
            self.pings.append(Ping(self.now, self.names[user], self.fake.message(message_id)["content"]))
        self.delivered = len(delivered)

    def move_to(self, moment: float) -> None:
        assert moment >= self.now, (moment, self.now)
        self.now = moment
        set_time(self.clock, moment)

    async def scheduler_round(self) -> None:
        """Wait until a scheduler round that began at the time now has posted all it sends."""
        deadline = time.monotonic() + TICK_TIMEOUT
        while ticked(self.clock) != self.now:
            assert time.monotonic() < deadline, f"no scheduler round at {self.now}\n{self.bot.log_tail()}"
            await asyncio.sleep(0.01)
        self.collect()

    async def command(self, user: str, command: str, **options) -> str:
        """A slash command at the time now: the words of its answers."""
        interaction = await self.fake.send_slash(user, "channel", command, options)
        exchange = await self.fake.responses(interaction, timeout=RESPONSE_TIMEOUT, settle=SETTLE)
        assert not exchange.rejected, exchange.describe()
        self.collect()
        return "\n".join(f.content for f in exchange.followups)

    def look(self, member: str) -> float:
        """When the member the game waits on next looks at it (not while silent, nor while away)."""
        after = self.now
        if member == "carol":
            after = max(after, CAROL_SILENT_UNTIL)
        if member == "alice" and ALICE_AWAY_AT <= after < ALICE_BACK:
            after = ALICE_BACK
        return PEOPLE[member].next_look(after)


async def play_the_week(week: Week) -> None:
    """From the start to the race's end: each step the next of a look, a timer, or the week's events."""
    events = {SEAT_GIVEN_AT: "give", SEAT_TAKEN_AT: "take", ALICE_AWAY_AT: "away"}
    while week.now < END and week.running():
        member, due = week.waiting()
        # a timer due at the moment of a look or an event goes first: the scheduler must not race the player
        moment, _first, what = min([(due, 0, "due"), (week.look(member), 1, member),
                                    *((at, 1, event) for at, event in events.items())])
        week.move_to(moment)
        events.pop(moment, None)
        if what == "due":
            await week.scheduler_round()
        elif what == "give":
            assert "bob offers their seat to" in await week.command("bob", "game seat give", to="erin")
        elif what == "take":
            assert "erin holds bob's seat now" in await week.command("erin", "game seat take")
        elif what == "away":
            assert "You are away in 1 game" in await week.command("alice", "me away", hours=30)
        else:
            said = await week.command(member, "move")
            assert "rolls a d6" in said, said


def per_local_day(pings: list[Ping]) -> dict[str, dict[str, int]]:
    counted = Counter((p.who, PEOPLE[p.who].local(p.at).strftime("%a %d")) for p in pings)
    table: dict[str, dict[str, int]] = {}
    for (who, day), count in sorted(counted.items()):
        table.setdefault(who, {})[day] = count
    return table


async def test_a_week_in_four_zones_pings_nobody_in_their_away_hours(fake, start_bot, tmp_path):
    clock = tmp_path / "table-clock"
    set_time(clock, START)
    for name in ("dave", "erin"):
        fake.add_user(name)
    bot = start_bot(env={"PITBOSS_E2E_CLOCK": str(clock), "PITBOSS_TICK_SECONDS": TICK})
    week = Week(fake, bot, clock)
    for name, person in PEOPLE.items():
        said = await week.command(name, "me settings", time_zone=person.zone, away="{}-{}".format(*person.away))
        assert person.zone in said, said
    await week.command("alice", "new hare", seed=SEED)
    for name in SEATED:
        await week.command(name, "game join")
    await week.command("alice", "game settings", deadline_hours=12, reminder_hours=6)
    await week.command("alice", "game start")
    await play_the_week(week)
    pings = week.pings
    for ping in pings:
        print(f"{datetime.fromtimestamp(ping.at, UTC):%a %d %H:%M} UTC {ping.who:5} "
              f"{PEOPLE[ping.who].local(ping.at):%a %H:%M} | {ping.text.splitlines()[1][:90]}")
    print(per_local_day(pings))

    assert not week.running() and week.now < END   # the race reached its winner within the week
    # No ping inside the pinged player's away hours, nor in alice's weekend away; nobody twice at one moment.
    assert [p for p in pings if PEOPLE[p.who].is_away(p.at)] == []
    assert [p for p in pings if p.who == "alice" and ALICE_AWAY_AT <= p.at < ALICE_BACK] == []
    assert len({(p.at, p.who) for p in pings}) == len(pings)
    # Pings held through away hours came when they ended, by the player's own clock: Europe's on winter time
    # and on summer time alike; alice's pause's end pinged her once.
    held = [p for p in pings if PEOPLE[p.who].away_ends(p.at)]
    assert {p.who for p in held} >= {"alice", "carol", "dave", "erin"}
    summer = {PEOPLE[p.who].local(p.at).dst() != timedelta(0) for p in held if p.who in ("alice", "erin")}
    assert summer == {False, True}
    assert [p.text.splitlines()[1][:9] for p in pings if p.who == "alice" and p.at == ALICE_BACK] == ["Reminder:"]
    # The end pings everyone seated but carol, asleep in Tokyo: the game waits on nobody, so nothing later.
    ended = [p for p in pings if "the game has ended" in p.text.splitlines()[0]]
    assert {p.who for p in ended} == {"erin", "dave"} and PEOPLE["carol"].is_away(ended[0].at), ended
    # Each of silent carol's turns the autopilot played pinged her, at the deadline her last ping showed.
    autopiloted = [p for p in pings if p.text.splitlines()[1].startswith("carol's deadline passed")]
    assert len({p.at for p in autopiloted}) == 2 and all(p.at < CAROL_SILENT_UNTIL for p in autopiloted)
    for at in {p.at for p in autopiloted}:
        assert "carol" in {p.who for p in autopiloted if p.at == at}
        shown = [p.text for p in pings if p.who == "carol" and p.at < at][-1]
        assert f"<t:{int(at)}:f>" in shown, shown
    # The seat changed hands: bob is pinged no more after erin took it; erin, named as its holder, is.
    assert [p for p in pings if p.who == "bob" and p.at > SEAT_TAKEN_AT] == []
    first = next(p for p in pings if p.who == "erin")
    assert first.at > SEAT_TAKEN_AT and "bob's seat (erin)" in first.text, first.text
    assert per_local_day(pings) == EXPECTED_PINGS
    assert_nothing_unexpected(fake, bot)
