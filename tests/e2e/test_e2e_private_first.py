"""Answers that may be private are acknowledged privately from the first moment, through the real bot on the
fake Discord (issue 36, item 11): under load an interaction reaches the bot late, so it is acknowledged before
it is carried out; a refused `/undo` and `/game status view:closeup` were then acknowledged with a public
"thinking…" that was deleted when the private answer came."""

from __future__ import annotations

from tests.e2e.test_e2e_discord import (
    RESPONSE_TIMEOUT,
    assert_nothing_unexpected,
    assert_public_map,
    lobby_of_two,
    next_player,
)

LATE_MS = 1_500   # older than the bot's fresh window (bot.chat.adapter.FRESH_SECONDS): acknowledged first


async def test_a_late_undo_refusal_and_close_up_never_show_the_channel_a_placeholder(fake, bot, record_latency):
    await lobby_of_two(fake, record_latency)
    active = next_player(assert_public_map(await fake.responses(
        await fake.send_slash("alice", "channel", "game start"), timeout=RESPONSE_TIMEOUT), record_latency))
    before = len(fake.public_history("channel"))
    fake.interaction_delay_ms = LATE_MS
    told = {}
    for user, command, options in (("bob", "undo", {}), (active, "game status", {"view": "closeup"})):
        asked = await fake.responses(await fake.send_slash(user, "channel", command, options),
                                     timeout=RESPONSE_TIMEOUT)
        assert asked.callback.body == {"type": 5, "data": {"flags": 64}}, asked.describe()
        assert asked.followups and all(f.ephemeral for f in asked.followups), asked.describe()
        assert not asked.original_deleted, asked.describe()
        told[command] = asked.followups[0]
    assert "You can only undo your own last action" in told["undo"].content   # alice started the game
    assert told["game status"].files   # the close-up, to its asker alone
    assert len(fake.public_history("channel")) == before   # nothing public, not even for a moment
    fake.interaction_delay_ms = 0
    assert_nothing_unexpected(fake, bot)
