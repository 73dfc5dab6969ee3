"""End to end, the table's clock on each player's terms (issue 38 findings 12 and 13): a missed deadline
excused by grace, said in the channel with a ping to the player; then a time bank, shown in the status. The
test makes the deadline due by writing the bot's timer (as the hours would), as
tests/e2e/test_e2e_long_games.py does for a reminder."""

from __future__ import annotations

import re

from tests.e2e.fake_discord import FakeDiscord
from tests.e2e.test_e2e_discord import RESPONSE_TIMEOUT, assert_nothing_unexpected, slash
from tests.e2e.test_e2e_long_games import TICK_SECONDS, Database, only_game_id, start_game


def posted_with(words: str):
    def found(fake: FakeDiscord) -> list[dict]:
        channel_id = fake.channels["channel"].id
        return [m for m in fake._messages.values() if m["channel_id"] == channel_id and words in m["content"]]
    return found


async def test_a_missed_deadline_is_excused_by_grace_in_the_channel(fake, start_bot, record_latency):
    bot = start_bot(env={"PITBOSS_TICK_SECONDS": str(TICK_SECONDS)})
    waiting = await start_game(fake, record_latency, "channel", "alice", "bob", seed=7)
    changed = await slash(fake, "alice", "channel", "game settings", deadline_hours=6, grace=1)
    assert "grace: 1 missed deadline per player" in changed.followups[0].content, changed.describe()
    db = Database(bot.db)
    try:
        game_id = only_game_id(db, fake.channels["channel"].id)
        db.connection.execute("UPDATE player_timers SET deadline_due = 0 WHERE game_id = ?", (game_id,))
        (excused,) = await fake.wait_for(posted_with("missed the deadline: grace 1 of 1 used, new deadline <t:"),
                                         timeout=RESPONSE_TIMEOUT, what="the grace message")
    finally:
        db.close()
    assert excused["content"].startswith(f"<@{fake.users[waiting].id}>")   # the player is pinged
    banked = await slash(fake, "alice", "channel", "game settings", clock="bank", bank_hours=10, increment_hours=2)
    assert "a time bank of 10 h a player" in banked.followups[0].content, banked.describe()
    status = await slash(fake, "bob", "channel", "game status")
    shown = " ".join(f.content for f in status.followups) + (status.callback.body.get("data") or {}).get("content", "")
    assert re.search(rf"⏰ {waiting}: bank (10:00|9:59) left, runs out <t:\d+:f>", shown), status.describe()
    assert_nothing_unexpected(fake, bot)
