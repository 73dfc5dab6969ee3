"""What a table of absent players still missed (issue 38, item 5): followers told of the rounds the autopilot
opens, the end of a game pinging the people seated, each game's deadline in /games in the asker's own time,
a Track player's own choices after their /game status on the command line; and a public status that becomes
the turn's live message only while the game is as it showed (item 6)."""

from __future__ import annotations

import re

import pytest

from bot.storage.store import TurnMessage
from bot.table.clock.moments import moment
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor, Button, Reply
from bot.table.service.entry import GameService
from tests.conftest import TABLE_TIME, exec_in, track_on_the_command_line

BACKENDS = ("sqlite", "postgres")   # the deadline tests run on both (tests/conftest.py)
HOUR = 3600.0


class Clock:
    def __init__(self) -> None:
        self.now = TABLE_TIME

    def __call__(self) -> float:
        return self.now


async def run(service, user, line, channel="t"):
    return await service.execute(channel, Actor(user, user), parse(line), guild="g")


async def track_with_deadlines(service, follower_mode: str = "round") -> None:
    for user, line in (("ann", "/game new ruleset:track seed:3"), ("ann", "/game join"), ("ben", "/game join"),
                       ("ann", "/game start"), ("ann", "/game settings deadline_hours:1"),
                       ("zed", f"/game follow mode:{follower_mode}")):
        assert (await run(service, user, line)).outcome in ("applied", "shown"), line


async def test_followers_hear_of_each_round_the_autopilot_opens(store):
    """The week's finding: nobody acted, the autopilot played every turn, and the follower heard nothing."""
    clock = Clock()
    service = GameService(store, render=None, clock=clock)
    await track_with_deadlines(service)
    told = []
    for _ in range(4):   # two turns a round: two rounds opened by the autopilot alone
        clock.now += 1.01 * HOUR
        notices = await service.run_due()
        assert any("deadline passed" in n.reply.text for n in notices), [n.reply.text for n in notices]
        told += [n for n in notices if "zed" in n.reply.mentions]
    assert [n.reply.text.split(".")[0] for n in told] == \
        [f"Round {r} of the Track (the card race) game here begins" for r in (2, 3)]
    assert all(n.channel == "t" and not n.reply.notices for n in told)


async def test_an_ending_the_autopilot_plays_pings_the_seated_and_the_followers(store):
    clock = Clock()
    service = GameService(store, render=None, clock=clock)
    await track_with_deadlines(service, follower_mode="end")
    for _ in range(200):
        clock.now += 1.01 * HOUR
        notices = await service.run_due()
        if (await store.active_game("t")) is None:
            break
    else:
        raise AssertionError("the autopilot never ended the race")
    (final,) = [n for n in notices if n.reply.outcome == "applied"]
    assert final.reply.mentions == ("ann", "ben") and final.reply.ping_words == "the game has ended."
    (follower,) = [n for n in notices if n is not final]
    assert follower.reply.mentions == ("zed",) and "has ended" in follower.reply.text


@pytest.mark.sqlite_only
async def test_the_end_pings_everyone_still_seated_but_who_ended_it(service, store):
    for user, line in (("ann", "/game new ruleset:speedway seed:2"), ("ann", "/game join"), ("ben", "/game join"),
                       ("cat", "/game join"), ("ann", "/game start")):
        assert (await run(service, user, line)).outcome == "applied", line
    assert (await run(service, "cat", "/game resign confirm:yes")).outcome == "applied"
    assert await store.active_game("t") is not None   # two still race
    ended = await run(service, "ann", "/game end")
    assert (await store.latest_game("t")).status == "finished"
    assert ended.mentions == ("ben",) and ended.ping_words == "the game has ended."   # cat resigned: not pinged


@pytest.mark.sqlite_only
async def test_games_shows_each_games_deadline_also_in_the_askers_own_time_zone(service):
    await track_with_deadlines(service)
    waiting = (await run(service, "zed", "/game status")).waiting_on[0]
    other = "ben" if waiting == "ann" else "ann"
    deadline = TABLE_TIME + HOUR
    theirs = await run(service, other, "/games")
    assert theirs.text.endswith(f"⏰ {waiting}: deadline {moment(deadline)}.")
    assert (await run(service, other, "/me settings time_zone:Asia/Tokyo")).outcome == "shown"
    local = (await run(service, other, "/games")).text   # 09:00 UTC: 18:00 in Tokyo
    assert local.endswith(f"⏰ {waiting}: deadline {moment(deadline)} (Fri 15 Jan 18:00 Asia/Tokyo JST)."), local
    assert (await run(service, waiting, "/me settings time_zone:Europe/Berlin")).outcome == "shown"
    mine = (await run(service, waiting, "/games")).text
    assert f"your turn! ⏰ deadline {moment(deadline)}" in mine and "(Fri 15 Jan 10:00 Europe/Berlin CET)." in mine


async def test_a_status_becomes_the_turn_message_only_while_the_game_is_as_it_showed(service, store):
    await track_with_deadlines(service)
    status = await run(service, "zed", "/game status")
    assert status.buttons and status.turn_key and "⏰" in status.text
    assert await service.status_took_turn(status.game_id, status.version, status.turn_key, "m-status", "words")
    shown = await store.turn_message(status.game_id)
    assert (shown.message_id, shown.turn_key, shown.body) == ("m-status", status.turn_key, "words")
    own = await service.own_choices("t", status.waiting_on[0])
    assert (await run(service, status.waiting_on[0], own[0].command)).outcome == "applied"
    assert not await service.status_took_turn(status.game_id, status.version, status.turn_key, "m-late", "x")
    assert (await store.turn_message(status.game_id)).message_id != "m-late"


def test_a_track_players_status_on_their_turn_prints_their_own_choices(tmp_path):
    db = str(tmp_path / "c.db")
    track_on_the_command_line(db, tmp_path)
    run = exec_in(db, tmp_path)
    waiting = re.search(r"Round \d+, (\w+): play a card", run("zed", "/game status")).group(1)
    other = "ben" if waiting == "ann" else "ann"
    mine = run(waiting, "/game status")
    assert re.search(rf"^private: choices for {waiting}: /(play|discard) ", mine, re.M), mine
    assert "private: choices" not in run(other, "/game status")


class _Message:
    def __init__(self, message_id: int, edits: list):
        self.id, self._edits = message_id, edits

    async def edit(self, **fields):
        self._edits.append((str(self.id), fields))


class _Channel:
    """A channel as post_notice uses it: messages sent, and edits of earlier ones (the channel route)."""

    def __init__(self):
        self.sent: list[str] = []
        self.edits: list[tuple[str, dict]] = []

    async def send(self, content, **_fields):
        self.sent.append(content)
        return _Message(200 + len(self.sent), self.edits)

    def get_partial_message(self, message_id: int) -> _Message:
        return _Message(message_id, self.edits)


class _Turns:
    def __init__(self, shown, takes: bool = True):
        self.shown, self.takes = shown, takes

    async def turn_message(self, game_id):
        return self.shown

    async def remember_turn_message(self, game_id, turn_key, message_id, body=""):
        self.shown = TurnMessage(turn_key, message_id, body)

    async def status_took_turn(self, game_id, version, turn_key, message_id, body):
        if self.takes:
            self.shown = TurnMessage(turn_key, message_id, body)
        return self.takes


NEXT = f"Next: Round 2, ann: play a card.\n⏰ ann: deadline {moment(TABLE_TIME + HOUR)}."


async def test_a_turn_the_autopilot_posts_retires_the_last_turn_message_and_its_clock():
    """Item 5: the message a turn superseded kept a clock Discord counts on ("in 11 hours", then "… ago"),
    and (item 6) its buttons, when the scheduler posted the next turn."""
    from bot.chat.views import post_notice

    channel = _Channel()
    turns = _Turns(TurnMessage("k1", "100", "ben played 7H."))
    played = Reply("applied", f"ben's deadline passed: the autopilot plays for them.\n{NEXT}", game_id=1, version=9,
                   turn_key="k2", next_line=NEXT, buttons=(Button("Your move (private)", "pc:1:0:0", ""),))
    await post_notice(turns, channel, played)
    (retired,) = channel.edits
    assert retired[0] == "100" and retired[1]["view"] is None and retired[1]["content"] == "ben played 7H."
    assert turns.shown == TurnMessage("k2", "201", "ben's deadline passed: the autopilot plays for them.")


async def test_a_status_posted_by_the_scheduler_after_the_game_moved_on_loses_its_buttons():
    """A status posted through the channel route (asked in a GM's thread) takes the turn like one asked in the
    channel, unless the game moved on meanwhile: then its own buttons come off, and the turn's message stays."""
    from bot.chat.views import post_notice

    status = Reply("shown", f"The table.\n⏰ ann: deadline {moment(TABLE_TIME + HOUR)}.", game_id=1, version=9,
                   turn_key="k2", next_line=f"⏰ ann: deadline {moment(TABLE_TIME + HOUR)}.",
                   buttons=(Button("Your move (private)", "pc:1:0:0", ""),))
    channel, turns = _Channel(), _Turns(TurnMessage("k2", "100", "ann drew."))
    await post_notice(turns, channel, status)
    ((edited, fields),) = channel.edits
    assert edited == "100" and fields["view"] is None and fields["content"] == "ann drew."
    assert turns.shown == TurnMessage("k2", "201", "The table.")
    channel, turns = _Channel(), _Turns(TurnMessage("k2", "100", "ann drew."), takes=False)
    await post_notice(turns, channel, status)
    assert channel.edits == [("201", {"view": None})] and turns.shown.message_id == "100"
