"""Pings where each player wants them (issue 38, finding 11): `/me settings notify:dm` sends a player's own
pings by direct message (only what they may see, held in their away hours like a channel ping), and
`notify:digest` sends none but one message a day at the end of their away hours listing each game waiting
on them, with its deadline in their own time; the channel keeps every action line either way."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from bot.storage.store import Store
from bot.table.clock.personal import PlayerSettings, next_digest
from bot.table.clock.settings import HOUR
from bot.table.protocol.commands import Command, CommandSyntaxError, parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from rules.registry import get_ruleset
from tests.conftest import ROOT, run_cli, run_pitboss
from tests.test_player_clock import Clock

BACKENDS = ("sqlite", "postgres")   # digests and timers are stored: both backends (tests/conftest.py)
T0 = 1_800_000_000.0   # 2027-01-15 08:00 UTC: 17:00 in Tokyo
TOKYO = ZoneInfo("Asia/Tokyo")


def tokyo(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=TOKYO).timestamp()


async def opened(db_path, now=T0):
    clock = Clock(now)
    store = await Store.open(db_path)
    return clock, store, GameService(store, render=None, clock=clock)


async def run(service, user, line, channel="f"):
    return await service.execute(channel, Actor(user, user), parse(line), guild="g1")


async def track(service, channel="f", settings=""):
    """A Track game of ann and ben in `channel`, waiting on ben (seed 3 gives him the first turn)."""
    for user, line in (("ann", "/game new ruleset:track seed:3"), ("ann", "/game join"), ("ben", "/game join")):
        assert (await run(service, user, line, channel)).outcome == "applied"
    if settings:
        assert (await run(service, "ann", settings, channel)).outcome == "shown"
    started = await run(service, "ann", "/game start", channel)
    assert started.waiting_on == ("ben",)
    return started


async def act(service, player, channel="f"):
    """The first play `player` is offered, played: the reply."""
    own = await service.own_choices(channel, player)
    played = await run(service, player, own[0].command, channel)
    assert played.outcome == "applied", played.text
    return played


async def test_a_dm_player_gets_their_turn_by_direct_message_with_only_their_own_choices(db_path):
    clock, store, service = await opened(db_path)
    saved = await run(service, "ann", "/me settings notify:dm")
    assert saved.ephemeral and "by direct message" in saved.text
    await track(service)
    passed = await act(service, "ben")   # now it waits on ann
    assert passed.waiting_on == ("ann",) and passed.mentions == ()   # the channel's message pings nobody
    assert "ben played" in passed.text   # and keeps the action's line
    (dm,) = passed.direct
    assert (dm.player, dm.guild, dm.channel, dm.fallback) == ("ann", "g1", "f", "your turn.")
    assert dm.text.startswith("**Track (the card race)** in f: your turn.\n") and passed.next_line in dm.text
    own = await service.own_choices("f", "ann")
    assert dm.text.endswith("Your choices (only you see this): " + " | ".join(a.label for a in own))
    state = get_ruleset("track").load_state((await store.active_game("f")).state)
    bens = set(state.hand("ben").cards) - set(state.hand("ann").cards)
    assert bens and not any(card in dm.text.rsplit("\n", 1)[1] for card in bens)   # nothing of ben's hand
    back = await act(service, "ann")   # ben keeps the channel: pinged there, no direct message
    assert back.mentions == ("ben",) and back.direct == ()
    await store.close()


async def test_a_dm_inside_away_hours_waits_for_their_end_and_comes_as_a_dm(db_path):
    clock, store, service = await opened(db_path, T0 + 9.5 * HOUR)   # 02:30 in Tokyo
    await run(service, "ann", "/me settings notify:dm time_zone:Asia/Tokyo away:23-7")
    await track(service)
    passed = await act(service, "ben")
    assert passed.mentions == () and passed.direct == ()   # held, as a channel ping would be
    sent = []
    while clock.now < T0 + 20 * HOUR:
        clock.now += HOUR / 2
        sent += [(clock.now, n.reply.mentions, [d.player for d in n.reply.direct]) for n in await service.run_due()]
    assert sent == [(T0 + 14 * HOUR, (), ["ann"])]   # once, at 07:00 in Tokyo, by direct message
    await store.close()


async def test_a_digest_player_is_pinged_never_and_gets_one_digest_a_day_when_their_away_hours_end(db_path):
    clock, store, service = await opened(db_path)
    await run(service, "ann", "/me settings time_zone:Asia/Tokyo away:23-7")
    saved = await run(service, "ann", "/me settings notify:digest")
    assert "one digest a day at 07:00 your time" in saved.text and "No game pings you now" in saved.text
    assert await store.digest_due("g1", "ann") == tokyo("2027-01-16T07:00")
    await track(service, settings="/game settings deadline_hours:48")
    await track(service, channel="g")
    assert (await act(service, "ben")).mentions == ()   # f now waits on ann: no ping, no DM
    passed = await act(service, "ben", "g")
    assert passed.mentions == () and passed.direct == () and "ben played" in passed.text
    first_day = []
    while clock.now + HOUR / 2 < tokyo("2027-01-16T07:00"):
        clock.now += HOUR / 2
        first_day += await service.run_due()
        assert await service.due_digests() == []
    assert first_day == []   # nor any reminder
    clock.now = tokyo("2027-01-16T07:00")
    (digest,) = await service.due_digests()
    assert digest.player == "ann" and digest.channel == "f"
    head, first, second = digest.text.splitlines()
    assert head == "Your daily digest: 2 games wait on you."   # soonest deadline first, in her own time
    assert first.startswith("- **Track (the card race)** in f: deadline Sun 17 Jan 17:00 Asia/Tokyo JST. "
                            "Round 1, ann: ")
    assert second.startswith("- **Track (the card race)** in g: no deadline. Round 1, ann: ")
    # posted in f (her direct messages closed), it lists f's game alone: f's readers may not see g
    assert digest.fallback.splitlines() == [head, first, "… and 1 more (/games lists them)."]
    assert await service.due_digests() == []   # claimed: once
    restarted = GameService(store, render=None, clock=clock)   # the moment is stored: a restart sends it once
    clock.now += 6 * HOUR
    assert await restarted.due_digests() == []
    clock.now = tokyo("2027-01-17T07:00")
    assert [d.player for d in await restarted.due_digests()] == ["ann"]
    await store.close()


async def test_a_digest_with_nothing_waiting_is_not_sent_and_choosing_the_channel_again_ends_them(db_path):
    clock, store, service = await opened(db_path)
    await run(service, "ann", "/me settings notify:digest")
    assert await store.digest_due("g1", "ann") == datetime(2027, 1, 16, 8, tzinfo=UTC).timestamp()   # 08:00 UTC
    clock.now = datetime(2027, 1, 16, 8, tzinfo=UTC).timestamp()
    assert await service.due_digests() == []   # no game waits on her
    assert await store.digest_due("g1", "ann") == clock.now + 24 * HOUR
    await run(service, "ann", "/me settings notify:channel")
    assert await store.digest_due("g1", "ann") is None


async def test_a_closed_inbox_is_said_once_until_the_player_chooses_again(db_path):
    _clock, store, service = await opened(db_path)
    assert await service.dms_closed("g1", "ann") is True
    assert await service.dms_closed("g1", "ann") is False
    assert await service.dms_closed("g2", "ann") is True   # per server
    await run(service, "ann", "/me settings notify:dm")
    assert await service.dms_closed("g1", "ann") is True
    await store.close()


async def test_notify_is_refused_when_unknown_and_stored_only_when_it_is_not_the_channel(db_path):
    _clock, store, service = await opened(db_path)
    with pytest.raises(CommandSyntaxError, match="notify: must be one of channel, dm, digest"):
        parse("/me settings notify:email")
    refused = await service.execute("f", Actor("ann", "ann"), Command("me settings", {"notify": "email"}), guild="g1")
    assert refused.outcome == "refused" and refused.text.startswith("notify: channel") and len(refused.text) < 200
    await run(service, "ann", "/me settings time_zone:Asia/Tokyo")
    assert "notify" not in (await store.player_settings_tx("g1", ("ann",)))["ann"]   # as older releases wrote it
    await run(service, "ann", "/me settings notify:dm")
    assert json.loads((await store.player_settings_tx("g1", ("ann",)))["ann"])["notify"] == "dm"
    shown = await run(service, "ann", "/me settings")
    assert "your pings: by direct message" in shown.text and "notify:" in shown.text
    await store.close()


def test_the_digest_hour_follows_summer_time():
    berlin = PlayerSettings(time_zone="Europe/Berlin", away=(23, 9))
    before = datetime(2027, 3, 26, 12, tzinfo=UTC).timestamp()   # two days before Europe's change (the 28th)
    first = next_digest(berlin, before)
    second = next_digest(berlin, first)
    assert datetime.fromtimestamp(first, UTC).hour == 8 and datetime.fromtimestamp(second, UTC).hour == 7
    assert second - first == 23 * HOUR


async def test_an_older_database_keeps_its_players_settings_and_takes_a_digest(tmp_path):
    path = tmp_path / "release38.db"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "release38.db", path)
    store = await Store.open(str(path))
    try:
        rows = await store.driver.fetchall("SELECT guild, player, settings FROM player_settings")
        assert rows
        for _guild, _player, text in rows:
            personal = PlayerSettings.from_json(text)
            assert personal != PlayerSettings() and personal.notify == "channel"
        guild, player, _text = rows[0]
        service = GameService(store, render=None, clock=lambda: T0)
        saved = await service.execute("x", Actor(player, player), parse("/me settings notify:digest"), guild=guild)
        assert saved.outcome == "shown" and await store.digest_due(guild, player) is not None
    finally:
        await store.close()


async def test_help_and_the_settings_name_every_choice_of_notify(db_path):
    _clock, store, service = await opened(db_path)
    explained = await run(service, "ann", '/help command:"me settings"')
    assert explained.outcome == "shown" and len(explained.text) <= 2000
    for words in ("notify", "channel", "dm", "digest", "direct message", "08:00", "deadline in your time"):
        assert words in explained.text, words
    await store.close()


@pytest.mark.slow   # a process per command
def test_the_command_line_prints_a_direct_message_and_tick_prints_a_due_digest(tmp_path):
    db = str(tmp_path / "game.db")

    def exec_as(user, line, runner=run_cli):
        return runner("exec", "--db", db, "--channel", "42", "--user", user, line, cwd=tmp_path)

    assert exec_as("ann", "/me settings notify:dm").returncode == 0
    for user, line in (("ann", "/game new ruleset:track seed:3"), ("ann", "/game join"), ("ben", "/game join")):
        assert exec_as(user, line).returncode == 0
    assert exec_as("ann", "/game start").returncode == 0
    status = exec_as("ben", "/game status").stdout
    play = re.search(r"^private: choices for ben: (/[^|\n]+?)(?: \||$)", status, re.M).group(1)
    played = exec_as("ben", play, runner=run_pitboss)
    assert played.returncode == 0 and "ben played" in played.stdout, played.stdout
    assert "ping: ann" not in played.stdout
    assert "dm to ann: **Track (the card race)** in <#42>: your turn.\n  Next: Round 1, ann:" in played.stdout
    assert re.search(r"^  Your choices \(only you see this\): ", played.stdout, re.M)
    assert exec_as("ann", "/me settings notify:digest").returncode == 0
    with sqlite3.connect(db) as connection:   # as the clock would at the end of her away hours
        connection.execute("UPDATE player_notices SET digest_due = 0 WHERE player = 'ann'")
    ticked = run_pitboss("tick", "--db", db, cwd=tmp_path)
    assert ticked.returncode == 0 and "dm to ann: Your daily digest: 1 game waits on you.\n" \
        "  - **Track (the card race)** in <#42>: no deadline. Round 1, ann:" in ticked.stdout, ticked.stdout
    assert "0 notices sent, 1 digests" in ticked.stdout
    again = run_pitboss("tick", "--db", db, cwd=tmp_path)
    assert "dm to" not in again.stdout and "0 notices sent\n" in again.stdout


async def test_a_digest_player_whose_seat_an_admin_hands_to_the_computer_is_told_by_direct_message(db_path):
    """A digest tells its member of their turns; what another did to their seat cannot wait a day for it."""
    clock, store, service = await opened(db_path)
    await run(service, "ann", "/me settings notify:digest")
    await track(service, settings="/game settings deadline_hours:2")
    await act(service, "ben")   # now it waits on ann
    clock.now += 3 * HOUR
    await service.run_due()   # past her deadline the autopilot plays for her: an admin may act on her seat
    handed = await service.execute("f", Actor("root", "root", True), parse("/game seat computer player:ann"),
                                   guild="g1")
    assert handed.outcome == "applied", handed.text
    assert "ann" not in handed.mentions and [d.player for d in handed.direct] == ["ann"]
    await store.close()


async def test_the_autopilots_notice_tells_each_dm_player_their_own_news(db_path):
    """The channel's one ping reads "your turn; ann, the autopilot played for you …": by direct message the next
    player reads only "your turn." and the player it played for only that it did (neither the other's words)."""
    clock, store, service = await opened(db_path)
    for player in ("ann", "ben"):
        await run(service, player, "/me settings notify:dm")
    await track(service, settings="/game settings deadline_hours:2")
    await act(service, "ben")   # now it waits on ann
    clock.now += 3 * HOUR
    (notice,) = [n.reply for n in await service.run_due() if "deadline passed" in n.reply.text]
    assert notice.mentions == () and notice.ping_words == "your turn; ann, the autopilot played for you at your " \
        "deadline (/game catchup tells what happened)."
    told = {dm.player: (dm.text.split("\n")[0], dm.fallback) for dm in notice.direct}
    assert told == {"ben": ("**Track (the card race)** in f: your turn.", "your turn."),
                    "ann": ("**Track (the card race)** in f: the autopilot played for you at your deadline (/game "
                            "catchup tells what happened).",
                            "the autopilot played for you at your deadline (/game catchup tells what happened).")}
    await store.close()


async def test_a_dm_about_a_seat_carries_the_channels_words_it_points_to(db_path):
    """"a seat is offered to you" by direct message says whose seat and how to take it, as the channel does (it
    carried only the turn's Next: line); a turn's ping still carries only what the game waits on."""
    clock, store, service = await opened(db_path)
    await run(service, "cat", "/me settings notify:dm")
    await track(service)
    offered = await run(service, "ben", "/game seat give to:cat")
    (dm,) = offered.direct
    assert dm.text.startswith("**Track (the card race)** in f: a seat is offered to you.\nSeat change: ") and \
        "ben offers their seat to cat: /game seat take takes it." in dm.text, dm.text
    assert (await run(service, "cat", "/game seat take")).outcome == "applied"
    await act(service, "cat")
    turn = await act(service, "ann")   # the seat's turn again: cat is pinged by direct message
    (dm,) = turn.direct
    assert dm.text.startswith(f"**Track (the card race)** in f: your turn.\n{turn.next_line}")
    assert "ann played" in turn.text and "ann played" not in dm.text
    await store.close()
