"""End to end: seat powers through the real bot on the fake Discord (issue 36, items 3 and 8).

The test reads nothing of the bot's database; it writes to it once, to move the game's log 73 hours into
the past (the log's own clock stamps each action: what tells how long a player has been silent)."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import datetime, timedelta

from tests.e2e.fake_discord import CHANNEL_MESSAGE, EPHEMERAL
from tests.e2e.test_e2e_discord import (
    RESPONSE_TIMEOUT,
    assert_nothing_unexpected,
    assert_private_refusal,
    assert_public_map,
    lobby_of_two,
    next_player,
    slash,
)


def time_passes(db, hours: float) -> None:
    """Every logged action moved `hours` into the past."""
    with sqlite3.connect(db, timeout=15.0) as connection:
        rows = connection.execute("SELECT game_id, seq, created_at FROM actions").fetchall()
        connection.executemany("UPDATE actions SET created_at = ? WHERE game_id = ? AND seq = ?", [
            ((datetime.fromisoformat(at) - timedelta(hours=hours)).isoformat(timespec="seconds"), game, seq)
            for game, seq, at in rows])


async def test_thirty_offers_ping_once_and_the_host_acts_only_on_a_gone_players_seat(fake, bot, record_latency):
    """Item 8: 30 `/game seat give to:carol` at once apply one offer and ping carol once. Item 3: the host's
    `/game seat computer` for bob's seat is refused privately while bob plays; once bob has been silent past
    the table's 72 hours it is applied, and the public message pings bob."""
    await lobby_of_two(fake, record_latency)
    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    mover = next_player(started)
    carol, bob = fake.users["carol"].id, fake.users["bob"].id
    pings = len(fake.notifications())
    sent = [await fake.send_slash(mover, "channel", "game seat give", {"to": "carol"}) for _ in range(30)]
    answers = await asyncio.gather(*(fake.responses(i, timeout=RESPONSE_TIMEOUT) for i in sent))
    public = [a for a in answers if any(r.files for r in a.requests)]
    assert len(public) == 1, [a.describe() for a in answers]
    for refused in (a for a in answers if a not in public):   # each answered privately
        if refused.callback_type == CHANNEL_MESSAGE:   # in its one response, when it reached the bot in time
            data = refused.callback.body["data"]
            assert data["flags"] & EPHEMERAL and "already offered to" in data["content"], refused.describe()
        else:   # one that queued past the bot's fresh window is acknowledged first, then told privately
            assert refused.followups and all(f.ephemeral for f in refused.followups), refused.describe()
            assert "already offered to" in refused.followups[0].content, refused.describe()
    assert [user for _message, user in fake.notifications()[pings:]] == [carol]

    early = await slash(fake, "alice", "channel", "game seat computer", player="bob")
    assert assert_private_refusal(early, record_latency, kind=CHANNEL_MESSAGE).startswith("bob is still playing")
    await asyncio.to_thread(time_passes, bot.db, 73)
    given = assert_public_map(await slash(fake, "alice", "channel", "game seat computer", player="bob"),
                              record_latency)
    assert given.content.startswith(f"<@{bob}> someone acted on your seat (below)."), given.content
    assert "alice gives bob's seat to the computer" in given.content
    assert [str(u) for u in given.record.body["allowed_mentions"]["users"]] == [bob]
    assert bob in [user for _message, user in fake.notifications()[pings:]]
    assert_nothing_unexpected(fake, bot)
