"""End to end, pings where each player wants them (issue 38, finding 11): a `notify:dm` player gets their turn
by direct message (POST /users/@me/channels, then a message there) while the channel's message mentions nobody
for them; a member who refuses direct messages (403, 50007) is pinged in the channel instead, told why once;
a `notify:digest` player is never pinged and gets one digest when it falls due, even across a restart. The
tests make a stored moment due by writing it (as the clock would at the end of away hours), as
test_e2e_long_games does for a reminder."""

from __future__ import annotations

import asyncio
import sqlite3
import time

from tests.e2e.fake_discord import DEFERRED_UPDATE, FakeDiscord
from tests.e2e.test_e2e_discord import (
    assert_nothing_unexpected,
    assert_public_map,
    lobby_of_two,
    next_player,
    press,
    slash,
)
from tests.e2e.test_e2e_long_games import poll

TICK = {"PITBOSS_TICK_SECONDS": "0.3"}
WAIT = 20.0   # a bound on each wait for the scheduler, not an expectation (a tick or two)


async def settings(fake: FakeDiscord, user: str, **options) -> str:
    saved = await slash(fake, user, "channel", "me settings", **options)
    (answer,) = saved.followups
    assert answer.ephemeral and answer.content.startswith("Saved."), saved.describe()
    return answer.content


async def until_the_turn_of(fake: FakeDiscord, record_latency, player: str) -> str:
    """Start the duel and play the other driver's first turn if it is theirs: the message that hands `player`
    the turn."""
    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    if next_player(started) == player:
        return started.content
    other = next_player(started)
    assert_public_map(await press(fake, other, "channel", started.message_id, "Speed 1"), record_latency,
                      kind=DEFERRED_UPDATE)
    passed = assert_public_map(await press(fake, other, "channel", started.message_id, "normal"), record_latency,
                               kind=DEFERRED_UPDATE)
    assert next_player(passed) == player
    return passed.content


def link(fake: FakeDiscord) -> str:
    return f"https://discord.com/channels/{fake.guild_id}/{fake.channels['channel'].id}"


async def test_a_dm_player_gets_their_turn_privately_and_the_channel_pings_nobody_for_them(fake, bot,
                                                                                          record_latency):
    await lobby_of_two(fake, record_latency)
    assert "by direct message" in await settings(fake, "alice", notify="dm")
    turn = await until_the_turn_of(fake, record_latency, "alice")
    alice = fake.users["alice"].id
    assert f"<@{alice}>" not in turn and "Next: Round 1, alice" in turn
    (dm,) = await poll(lambda: fake.direct_messages("alice"), WAIT, "alice's direct message")
    assert dm["content"].startswith(f"**Speedway** in {link(fake)}: your turn.\nNext: Round 1, alice"), dm
    assert "guild_id" not in dm
    assert [u for m, u in fake.notifications() if u == alice] == [alice]   # her one ping: the direct message
    assert fake.direct_messages("bob") == []
    assert len(fake.requests("dm_open")) == 1
    assert_nothing_unexpected(fake, bot)


async def test_a_member_refusing_dms_is_pinged_in_the_channel_and_told_why_once(fake, start_bot, record_latency):
    bot = start_bot(env=TICK)
    await lobby_of_two(fake, record_latency)
    player = next_player(assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency))
    fake.refuse_dms(player)
    await settings(fake, player, notify="dm")
    member = fake.users[player].id

    started = len(fake.channel_messages("channel"))   # the start pinged them in the channel, before they chose

    def pings() -> list[dict]:
        return [m for m in fake.channel_messages("channel")[started:] if m.get("_notified") == [member]]

    for told in range(2):   # two reminders fall due, as the clock would make them
        with sqlite3.connect(bot.db) as db:
            db.execute("UPDATE player_timers SET reminder_due = 0")
        await poll(lambda: len(pings()) > told, WAIT, f"ping {told + 1} in the channel")   # noqa: B023
    first, second = (m["content"] for m in pings())
    assert first.startswith(f"<@{member}> your turn.\n(Your direct messages are closed to me") and \
        "I say this once." in first, first
    assert second == f"<@{member}> your turn."   # said once: not again
    reminders = [m for m in fake.channel_messages("channel") if m["content"].startswith("Reminder:")]
    assert len(reminders) == 2 and not any(m["_notified"] for m in reminders)   # the reminders ping nobody
    refused = [r for r in fake.requests("channel_post") if r.status == 403]
    assert [r.response["code"] for r in refused] == [50007, 50007]
    assert fake.direct_messages(player) == []
    assert "Traceback" not in bot.log_text(), bot.log_tail()


async def test_a_digest_player_is_never_pinged_and_gets_one_digest_across_a_restart(fake, start_bot,
                                                                                    record_latency):
    bot = start_bot(env=TICK)
    await lobby_of_two(fake, record_latency)
    said = await settings(fake, "alice", notify="digest", away="23-07")
    assert "one digest a day at 07:00 your time" in said
    await until_the_turn_of(fake, record_latency, "alice")
    alice = fake.users["alice"].id
    await asyncio.to_thread(bot.restart)   # the digest's moment is stored
    with sqlite3.connect(bot.db) as db:
        (due,) = db.execute("SELECT digest_due FROM player_notices").fetchone()
        assert due > time.time() and time.gmtime(due).tm_hour == 7   # the end of her away hours (UTC)
        db.execute("UPDATE player_notices SET digest_due = 0")   # as the clock would at 07:00
    (digest,) = await poll(lambda: fake.direct_messages("alice"), WAIT, "alice's digest")
    assert digest["content"].startswith("Your daily digest: 1 game waits on you.\n"
                                        f"- **Speedway** in {link(fake)}: no deadline. Round 1, alice"), digest
    with sqlite3.connect(bot.db) as db:
        await poll(lambda: db.execute("SELECT digest_due FROM player_notices").fetchone()[0] > time.time(), WAIT,
                   "the next digest set")
        (due,) = db.execute("SELECT digest_due FROM player_notices").fetchone()
    assert time.gmtime(due).tm_hour == 7 and due - time.time() <= 24 * 3600
    await asyncio.sleep(1.0)   # more ticks: no second digest
    assert len(fake.direct_messages("alice")) == 1
    assert [u for _m, u in fake.notifications() if u == alice] == [alice]   # her one notice: the digest
    assert_nothing_unexpected(fake, bot)
